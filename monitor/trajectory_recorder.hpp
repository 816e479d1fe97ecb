#pragma once
// Commits states step by step: the SHA-256 digest of the committed trajectory (design.md §2:
// every state of every committed step, in step order, as little-endian IEEE doubles) and
// trajectory.csv at the output interval. Flushed often enough that a failed run loses
// nothing it had committed.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "system/chain.hpp"

namespace kausal {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t bytes);
  // Hex digest of everything so far; the running digest can be continued afterwards.
  std::string hex() const;

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

class TrajectoryRecorder {
 public:
  // csv may be empty (no file). last_step is always written to the CSV.
  TrajectoryRecorder(const std::filesystem::path& csv, std::size_t pendulums,
                     std::uint64_t output_every, std::uint64_t last_step, double t0, double h);

  void commit(std::uint64_t step, std::span<const PendulumState> states);
  // The last committed step, if any.
  std::optional<std::uint64_t> last_committed() const { return last_; }
  std::string digest() const { return sha_.hex(); }
  void flush();

 private:
  void write_row(std::uint64_t step, std::span<const PendulumState> states);

  Sha256 sha_;
  std::ofstream csv_;
  std::uint64_t output_every_;
  std::uint64_t last_step_;
  double t0_, h_;
  std::optional<std::uint64_t> last_;
  std::string row_;
  std::chrono::steady_clock::time_point last_flush_;
};

}  // namespace kausal

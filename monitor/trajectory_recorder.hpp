#pragma once
// Commits states step by step: the SHA-256 digest of the committed trajectory (design.md §2:
// every state of every committed step, in step order, as little-endian IEEE doubles) and
// trajectory.csv at the output interval. Flushed often enough that a failed run loses
// nothing it had committed.
#include <array>
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
  // The running digest's midstate (checkpoint.json): the eight chaining words, the bytes
  // hashed so far and the bytes of the unfinished block. restore() continues it exactly.
  struct Midstate {
    std::array<std::uint32_t, 8> h{};
    std::uint64_t length = 0;  // bytes hashed so far
    std::string pending;       // the last length % 64 bytes, not yet compressed
  };
  Midstate midstate() const;
  // Throws InputError if the midstate is inconsistent (pending length vs. length).
  void restore(const Midstate& m);

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

// Where a recorder stands after committing a step: enough to continue it (checkpoint.json).
struct RecorderPosition {
  std::uint64_t step = 0;       // the last committed step
  Sha256::Midstate digest;      // of every committed state up to `step`
  std::uint64_t csv_bytes = 0;  // trajectory.csv up to and including `step`'s row, if any
};

class TrajectoryRecorder {
 public:
  // csv may be empty (no file). last_step is always written to the CSV.
  TrajectoryRecorder(const std::filesystem::path& csv, std::size_t pendulums,
                     std::uint64_t output_every, std::uint64_t last_step, double t0, double h);
  // Continues a recording at `from`: trajectory.csv is cut to from.csv_bytes (rows of
  // later steps, written before a crash, go) and appended to; the digest continues.
  // InputError if the file is shorter than that.
  TrajectoryRecorder(const std::filesystem::path& csv, const RecorderPosition& from,
                     std::uint64_t output_every, std::uint64_t last_step, double t0, double h);

  void commit(std::uint64_t step, std::span<const PendulumState> states);
  // The last committed step, if any.
  std::optional<std::uint64_t> last_committed() const { return last_; }
  std::string digest() const { return sha_.hex(); }
  void flush();
  // Flushes and says where the recording stands (after at least one commit).
  RecorderPosition position();

 private:
  void write_row(std::uint64_t step, std::span<const PendulumState> states);

  Sha256 sha_;
  std::ofstream csv_;
  std::uint64_t output_every_;
  std::uint64_t last_step_;
  double t0_, h_;
  std::optional<std::uint64_t> last_;
  std::string row_;
  std::uint64_t csv_bytes_ = 0;  // written to the CSV so far (checkpoints record it)
  std::chrono::steady_clock::time_point last_flush_;
};

}  // namespace kausal

#pragma once
// Commits states step by step: the SHA-256 digest of the committed trajectory (docs/model.md §2:
// every state of every committed step, in step order, as little-endian IEEE doubles) and
// trajectory.csv at the output interval. Hashing and formatting each cost about as much as
// stepping a cheap chain, so each runs on a thread of its own: commit() only copies the states
// into a block, and full blocks go to both writers (at most a few in flight, so memory stays
// bounded). digest(), flush() and position() wait for the writers first. Flushed often enough
// that a failed run loses nothing it had committed.
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/sha256.hpp"
#include "monitor/core/commit_observer.hpp"
#include "system/chain.hpp"

namespace kausal {

// Where a recorder stands after committing a step: enough to continue it (checkpoint.json).
struct RecorderPosition {
  std::uint64_t step = 0;       // the last committed step
  Sha256::Midstate digest;      // of every committed state up to `step`
  std::uint64_t csv_bytes = 0;  // trajectory.csv up to and including `step`'s row, if any
};

// Opens trajectory.csv to continue a recording: cuts it to `bytes` (rows written after the
// checkpoint, before a crash, go) and appends. InputError naming the file if it cannot.
std::ofstream continue_csv(const std::filesystem::path& csv, std::uint64_t bytes);

class TrajectoryRecorder final : public CommitObserver {
 public:
  // csv may be empty (no file). last_step is always written to the CSV.
  TrajectoryRecorder(const std::filesystem::path& csv, std::size_t pendulums,
                     std::uint64_t output_every, std::uint64_t last_step, double t0, double h);
  // Continues a recording at `from`: trajectory.csv is cut to from.csv_bytes (rows of
  // later steps, written before a crash, go) and appended to; the digest continues.
  // InputError if the file is shorter than that.
  TrajectoryRecorder(const std::filesystem::path& csv, const RecorderPosition& from,
                     std::uint64_t output_every, std::uint64_t last_step, double t0, double h);
  ~TrajectoryRecorder();
  TrajectoryRecorder(const TrajectoryRecorder&) = delete;
  TrajectoryRecorder& operator=(const TrajectoryRecorder&) = delete;

  // Steps come in order, each with the same number of states.
  void commit(std::uint64_t step, std::span<const PendulumState> states);
  // As an observer of a chain's run: every committed step; at the end, the run's digest.
  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t /*collisions*/) override {
    commit(step, states);
  }
  void finished(RunResult& r) override;
  // The last committed step, if any.
  std::optional<std::uint64_t> last_committed() const { return last_; }
  std::string digest();
  void flush();
  // Flushes and says where the recording stands (after at least one commit).
  RecorderPosition position();
  // Pins the thread that hashes to one CPU (monitor/sync/block_balance.hpp says why); false
  // if the system refuses.
  bool pin_digest_writer(int cpu);
  // The states of the last committed step (empty before the first), as they were committed
  // and hashed: a checkpoint takes them from here rather than copy every step itself.
  // Valid until the next commit.
  std::span<const PendulumState> last_states() const;

 private:
  // Consecutive committed steps, state after state.
  struct Block {
    std::uint64_t first_step = 0;
    std::uint64_t steps = 0;
    std::chrono::nanoseconds started{};  // when its first step was committed (coarse clock)
    std::vector<PendulumState> states;   // steps × states_per_step_
    int readers = 0;                     // writers that have not finished with it yet
  };
  // One writer thread and the blocks waiting for it.
  struct Writer {
    std::deque<Block*> queue;  // oldest first
    bool busy = false;         // holds a block it took from the queue
    std::thread thread;
  };
  enum class Output { digest, csv };

  void start_writers();
  void submit();  // hands the filling block to the writers
  void drain();   // waits until the writers have recorded every block; rethrows a failure
  void writer_loop(Output output);
  void record(Output output, const Block& block);  // on that writer's thread
  void write_rows(const Block& block);
  void format_row(std::uint64_t step, std::span<const PendulumState> states);  // into text_

  // Touched by the committing thread only.
  std::optional<std::uint64_t> last_;
  std::size_t states_per_step_ = 0;  // set by the first commit
  Block* filling_ = nullptr;
  // The block whose last states_per_step_ states are step last_'s: a block's states are
  // cleared when it is filled again, not when the writers are done with it.
  const Block* last_block_ = nullptr;
  std::uint64_t block_steps_ = 1;  // a block holds about 1 MiB of states

  // Touched by one writer only, or after drain(): the digest writer's, the CSV writer's.
  Sha256 sha_;
  std::filesystem::path csv_path_;
  std::ofstream csv_;
  std::uint64_t output_every_;
  std::uint64_t last_step_;
  double t0_, h_;
  std::string text_;             // the CSV rows of one block
  std::uint64_t csv_bytes_ = 0;  // written to the CSV so far (checkpoints record it)
  std::chrono::steady_clock::time_point last_flush_;

  // The hand-over between the threads.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Block>> blocks_;  // every block, free or not
  std::vector<Block*> spare_;                   // blocks no writer needs any more
  Writer writers_[2];                           // indexed by Output
  int writer_count_ = 1;                        // 2 if there is a CSV
  bool stopping_ = false;
  std::exception_ptr failure_;  // what went wrong on a writer thread
};

}  // namespace kausal

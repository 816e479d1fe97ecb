#pragma once
// Records the final steps of every partition as they arrive (in any interleaving): a
// SHA-256 per partition over its states in step order (little-endian doubles), combined in
// partition order into the run's digest, and trajectory.csv with one row per output time
// once every partition has reached it. Flushed as it goes: a failed run keeps what was
// final. An observer (the trace collector, the live animation) is told of every row.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "monitor/core/commit_observer.hpp"
#include "monitor/core/run_observer.hpp"
#include "monitor/record/trajectory_recorder.hpp"
#include "monitor/sync/delivered_steps.hpp"
#include "monitor/sync/partitioned_plan.hpp"

namespace kausal {

// Where a recording stands (checkpoint.json): per partition the steps recorded and its
// digest's midstate, the bytes of trajectory.csv, and the rows some partitions have filled.
struct PartitionedPosition {
  std::vector<std::uint64_t> recorded;
  std::vector<Sha256::Midstate> digests;
  std::uint64_t csv_bytes = 0;
  std::map<std::uint64_t, std::vector<double>> pending_rows;  // tick → t and every state
};

class PartitionedRecorder final : public CommitObserver {
 public:
  // csv may be empty (no file); keep_rows: also keep the rows in memory (tests).
  PartitionedRecorder(const std::filesystem::path& csv, const PartitionedScenario& s,
                      const PartitionedPlan& plan, bool keep_rows = false);
  // Continues a recording at `from`: trajectory.csv is cut to from.csv_bytes and appended to,
  // the digests continue. InputError if the position does not fit the scenario.
  PartitionedRecorder(const std::filesystem::path& csv, const PartitionedScenario& s,
                      const PartitionedPlan& plan, const PartitionedPosition& from);

  // From now on (nullptr: no longer; at the latest when the run has finished) tell `observer`
  // of every row of trajectory.csv as it is complete (RunObserver::committed: the tick,
  // every partition's states).
  void observe(RunObserver* observer) { observer_ = observer; }
  // Throws ProtocolError if the batch does not continue the partition's steps.
  void record(std::size_t partition, const StateBatch& batch);
  // As an observer of a partitioned run: every delivery; at the end, the run's digest.
  void delivered(std::size_t p, const StateBatch& batch, const RoutedSamples&) override {
    record(p, batch);
  }
  void finished(RunResult& r) override;
  // Steps recorded for a partition (its next expected step).
  std::uint64_t recorded(std::size_t partition) const { return steps_.next(partition); }
  // The last tick every partition has recorded (0 before each has recorded a step).
  std::uint64_t horizon() const { return steps_.horizon(); }
  std::string digest() const;
  // The same from the partitions' digest midstates (a checkpoint's).
  static std::string digest_of(const std::vector<Sha256::Midstate>& partitions);
  // t followed by every partition's states, per output time.
  const std::vector<std::vector<double>>& rows() const { return rows_; }
  void flush();
  // Flushes and says where the recording stands.
  PartitionedPosition position();

 private:
  void write_ready_rows();

  const PartitionedScenario& scenario_;
  std::vector<std::unique_ptr<Sha256>> sha_;
  DeliveredSteps steps_;
  std::vector<std::size_t> offsets_;  // of each partition's states in a row
  std::size_t row_width_ = 1;
  std::map<std::uint64_t, std::vector<double>> pending_;  // output index → row being filled
  std::map<std::uint64_t, std::size_t> filled_;           // output index → partitions in it
  std::ofstream csv_;
  std::uint64_t csv_bytes_ = 0;
  bool keep_rows_;
  std::vector<std::vector<double>> rows_;
  RunObserver* observer_ = nullptr;
};

}  // namespace kausal

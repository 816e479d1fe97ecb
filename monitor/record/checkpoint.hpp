#pragma once
// OUT/checkpoint.json: where a pendulum-chain run stands, kept on disk while it runs so that
// `kausal run --resume OUT` can continue it after a failure, an interrupt or a crash of the
// monitor and reach the digest of an uninterrupted run (docs/scenarios.md, "Resuming").
//
// The chain carries nothing from one step to the next but the pendulum states: the impact
// sweep is stateless, t_m = t0 + m·h is computed, never accumulated, and the steppers keep
// only what they re-create from the states (guarantee windows, optimistic tracks). So the
// states at the last committed step m, bit for bit, plus the digest's midstate and the CSV
// length are all a run needs to continue.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "monitor/record/trajectory_recorder.hpp"
#include "monitor/run/run_kind.hpp"
#include "system/chain.hpp"

namespace kausal {

// How the run was started: what changes the result or the protocol (a resume must keep it)
// and how its processes talked (a resume may change that).
struct RunSetup {
  std::string scenario;  // the scenario file as given; DIR/scenario.toml is its copy
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;  // conservative: step or lookahead
  RunLayout layout;                       // empty for sequential
  std::uint64_t batch = 0;                // optimistic, else 0
  std::uint64_t window = 0;               // optimistic, else 0
  bool check_guarantees = false;
  bool rollback_check = false;
  // Informational: a resume takes these from its own command line.
  std::string pin;
  unsigned call_timeout_ms = 0;
};

struct Checkpoint {
  RunSetup setup;
  std::string scenario_sha256;  // of DIR/scenario.toml, to notice an edited copy
  std::size_t pendulums = 0;
  std::uint64_t planned_steps = 0;
  double h = 0;
  std::vector<PendulumState> states;        // at recorder.step, bit for bit
  std::uint64_t collisions = 0;             // impacts up to recorder.step
  RecorderPosition recorder;                // the last committed step, digest midstate, CSV bytes
  std::vector<std::uint64_t> resumed_from;  // the steps this run was resumed from, in order

  std::uint64_t step() const { return recorder.step; }
};

inline constexpr const char* kCheckpointFile = "checkpoint.json";
inline constexpr const char* kScenarioCopy = "scenario.toml";

// Writes DIR/checkpoint.json atomically (a temporary file renamed over it), so that a crash
// leaves the previous checkpoint or the new one, never half of one. InputError if it cannot.
void write_checkpoint(const Checkpoint& c, const std::filesystem::path& dir);
// Reads and checks the format of DIR/checkpoint.json; InputError naming the file and field.
Checkpoint read_checkpoint(const std::filesystem::path& dir);

// Hex SHA-256 of a file's bytes.
std::string file_sha256(const std::filesystem::path& file);

// Keeps DIR/checkpoint.json up to date while a run commits steps: at most every `every` of
// wall time (and once at the end), each time after flushing trajectory.csv.
class Checkpointer {
 public:
  Checkpointer(std::filesystem::path dir, Checkpoint base,
               std::chrono::milliseconds every = std::chrono::seconds(1));
  // After every committed step: keeps a copy of the states (cheap) and writes a checkpoint
  // when one is due.
  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t collisions, TrajectoryRecorder& recorder);
  // Writes the last committed step whatever the time: at the end of a run, failed or not.
  void write_now(TrajectoryRecorder& recorder);

 private:
  std::filesystem::path dir_;
  Checkpoint c_;
  std::chrono::milliseconds every_;
  std::chrono::nanoseconds last_write_;  // on the coarse monotonic clock
  bool have_step_ = false;
};

}  // namespace kausal

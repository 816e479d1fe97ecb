#pragma once
// OUT/checkpoint.json: where a run stands, kept on disk while it runs so that `kausal run
// --resume OUT` can continue it after a failure, an interrupt or a crash of the monitor and
// reach the digest of an uninterrupted run (docs/scenarios.md, "Resuming").
//
// The chain carries nothing from one step to the next but the pendulum states: the impact
// sweep is stateless, t_m = t0 + m·h is computed, never accumulated, and the steppers keep
// only what they re-create from the states (guarantee windows, optimistic tracks). So the
// states at the last committed step m, bit for bit, plus the digest's midstate and the CSV
// length are all a run needs to continue.
//
// A partition carries more: its stepper's multistep memory, its event indicators and the
// input samples its hold polynomials reach back to. Each partition is kept at the last step
// the monitor recorded of it (the last step of a batch, which carries the memory and the
// indicators there), with the samples routed to it that steps after that may use; the
// recorder's position holds every partition's digest and the rows not yet complete.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <span>
#include <string>
#include <vector>

#include <optional>
#include <variant>

#include "monitor/core/commit_observer.hpp"
#include "monitor/core/master_point.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/record/partitioned_recorder.hpp"
#include "monitor/record/trajectory_recorder.hpp"
#include "monitor/sync/event_run.hpp"
#include "system/chain.hpp"

namespace kausal {

// How the run was started: what changes the result or the protocol (a resume must keep it)
// and how its processes talked (a resume may change that).
struct RunSetup {
  std::string scenario;  // the scenario file as given; DIR/scenario.toml is its copy
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;  // conservative: step or lookahead
  RunLayout layout;                       // empty for sequential
  std::uint32_t blocks = 0;               // layout blocks: how many, else 0
  std::uint64_t batch = 0;                // optimistic, else 0
  std::uint64_t window = 0;               // optimistic, else 0
  bool check_guarantees = false;
  bool rollback_check = false;
  double tolerance = 0;  // partitioned models, optimistic: the accepted prediction error
  // Informational: a resume takes these from its own command line.
  Pinning pin = Pinning::none;
  unsigned call_timeout_ms = 0;
  // Where the scenario's relative paths (FMUs, input tables) start, absolute: a resume run
  // from another directory finds them where the run did. Empty in older checkpoints.
  std::string scenario_dir = {};
  // The files the scenario reads besides itself (FMUs, input tables, model libraries):
  // (absolute path, SHA-256) each, as the run found them. Empty in older checkpoints.
  std::vector<std::pair<std::string, std::string>> files = {};
};

// A pendulum chain at its last committed step.
struct ChainPoint {
  std::size_t pendulums = 0;
  std::uint64_t planned_steps = 0;
  double h = 0;
  std::vector<PendulumState> states;  // at recorder.step, bit for bit
  std::uint64_t collisions = 0;       // impacts up to recorder.step
  RecorderPosition recorder;          // the last committed step, digest midstate, CSV bytes
};

// One partition at the last step the monitor recorded of it (PartitionedPosition::recorded − 1).
struct PartitionPoint {
  std::vector<double> x;
  StepperMemory memory;
  std::vector<double> indicators;
  Bytes internal;                      // the model's internal state (an FMU's), if any
  std::vector<ChannelHistory> inputs;  // per channel: the samples later steps may use
};

// A partitioned model: every partition, and where the recording stands; under the
// co-simulation master, every partition at the end of the same macro step and the master; a
// hybrid model, every partition at the tick of the same cut and the discrete side there.
struct PartitionedPoint {
  std::uint64_t planned_ticks = 0;
  double tick = 0;
  std::uint64_t horizon = 0;  // the last tick every partition has recorded (summary's steps)
  std::vector<PartitionPoint> partitions;
  PartitionedPosition recorder;
  std::optional<MasterPoint> master;
  std::optional<BridgePoint> bridge;
};

// A discrete-event model at a cut (integrator/events/event_cut.hpp): every event below
// the cut's time committed, none after it processed, with each component's running digest.
// Nothing else carries over: the groups are re-created from it, with any method.
struct EventPoint {
  double end = 0;  // the scenario's
  EventResumePoint at;
};

struct Checkpoint {
  RunSetup setup;
  std::string scenario_sha256;  // of DIR/scenario.toml, to notice an edited copy
  // The steps (ticks; for discrete events, the events committed) each resume started from.
  std::vector<std::uint64_t> resumed_from;
  std::variant<ChainPoint, PartitionedPoint, EventPoint> point;

  bool partitioned() const { return std::holds_alternative<PartitionedPoint>(point); }
  bool events() const { return std::holds_alternative<EventPoint>(point); }
  EventPoint& event_point() { return std::get<EventPoint>(point); }
  const EventPoint& event_point() const { return std::get<EventPoint>(point); }
  ChainPoint& chain() { return std::get<ChainPoint>(point); }
  const ChainPoint& chain() const { return std::get<ChainPoint>(point); }
  PartitionedPoint& partitions() { return std::get<PartitionedPoint>(point); }
  const PartitionedPoint& partitions() const { return std::get<PartitionedPoint>(point); }
  // The chain's last committed step; a partitioned model's horizon in ticks; the events a
  // discrete-event model has committed.
  std::uint64_t step() const;
};

inline constexpr const char* kCheckpointFile = "checkpoint.json";
inline constexpr const char* kScenarioCopy = "scenario.toml";

// Writes DIR/checkpoint.json atomically (a temporary file renamed over it), so that a crash
// leaves the previous checkpoint or the new one, never half of one. InputError if it cannot.
void write_checkpoint(const Checkpoint& c, const std::filesystem::path& dir);
// Reads and checks the format of DIR/checkpoint.json; InputError naming the file and field.
Checkpoint read_checkpoint(const std::filesystem::path& dir);
// The same for the text of a checkpoint read from `file` (what the fuzz target feeds).
Checkpoint parse_checkpoint(const std::string& text, const std::string& file);

// The digest of everything the checkpoint's run committed: at its end, the digest its
// summary reports (what `--resume` of a finished run prints when the summary is missing).
std::string checkpoint_digest(const Checkpoint& c);

// Keeps DIR/checkpoint.json up to date while a run commits steps: every `every` of wall time,
// or every quiet_factor times its writing time when that is longer (and once at the end),
// each time after flushing trajectory.csv. `every` = 0: at every chance, each written before
// the run goes on (what tests of resuming use). An observer of the run's commits, told after the
// recorder it follows.
class Checkpointer final : public CommitObserver {
 public:
  // A chain's run, recorded by `recorder`.
  Checkpointer(std::filesystem::path dir, Checkpoint base, TrajectoryRecorder& recorder,
               std::chrono::milliseconds every = std::chrono::seconds(1));
  // Where a partitioned run may be resumed from.
  enum class Points : std::uint8_t {
    any,          // wherever every partition has a recorded step
    macro_steps,  // under the co-simulation master: where a macro step was accepted
    bridge_cuts,  // a hybrid model: at a cut (wants_cut asks for one when one is due)
  };
  // A partitioned run of `plan`, recorded by `recorder`.
  Checkpointer(std::filesystem::path dir, Checkpoint base, PartitionedRecorder& recorder,
               const PartitionedPlan& plan, Points points = Points::any,
               std::chrono::milliseconds every = std::chrono::seconds(1));
  // Waits for a checkpoint still being written.
  ~Checkpointer() override;
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  // A chain, after every committed step: writes a checkpoint when one is due, with the
  // states the recorder committed (a copy of a long chain at every step would cost about as
  // much as stepping it).
  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t collisions) override;
  // A partitioned model, after recording partition p's batch and routing `routed` (per
  // consumer, the samples it was given): keeps p's last step and the samples each consumer
  // may still use, and writes a checkpoint when one is due (once every partition has one).
  void delivered(std::size_t p, const StateBatch& batch, const RoutedSamples& routed) override;
  // The master's run: every partition has delivered the macro step; the master is `master`.
  void macro_step_accepted(const MasterPoint& master) override;
  // A hybrid model: a cut is due (one would be written now).
  bool wants_cut() const override;
  void cut_reached(const BridgePoint& bridge) override;
  // The end of run r, failed or not: the last committed step is written. A checkpoint that
  // cannot be written fails the run (nothing could resume it), but the trajectory it
  // committed stays on disk.
  void finished(RunResult& r) override;
  // The steps (ticks) the run was resumed from, oldest first; empty for a fresh run.
  const std::vector<std::uint64_t>& resumed_from() const { return c_.resumed_from; }
  // Writes the last committed step whatever the time. Returns once it is on disk.
  void write_now();

 private:
  bool due();
  // The interval since the last write has passed (due() without taking it).
  bool interval_passed() const;
  // Every partition has recorded a step: a partitioned run can be resumed from here.
  bool resumable() const;
  // Drops the samples a partition resumed at resume_step would not use (amortised).
  static void forget_unneeded(const IntegratorConfig& config, std::uint64_t resume_step,
                              std::vector<ChannelHistory>& inputs);
  // write_checkpoint of a copy of the checkpoint, timed, on a thread of its own: the run
  // goes on while it is written (a chain of a million pendulums takes seconds); only the
  // first is written before the run goes on. One is written at a time; one that comes due while the
  // last is still being written waits for the next interval. A checkpoint that takes long to write
  // is written at most every quiet_factor times that long. A failed write is thrown by the next
  // store() or write_now().
  void store();
  // Waits for the checkpoint being written, if any, and throws its failure.
  void finish_writing();
  // Takes the recorder's position into the checkpoint; false if there is nothing to resume
  // from yet.
  bool take_position();
  static constexpr int quiet_factor = 20;

  std::filesystem::path dir_;
  Checkpoint c_;
  TrajectoryRecorder* chain_recorder_ = nullptr;  // a chain's, or
  PartitionedRecorder* partitioned_recorder_ = nullptr;
  const PartitionedPlan* plan_ = nullptr;  // a partitioned run's
  const Points points_ = Points::any;
  // Under the master or a hybrid model: deliveries since the last point it may resume from.
  bool past_point_ = false;
  std::chrono::milliseconds every_;
  std::chrono::nanoseconds last_write_;  // on the coarse monotonic clock
  std::atomic<std::chrono::nanoseconds::rep> last_write_took_{0};
  std::future<void> writing_;  // the checkpoint being written, if any
  bool stored_any_ = false;    // store() has written one
  bool have_step_ = false;     // the chain: a step has been committed in this process
};

}  // namespace kausal

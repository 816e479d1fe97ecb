#include "monitor/run/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <numeric>
#include <thread>

#include "common/sha256.hpp"
#include "monitor/core/stall_watch.hpp"
#include "monitor/deploy/local_deployment.hpp"
#include "monitor/record/checkpoint.hpp"
#include "monitor/record/collision_log.hpp"
#include "monitor/record/event_live_view.hpp"
#include "monitor/record/partitioned_recorder.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/record/view_layout.hpp"
#include "monitor/run/feasibility.hpp"
#include "monitor/run/injection_check.hpp"
#include "monitor/run/realtime_priority.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "monitor/sync/block_balance.hpp"
#include "monitor/sync/block_stepper.hpp"
#include "monitor/sync/chain_driver.hpp"
#include "monitor/sync/conservative.hpp"
#include "monitor/sync/cosim_master.hpp"
#include "monitor/sync/event_run.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/hybrid_coupling.hpp"
#include "monitor/sync/operator.hpp"
#include "monitor/sync/optimistic.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "monitor/sync/run_ahead_block_stepper.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

RunLayout layout_of(const RunSpec& spec) {
  return spec.method == SyncMethod::sequential ? RunLayout{} : RunLayout{spec.layout};
}

// What a resumed run takes over from its record of injections, pending from its start:
// every set (the checkpoint does not hold what an operator set, and setting it again gives
// the same value), the pushes at or after the checkpoint's step (one before it is in the
// checkpointed states already: an impulse must not be given twice), and no stop (a resume
// goes on past the stop that ended the run).
std::vector<Injection> carried_injections(const fs::path& record, std::uint64_t first) {
  if (!fs::exists(record)) return {};
  std::vector<Injection> carried;
  for (Injection& i : load_injections(record))
    if (i.kind == InjectionKind::set || (i.kind == InjectionKind::push && i.step >= first))
      carried.push_back(std::move(i));
  return carried;
}

// What a resume must keep of any run (checkpoint.json); each model kind adds its own.
// `scenario_dir`: where the scenario's relative paths start, if it knows (a resumed partitioned
// scenario keeps the first run's); else the directory of `scenario_file` seen from here.
RunSetup common_setup(const RunSpec& spec, const std::string& scenario_file,
                      const std::string& scenario_dir = {}) {
  RunSetup setup;
  setup.scenario = scenario_file;
  setup.scenario_dir = !scenario_dir.empty()   ? scenario_dir
                       : scenario_file.empty() ? std::string()
                                               : fs::absolute(scenario_file).parent_path().string();
  setup.method = spec.method;
  setup.guarantee = spec.guarantee;
  setup.layout = layout_of(spec);
  setup.blocks = in_blocks(spec.layout) ? spec.blocks : 0;
  setup.check_guarantees = spec.check_guarantees;
  setup.rollback_check = spec.rollback_check;
  setup.pin = spec.pin;
  setup.call_timeout_ms = spec.call_timeout_ms;
  return setup;
}

// --groups: at most one group per discrete-event component.
void check_groups(std::optional<std::uint32_t> groups, std::size_t components) {
  if (groups && *groups > components)
    throw InputError("command line: --groups " + std::to_string(*groups) +
                     " is more than the model's " + std::to_string(components) + " components");
}

// What the spec asks of its model kind, against the capability table: the command line
// checked it already, with its own words; this holds for every other caller.
void check_capabilities(const RunSpec& spec) {
  const RunShape shape = shape_of(spec);
  auto refuse_if = [&](std::optional<std::string> why, std::string_view asked) {
    if (why)
      throw InputError(scenario_file_of(spec.model) + ": " + std::string(asked) + " with " +
                       describe(shape) + ": " + *why);
  };
  refuse_if(refusal(shape), "the run");
  const bool resumed = std::visit([](const auto& m) { return m.resumed != nullptr; }, spec.model);
  const std::pair<bool, Service> services[] = {
      {spec.realtime.clock == ClockSource::wall, Service::paced},
      {spec.realtime.clock == ClockSource::external, Service::external_clock},
      {!spec.replayed.empty(), Service::replay},
      {resumed, Service::resume},
      {spec.rollback_check, Service::rollback_check}};
  for (const auto& [asked, service] : services)
    if (asked) refuse_if(refusal(shape, service), name_of(service));
  const std::pair<bool, Setting> settings[] = {{spec.check_guarantees, Setting::check_guarantees},
                                               {spec.window.has_value(), Setting::window},
                                               {spec.tolerance.has_value(), Setting::tolerance},
                                               {spec.groups.has_value(), Setting::groups}};
  for (const auto& [asked, setting] : settings)
    if (asked) refuse_if(refusal(shape, setting), name_of(setting));
}

// What differs between the model kinds: the coupling, its recorder, and what a result says
// about the model. Made before the run, it holds the recorder and the checkpointer.
class ModelRun {
 public:
  virtual ~ModelRun() = default;
  // A result that says what is run and nothing yet about how it went.
  virtual RunResult described() const = 0;
  // The coupling in this process, with no deployment: the sequential method, and the kinds
  // whose components run here (runs_here(): event groups on threads, blocks of pendulums on
  // lanes); `observer` (may be null) watches what commits.
  virtual RunResult sequential(RunControl& control, RunObserver* observer) = 0;
  // What a run that is not sequential places: its pairs (distributed() drives them), or,
  // for the kinds that run here, the components sequential() drives in processes (blocks
  // in block-processes:K, event groups in the process layout); empty: nothing.
  virtual ComponentPlan components() const = 0;
  // What the live view shows of the run.
  virtual ViewLayout view() const = 0;
  // The live view's feed (null without a view): `strips` as timelines, the deployment's
  // activity (null: nothing deployed), a paced run following its clock.
  virtual std::unique_ptr<LiveFeed> show(RunPlatform& platform, const std::string& label,
                                         const std::vector<std::string>& strips,
                                         Deployment* deployment) {
    return platform.show(view(), label, strips, deployment, clock());
  }
  // The coupling over the deployment's ports. The collector is finished on return: what it
  // reads of the monitor's own calls lives no longer than this call.
  virtual RunResult distributed(Deployment& deployment, RunControl& control,
                                TraceCollector& collector) = 0;
  // The steps (ticks) the run was resumed from, oldest first (its checkpoint.json).
  virtual std::vector<std::uint64_t> resumed_from() const = 0;
  // Its components run in this process whatever the method (sequential() runs them):
  // nothing is deployed.
  virtual bool runs_here() const { return false; }
  // The live view's strips of a run that runs here.
  virtual std::vector<std::string> strips_here() const { return {"sequential"}; }
  // Paced runs: the clock that releases the steps, the operator's injections and the
  // committed values an operator reads (null otherwise).
  StepClock* clock() { return clock_.get(); }
  Injections* injections() { return injections_.get(); }
  const Readout* readout() const { return readout_.get(); }

 protected:
  // A paced run's clock over steps first .. last − 1 of h seconds each, its injections at
  // those boundaries (recorded in OUT/injections.jsonl; a resumed run continues the record
  // and applies again what its checkpoint does not hold: carried_injections) and its readout
  // of `names` per unit. An unpaced resume with injections to carry gets a clock that
  // releases as fast as the run goes, step by step, as a replay does: they wait at their
  // steps.
  void pace(const RunSpec& spec, double h, std::uint64_t first, bool resumed,
            Injections::Boundaries at, std::vector<std::vector<std::string>> names,
            std::vector<std::uint64_t> ticks_per_step = {}) {
    const fs::path record = spec.out / "injections.jsonl";
    std::vector<Injection> pending = resumed ? carried_injections(record, first) : spec.replayed;
    RealtimeOptions pacing = spec.realtime;
    if (!pacing.paced()) {
      if (pending.empty()) return;
      pacing.clock = ClockSource::wall;
      pacing.factor = std::numeric_limits<double>::infinity();
      pacing.check_feasible = false;
    }
    clock_ = std::make_unique<StepClock>(pacing, h, first, at.last);
    injections_ =
        std::make_unique<Injections>(at, clock_.get(), record, std::move(pending), resumed);
    readout_ = std::make_unique<Readout>(std::move(names), 0.0, h, std::move(ticks_per_step));
  }

  std::unique_ptr<StepClock> clock_;
  std::unique_ptr<Injections> injections_;
  std::unique_ptr<Readout> readout_;
};

// Where a run's components go (its layout, CPUs and logs).
Placing placing_of(const RunSpec& spec, const std::vector<int>& cpus) {
  return {spec.layout, cpus, spec.out / "logs"};
}

// The names of a chain's values (trajectory.csv's columns).
std::vector<std::vector<std::string>> chain_names(const Scenario& s) {
  std::vector<std::string> names;
  for (std::size_t i = 1; i <= s.pendulums(); ++i) {
    names.push_back("phi_" + std::to_string(i));
    names.push_back("omega_" + std::to_string(i));
  }
  return {names};
}

// Per partition: its states, then its outputs.
std::vector<std::vector<std::string>> partition_names(const PartitionedPlan& plan) {
  std::vector<std::vector<std::string>> names = plan.state_names;
  for (std::size_t p = 0; p < names.size(); ++p)
    names[p].insert(names[p].end(), plan.output_names[p].begin(), plan.output_names[p].end());
  return names;
}

class ChainRun final : public ModelRun {
 public:
  ChainRun(const ChainModel& model, const RunSpec& spec, std::vector<int> cpus,
           RunPlatform& platform)
      : s_(*model.scenario),
        spec_(spec),
        platform_(platform),
        resumed_(model.resumed.get()),
        cpus_(std::move(cpus)),
        window_(spec.window.value_or(OptimisticOptions{}.window)),
        recorder_(open_recorder(s_, spec.out, resumed_)),
        checkpoints_(
            spec.out,
            resumed_ ? resumed_checkpoint(*resumed_) : fresh_checkpoint(s_, setup(), spec.out),
            *recorder_, spec.checkpoint_every),
        collision_log_(s_, spec.out / "collisions.csv", resumed_ != nullptr) {
    // A push changes the state at its step: the steps up to there are not affected.
    pace(spec, s_.h, from() ? from()->step : 0, from() != nullptr, {1, 0, s_.steps},
         chain_names(s_));
  }

  std::vector<std::uint64_t> resumed_from() const override { return checkpoints_.resumed_from(); }

  RunResult described() const override { return with_run_ahead(describe_run(s_, spec_.method)); }

  RunResult sequential(RunControl& control, RunObserver* observer) override {
    if (blocks()) return run_in_blocks(control, observer);
    SequentialStepper stepper(s_);
    return with_run_ahead(
        drive_chain(s_, spec_.method, stepper, commits(), control, options(observer, false)));
  }

  // Blocks of pendulums step on lanes of this process, or in processes of their own that
  // run_in_blocks places.
  bool runs_here() const override { return blocks(); }

  std::vector<std::string> strips_here() const override {
    if (!blocks()) return ModelRun::strips_here();
    std::vector<std::string> strips{"monitor"};
    for (std::uint32_t k = 1; k <= spec_.blocks; ++k) strips.push_back(block_name(k));
    return strips;
  }

  ComponentPlan components() const override {
    if (!blocks()) return {.pairs = chain_deployment(s_, spec_.rollback_check, from())};
    if (spec_.layout == Layout::block_processes)
      return {.blocks = block_deployment(s_, spec_.blocks, spec_.rollback_check)};
    return {};  // blocks on lanes of this process
  }

  ViewLayout view() const override { return chain_view(s_); }

  RunResult distributed(Deployment& deployment, RunControl& control,
                        TraceCollector& collector) override {
    std::unique_ptr<ChainStepper> stepper;
    if (spec_.method == SyncMethod::optimistic)
      stepper = std::make_unique<OptimisticStepper>(
          deployment, s_, OptimisticOptions{spec_.batch, window_}, from() ? from()->step : 0);
    else
      stepper = std::make_unique<ConservativeStepper>(
          deployment, s_,
          ConservativeOptions{spec_.guarantee, cpus_, ConservativeOptions{}.max_window,
                              injections_.get()});
    collector.add_local("monitor", ComponentRole::monitor, stepper->monitor_calls());
    const RunResult r = drive_chain(s_, spec_.method, *stepper, commits(), control,
                                    options(&collector, spec_.check_guarantees));
    collector.finish();
    return with_run_ahead(r);
  }

 private:
  const ChainStart* from() const { return resumed_ ? &resumed_->start : nullptr; }
  bool blocks() const { return spec_.method != SyncMethod::sequential && in_blocks(spec_.layout); }

  // The run in blocks, on threads of this process or each in a kausal-block process.
  RunResult run_in_blocks(RunControl& control, RunObserver* observer) {
    std::unique_ptr<Deployment> placed;  // outlives the stepper, whose ports call them
    BlockPorts ports;
    if (const ComponentPlan plan = components(); !plan.empty()) {
      placed = platform_.place(plan, placing_of(spec_, cpus_));
      ports = [&placed](std::size_t k, std::size_t first, std::size_t last) {
        return placed->blocks()->port(k, first, last);
      };
    }
    const std::vector<double> weights = ports ? std::vector<double>{} : place_the_hashing();
    std::unique_ptr<ChainStepper> stepper;
    if (spec_.method == SyncMethod::optimistic)
      stepper = std::make_unique<RunAheadBlockStepper>(
          s_, RunAheadBlockOptions{spec_.blocks, cpus_, window_, spec_.method, ports,
                                   spec_.rollback_check, weights});
    else if (spec_.guarantee == Guarantee::lookahead)
      stepper = std::make_unique<RunAheadBlockStepper>(
          s_, RunAheadBlockOptions{spec_.blocks, cpus_, ConservativeOptions{}.max_window,
                                   spec_.method, ports, spec_.rollback_check, weights});
    else
      stepper = std::make_unique<BlockStepper>(
          s_, BlockOptions{spec_.blocks, cpus_, ports, spec_.rollback_check, weights});
    RunResult r =
        drive_chain(s_, spec_.method, *stepper, commits(), control, options(observer, false));
    stepper.reset();  // (its threads call the blocks until they end)
    if (placed && r.status == RunStatus::failed) r.error += placed->post_mortem();
    // After a failure a hung block would never act on a polite shutdown: the destructor ends
    // every process by signal and reaps it.
    if (placed && r.completed()) placed->shutdown();
    return with_run_ahead(r);
  }

  DriveOptions options(RunObserver* observer, bool check_guarantees) {
    return {check_guarantees, observer, from(), clock_.get(), injections_.get()};
  }
  // Blocks on pinned threads of this process (block k on lane k % lanes, lane c on cpus_[c]):
  // the digest's hashing gets a CPU no lane uses, or else shares the last lane's, whose blocks
  // then get fewer pendulums (monitor/sync/block_balance.hpp). Returns the blocks' weights.
  std::vector<double> place_the_hashing() {
    const std::size_t lanes = std::min<std::size_t>(spec_.blocks, cpus_.size());
    if (cpus_.size() > lanes) {
      recorder_->pin_digest_writer(cpus_[lanes]);
      return {};
    }
    if (lanes < 2) return {};
    recorder_->pin_digest_writer(cpus_[lanes - 1]);
    return balanced_block_weights(spec_.blocks, lanes, digest_share(s_));
  }

  // Who is told of every committed step: the recorder first (the checkpointer takes its
  // position and states).
  CommitObservers commits() {
    return {recorder_.get(), &checkpoints_, readout_.get(), &collision_log_};
  }

  // An optimistic result says how far its Integrators ran ahead (batch and window), or its
  // blocks (the window their memory budget allows; they ship no batches).
  RunResult with_run_ahead(RunResult r) const {
    if (spec_.method == SyncMethod::optimistic && blocks()) {
      r.window = block_window(window_, s_.pendulums());
    } else if (spec_.method == SyncMethod::optimistic) {
      r.batch_size = spec_.batch;
      r.window = window_;
    }
    return r;
  }

  // What a resume must keep of the run (checkpoint.json).
  RunSetup setup() const {
    RunSetup setup = common_setup(spec_, s_.file);
    if (spec_.method == SyncMethod::optimistic) {
      setup.batch = spec_.batch;
      setup.window = window_;
    }
    return setup;
  }

  const Scenario& s_;
  const RunSpec& spec_;
  RunPlatform& platform_;
  const ResumedRun* resumed_;
  const std::vector<int> cpus_;
  const std::uint64_t window_;
  std::unique_ptr<TrajectoryRecorder> recorder_;
  Checkpointer checkpoints_;
  CollisionLog collision_log_;  // collisions.csv
};

class PartitionedRun final : public ModelRun {
 public:
  PartitionedRun(const PartitionedModel& model, const RunSpec& spec)
      : s_(unpacking_in(*model.scenario, spec.out / "fmu")),
        spec_(spec),
        resumed_(model.resumed.get()),
        mode_(mode_of(spec, s_)),
        plan_(planned(s_, mode_, resumed_)),
        recorder_(resumed_ ? PartitionedRecorder(spec.out / "trajectory.csv", s_, plan_,
                                                 resumed_->checkpoint.partitions().recorder)
                           : PartitionedRecorder(spec.out / "trajectory.csv", s_, plan_)),
        checkpoints_(
            spec.out,
            resumed_ ? resumed_checkpoint(*resumed_) : fresh_checkpoint(s_, setup(), spec.out),
            recorder_, plan_, checkpoint_points(s_), spec.checkpoint_every) {
    if (s_.bridge) check_groups(spec.groups, s_.bridge->built->components());
    std::vector<std::uint64_t> ticks_per_step;
    for (const IntegratorConfig& c : plan_.configs) ticks_per_step.push_back(c.ticks_per_step);
    pace(spec, s_.tick, recorder_.horizon(), resumed_ != nullptr, boundaries(),
         partition_names(plan_), std::move(ticks_per_step));
  }

  std::vector<std::uint64_t> resumed_from() const override { return checkpoints_.resumed_from(); }

  RunResult described() const override { return describe_partitioned_run(s_, spec_.method, mode_); }

  RunResult sequential(RunControl& control, RunObserver* observer) override {
    if (s_.master) {
      RunResult r;
      try {
        LocalDeployment in_turn(partitioned_deployment(s_, plan_));
        return unwatched(run_cosimulation(s_, SyncMethod::sequential, plan_, in_turn, control,
                                          watchers(observer), false, resumed_master()));
      } catch (const Error& e) {
        r = described();
        r.end_with(e);
      }
      return r;
    }
    if (s_.bridge) {
      try {
        LocalDeployment deployment(partitioned_deployment(s_, plan_));
        return unwatched(run_hybrid(s_, SyncMethod::sequential, 1, plan_, deployment, control,
                                    watchers(observer), resumed_bridge()));
      } catch (const Error& e) {
        RunResult r = described();
        r.end_with(e);
        return r;
      }
    }
    return unwatched(run_partitioned_sequential(s_, plan_, control, watchers(observer)));
  }

  ComponentPlan components() const override { return {.pairs = partitioned_deployment(s_, plan_)}; }

  ViewLayout view() const override { return partitioned_view(s_, plan_); }

  RunResult distributed(Deployment& deployment, RunControl& control,
                        TraceCollector& collector) override {
    const RunResult r = s_.master ? run_cosimulation(s_, spec_.method, plan_, deployment, control,
                                                     watchers(&collector), true, resumed_master())
                        : s_.bridge
                            ? run_hybrid(s_, spec_.method, hybrid_groups(), plan_, deployment,
                                         control, watchers(&collector), resumed_bridge())
                            : run_partitioned_distributed(s_, spec_.method, plan_, deployment,
                                                          control, watchers(&collector));
    collector.finish();
    return unwatched(r);
  }

 private:
  // Where the operator's changes may take effect. A change at tick k reaches the last stage
  // of the step that ends there (docs/realtime.md): no partition may have computed that step
  // yet. A partition computes its step from the step's start, so a change goes where every
  // partition's steps meet, one boundary ahead of the clock; the master computes a macro step
  // from its start too, so a change goes on its grid, its longest macro step ahead.
  Injections::Boundaries boundaries() const {
    if (!s_.master) return {common_ticks(plan_), 1, s_.ticks};
    const MasterSpec& m = *s_.master;
    return {m.grid_ticks, (m.max_ticks + m.grid_ticks - 1) / m.grid_ticks, s_.ticks};
  }

  // The recorder tells the observer its rows while the run lasts (unwatched: no longer) and
  // is told first of every delivery (the checkpointer takes its position).
  RunResult unwatched(RunResult r) {
    recorder_.observe(nullptr);
    return r;
  }
  PartitionedWatchers watchers(RunObserver* observer) {
    recorder_.observe(observer);
    return {observer,
            {&recorder_, &checkpoints_, readout_.get()},
            clock_.get(),
            injections_.get(),
            s_.bridge ? spec_.out / "bridge.csv" : std::filesystem::path()};
  }

  // A resumed master run: the master where its checkpoint was taken.
  const MasterPoint* resumed_master() const {
    if (!resumed_) return nullptr;
    const auto& master = resumed_->checkpoint.partitions().master;
    return master ? &*master : nullptr;
  }

  // A hybrid model's event groups in a conservative or optimistic run (a sequential one runs
  // its discrete side in one).
  std::uint32_t hybrid_groups() const { return spec_.groups.value_or(s_.bridge->groups); }

  // A resumed hybrid model's run: its discrete side where its checkpoint was taken.
  const BridgePoint* resumed_bridge() const {
    if (!resumed_) return nullptr;
    const auto& bridge = resumed_->checkpoint.partitions().bridge;
    return bridge ? &*bridge : nullptr;
  }

  // Where the run may be resumed from: the master's accepted macro steps, a hybrid model's
  // cuts, or wherever every partition has a recorded step.
  static Checkpointer::Points checkpoint_points(const PartitionedScenario& s) {
    return s.master   ? Checkpointer::Points::macro_steps
           : s.bridge ? Checkpointer::Points::bridge_cuts
                      : Checkpointer::Points::any;
  }

  // FMU members unpack into the run's directory (docs/fmi.md).
  static PartitionedScenario unpacking_in(const PartitionedScenario& s, const fs::path& root) {
    PartitionedScenario copy = s;
    copy.fmu_unpack_root = fs::absolute(root).string();
    return copy;
  }

  static PartitionedMode mode_of(const RunSpec& spec, const PartitionedScenario& s) {
    PartitionedMode mode;
    mode.speculate = spec.method == SyncMethod::optimistic;
    mode.tolerance = spec.tolerance.value_or(s.tolerance);
    mode.window = spec.window.value_or(PartitionedMode{}.window);
    mode.rollback_check = spec.rollback_check && spec.method != SyncMethod::sequential;
    return mode;
  }

  static PartitionedPlan planned(const PartitionedScenario& s, const PartitionedMode& mode,
                                 const ResumedPartitionedRun* resumed) {
    PartitionedPlan plan = plan_partitions(s, mode);
    if (resumed) resumed->apply_to(plan);
    // A hybrid model's partitions take their inputs final: their optimism is over events
    // (run_hybrid), never over each other's samples.
    return s.bridge ? in_turn(std::move(plan)) : plan;
  }

  // What a resume must keep of the run (checkpoint.json).
  RunSetup setup() const {
    RunSetup setup = common_setup(spec_, s_.file, s_.dir);
    for (const std::string& file : s_.files) setup.files.emplace_back(file, file_sha256(file));
    setup.rollback_check = mode_.rollback_check;
    if (spec_.method == SyncMethod::optimistic) {
      setup.window = mode_.window;
      setup.tolerance = mode_.tolerance;
    }
    return setup;
  }

  const PartitionedScenario s_;
  const RunSpec& spec_;
  const ResumedPartitionedRun* resumed_;
  const PartitionedMode mode_;
  const PartitionedPlan plan_;
  PartitionedRecorder recorder_;
  Checkpointer checkpoints_;
};

// Discrete-event components (docs/events.md): their event groups run on threads of this
// process (the single layout), exchanging events through mailboxes; sequential is one group
// on this thread. What they commit is recorded as per-component digests.
class EventsRun final : public ModelRun {
 public:
  EventsRun(const EventsModel& model, const RunSpec& spec, RunPlatform& platform,
            std::vector<int> cpus)
      : s_(*model.scenario),
        spec_(spec),
        platform_(platform),
        cpus_(std::move(cpus)),
        resumed_(model.resumed.get()) {
    check_groups(spec.groups, s_.built->components());
    checkpoint_ =
        resumed_ ? resumed_checkpoint(*resumed_) : fresh_checkpoint(s_, setup(), spec_.out);
    // Paced: the clock releases the run's thousandths (EventStretches' positions) one by one;
    // an operator may stop or pace it, or send an event, which takes effect at the released
    // time (no group processes an event at or after it before the next release).
    const double from = resumed_ ? resumed_->checkpoint.event_point().at.cut.time : 0.0;
    pace(spec, s_.end / EventStretches::kPositions, EventStretches::position_of(from, s_.end),
         resumed_ != nullptr, {1, 0, EventStretches::kPositions, 1}, {});
  }

  // Nothing is deployed through plan(): sequential() runs the groups, on threads here or,
  // in the process layout, as processes the platform starts.
  bool runs_here() const override { return true; }
  std::vector<std::uint64_t> resumed_from() const override { return checkpoint_.resumed_from; }

  RunResult described() const override {
    RunResult r;
    r.method = spec_.method;
    r.model = "events";
    r.scenario = s_.name;
    EventFigures e;
    e.model = s_.model;
    e.components = s_.built->components();
    e.groups = spec_.method == SyncMethod::sequential ? 1 : run_spec().groups;
    e.end = s_.end;
    if (resumed_) e.resumed_at = resumed_->checkpoint.event_point().at.cut.time;
    if (spec_.method == SyncMethod::optimistic) e.window = run_spec().window.value();
    r.events = e;
    return r;
  }

  RunResult sequential(RunControl& control, RunObserver* observer) override {
    const EventRunSpec spec = run_spec();
    std::optional<EventLiveView> view;
    if (observer) view.emplace(*observer, view_layout());
    EventProgressLog log;
    const EventWatch watch = [&](const EventProgress& p) {
      control.progress(static_cast<std::uint64_t>(1000 * p.committed_to / s_.end), 1000);
      if (view) view->show(p);
      log.add(p, monotonic_ns());
      return !control.stop_requested();
    };
    // Each cut is a checkpoint: `kausal run --resume` continues from the last one. A paced
    // run cuts at every release; it is written about every kCutSeconds, as an unpaced run's
    // cuts come, and once more at the end (nothing committed is lost).
    bool unwritten = false;
    auto written = std::chrono::steady_clock::time_point{};
    const EventCutSink keep = [&](const EventResumePoint& at) {
      checkpoint_.event_point().at = at;
      unwritten = true;
      const auto now = std::chrono::steady_clock::now();
      if (now - written < std::chrono::duration<double>(kCutSeconds)) return;
      write_checkpoint(checkpoint_, spec_.out);
      written = now;
      unwritten = false;
    };
    // In processes (the process layout), or on threads here.
    const ComponentPlan plan = components();
    const auto placed = plan.empty() ? nullptr : platform_.place(plan, placing_of(spec_, cpus_));
    const auto here = placed ? nullptr : event_groups_here(*s_.built, spec);
    EventStretches stretches(*s_.built, spec, placed ? *placed->event_groups() : *here, watch,
                             keep);
    RunResult r = execute(stretches, described(), control, {clock(), injections()});
    if (unwritten) write_checkpoint(checkpoint_, spec_.out);
    const EventRunResult& run = stretches.result();
    r.trajectory_sha256 = run.digest;
    fill(*r.events, run, run.committed_to);
    for (des::ComponentId c = 0; c < run.components.size(); ++c) {
      const des::ComponentFigures& f = run.components[c];
      r.events->per_component.push_back({s_.built->component_name(c), f.processed, f.committed,
                                         f.rolled_back, f.rollbacks, f.stragglers,
                                         f.anti_messages});
    }
    add_groups(r, run);
    for (std::size_t g = 0; g < r.components.size(); ++g)
      r.components[g].counters = log.counters(g);
    return r;
  }

  ComponentPlan components() const override {
    if (!in_processes()) return {};
    return {.event_groups = EventGroupsPlan{{*s_.built, s_.model, s_.parameters}, run_spec()}};
  }
  ViewLayout view() const override { return event_view(s_.name, view_layout()); }
  // The groups' counts as plots, no timelines; frames are the view's own ticks, not the
  // clock's thousandths.
  std::unique_ptr<LiveFeed> show(RunPlatform& platform, const std::string& label,
                                 const std::vector<std::string>&, Deployment*) override {
    return platform.show(view(), label, {}, nullptr, nullptr);
  }
  RunResult distributed(Deployment&, RunControl&, TraceCollector&) override {
    throw ProtocolError("monitor", "discrete-event components are not deployed");
  }

 private:
  bool in_processes() const {
    return spec_.method != SyncMethod::sequential && spec_.layout == Layout::process;
  }

  EventViewLayout view_layout() const {
    const std::uint32_t groups = spec_.method == SyncMethod::sequential ? 1 : run_spec().groups;
    return event_view_layout(*s_.built, spec_.method, groups, s_.end);
  }

  EventRunSpec run_spec() const {
    EventRunSpec e;
    e.method = spec_.method;
    e.groups = spec_.groups.value_or(s_.groups);
    e.end = s_.end;
    e.window = s_.window;
    if (!e.window) e.window = default_window(*s_.built);
    e.saving = s_.saving;
    e.cancellation = s_.cancellation;
    e.deadlock = s_.deadlock;
    e.batch = s_.batch;
    e.gvt_interval = s_.gvt_interval;
    e.rollback_check = spec_.rollback_check;
    e.cut_seconds = kCutSeconds;
    if (resumed_) e.from = &resumed_->checkpoint.event_point().at;
    return e;
  }

  // How the run was started: only the method and the layout (the scenario holds the rest;
  // the number of groups does not change what is committed).
  RunSetup setup() const { return common_setup(spec_, s_.file); }

  // Wall time between checkpoints, as for the other model kinds.
  static constexpr double kCutSeconds = 1.0;

  static void fill(EventFigures& e, const EventRunResult& run, double committed_to) {
    const des::ComponentFigures total = run.total();
    e.committed_to = committed_to;
    e.committed = total.committed;
    e.processed = total.processed;
    e.rolled_back = total.rolled_back;
    e.rollbacks = total.rollbacks;
    e.stragglers = total.stragglers;
    e.anti_messages = total.anti_messages;
    e.deadlocks = run.deadlocks;
    for (const auto& g : run.groups) {
      e.messages += g.messages;
      e.null_messages += g.null_messages;
      e.gvt_rounds += g.gvt_rounds;
      e.permits += g.permits;
      e.batches += g.batches;
      e.deferred_errors += g.deferred_errors;
      e.cleared_errors += g.cleared_errors;
      e.peak_uncommitted += g.peak_uncommitted;
    }
  }

  void add_groups(RunResult& r, const EventRunResult& run) const {
    const auto owner = contiguous_groups(s_.built->components(), r.events->groups);
    for (des::GroupId g = 0; g < run.groups.size(); ++g) {
      ComponentReport c;
      c.name =
          spec_.method == SyncMethod::sequential ? "sequential" : group_name(*s_.built, owner, g);
      c.role = spec_.method == SyncMethod::sequential ? ComponentRole::sequential
                                                      : ComponentRole::event_group;
      c.host = run.places.empty() ? local_host_name() : run.places[g].host;
      c.pid = run.places.empty() ? static_cast<long>(getpid()) : run.places[g].pid;
      if (!run.places.empty()) c.node = run.places[g].node;
      c.totals.idle_s = run.groups[g].blocked_seconds;
      for (const ActivitySpan& span : run.activity[g])
        if (span.kind == ActivityKind::rollback)
          c.totals.rollback_s += 1e-9 * static_cast<double>(span.end_ns - span.begin_ns);
      c.totals.busy_s =
          std::max(0.0, run.groups[g].wall_seconds - c.totals.idle_s - c.totals.rollback_s);
      c.spans = run.activity[g];
      c.dropped_spans = run.dropped_spans[g];
      r.components.push_back(std::move(c));
    }
  }

  const EventScenario& s_;
  const RunSpec& spec_;
  RunPlatform& platform_;
  std::vector<int> cpus_;
  const ResumedEventsRun* resumed_;
  Checkpoint checkpoint_;  // written at each cut
};

std::unique_ptr<ModelRun> model_run(const RunSpec& spec, const std::vector<int>& cpus,
                                    RunPlatform& platform) {
  if (const auto* chain = std::get_if<ChainModel>(&spec.model))
    return std::make_unique<ChainRun>(*chain, spec, cpus, platform);
  if (const auto* events = std::get_if<EventsModel>(&spec.model))
    return std::make_unique<EventsRun>(*events, spec, platform, cpus);
  return std::make_unique<PartitionedRun>(std::get<PartitionedModel>(spec.model), spec);
}

// ---- can a paced run keep up? ----

// A platform for the sequential probe, which deploys nothing.
class NoComponents final : public RunPlatform {
 public:
  std::unique_ptr<Deployment> place(const ComponentPlan&, const Placing&) override {
    throw ProtocolError("monitor", "a sequential run places no components");
  }
};

// The model from its start (a resumed run's scenario stands in for its own continuation).
RunModel fresh(const RunModel& model) {
  if (const auto* chain = std::get_if<ChainModel>(&model))
    return ChainModel{chain->scenario, nullptr};
  if (std::holds_alternative<EventsModel>(model)) return model;
  return PartitionedModel{std::get<PartitionedModel>(model).scenario, nullptr};
}

// An operator's set of a partitioned model's parameter or input runs the stability check of
// the start again, with the change made (at the start state: kausal analyze's view), and
// speaks of the partitions the change makes unstable (one stiff at the start already, an
// empty tank, was the run's to begin with). A run paced by the wall clock with the
// feasibility check refuses such a set, as it would have refused to start so; other runs take
// it and say so on their terminal.
// `before`: unstable_partitions at the start, judged once per run.
void check_stability_after(const RunSpec& spec, const std::vector<std::string>& before,
                           const Injection& i) {
  const auto* p = std::get_if<PartitionedModel>(&spec.model);
  if (!p || i.kind != InjectionKind::set) return;
  const std::size_t dot = i.target.find('.');
  const ModelChange change{i.target.substr(0, dot), i.target.substr(dot + 1), i.value, 0};
  std::string what;
  for (const std::string& u : unstable_partitions(*p->scenario, change)) {
    const std::string partition = u.substr(0, u.find(':') + 1);
    const bool already = std::any_of(before.begin(), before.end(), [&](const std::string& b) {
      return b.starts_with(partition);
    });
    if (!already) what += (what.empty() ? " " : "; ") + u;
  }
  if (what.empty()) return;
  what = "set " + i.target + " = " + format_number(i.value) + ":" + what;
  if (spec.realtime.clock == ClockSource::wall && spec.realtime.check_feasible &&
      !spec.realtime.for_view)
    throw InputError(what +
                     " (kausal analyze); refused, as the run's start would have been "
                     "(--skip-feasibility-check takes it)");
  std::cerr << "kausal: warning: " << what
            << ": its fastest modes grow with every step from here on\n";
}

// What a step costs to compute: the model's first steps run sequentially here, each timed
// by a clock that releases at once; and, for partitioned models, whether every partition is
// stable. The communication is measured later, on the deployment (measure_calls).
StepBudget probe_budget(const RunSpec& spec) {
  constexpr std::uint64_t probe_steps = 1000;
  StepBudget b;
  b.factor = spec.realtime.factor;
  RunSpec probe;
  probe.model = fresh(spec.model);
  probe.method = SyncMethod::sequential;
  probe.out = spec.out / ".feasibility";
  probe.trace.mode = TraceMode::off;
  probe.realtime.clock = ClockSource::wall;
  probe.realtime.factor = 1e15;  // every release already past: the steps run back to back
  probe.realtime.check_feasible = false;
  if (const auto* p = std::get_if<PartitionedModel>(&spec.model)) {
    b.h = p->scenario->tick;
    b.unstable = unstable_partitions(*p->scenario);
  } else {
    b.h = std::get<ChainModel>(spec.model).scenario->h;
  }
  NoComponents none;
  StopAt stop(probe_steps);
  const RunResult r = run(probe, none, stop);
  std::error_code ignored;
  fs::remove_all(probe.out, ignored);
  if (r.realtime) {
    b.compute_s = r.realtime->step_s.p99;
    b.measured = r.realtime->step_s.count;
  }
  if (spec.method == SyncMethod::sequential || r.steps == 0) return b;
  // Per step and component (they work in parallel): the monitor's exchange with it (an
  // advance or a batch; a partition's delivery and its samples), and in the process layout
  // each of its Calcs, a call to its System.
  const bool partitioned = std::holds_alternative<PartitionedModel>(spec.model);
  const double units =
      partitioned ? static_cast<double>(r.partitions.size()) : static_cast<double>(r.pendulums);
  const double calcs =
      static_cast<double>(r.calc_calls) / (static_cast<double>(r.steps) * std::max(1.0, units));
  b.calls_per_step = (partitioned ? 2 : 1) + (spec.layout == Layout::process ? calcs : 0);
  return b;
}

// A call's round trip to the deployment's components, as a paced run makes it: to a
// component that has been asleep since the last step (its wake-up is part of the cost). The
// 90th percentile of about 64 small calls spread over the components (at least 3 each), so
// that a large deployment does not wait longer before its first step.
double measure_calls(Deployment& deployment) {
  const std::size_t n = deployment.size();
  const std::size_t rounds = n == 0 ? 0 : std::max<std::size_t>(3, 64 / n);
  std::vector<double> took;
  for (std::size_t round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < n; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      const auto start = std::chrono::steady_clock::now();
      deployment.integrator(i).stats();
      took.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  std::sort(took.begin(), took.end());
  return took.empty() ? 0 : took[took.size() * 9 / 10];
}

// A wall-clock run's pace against its probe: refused when the run cannot keep up, unless
// the pace is --animate's, which is lowered to what the run keeps up with; said either way.
void settle_pace(const StepBudget& budget, const RunSpec& spec, StepClock& clock) {
  if (!spec.realtime.for_view) return require_feasible(budget);
  const double factor = pace_for_view(budget);
  if (factor != budget.factor) clock.pace(factor);
  std::cerr << "kausal: " << describe_view_pace(budget, factor) << "\n";
}

// Ends the live feed of a run: what it could not deliver is reported, never fatal.
void finish_feed(std::unique_ptr<LiveFeed>& feed, const RunResult& result) {
  if (!feed) return;
  const std::uint64_t dropped =
      feed->finish(to_string(result.status), result.wall_s, std::chrono::seconds(2));
  std::cerr << "kausal: animation: " << dropped << " frames dropped"
            << (feed->view_lost() ? " (the window was closed)" : "") << "\n";
  feed.reset();
}

// Closes the run's trace.json (opened before the first step; now if the run never got
// there) and writes summary.json, which reports what the trace holds. A trace that cannot
// be written still leaves the summary behind.
// A paced run's figures come from its clock and, split into compute and communication, from
// the spans the trace has seen (all of them once it is finished).
void write_run_files(std::optional<TraceFile>& trace, const RunSpec& spec, RunResult& result,
                     const StepClock* clock, StepTimings* work, const StallWatch::Record* machine) {
  std::optional<InputError> trace_error;
  try {
    if (!trace) trace.emplace(spec.out / "trace.json", spec.trace);
    trace->tap(work);
    trace->finish(result);
  } catch (const InputError& e) {
    trace_error = e;
  }
  // A sequential run does all its work in this thread: every step is compute.
  if (clock) {
    RealtimeFigures figures =
        clock->figures(spec.method == SyncMethod::sequential ? nullptr : work, machine);
    // (A run refused or failed before its first step has nothing to show.)
    if (figures.step_s.count > 0 || figures.ticks > 0) result.realtime = std::move(figures);
  }
  write_summary_json(result, spec.out / "summary.json");
  if (trace_error) throw *trace_error;
}

// The run itself, once its recorder and checkpointer are open.
// A paced run's stall watch (`watch`) runs from its first step on.
RunResult run_model(ModelRun& model, const RunSpec& spec, const std::vector<int>& cpus,
                    RunPlatform& platform, RunControl& control, std::optional<TraceFile>& trace,
                    StepTimings* work, std::optional<StallWatch>& watch) {
  if (!spec.replayed.empty() && !model.clock())
    throw InputError("a replay needs a paced run (a clock at any factor)");
  for (const Injection& i : spec.replayed) check_injection(spec.model, i);
  // Before anything is started: the processes forked and threads made from now on inherit it.
  std::optional<RealtimePriority> priority;
  if (model.clock() && spec.realtime.priority > 0) priority.emplace(spec.realtime.priority);
  // (A discrete-event run's work per step is its events there, which no first steps predict:
  // it is not probed; its overruns are counted.)
  std::optional<StepBudget> budget;
  if (spec.realtime.clock == ClockSource::wall && spec.realtime.check_feasible &&
      kind_of(spec.model) != ModelKind::events)
    budget = probe_budget(spec);
  // (After the priority, which would otherwise lower the watch's to the run's.)
  if (model.clock() && spec.realtime.paced()) watch.emplace();
  const std::string label = spec.label();
  std::unique_ptr<LiveFeed> feed;
  RunResult result;
  // The partitions unstable at the start (the probe's, when it judged them): a set speaks
  // only of those it adds. (Declared before the operator, whose check refers to it.)
  std::vector<std::string> unstable_at_start;
  if (const auto* p = std::get_if<PartitionedModel>(&spec.model); p && model.clock())
    unstable_at_start = budget ? budget->unstable : unstable_partitions(*p->scenario);
  // A paced run's clock (to outside tickers) and operator, served while the run lasts.
  std::optional<Operator> op;
  std::shared_ptr<void> served_clock, served_operator;
  if (model.clock() && spec.realtime.clock == ClockSource::external)
    served_clock = platform.serve_clock(*model.clock(), spec.out);
  if (model.clock()) {
    op.emplace(
        [&spec, &unstable_at_start](const Injection& i) {
          check_injection(spec.model, i);
          check_stability_after(spec, unstable_at_start, i);
        },
        *model.injections(), *model.readout(), *model.clock());
    served_operator = platform.serve_operator(*op, spec.out);
  }
  if (spec.method == SyncMethod::sequential || model.runs_here()) {
    if (budget) settle_pace(*budget, spec, *model.clock());
    trace.emplace(spec.out / "trace.json", spec.trace);  // its origin: the first step
    trace->tap(work);
    feed = model.show(platform, label, model.strips_here(), nullptr);
    result = model.sequential(control, feed.get());
    finish_feed(feed, result);
    return result;
  }
  const auto deployment = platform.place(model.components(), placing_of(spec, cpus));
  if (budget) {
    budget->call_s = measure_calls(*deployment);
    settle_pace(*budget, spec, *model.clock());
  }
  std::vector<std::string> strips{"monitor"};
  for (auto& name : deployment->component_names()) strips.push_back(std::move(name));
  feed = model.show(platform, label, strips, deployment.get());
  trace.emplace(spec.out / "trace.json", spec.trace);
  trace->tap(work);
  trace->track("monitor", ComponentRole::monitor, local_host_name(), static_cast<long>(getpid()));
  TraceCollector collector(*trace, feed.get());  // streams trace.json as the run goes
  for (auto& source : deployment->trace_sources()) collector.add(std::move(source));
  result = model.distributed(*deployment, control, collector);
  finish_feed(feed, result);
  result.placement = spec.pin;
  if (result.status == RunStatus::failed) result.error += deployment->post_mortem();
  // After a failure a hung peer would never act on a polite shutdown: the deployment's
  // destructor ends every child by signal and reaps it.
  if (result.completed()) deployment->shutdown();
  return result;
}

}  // namespace

RunModel resumed_model(ResumedRun resumed) {
  auto run = std::make_shared<const ResumedRun>(std::move(resumed));
  return ChainModel{std::shared_ptr<const Scenario>(run, &run->scenario), run};
}

RunModel resumed_model(ResumedPartitionedRun resumed) {
  auto run = std::make_shared<const ResumedPartitionedRun>(std::move(resumed));
  return PartitionedModel{std::shared_ptr<const PartitionedScenario>(run, &run->scenario), run};
}

RunModel resumed_model(ResumedEventsRun resumed) {
  auto run = std::make_shared<const ResumedEventsRun>(std::move(resumed));
  return EventsModel{std::shared_ptr<const EventScenario>(run, &run->scenario), run};
}

std::string method_dir(SyncMethod method, Guarantee guarantee) {
  std::string d = method_label(method, guarantee);
  std::replace(d.begin(), d.end(), '/', '-');
  return d;
}

std::string scenario_file_of(const RunModel& model) {
  return std::visit([](const auto& m) { return m.scenario->file; }, model);
}

ModelKind kind_of(const RunModel& model) {
  if (const auto* p = std::get_if<PartitionedModel>(&model))
    return p->scenario->master   ? ModelKind::master
           : p->scenario->bridge ? ModelKind::hybrid
                                 : ModelKind::partitioned;
  return std::holds_alternative<EventsModel>(model) ? ModelKind::events : ModelKind::chain;
}

RunShape shape_of(const RunSpec& spec) {
  return {kind_of(spec.model), spec.method, spec.guarantee, layout_of(spec)};
}

RunResult run(const RunSpec& spec, RunPlatform& platform, RunControl& control) {
  check_capabilities(spec);
  std::error_code made;
  fs::create_directories(spec.out, made);
  if (made) throw InputError(spec.out.string() + ": cannot create it: " + made.message());
  const bool sequential = spec.method == SyncMethod::sequential;
  const std::vector<int> cpus =
      spec.pin == Pinning::cores && !sequential ? available_cpus() : std::vector<int>{};
  const auto model = model_run(spec, cpus, platform);  // opens trajectory.csv and the checkpoint
  // Paced runs: the components' work per step, fed by the trace (declared before it).
  StepTimings timings;
  StepTimings* work = model->clock() ? &timings : nullptr;
  std::optional<TraceFile> trace;
  std::optional<StallWatch> watch;
  RunResult result;
  try {
    result = run_model(*model, spec, cpus, platform, control, trace, work, watch);
  } catch (const Error& e) {
    result = model->described();
    result.end_with(e);
  }
  const std::optional<StallWatch::Record> machine =
      watch ? std::optional(watch->finish()) : std::nullopt;
  result.guarantee = spec.guarantee;
  result.layout = layout_of(spec);
  if (result.layout && in_blocks(*result.layout)) result.blocks = spec.blocks;
  if (!spec.deployment_file.empty() && !sequential) result.deployment = spec.deployment_file;
  result.resumed_from = model->resumed_from();
  write_run_files(trace, spec, result, model->clock(), work, machine ? &*machine : nullptr);
  return result;
}

}  // namespace kausal

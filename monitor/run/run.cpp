#include "monitor/run/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "monitor/record/checkpoint.hpp"
#include "monitor/record/partitioned_recorder.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/sync/chain_driver.hpp"
#include "monitor/sync/conservative.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/optimistic.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

RunLayout layout_of(const RunSpec& spec) {
  return spec.method == SyncMethod::sequential ? RunLayout{} : RunLayout{spec.layout};
}

// What differs between the model kinds: the coupling, its recorder, and what a result says
// about the model. Made before the run, it holds the recorder and the checkpointer.
class ModelRun {
 public:
  virtual ~ModelRun() = default;
  // A result that says what is run and nothing yet about how it went.
  virtual RunResult described() const = 0;
  // The coupling in this thread; `observer` (may be null) watches what commits.
  virtual RunResult sequential(RunControl& control, RunObserver* observer) = 0;
  virtual DeploymentPlan plan() const = 0;
  virtual std::unique_ptr<LiveFeed> show(RunPlatform& platform, const std::string& label,
                                         const std::vector<std::string>& strips,
                                         Deployment* deployment) = 0;
  // The coupling over the deployment's ports. The collector is finished on return: what it
  // reads of the monitor's own calls lives no longer than this call.
  virtual RunResult distributed(Deployment& deployment, RunControl& control,
                                TraceCollector& collector) = 0;
  // Keeps checkpoint.json: a fresh run's, or a resumed one's continued.
  virtual const Checkpointer& checkpoints() const = 0;
  // Paced runs: the clock that releases the steps (null otherwise).
  virtual StepClock* clock() = 0;
};

// The clock of a paced run over steps first .. last − 1 of h seconds each; null unpaced.
std::unique_ptr<StepClock> clock_for(const RunSpec& spec, double h, std::uint64_t first,
                                     std::uint64_t last) {
  if (!spec.realtime.paced()) return nullptr;
  return std::make_unique<StepClock>(spec.realtime, h, first, last);
}

class ChainRun final : public ModelRun {
 public:
  ChainRun(const ChainModel& model, const RunSpec& spec, std::vector<int> cpus)
      : s_(*model.scenario),
        spec_(spec),
        resumed_(model.resumed.get()),
        cpus_(std::move(cpus)),
        window_(spec.window.value_or(OptimisticOptions{}.window)),
        recorder_(open_recorder(s_, spec.out, resumed_)),
        checkpoints_(spec.out, resumed_ ? resumed_checkpoint(*resumed_)
                                        : fresh_checkpoint(s_, setup(), spec.out)),
        clock_(clock_for(spec, s_.h, from() ? from()->step : 0, s_.steps)) {}

  const Checkpointer& checkpoints() const override { return checkpoints_; }
  StepClock* clock() override { return clock_.get(); }

  RunResult described() const override { return with_run_ahead(describe_run(s_, spec_.method)); }

  RunResult sequential(RunControl& control, RunObserver* observer) override {
    SequentialStepper stepper(s_);
    return with_run_ahead(
        drive_chain(s_, spec_.method, stepper, *recorder_, control, options(observer, false)));
  }

  DeploymentPlan plan() const override {
    return chain_deployment(s_, spec_.rollback_check, from());
  }

  std::unique_ptr<LiveFeed> show(RunPlatform& platform, const std::string& label,
                                 const std::vector<std::string>& strips,
                                 Deployment* deployment) override {
    return platform.show(s_, label, strips, deployment);
  }

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
                              clock_.get()});
    collector.add_local("monitor", ComponentRole::monitor, stepper->monitor_calls());
    const RunResult r = drive_chain(s_, spec_.method, *stepper, *recorder_, control,
                                    options(&collector, spec_.check_guarantees));
    collector.finish();
    return with_run_ahead(r);
  }

 private:
  const ChainStart* from() const { return resumed_ ? &resumed_->start : nullptr; }

  DriveOptions options(RunObserver* observer, bool check_guarantees) {
    return {check_guarantees, observer, from(), &checkpoints_, clock_.get()};
  }

  // An optimistic result says how far its Integrators ran ahead (batch and window).
  RunResult with_run_ahead(RunResult r) const {
    if (spec_.method == SyncMethod::optimistic) {
      r.batch_size = spec_.batch;
      r.window = window_;
    }
    return r;
  }

  // What a resume must keep of the run (checkpoint.json).
  RunSetup setup() const {
    const bool optimistic = spec_.method == SyncMethod::optimistic;
    return {s_.file,
            spec_.method,
            spec_.guarantee,
            layout_of(spec_),
            optimistic ? spec_.batch : 0,
            optimistic ? window_ : 0,
            spec_.check_guarantees,
            spec_.rollback_check,
            0.0,
            spec_.pin,
            spec_.call_timeout_ms};
  }

  const Scenario& s_;
  const RunSpec& spec_;
  const ResumedRun* resumed_;
  const std::vector<int> cpus_;
  const std::uint64_t window_;
  std::unique_ptr<TrajectoryRecorder> recorder_;
  Checkpointer checkpoints_;
  std::unique_ptr<StepClock> clock_;
};

class PartitionedRun final : public ModelRun {
 public:
  PartitionedRun(const PartitionedModel& model, const RunSpec& spec)
      : s_(*model.scenario),
        spec_(spec),
        resumed_(model.resumed.get()),
        mode_(mode_of(spec, s_)),
        plan_(planned(s_, mode_, resumed_)),
        recorder_(resumed_ ? PartitionedRecorder(spec.out / "trajectory.csv", s_, plan_,
                                                 resumed_->checkpoint.partitions().recorder)
                           : PartitionedRecorder(spec.out / "trajectory.csv", s_, plan_)),
        checkpoints_(spec.out, resumed_ ? resumed_checkpoint(*resumed_)
                                        : fresh_checkpoint(s_, setup(), spec.out)),
        clock_(clock_for(spec, s_.tick, recorder_.horizon(), s_.ticks)) {}

  const Checkpointer& checkpoints() const override { return checkpoints_; }
  StepClock* clock() override { return clock_.get(); }

  RunResult described() const override { return describe_partitioned_run(s_, spec_.method, mode_); }

  RunResult sequential(RunControl& control, RunObserver* observer) override {
    return run_partitioned_sequential(s_, plan_, recorder_, control,
                                      {observer, &checkpoints_, clock_.get()});
  }

  DeploymentPlan plan() const override { return partitioned_deployment(s_, plan_); }

  std::unique_ptr<LiveFeed> show(RunPlatform& platform, const std::string& label,
                                 const std::vector<std::string>& strips,
                                 Deployment* deployment) override {
    return platform.show(s_, plan_, label, strips, deployment);
  }

  RunResult distributed(Deployment& deployment, RunControl& control,
                        TraceCollector& collector) override {
    const RunResult r =
        run_partitioned_distributed(s_, spec_.method, plan_, deployment, recorder_, control,
                                    {&collector, &checkpoints_, clock_.get()});
    collector.finish();
    return r;
  }

 private:
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
    return plan;
  }

  // What a resume must keep of the run (checkpoint.json).
  RunSetup setup() const {
    const bool optimistic = spec_.method == SyncMethod::optimistic;
    return {s_.file,
            spec_.method,
            Guarantee::none,
            layout_of(spec_),
            0,
            optimistic ? mode_.window : 0,
            false,
            mode_.rollback_check,
            optimistic ? mode_.tolerance : 0.0,
            spec_.pin,
            spec_.call_timeout_ms};
  }

  const PartitionedScenario& s_;
  const RunSpec& spec_;
  const ResumedPartitionedRun* resumed_;
  const PartitionedMode mode_;
  const PartitionedPlan plan_;
  PartitionedRecorder recorder_;
  Checkpointer checkpoints_;
  std::unique_ptr<StepClock> clock_;
};

std::unique_ptr<ModelRun> model_run(const RunSpec& spec, const std::vector<int>& cpus) {
  if (const auto* chain = std::get_if<ChainModel>(&spec.model))
    return std::make_unique<ChainRun>(*chain, spec, cpus);
  return std::make_unique<PartitionedRun>(std::get<PartitionedModel>(spec.model), spec);
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
                     const StepClock* clock, StepTimings& work) {
  std::optional<InputError> trace_error;
  try {
    if (!trace) trace.emplace(spec.out / "trace.json", spec.trace);
    trace->tap(&work);
    trace->finish(result);
  } catch (const InputError& e) {
    trace_error = e;
  }
  // A sequential run does all its work in this thread: every step is compute.
  if (clock)
    result.realtime = clock->figures(spec.method == SyncMethod::sequential ? nullptr : &work);
  write_summary_json(result, spec.out / "summary.json");
  if (trace_error) throw *trace_error;
}

// The run itself, once its recorder and checkpointer are open.
RunResult run_model(ModelRun& model, const RunSpec& spec, const std::vector<int>& cpus,
                    RunPlatform& platform, RunControl& control, std::optional<TraceFile>& trace,
                    StepTimings& work) {
  const std::string label = spec.label();
  std::unique_ptr<LiveFeed> feed;
  RunResult result;
  std::shared_ptr<void> served;  // the clock, served to outside tickers while the run lasts
  if (model.clock() && spec.realtime.clock == ClockSource::external)
    served = platform.serve_clock(*model.clock(), spec.out);
  if (spec.method == SyncMethod::sequential) {
    trace.emplace(spec.out / "trace.json", spec.trace);  // its origin: the first step
    trace->tap(&work);
    feed = model.show(platform, label, {"sequential"}, nullptr);
    result = model.sequential(control, feed.get());
    finish_feed(feed, result);
    return result;
  }
  const auto deployment = platform.deploy(model.plan(), {spec.layout, cpus, spec.out / "logs"});
  std::vector<std::string> strips{"monitor"};
  for (auto& name : deployment->component_names()) strips.push_back(std::move(name));
  feed = model.show(platform, label, strips, deployment.get());
  trace.emplace(spec.out / "trace.json", spec.trace);
  trace->tap(&work);
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

std::string method_dir(SyncMethod method, Guarantee guarantee) {
  std::string d = method_label(method, guarantee);
  std::replace(d.begin(), d.end(), '/', '-');
  return d;
}

RunResult run(const RunSpec& spec, RunPlatform& platform, RunControl& control) {
  std::error_code made;
  fs::create_directories(spec.out, made);
  if (made) throw InputError(spec.out.string() + ": cannot create it: " + made.message());
  const bool sequential = spec.method == SyncMethod::sequential;
  const std::vector<int> cpus =
      spec.pin == Pinning::cores && !sequential ? available_cpus() : std::vector<int>{};
  const auto model = model_run(spec, cpus);  // opens trajectory.csv and the checkpoint
  StepTimings work;                          // (before the trace, which feeds it)
  std::optional<TraceFile> trace;
  RunResult result;
  try {
    result = run_model(*model, spec, cpus, platform, control, trace, work);
  } catch (const Error& e) {
    result = model->described();
    result.end_with(e);
  }
  result.guarantee = spec.guarantee;
  result.layout = layout_of(spec);
  if (!spec.deployment_file.empty() && !sequential) result.deployment = spec.deployment_file;
  result.resumed_from = model->checkpoints().resumed_from();
  write_run_files(trace, spec, result, model->clock(), work);
  return result;
}

}  // namespace kausal

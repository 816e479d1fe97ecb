// kausal_bench: the figures of docs/performance.md, all measured in one run of this binary.
//   - round trip of a null CORBA call between two local processes
//   - the same with caller and callee pinned to one CPU
//   - wall time of one conservative step, N = 5, one process per component, both placements
//   - sequential pendulum-steps per second (step + collision checks), N = 5 and N = 32
//   - one step of each OdeMethod on a 5-state turbogenerator (docs/benchmarks.md C), for "DRE0
//   costs
//     about N× Euler per step" (Clemens: about 12×)
// Prints Google Benchmark's table, then the derived figures (ratios within this run).
#include <benchmark/benchmark.h>
#include <pthread.h>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "idl/kausal.hh"
#include "integrator/ode_method.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/deploy/process_deployment.hpp"
#include "monitor/sync/chain_driver.hpp"
#include "monitor/sync/conservative.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/lookahead.hpp"
#include "monitor/sync/sequential.hpp"
#include "system/composite_model.hpp"

namespace fs = std::filesystem;
using namespace kausal;

namespace {

fs::path bin_dir() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

Scenario scenario(const std::string& name) {
  Scenario s = load_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name);
  s.steps = 1'000'000'000;  // never run out while the benchmark iterates
  return s;
}

OrbRuntime& orb() {
  static OrbRuntime runtime([] {
    OrbSettings s;
    s.serve = false;  // conservative runs only: nothing calls the bench process
    s.call_timeout_ms = 10000;
    return s;
  }());
  return runtime;
}

fs::path scratch() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "kausal-bench-XXXXXX").string();
    return fs::path(mkdtemp(tmpl.data()));
  }();
  return dir;
}

// Steps the chain (step + impacts, the driver's own per-step code), restarting from the
// initial state every `restart` steps so that long benchmarks stay physically sane.
void BM_Sequential(benchmark::State& state, const std::string& file) {
  const Scenario s = scenario(file);
  SequentialStepper stepper(s);
  ImpactSweep sweep(s.chain);
  std::vector<PendulumState> x = s.initial;
  std::uint64_t m = 0;
  for (auto _ : state) {
    step_chain(stepper, sweep, m, x);
    if (++m == 20'000) {
      m = 0;
      x = s.initial;
    }
  }
  benchmark::DoNotOptimize(x.data());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.pendulums()));
  state.counters["pendulums"] = static_cast<double>(s.pendulums());
}
BENCHMARK_CAPTURE(BM_Sequential, thesis_N5, std::string("thesis.toml"));
BENCHMARK_CAPTURE(BM_Sequential, large_N32, std::string("large.toml"));

// A long row like large.toml's (pivots 0.13–0.21 m apart, strings about 1 m, so every bob can
// reach about a dozen others), swinging at random: the states of one step.
struct Row {
  ChainSpec chain;
  std::vector<PendulumState> states;
};

Row swinging_row(std::size_t n) {
  std::mt19937_64 rng(5);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  Row row;
  double x = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double radius = u(0.06, 0.1);
    if (i > 0) x += row.chain.pendulums.back().radius + radius + u(0.0, 0.05);
    row.chain.pendulums.push_back({x, u(0.9, 1.1), u(0.6, 1.4), radius, 0.0, 9.81});
    row.states.push_back({u(-0.05, 0.05), u(-0.3, 0.3)});
  }
  return row;
}

// The contact phase of one step (broad phase, exact tests, impacts) on a row of N bobs; the
// cost per bob should not grow with N.
void BM_ContactSweep(benchmark::State& state) {
  const Row row = swinging_row(static_cast<std::size_t>(state.range(0)));
  ImpactSweep sweep(row.chain);
  std::vector<PendulumState> x = row.states;
  std::uint64_t impacts = 0;
  for (auto _ : state)
    impacts += sweep.resolve(x, 1, [&](const BobPair& pair, const Impact& impact) {
      apply_pendulum_impulse(row.chain.pendulums[pair.i], impact.left_impulse, x[pair.i].data());
      apply_pendulum_impulse(row.chain.pendulums[pair.j], impact.right_impulse, x[pair.j].data());
    });
  benchmark::DoNotOptimize(impacts);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["candidates"] = static_cast<double>(sweep.candidates(x).size());
}
BENCHMARK(BM_ContactSweep)->Arg(32)->Arg(1000)->Arg(100'000);

// The lookahead's window for every pair within reach, from a row at rest with small gaps: the
// cost of one grant, per bob.
void BM_LookaheadGrant(benchmark::State& state) {
  Row row = swinging_row(static_cast<std::size_t>(state.range(0)));
  for (auto& x : row.states) x = {0, 0};
  const std::vector<BobPair> pairs = pairs_within_reach(row.chain);
  std::uint64_t window = 0;
  for (auto _ : state)
    window += safe_free_steps(row.chain, pairs, OdeMethod::euler, 1e-3, row.states, 100);
  benchmark::DoNotOptimize(window);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["pairs"] = static_cast<double>(pairs.size());
}
BENCHMARK(BM_LookaheadGrant)->Arg(32)->Arg(100'000);

// same_core: caller and callee pinned to one CPU (what a pinned chain's hops cost);
// otherwise both placed by the OS (the default "round trip between two local processes").
void BM_CorbaNullCall(benchmark::State& state, bool same_core) {
  const int cpu = same_core ? available_cpus().front() : -1;
  const std::string socket = (scratch() / ("ping-" + std::to_string(same_core))).string();
  ChildProcess child("system-ping", bin_dir() / "kausal-system",
                     {"--name", "system-ping", "--unix-socket", socket}, scratch() / "ping.log",
                     cpu);
  cpu_set_t before;
  pthread_getaffinity_np(pthread_self(), sizeof before, &before);
  if (same_core) pin_current_thread(cpu);
  const auto ior = child.read_line(std::chrono::seconds(10));
  if (!ior) {
    state.SkipWithError("kausal-system did not start");
    return;
  }
  CORBA::Object_var obj = orb().resolve(*ior);
  idl::Participant_var component = idl::Participant::_narrow(obj);
  component->ping();  // connect outside the timed loop
  for (auto _ : state) component->ping();
  component->shutdown();
  pthread_setaffinity_np(pthread_self(), sizeof before, &before);
}
BENCHMARK_CAPTURE(BM_CorbaNullCall, os_placed, false)->UseRealTime();
BENCHMARK_CAPTURE(BM_CorbaNullCall, same_core, true)->UseRealTime();

void BM_ConservativeStep(benchmark::State& state, bool pinned) {
  const Scenario s = scenario("thesis.toml");
  const std::vector<int> cpus = pinned ? available_cpus() : std::vector<int>{};
  LaunchOptions launch;
  launch.bin_dir = bin_dir();
  launch.log_dir = scratch() / "logs";
  launch.call_timeout_ms = 10000;
  launch.startup_timeout = std::chrono::seconds(20);
  launch.cpus = cpus;
  ProcessDeployment deployment({.pairs = chain_deployment(s, false)}, orb(), launch);
  ConservativeStepper stepper(deployment, s, {Guarantee::step, cpus});
  ActivityClock monitor;
  ImpactSweep sweep(s.chain);
  std::vector<PendulumState> x = s.initial;
  std::uint64_t m = 0;
  for (auto _ : state) step_chain(stepper, sweep, m++, x, {&monitor});
  state.counters["pendulums"] = static_cast<double>(s.pendulums());
  deployment.shutdown();
}
BENCHMARK_CAPTURE(BM_ConservativeStep, pin_cores, true)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ConservativeStep, pin_none, false)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The turbogenerator of docs/benchmarks.md C: synchronous machine (x1..x3) and turbine (x4, x5)
// with the analytic Jacobian. The constants are plausible per-unit values chosen for the benchmark
// only (the source gives none); the cost per step does not depend on them.
class Turbogenerator : public RightHandSide {
 public:
  void derivative(double, VectorView x, VectorOut dx) override {
    dx[0] = x[1];
    dx[1] = -c1 * x[1] - c2 * std::sin(x[0]) * x[2] - 0.5 * c3 * std::sin(2 * x[0]) + x[4] / m;
    dx[2] = c5 * std::cos(x[0]) - c4 * x[2] + c6 * u2;
    dx[3] = k1 * u1 - k2 * x[1] - k3 * x[3];
    dx[4] = k4 * x[3] - k5 * x[4];
  }
  void jacobian(double, VectorView x, MatrixOut J) override {
    J.setZero();
    J(0, 1) = 1;
    J(1, 0) = -c2 * std::cos(x[0]) * x[2] - c3 * std::cos(2 * x[0]);
    J(1, 1) = -c1;
    J(1, 2) = -c2 * std::sin(x[0]);
    J(1, 4) = 1 / m;
    J(2, 0) = -c5 * std::sin(x[0]);
    J(2, 2) = -c4;
    J(3, 1) = -k2;
    J(3, 3) = -k3;
    J(4, 3) = k4;
    J(4, 4) = -k5;
  }
  static Vector initial() { return Vector{{0.6, 0.0, 1.1, 0.16, 0.2}}; }

 private:
  double c1 = 0.8, c2 = 4.0, c3 = 0.6, c4 = 2.5, c5 = 1.5, c6 = 2.0, m = 0.25;
  double k1 = 1.0, k2 = 2.0, k3 = 5.0, k4 = 5.0, k5 = 4.0;
  double u1 = 0.8, u2 = 1.0;  // 80 % load
};

// One step of `method` at h = 10 ms, restarting from the initial state every 1000 steps.
// pDRE0 uses Clemens' partition: machine {x1, x2, x3}, turbine {x4, x5}.
void BM_OdeStep(benchmark::State& state, OdeMethod method) {
  Turbogenerator f;
  OdeStepper stepper(method, 5, {{"machine", 0, 3}, {"turbine", 3, 2}});
  const double h = 0.01;
  Vector x = Turbogenerator::initial();
  int m = 0;
  for (auto _ : state) {
    stepper.step(f, m * h, h, x);
    if (++m == 1000) {
      m = 0;
      x = Turbogenerator::initial();
      stepper.restart();
    }
  }
  benchmark::DoNotOptimize(x.data());
  state.counters["f_per_step"] =
      static_cast<double>(stepper.derivative_calls()) / static_cast<double>(state.iterations());
}
BENCHMARK_CAPTURE(BM_OdeStep, euler, OdeMethod::euler);
BENCHMARK_CAPTURE(BM_OdeStep, rk3, OdeMethod::rk3);
BENCHMARK_CAPTURE(BM_OdeStep, rk4, OdeMethod::rk4);
BENCHMARK_CAPTURE(BM_OdeStep, ab3, OdeMethod::ab3);
BENCHMARK_CAPTURE(BM_OdeStep, ab4, OdeMethod::ab4);
BENCHMARK_CAPTURE(BM_OdeStep, am4, OdeMethod::am4);
BENCHMARK_CAPTURE(BM_OdeStep, abm4, OdeMethod::abm4);
BENCHMARK_CAPTURE(BM_OdeStep, abm4_pec3e, OdeMethod::abm4_pec3e);
BENCHMARK_CAPTURE(BM_OdeStep, backward_euler, OdeMethod::backward_euler);
BENCHMARK_CAPTURE(BM_OdeStep, dre0, OdeMethod::dre0);
BENCHMARK_CAPTURE(BM_OdeStep, pdre0, OdeMethod::pdre0);
BENCHMARK_CAPTURE(BM_OdeStep, dre1, OdeMethod::dre1);
BENCHMARK_CAPTURE(BM_OdeStep, pdre1, OdeMethod::pdre1);

// ---- FMUs (docs/fmi.md): what a call into an FMU costs beside a native model ----

std::unique_ptr<CompositeModel> bouncing_ball(bool from_fmu) {
  CompositeRecipe recipe;
  if (from_fmu)
    recipe.members.push_back(
        {"ball", "fmu", {}, {KAUSAL_FMU_DIR "/bouncing_ball.fmu", false, "", {}}, {}});
  else
    recipe.members.push_back({"ball", "bouncing_ball", {}, {}, {}});
  return build_composite("bench", recipe);
}

// One f of the same bouncing ball, kausal's own model against the FMU's model exchange
// (fmi2SetTime, fmi2SetContinuousStates, fmi2GetDerivatives).
void BM_BallDerivative(benchmark::State& state, bool from_fmu) {
  const auto model = bouncing_ball(from_fmu);
  Vector x = model->initial_state(), dx(x.size());
  double t = 0;
  for (auto _ : state) {
    model->derivative(t, x, Vector(), dx);
    t += 1e-6;
    benchmark::DoNotOptimize(dx.data());
  }
}
BENCHMARK_CAPTURE(BM_BallDerivative, native, false);
BENCHMARK_CAPTURE(BM_BallDerivative, fmu, true);

// What an optimistic partition with an FMU pays per step on top of the step: its state
// saved (fmi2GetFMUstate + fmi2SerializeFMUstate), and a restore on rollback.
void BM_FmuStateBytes(benchmark::State& state, bool restore) {
  const auto model = bouncing_ball(true);
  const Bytes saved = model->save_internal();
  for (auto _ : state) {
    if (restore)
      model->restore_internal(saved);
    else
      benchmark::DoNotOptimize(model->save_internal().data());
  }
  state.counters["bytes"] = static_cast<double>(saved.size());
}
BENCHMARK_CAPTURE(BM_FmuStateBytes, save, false);
BENCHMARK_CAPTURE(BM_FmuStateBytes, restore, true);

// Keeps the median (or the only) real time per iteration of every benchmark.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> real_ns, items_per_s;

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (r.run_type == Run::RT_Aggregate && !median) continue;
      const std::string name =
          r.run_name.function_name + (r.run_name.args.empty() ? "" : "/" + r.run_name.args);
      const double ns = r.GetAdjustedRealTime() * to_ns(r.time_unit);
      if (median || !real_ns.count(name)) real_ns[name] = ns;
      if (auto it = r.counters.find("items_per_second"); it != r.counters.end())
        if (median || !items_per_s.count(name)) items_per_s[name] = it->second;
    }
    ConsoleReporter::ReportRuns(runs);
  }

 private:
  static double to_ns(benchmark::TimeUnit u) {
    switch (u) {
      case benchmark::kSecond:
        return 1e9;
      case benchmark::kMillisecond:
        return 1e6;
      case benchmark::kMicrosecond:
        return 1e3;
      default:
        return 1;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();

  auto find = [](const std::map<std::string, double>& m, const std::string& prefix) {
    for (const auto& [k, v] : m)
      if (k.rfind(prefix, 0) == 0) return v;
    return 0.0;
  };
  const double rtt_us = find(collector.real_ns, "BM_CorbaNullCall/os_placed") / 1e3;
  const double rtt_same_core_us = find(collector.real_ns, "BM_CorbaNullCall/same_core") / 1e3;
  const double step_us = find(collector.real_ns, "BM_ConservativeStep/pin_cores") / 1e3;
  const double unpinned_us = find(collector.real_ns, "BM_ConservativeStep/pin_none") / 1e3;
  const double seq5 = find(collector.items_per_s, "BM_Sequential/thesis_N5");
  const double seq32 = find(collector.items_per_s, "BM_Sequential/large_N32");
  std::cout << std::fixed << std::setprecision(1) << "\n"
            << "figure (this run)                                         value\n"
            << "null CORBA call, round trip between 2 local processes   " << rtt_us << " µs\n"
            << "  the same, both pinned to one CPU                      " << rtt_same_core_us
            << " µs\n"
            << "conservative step, N = 5, process per component, --pin cores  " << step_us
            << " µs\n"
            << "  as a multiple of the round trip (target <= 3)          " << std::setprecision(2)
            << (rtt_us > 0 ? step_us / rtt_us : 0) << "\n"
            << std::setprecision(1)
            << "conservative step, N = 5, process per component, --pin none   " << unpinned_us
            << " µs\n"
            << "  as a multiple of the round trip                        " << std::setprecision(2)
            << (rtt_us > 0 ? unpinned_us / rtt_us : 0) << "\n"
            << std::setprecision(1) << "sequential pendulum-steps per second, N = 5             "
            << seq5 / 1e6 << " M/s\n"
            << "sequential pendulum-steps per second, N = 32 (>= 50 M)  " << seq32 / 1e6
            << " M/s\n";
  const double native_f = find(collector.real_ns, "BM_BallDerivative/native");
  const double fmu_f = find(collector.real_ns, "BM_BallDerivative/fmu");
  std::cout << std::setprecision(0) << "f of the bouncing ball, native / FMU model exchange     "
            << native_f << " / " << fmu_f << " ns (" << std::setprecision(1)
            << (native_f > 0 ? fmu_f / native_f : 0) << "x)\n"
            << std::setprecision(0) << "FMU state saved / restored (bouncing ball)              "
            << find(collector.real_ns, "BM_FmuStateBytes/save") << " / "
            << find(collector.real_ns, "BM_FmuStateBytes/restore") << " ns\n";
  std::error_code ignored;
  fs::remove_all(scratch(), ignored);
  return 0;
}

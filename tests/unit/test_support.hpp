#pragma once
// Helpers shared by the unit tests: shipped scenarios, seeded random scenarios, runs.
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/block_stepper.hpp"
#include "monitor/sync/chain_driver.hpp"
#include "monitor/sync/conservative.hpp"
#include "monitor/sync/optimistic.hpp"
#include "monitor/sync/run_ahead_block_stepper.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal::testing {

// A file's bytes.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One run to its end, nobody stopping it.
inline RunResult run_one(const RunSpec& spec, RunPlatform& platform) {
  RunControl control;
  return run(spec, platform, control);
}

// A method as the run tests name it: conservative/step, optimistic (guarantee none), ...
struct Method {
  SyncMethod method;
  Guarantee guarantee;
};

// Paced as fast as the run goes, step by step, no step waited for: what kausal run --replay
// uses.
inline RealtimeOptions as_fast_as_possible() {
  RealtimeOptions o;
  o.clock = ClockSource::wall;
  o.factor = std::numeric_limits<double>::infinity();
  o.check_feasible = false;
  return o;
}

// A run of `model` under `m` into `out`, unpinned (tests share the CPUs), paced by
// `realtime` (default: not paced).
inline RunSpec spec_of(const RunModel& model, Method m, const std::filesystem::path& out,
                       RealtimeOptions realtime = {}) {
  RunSpec spec;
  spec.model = model;
  spec.method = m.method;
  spec.guarantee = m.guarantee;
  spec.pin = Pinning::none;
  spec.out = out;
  spec.realtime = std::move(realtime);
  return spec;
}

// thesis.toml shortened to `seconds` of model time (h = 1 ms; impacts from ~0.4 s), written
// into dir: a run keeps a copy of its scenario file.
inline std::filesystem::path short_thesis(const std::filesystem::path& dir,
                                          const std::string& seconds) {
  std::string text = slurp(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/thesis.toml");
  const std::string from = "duration = 20.0";
  text.replace(text.find(from), from.size(), "duration = " + seconds);
  const std::filesystem::path file = dir / ("short-thesis-" + seconds + ".toml");
  std::ofstream(file) << text;
  return file;
}

inline Scenario shipped(const std::string& name) {
  return load_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name);
}

// The frame of a generated chain scenario: its name, integrator, step and length, a CSV row
// every 10 steps.
inline Scenario generated_scenario(const std::string& name, OdeMethod method, double h,
                                   std::uint64_t steps) {
  Scenario s;
  s.file = name;
  s.name = name;
  s.method = method;
  s.h = h;
  s.steps = steps;
  s.output_every = 10;
  return s;
}

// A random but valid chain: N pendulums with random lengths, masses, radii, gaps, start
// angles and restitution, from a seed (the same seed gives the same scenario).
inline Scenario random_scenario(unsigned seed, std::size_t n, std::uint64_t steps) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<>(lo, hi)(rng);
  };
  const OdeMethod method = uniform(0, 1) < 0.5 ? OdeMethod::euler : OdeMethod::rk4;
  const double h = uniform(0.5e-3, 2e-3);
  Scenario s = generated_scenario("random-" + std::to_string(seed), method, h, steps);
  s.chain.restitution = uniform(0, 1);
  double x = 0;
  for (std::size_t i = 0; i < n; ++i) {
    PendulumParams p;
    p.length = uniform(0.5, 1.5);
    p.mass = uniform(0.2, 3);
    p.radius = uniform(0.04, 0.12);
    p.damping = uniform(0, 1) < 0.3 ? uniform(0, 0.2) : 0.0;
    if (i > 0) {
      const auto& prev = s.chain.pendulums.back();
      const double reach = prev.radius + p.radius;
      x += reach + uniform(0.0, 0.05);  // touching or a small gap at rest
    }
    p.pivot_x = x;
    s.chain.pendulums.push_back(p);
    s.initial.push_back({0.0, uniform(-0.3, 0.3)});
  }
  s.initial.front()[0] = -uniform(0.5, 1.4);  // swing the first one in from the left
  s.initial.front()[1] = 0;
  return s;
}

// A random row where non-neighbours meet: long pendulums alternate with short ones, so the
// long bobs (i, i + 2) swing into each other below the short bob between them, which rarely
// gets in the way. A sweep of neighbour pairs only lets them pass through each other.
inline Scenario crossing_scenario(unsigned seed, std::size_t n, std::uint64_t steps) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<>(lo, hi)(rng);
  };
  const OdeMethod method = uniform(0, 1) < 0.5 ? OdeMethod::euler : OdeMethod::rk4;
  const double h = uniform(0.5e-3, 1.5e-3);
  Scenario s = generated_scenario("crossing-" + std::to_string(seed), method, h, steps);
  s.chain.restitution = uniform(0.5, 1);
  for (std::size_t i = 0; i < n; ++i) {
    PendulumParams p;
    const bool long_one = i % 2 == 0;
    p.length = long_one ? uniform(1.0, 1.4) : uniform(0.3, 0.5);
    p.mass = uniform(0.3, 2);
    p.radius = long_one ? uniform(0.08, 0.12) : uniform(0.04, 0.06);
    p.pivot_x = static_cast<double>(i) * 0.15 + uniform(-0.02, 0.02);
    // A start where this bob overlaps none before it (the scenario check would refuse one).
    PendulumState x{};
    for (bool clear = false; !clear;) {
      x = {long_one ? uniform(-0.4, 0.4) : uniform(-0.2, 0.2), uniform(-1, 1)};
      clear = true;
      for (std::size_t j = 0; j < i && clear; ++j)
        clear = bob_distance(s.chain.pendulums[j], p, s.initial[j].data(), x.data()) >
                s.chain.pendulums[j].radius + p.radius;
    }
    s.chain.pendulums.push_back(p);
    s.initial.push_back(x);
  }
  return s;
}

inline RunResult run_sequential(const Scenario& s) {
  SequentialStepper stepper(s);
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  return drive_chain(s, SyncMethod::sequential, stepper, {&recorder}, control);
}

inline RunResult run_conservative_in_process(const Scenario& s,
                                             Guarantee guarantee = Guarantee::step,
                                             bool check_guarantees = false) {
  LocalDeployment deployment(s);
  ConservativeStepper stepper(deployment, s, {guarantee, {}, 10'000});
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  return drive_chain(s, SyncMethod::conservative, stepper, {&recorder}, control, check_guarantees);
}

inline RunResult run_optimistic_in_process(const Scenario& s, const OptimisticOptions& options = {},
                                           const LocalDeploymentOptions& local = {},
                                           bool rollback_check = false) {
  LocalDeployment deployment(s, local, rollback_check);
  OptimisticStepper stepper(deployment, s, options);
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  return drive_chain(s, SyncMethod::optimistic, stepper, {&recorder}, control);
}

// Blocks on this process's threads that take every granted stretch on their threads, however
// short (the path under test; a run leaves stretches of fewer than kLaneStretchCalcs to the
// monitor's lanes).
inline BlockPorts every_stretch_on_threads(const Scenario& s) {
  return [&s](std::size_t, std::size_t first, std::size_t last) {
    return std::make_unique<LocalBlockPort>(s.chain, s.method, s.t0(), s.h, first, last, 0);
  };
}

// Blocks in this process: conservative step by step, or running ahead (optimistic within a
// window; conservative with --guarantee lookahead, within the window as far as granted).
inline RunResult run_blocks_in_process(const Scenario& s, std::size_t blocks,
                                       SyncMethod method = SyncMethod::conservative,
                                       std::uint64_t window = 128,
                                       Guarantee guarantee = Guarantee::step,
                                       std::vector<double> weights = {}) {
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  if (method == SyncMethod::optimistic || guarantee == Guarantee::lookahead) {
    RunAheadBlockStepper stepper(
        s, {blocks, {}, window, method, every_stretch_on_threads(s), false, std::move(weights)});
    return drive_chain(s, method, stepper, {&recorder}, control);
  }
  // Pinned lanes, as `--pin cores` (the default) has them: they spin briefly between steps.
  BlockStepper stepper(s, {blocks, available_cpus(), nullptr, false, std::move(weights)});
  return drive_chain(s, method, stepper, {&recorder}, control);
}

}  // namespace kausal::testing

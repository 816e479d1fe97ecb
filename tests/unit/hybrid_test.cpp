// A hybrid model (docs/events.md, "Across the boundary"): the scenario's bridge read and
// checked, and the sequential run of scenarios/two-tanks-level-switch.toml, the level
// switch's crossings located and its commands taken at their own time.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kScenario =
    std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-tanks-level-switch.toml";

// The text of a scenario file (default: the shipped level switch).
std::string shipped_text(const std::string& file = kScenario) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` with `from` replaced by `to` (which must be there).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The shipped scenario with `from` replaced by `to`.
std::string switch_edited(const std::string& from, const std::string& to) {
  return edited(shipped_text(), from, to);
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hybrid_error_of(const std::string& text) {
  try {
    parse_partitioned_scenario(text, "h.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(HybridScenario, TheShippedOneReadsAsABridge) {
  const PartitionedScenario s = parse_partitioned_scenario(shipped_text(), "h.toml");
  ASSERT_TRUE(s.bridge);
  EXPECT_EQ(s.bridge->model, "level-switch");
  ASSERT_EQ(s.bridge->outputs.size(), 2u);
  EXPECT_EQ(s.bridge->outputs[0].level, 0.25);
  EXPECT_EQ(s.bridge->outputs[0].direction, CrossingDirection::rising);
  EXPECT_EQ(s.bridge->outputs[1].direction, CrossingDirection::falling);
  ASSERT_EQ(s.bridge->inputs.size(), 1u);
  EXPECT_EQ(s.bridge->inputs[0].effect, EventEffect::set_input);
  EXPECT_EQ(s.bridge->tolerance, 1e-6);
}

TEST(HybridScenario, WhatCannotBeBridgedIsRefusedNamingTheLine) {
  EXPECT_EQ(hybrid_error_of(switch_edited("from = \"valve\"", "from = \"tap\"")),
            "h.toml:51: event_input[1].from 'tap' is not a port of the event model "
            "'level-switch' (ports: valve)")
      << "an unknown port";
  EXPECT_NE(hybrid_error_of(switch_edited("to = \"switch\"\nkind = \"high\"",
                                          "to = \"relay\"\nkind = \"high\""))
                .find("'relay' is not a component of the event model (components: switch)"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("kind = \"high\"", "kind = \"up\""))
                .find("'up' is not an event kind"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("to = \"upper.inflow\"", "to = \"upper.flow\""))
                .find("'upper' has no input, state or parameter 'flow' (inputs: inflow; states: "
                      "level; parameters given: area, orifice)"),
            std::string::npos);
  EXPECT_NE(
      hybrid_error_of(switch_edited("integrator = \"rk4\"\nh = 1.0",
                                    "inputs = { inflow = 0.02 }\nintegrator = \"rk4\"\nh = 1.0"))
          .find("input 'upper.inflow' is set by events and also given in inputs"),
      std::string::npos);
  EXPECT_NE(hybrid_error_of(
                switch_edited("integrator = \"rk4\"\nh = 1.0", "integrator = \"ab3\"\nh = 1.0"))
                .find("its partition's integrator must be a one-step method (not ab3)"),
            std::string::npos);
  EXPECT_NE(
      hybrid_error_of(
          switch_edited("[[event_input]]\nfrom = \"valve\"\nto = \"upper.inflow\"\ninitial = 0.0",
                        "[subsystem.inputs]"))
          .find("connect each with an [[event_input]]"),
      std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("model = \"level-switch\"", "model = \"relay\""))
                .find("'relay' is not an event model"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("tolerance = 1e-6", "tolerance = 0"))
                .find("events.tolerance must be > 0"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("direction = \"rising\"", "direction = \"up\""))
                .find("direction"),
            std::string::npos);
  // Event indicators: the tanks have none; an indicator crosses 0 and carries an output.
  EXPECT_EQ(hybrid_error_of(switch_edited("from = \"lower.level\"\nlevel = 0.25",
                                          "from = \"lower\"\nindicator = 0")),
            "h.toml:36: event_output[1].indicator is 0: 'lower' has no event indicators");
  EXPECT_NE(hybrid_error_of(switch_edited("from = \"lower.level\"\nlevel = 0.25",
                                          "from = \"lowest\"\nindicator = 0"))
                .find("no subsystem 'lowest'"),
            std::string::npos);
  // Event groups: at least one, at most one per component (the level switch has one).
  EXPECT_NE(hybrid_error_of(switch_edited("tolerance = 1e-6", "tolerance = 1e-6\ngroups = 0"))
                .find("events.groups must be between 1 and 1024"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("tolerance = 1e-6", "tolerance = 1e-6\ngroups = 2"))
                .find("events.groups is more than the model's 1 components"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(switch_edited("level = 0.25\n", "level = 0.25\nmax_rate = 0\n"))
                .find("max_rate must be positive and finite"),
            std::string::npos);
  // An event model that sends to partitions does not run without them.
  try {
    parse_event_scenario("[events]\nmodel = \"level-switch\"\nend = 10.0\n", "e.toml");
    ADD_FAILURE() << "an event model with ports ran alone";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("runs beside [[subsystem]] tables"), std::string::npos)
        << e.what();
  }
}

RunResult run_shipped(const fs::path& out, const std::string& file = kScenario) {
  const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
  LocalPlatform platform;
  RunControl control;
  return run(testing::spec_of(PartitionedModel{s, nullptr},
                              {SyncMethod::sequential, Guarantee::none}, out),
             platform, control);
}

// The lower level read back from trajectory.csv, every output interval.
std::vector<std::pair<double, double>> lower_levels(const fs::path& out) {
  std::ifstream csv(out / "trajectory.csv");
  std::string line;
  std::getline(csv, line);
  std::vector<std::pair<double, double>> rows;
  while (std::getline(csv, line)) {
    double t = 0, upper = 0, lower = 0;
    if (std::sscanf(line.c_str(), "%lf,%lf,%lf", &t, &upper, &lower) == 3)
      rows.emplace_back(t, lower);
  }
  return rows;
}

TEST(HybridRun, TheLevelSwitchHoldsTheLowerTankAroundItsBandTheSameWayEveryRun) {
  TempDir dir;
  const RunResult a = run_shipped(dir / "a"), b = run_shipped(dir / "b");
  ASSERT_EQ(a.status, RunStatus::completed) << a.error;
  ASSERT_EQ(b.status, RunStatus::completed) << b.error;
  EXPECT_EQ(a.trajectory_sha256, b.trajectory_sha256);
  ASSERT_TRUE(a.events);
  // Every crossing switches the valve once (the band's edges alternate), the initial command
  // comes on top, and every command reaches the upper tank.
  EXPECT_GT(a.events->crossings, 20u);
  EXPECT_EQ(a.events->processed, a.events->crossings);
  EXPECT_EQ(a.events->to_partitions, a.events->crossings + 1);
  // Filling from empty, the level first rises through the band; from then on it stays near
  // it: above the lower edge but for what drains while the upper tank refills, below the
  // upper one but for what the upper tank still holds when the valve closes.
  const auto rows = lower_levels(dir / "a");
  ASSERT_EQ(rows.size(), 201u);
  double low = 1, high = 0;
  for (const auto& [t, level] : rows)
    if (t >= 300) {
      low = std::min(low, level);
      high = std::max(high, level);
    }
  EXPECT_GT(low, 0.10);
  EXPECT_LT(low, 0.15);
  EXPECT_GT(high, 0.25);
  EXPECT_LT(high, 0.30);
}

// A row of bridge.csv: t, event (crossing, set, add), from, to, value.
struct BridgeRow {
  double t = 0;
  std::string event, from, to;
  double value = 0;
};

std::vector<BridgeRow> bridge_log(const fs::path& out) {
  std::ifstream csv(out / "bridge.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "t,event,from,to,value");
  std::vector<BridgeRow> rows;
  while (std::getline(csv, line)) {
    std::stringstream fields(line);
    BridgeRow r;
    std::string t, value;
    std::getline(fields, t, ',');
    std::getline(fields, r.event, ',');
    std::getline(fields, r.from, ',');
    std::getline(fields, r.to, ',');
    std::getline(fields, value, ',');
    r.t = std::stod(t);
    r.value = std::stod(value);
    rows.push_back(r);
  }
  return rows;
}

const std::string kShipped = std::string(KAUSAL_SOURCE_DIR) + "/scenarios/";

// The ball's impacts in bridge.csv against their closed form: dropped from 1 m, it hits the
// floor at t1 = √(2/g) with speed v1 = √(2g); the k-th rebound leaves at e^k·v1 and returns
// 2·e^k·v1/g later. RK4 is exact for constant acceleration, so the located impacts may only
// differ by the tolerance (1 ns) each, and by what the velocities carried at those times add
// up to. Each crossing comes from `from`, and the floor answers it at its own time with the
// rebound speed. Returns the impacts.
std::size_t expect_closed_form_impacts(const std::vector<BridgeRow>& rows,
                                       const std::string& from) {
  const double g = 9.81, e = 0.8;
  double exact = std::sqrt(2 / g), speed = std::sqrt(2 * g);
  std::size_t impacts = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k].event != "crossing") continue;
    EXPECT_EQ(rows[k].from, from);
    EXPECT_EQ(rows[k].to, "floor.impact");
    EXPECT_NEAR(rows[k].t, exact, 1e-8) << "impact " << impacts + 1;
    EXPECT_NEAR(rows[k].value, -speed, 1e-7) << "impact " << impacts + 1;
    if (k + 1 == rows.size()) {
      ADD_FAILURE() << "impact " << impacts + 1 << " has no answer";
      break;
    }
    EXPECT_EQ(rows[k + 1].event, "set");
    EXPECT_EQ(rows[k + 1].to, "ball.v");
    EXPECT_EQ(rows[k + 1].t, rows[k].t);
    EXPECT_DOUBLE_EQ(rows[k + 1].value, e * std::abs(rows[k].value));
    speed *= e;
    exact += 2 * speed / g;
    ++impacts;
  }
  return impacts;
}

TEST(HybridRun, TheFloorBouncesTheBallAtTheImpactsClosedFormTimes) {
  TempDir dir;
  const RunResult r = run_shipped(dir / "ball", kShipped + "bouncing-ball-floor.toml");
  ASSERT_EQ(r.status, RunStatus::completed) << r.error;
  EXPECT_EQ(expect_closed_form_impacts(bridge_log(dir / "ball"), "ball.h"), 7u);
  EXPECT_EQ(r.events->crossings, 7u);
}

// The crew repairs one machine at a time, in the order they failed; a machine stops at its
// failure, at the crossing's own time, so its wear never passes the limit by more than the
// wear of the tolerance (1 µs).
TEST(HybridRun, TheCrewRepairsTheMachinesOneAtATimeInTheOrderTheyFailed) {
  TempDir dir;
  const RunResult r = run_shipped(dir / "m", kShipped + "machines-repair.toml");
  ASSERT_EQ(r.status, RunStatus::completed) << r.error;
  const auto rows = bridge_log(dir / "m");
  std::vector<std::string> failed, repaired;
  std::size_t stops = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const BridgeRow& row = rows[k];
    if (row.event == "crossing") {
      EXPECT_GE(row.value, 1.0);
      EXPECT_LE(row.value, 1.0 + 1e-7);
      failed.push_back(row.from.substr(0, row.from.find('.')));
      // The crew stops it at once.
      ASSERT_LT(k + 1, rows.size());
      EXPECT_EQ(rows[k + 1].t, row.t);
      EXPECT_EQ(rows[k + 1].to, failed.back() + ".running");
      EXPECT_EQ(rows[k + 1].value, 0.0);
      ++stops;
    }
    if (row.event == "set" && row.to.ends_with(".wear")) {
      EXPECT_EQ(row.value, 0.0);
      repaired.push_back(row.to.substr(0, row.to.find('.')));
    }
  }
  EXPECT_GT(failed.size(), 20u);
  EXPECT_EQ(stops, failed.size());
  ASSERT_LE(repaired.size(), failed.size());
  EXPECT_GE(repaired.size() + 3, failed.size()) << "at most one repair and two queued at the end";
  for (std::size_t k = 0; k < repaired.size(); ++k) EXPECT_EQ(repaired[k], failed[k]) << k;
  // The trajectory's wear stays within [0, limit].
  std::ifstream csv(dir / "m" / "trajectory.csv");
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    double t = 0, w[3] = {0, 0, 0};
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &t, &w[0], &w[1], &w[2]), 4);
    for (const double wear : w) {
      EXPECT_GE(wear, 0.0) << t;
      EXPECT_LE(wear, 1.0 + 1e-7) << t;
    }
  }
}

// A bound on how fast the watched wear changes (max_rate: dw/dt = rate (1 + w) <= 0.04 for
// w <= 1) lets the partitions' side promise the crews no crossing for (1 - w) / max_rate after
// each step, so a repair that ends while every machine's wear is far from its limit reaches
// its machine before the machine computes past it: the same bits, fewer steps taken again.
// With the wear reset when a repair starts the machine under repair is far from its limit too
// (with it reset at the end it sits at the limit, and promises nothing). A bound the wear
// breaks ends the run naming the event output, where it crossed and what it had promised.
TEST(HybridRun, AMaxRatePromisesNoCrossingAheadSameBitsFewerRollbacks) {
  TempDir dir;
  std::string text = shipped_text(kShipped + "machines-crews.toml");
  text = edited(text, "seed = 11 }", "seed = 11, reset_at_start = 1 }");
  text = edited(text, "mean_repair = 30.0", "mean_repair = 15.0");
  text = edited(text, "t_end = 1000.0", "t_end = 400.0");
  // Every event output of the scenario with `max_rate` added.
  const auto with_rate = [&](const std::string& rate) {
    std::string t = text;
    const std::string level = "level = 1.0\n";
    for (std::size_t at = t.find(level); at != std::string::npos; at = t.find(level, at + 1))
      t.insert(at + level.size(), "max_rate = " + rate + "\n");
    return t;
  };
  const std::string bounded = with_rate("0.05"), broken = with_rate("0.001");
  ASSERT_NE(bounded.find("max_rate = 0.05"), std::string::npos);
  struct Figures {
    RunResult r;
    std::uint64_t rollbacks = 0;
  };
  const auto run_text = [&](const std::string& t, const std::string& name, SyncMethod m) {
    const fs::path file = dir / (name + ".toml");
    std::ofstream(file) << t;
    const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
    RunSpec spec = testing::spec_of(PartitionedModel{s, nullptr}, {m, Guarantee::none},
                                    dir / (name + "-" + to_string(m)));
    if (m != SyncMethod::sequential) spec.layout = Layout::single;
    LocalPlatform platform;
    RunControl control;
    Figures f{run(spec, platform, control)};
    for (const PartitionSummary& p : f.r.partitions) f.rollbacks += p.stats.rollbacks;
    return f;
  };
  std::vector<SyncMethod> methods = {SyncMethod::sequential, SyncMethod::conservative,
                                     SyncMethod::optimistic};
#if defined(__SANITIZE_THREAD__)
  methods = {SyncMethod::conservative};  // ThreadSanitizer watches the lanes once
#endif
  for (const SyncMethod m : methods) {
    const Figures free = run_text(text, "free", m);
    const Figures promised = run_text(bounded, "bounded", m);
    ASSERT_EQ(free.r.status, RunStatus::completed) << free.r.error;
    ASSERT_EQ(promised.r.status, RunStatus::completed) << promised.r.error;
    EXPECT_EQ(promised.r.trajectory_sha256, free.r.trajectory_sha256) << to_string(m);
    EXPECT_EQ(file_text(dir / ("bounded-" + to_string(m)) / "bridge.csv"),
              file_text(dir / ("free-" + to_string(m)) / "bridge.csv"));
    EXPECT_LT(promised.rollbacks, free.rollbacks) << to_string(m);
    if (m != methods.front()) continue;
    const Figures wrong = run_text(broken, "broken", m);
    EXPECT_EQ(wrong.r.status, RunStatus::failed) << to_string(m);
    EXPECT_NE(wrong.r.error.find("machine"), std::string::npos) << wrong.r.error;
    EXPECT_NE(wrong.r.error.find("max_rate (0.001 per second) promised"), std::string::npos)
        << wrong.r.error;
  }
}

// `file` run with method m in the single layout with the rollback check, into `out`.
RunResult run_checked_in_one_process(const fs::path& file, SyncMethod m, const fs::path& out) {
  const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
  RunSpec spec = testing::spec_of(PartitionedModel{s, nullptr}, {m, Guarantee::none}, out);
  spec.layout = Layout::single;
  spec.rollback_check = true;
  LocalPlatform platform;
  RunControl control;
  return run(spec, platform, control);
}

// Two repair crews, each its own event group (scenarios/machines-crews.toml): a busy crew's
// handovers go from one group to the other, its commands to the partitions and the machines'
// failures to it. In one group or two, under each method, the run gives the sequential run's
// bits: the digest, trajectory.csv and bridge.csv. With handovers that take no time the crews'
// groups wait for each other's guarantees in a cycle without lookahead: the discrete side
// permits the earliest event, and the bits are the same.
TEST(HybridRun, TwoCrewsInTwoEventGroupsGiveTheSequentialRunsBits) {
  for (const std::string handover : {"2.0", "0.0"}) {
    TempDir dir;
    std::string text = shipped_text(kShipped + "machines-crews.toml");
    text = edited(text, "handover = 2.0", "handover = " + handover);
    text = edited(text, "t_end = 1000.0", "t_end = 400.0");
    const fs::path file = dir / "crews.toml";
    std::ofstream(file) << text;
    const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
    ASSERT_EQ(s->bridge->groups, 2u);
    LocalPlatform platform;
    RunControl plain;
    const RunResult reference =
        run(testing::spec_of(PartitionedModel{s, nullptr},
                             {SyncMethod::sequential, Guarantee::none}, dir / "sequential"),
            platform, plain);
    ASSERT_EQ(reference.status, RunStatus::completed) << reference.error;
    ASSERT_EQ(reference.events->groups, 1u) << "a sequential run's discrete side is one group";
    EXPECT_GT(reference.events->crossings, 10u);
    std::vector<SyncMethod> methods = {SyncMethod::conservative, SyncMethod::optimistic};
    std::vector<std::uint32_t> group_counts = {1, 2};
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer watches the groups' lanes: two groups, conservative.
    methods.resize(1);
    group_counts = {2};
#endif
    for (const SyncMethod m : methods)
      for (const std::uint32_t groups : group_counts) {
        const std::string what = "handover " + handover + ", " + to_string(m) + ", " +
                                 std::to_string(groups) + " groups";
        const fs::path out = dir / (to_string(m) + std::to_string(groups));
        RunSpec spec = testing::spec_of(PartitionedModel{s, nullptr}, {m, Guarantee::none}, out);
        spec.layout = Layout::single;
        spec.groups = groups;
        spec.rollback_check = m == SyncMethod::optimistic;
        RunControl control;
        const RunResult r = run(spec, platform, control);
        ASSERT_EQ(r.status, RunStatus::completed) << what << ": " << r.error;
        EXPECT_EQ(r.trajectory_sha256, reference.trajectory_sha256) << what;
        EXPECT_EQ(file_text(out / "trajectory.csv"),
                  file_text(dir / "sequential" / "trajectory.csv"))
            << what;
        EXPECT_EQ(file_text(out / "bridge.csv"), file_text(dir / "sequential" / "bridge.csv"))
            << what;
        ASSERT_TRUE(r.events);
        EXPECT_EQ(r.events->groups, groups) << what;
        EXPECT_EQ(r.events->processed, reference.events->processed) << what;
        // The handovers are the events between the groups; without lookahead between them,
        // every event of the crews waits for a permit.
        if (groups == 1) {
          EXPECT_EQ(r.events->messages, 0u) << what;
          EXPECT_EQ(r.events->permits, 0u) << what;
        } else {
          EXPECT_GT(r.events->messages, 0u) << what;
          if (handover == "0.0")
            EXPECT_GT(r.events->permits, 0u) << what;
          else
            EXPECT_EQ(r.events->permits, 0u) << what;
        }
      }
  }
}

// Conservative (the partitions furthest behind step at once, one lane each) and optimistic
// (every partition up to its window ahead, rolled back by the events that arrive in what it
// computed) give the sequential run's bits: the digest, trajectory.csv and bridge.csv, for
// every shipped hybrid scenario, whatever the window; with the rollback check too.
TEST(HybridRun, EveryMethodGivesTheSequentialRunBitForBit) {
  struct Variant {
    SyncMethod method;
    std::optional<std::uint64_t> window;
    bool rollback_check;
  };
  std::vector<Variant> variants = {{SyncMethod::conservative, {}, false},
                                   {SyncMethod::optimistic, 1, false},
                                   {SyncMethod::optimistic, {}, true},
                                   {SyncMethod::optimistic, 64, false}};
  std::vector<std::string> names = {"two-tanks-level-switch", "machines-repair",
                                    "bouncing-ball-floor"};
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer watches the lanes: the model of three partitions, each method once.
  variants.resize(2);
  names = {"machines-repair"};
#endif
  for (const std::string& name : names) {
    TempDir dir;
    const std::string file = kShipped + name + ".toml";
    const RunResult reference = run_shipped(dir / "sequential", file);
    ASSERT_EQ(reference.status, RunStatus::completed) << name << ": " << reference.error;
    EXPECT_EQ(reference.counters.monitor_calls, 0u) << "a sequential run's calls are in-thread";
    std::size_t k = 0;
    for (const Variant& v : variants) {
      const fs::path out = dir / std::to_string(k++);
      const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
      RunSpec spec =
          testing::spec_of(PartitionedModel{s, nullptr}, {v.method, Guarantee::none}, out);
      spec.layout = Layout::single;
      spec.window = v.window;
      spec.rollback_check = v.rollback_check;
      LocalPlatform platform;
      RunControl control;
      const RunResult r = run(spec, platform, control);
      const std::string what =
          name + ", " + to_string(v.method) + " window " + std::to_string(v.window.value_or(0));
      ASSERT_EQ(r.status, RunStatus::completed) << what << ": " << r.error;
      EXPECT_EQ(r.trajectory_sha256, reference.trajectory_sha256) << what;
      EXPECT_EQ(file_text(out / "trajectory.csv"), file_text(dir / "sequential" / "trajectory.csv"))
          << what;
      EXPECT_EQ(file_text(out / "bridge.csv"), file_text(dir / "sequential" / "bridge.csv"))
          << what;
      ASSERT_TRUE(r.events);
      EXPECT_EQ(r.events->crossings, reference.events->crossings) << what;
      EXPECT_EQ(r.events->to_partitions, reference.events->to_partitions) << what;
      // Every partition is asked for its steps, told its events and commits: counted.
      EXPECT_GT(r.counters.monitor_calls, r.steps / s->partitions.size()) << what;
      // Running ahead costs steps taken again, never fewer than in turn.
      if (v.method == SyncMethod::optimistic) {
        EXPECT_GE(r.counters.rolled_back_steps, reference.counters.rolled_back_steps) << what;
      }
    }
  }
}

// The test FMU `integrator` (der(x) = u) driven up and down between 0.5 and 1 by the level
// switch (u = +1 open, -1 closed), through its interface `as`: model exchange stepped by
// RK4, or co-simulation (it steps itself by steps of any length).
std::string fmu_switch(const std::string& as, const std::string& more = "") {
  std::ostringstream text;
  text << "name = \"fmu-switch\"\n[run]\nt_end = 9.77\noutput_interval = 0.977\n"
          "[[subsystem]]\nname = \"ramp\"\nmodel = \"fmu\"\nfmu = \""
       << KAUSAL_TEST_FMU_DIR << "/integrator.fmu\"\n"
       << (as == "co-simulation" ? "kind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
                                 : "integrator = \"rk4\"\n")
       << "h = 0.0977\n"
       << more
       << "[events]\nmodel = \"level-switch\"\ntolerance = 1e-9\n"
          "parameters = { open_command = 1.0, closed_command = -1.0 }\n"
          "[[event_output]]\nfrom = \"ramp.x\"\nlevel = 1.0\ndirection = "
          "\"rising\"\nto = \"switch\"\nkind = \"high\"\n"
          "[[event_output]]\nfrom = \"ramp.x\"\nlevel = 0.5\ndirection = "
          "\"falling\"\nto = \"switch\"\nkind = \"low\"\n"
          "[[event_input]]\nfrom = \"valve\"\nto = \"ramp.u\"\ninitial = 0.0\n";
  return text.str();
}

// The FMU switched through `as` under every method: x rises from 0 (the valve opens at
// t = 0) to 1 at t = 1, then falls and rises between 1 and 0.5 every 0.5 s: crossings at
// 1, 1.5, 2, ... 9.5, each inside a step of 0.0977 s and located at most the tolerance
// (1 ns) late; the ramp after it starts there, so the lateness adds up, one tolerance per
// crossing at most. The commands cut the FMU's steps, every rollback restores the FMU's own
// state, and every method gives the sequential digest and bridge.csv. Returns the crossings.
std::vector<double> expect_switched_under_every_method(const std::string& as) {
  TempDir dir;
  const fs::path file = dir / "fmu-switch.toml";
  std::ofstream(file) << fmu_switch(as);
  const RunResult reference = run_shipped(dir / "sequential", file.string());
  EXPECT_EQ(reference.status, RunStatus::completed) << as << ": " << reference.error;
  std::vector<double> crossings;
  for (const BridgeRow& row : bridge_log(dir / "sequential"))
    if (row.event == "crossing") crossings.push_back(row.t);
  EXPECT_EQ(crossings.size(), 18u) << as;
  for (std::size_t k = 0; k < crossings.size(); ++k) {
    const double exact = 1.0 + 0.5 * static_cast<double>(k);
    EXPECT_GE(crossings[k], exact - 1e-12) << as << " " << k;
    EXPECT_LE(crossings[k], exact + 1e-9 * static_cast<double>(k + 1) + 1e-12) << as << " " << k;
  }
  for (const SyncMethod m : {SyncMethod::conservative, SyncMethod::optimistic}) {
    const RunResult r = run_checked_in_one_process(file, m, dir / std::string(to_string(m)));
    EXPECT_EQ(r.status, RunStatus::completed) << as << " " << to_string(m) << ": " << r.error;
    EXPECT_EQ(r.trajectory_sha256, reference.trajectory_sha256) << as << " " << to_string(m);
    EXPECT_GE(r.counters.rollbacks, crossings.size() - 1) << "each command cuts a computed step";
    EXPECT_EQ(file_text(dir / std::string(to_string(m)) / "bridge.csv"),
              file_text(dir / "sequential" / "bridge.csv"))
        << as << " " << to_string(m);
  }
  return crossings;
}

TEST(HybridRun, AnFmuPartitionIsSwitchedAtItsCrossingsUnderEveryMethod) {
  expect_switched_under_every_method("model-exchange");
}

// A co-simulation FMU on the bridge: each command cuts its communication step (fmi2DoStep to
// the event's time, then on), and each crossing is located by trial steps from the step's
// start, the FMU's state restored before each (fmi2SetFMUstate). Its crossings are those of
// the model-exchange run, within the tolerance that each run's lateness adds up to.
TEST(HybridRun, ACoSimulationFmuIsCutAtItsCrossingsAndItsEventsUnderEveryMethod) {
  const std::vector<double> exchange = expect_switched_under_every_method("model-exchange");
  const std::vector<double> cosim = expect_switched_under_every_method("co-simulation");
  ASSERT_EQ(cosim.size(), exchange.size());
  for (std::size_t k = 0; k < cosim.size(); ++k)
    EXPECT_NEAR(cosim[k], exchange[k], 2e-9 * static_cast<double>(k + 1)) << k;
}

// The same through FMI 3.0 (integrator_3.fmu: fmi3DoStep cut at the events, fmi3GetFMUState
// and fmi3SetFMUState around every trial step): the FMI 2.0 twin's bridge.csv and digest,
// bit for bit, sequentially and optimistically.
TEST(HybridRun, AnFmi3CoSimulationFmuOnTheBridgeGivesItsFmi2TwinsBits) {
  TempDir dir;
  const std::string two = fmu_switch("co-simulation");
  std::string three = two;
  three.replace(three.find("/integrator.fmu"), 15, "/integrator_3.fmu");
  std::ofstream(dir / "two.toml") << two;
  std::ofstream(dir / "three.toml") << three;
  const RunResult a = run_shipped(dir / "two", (dir / "two.toml").string());
  const RunResult b = run_shipped(dir / "three", (dir / "three.toml").string());
  ASSERT_EQ(b.status, RunStatus::completed) << b.error;
  EXPECT_EQ(b.trajectory_sha256, a.trajectory_sha256);
  EXPECT_EQ(file_text(dir / "three" / "bridge.csv"), file_text(dir / "two" / "bridge.csv"));
  const RunResult o =
      run_checked_in_one_process(dir / "three.toml", SyncMethod::optimistic, dir / "optimistic");
  ASSERT_EQ(o.status, RunStatus::completed) << o.error;
  EXPECT_EQ(o.trajectory_sha256, a.trajectory_sha256);
}

// What the bridge cannot cut is refused naming the line: a co-simulation FMU that takes
// steps of one length only, a sampled controller (one step is one sample), an FMU whose state
// cannot be restored; an event sets a co-simulation FMU's inputs, not its outputs.
TEST(HybridScenario, WhatSteppingItselfCannotBeCutIsRefused) {
  EXPECT_NE(hybrid_error_of(
                edited(fmu_switch("co-simulation"), "integrator.fmu", "integrator_fixed_step.fmu"))
                .find("the bridge cuts its steps, but it is a co-simulation FMU that does not "
                      "declare canHandleVariableCommunicationStepSize"),
            std::string::npos)
      << hybrid_error_of(
             edited(fmu_switch("co-simulation"), "integrator.fmu", "integrator_fixed_step.fmu"));
  EXPECT_NE(
      hybrid_error_of(edited(fmu_switch("co-simulation"), "to = \"ramp.u\"", "to = \"ramp.x\""))
          .find("'ramp.x': 'ramp' steps itself and shows its outputs, not states an event "
                "could set (set one of its inputs: u)"),
      std::string::npos);
  const std::string sampled =
      "[run]\nt_end = 1.0\noutput_interval = 0.1\n[[subsystem]]\nname = \"pi\"\n"
      "model = \"sampled_pi\"\nparameters = { kp = 1.0, ki = 1.0, command_min = -1.0, "
      "command_max = 1.0, setpoint = 1.0 }\nintegrator = \"co-simulation\"\nh = 0.1\n"
      "[events]\nmodel = \"level-switch\"\n[[event_output]]\nfrom = \"pi.command\"\nlevel = "
      "0.5\nto = \"switch\"\nkind = \"high\"\n[[event_input]]\nfrom = \"valve\"\nto = "
      "\"pi.measurement\"\n";
  EXPECT_NE(hybrid_error_of(sampled).find("steps itself one sample period at a time"),
            std::string::npos)
      << hybrid_error_of(sampled);
  TempDir dir;
  const fs::path unsaved = dir / "unsaved.toml";
  const std::string fmus = KAUSAL_TEST_FMU_DIR;
  std::ofstream(unsaved)
      << "[run]\nt_end = 1.0\noutput_interval = 0.1\n[[subsystem]]\nname = \"vdp\"\n"
         "model = \"fmu\"\nfmu = \""
      << fmus
      << "/van_der_pol_no_state.fmu\"\nkind = \"co-simulation\"\nintegrator = "
         "\"co-simulation\"\nh = 0.1\n[[subsystem]]\nname = \"ramp\"\nmodel = \"fmu\"\nfmu = \""
      << fmus
      << "/integrator.fmu\"\nintegrator = \"rk4\"\nh = 0.1\n[events]\nmodel = "
         "\"level-switch\"\n[[event_output]]\nfrom = \"vdp.x0\"\nlevel = 1.0\nto = "
         "\"switch\"\nkind = \"high\"\n[[event_input]]\nfrom = \"valve\"\nto = \"ramp.u\"\n";
  try {
    plan_partitions(load_partitioned_scenario(unsaved.string()), {});
    ADD_FAILURE() << "an FMU that cannot save its state was put on the bridge";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("again from its saved state"), std::string::npos)
        << e.what();
  }
}

// An event output may watch one of the model's event indicators instead of an output: the
// ball's indicator is its height, so watching it finds the impacts that watching `h`
// against 0 finds, at the same times with the same bits (the ball that bounces by itself
// too: the floor's answer comes first, so its own bounce never fires).
TEST(HybridRun, AnEventIndicatorIsAnEventOutputLikeTheOutputItEquals) {
  TempDir dir;
  const std::string bouncing = edited(file_text(kShipped + "bouncing-ball-floor.toml"),
                                      "h0 = 1.0, bounce = 0", "h0 = 1.0, bounce = 1");
  const std::string watching_the_indicator =
      edited(bouncing, "from = \"ball.h\"\nlevel = 0.0", "from = \"ball\"\nindicator = 0");
  const fs::path by_output = dir / "output.toml", by_indicator = dir / "indicator.toml";
  std::ofstream(by_output) << bouncing;
  std::ofstream(by_indicator) << watching_the_indicator;
  // The ball has one indicator; it crosses 0 (no level); its events carry an output.
  EXPECT_NE(hybrid_error_of(edited(watching_the_indicator, "indicator = 0", "indicator = 1"))
                .find("indicator is 1: 'ball' has 1 event indicator(s), 0 to 0"),
            std::string::npos);
  EXPECT_NE(
      hybrid_error_of(edited(watching_the_indicator, "indicator = 0", "indicator = 0\nlevel = 0.0"))
          .find("level does not apply to an indicator, which crosses 0"),
      std::string::npos);
  EXPECT_NE(
      hybrid_error_of(edited(watching_the_indicator, "value = \"ball.v\"", "")).find("needs value"),
      std::string::npos);
  const RunResult a = run_shipped(dir / "a", by_output.string());
  const RunResult b = run_shipped(dir / "b", by_indicator.string());
  ASSERT_EQ(a.status, RunStatus::completed) << a.error;
  ASSERT_EQ(b.status, RunStatus::completed) << b.error;
  EXPECT_EQ(b.trajectory_sha256, a.trajectory_sha256);
  EXPECT_EQ(b.events->crossings, 7u);
  const auto rows_a = bridge_log(dir / "a"), rows_b = bridge_log(dir / "b");
  ASSERT_EQ(rows_b.size(), rows_a.size());
  for (std::size_t k = 0; k < rows_a.size(); ++k) {
    EXPECT_EQ(rows_b[k].t, rows_a[k].t) << k;
    EXPECT_EQ(rows_b[k].value, rows_a[k].value) << k;
    EXPECT_EQ(rows_b[k].from, rows_a[k].event == "crossing" ? "ball.indicator[0]" : rows_a[k].from);
  }
}

// An FMU's event indicator (model exchange, fmi2GetEventIndicators) as an event output
// (scenarios/fmu-ball-floor.toml): the test FMU `bouncing_ball` (indicator: its height h) on
// the floor, which bounces it at the located impacts (closed form, as for the built-in ball
// above), under every method with the rollback check and one digest.
TEST(HybridRun, AnFmusEventIndicatorGoesToTheDiscreteSideAtTheLocatedTime) {
  TempDir dir;
  // The shipped scenario, with the FMU of this build.
  const fs::path file = dir / "fmu-ball-floor.toml";
  std::ofstream(file) << edited(file_text(kShipped + "fmu-ball-floor.toml"),
                                "\"../build/fmus/bouncing_ball.fmu\"",
                                "\"" + std::string(KAUSAL_TEST_FMU_DIR) + "/bouncing_ball.fmu\"");
  const RunResult reference = run_shipped(dir / "sequential", file.string());
  ASSERT_EQ(reference.status, RunStatus::completed) << reference.error;
  EXPECT_EQ(expect_closed_form_impacts(bridge_log(dir / "sequential"), "ball.indicator[0]"), 7u);
  for (const SyncMethod m : {SyncMethod::conservative, SyncMethod::optimistic}) {
    const RunResult r = run_checked_in_one_process(file, m, dir / std::string(to_string(m)));
    ASSERT_EQ(r.status, RunStatus::completed) << to_string(m) << ": " << r.error;
    EXPECT_EQ(r.trajectory_sha256, reference.trajectory_sha256) << to_string(m);
    EXPECT_EQ(file_text(dir / std::string(to_string(m)) / "bridge.csv"),
              file_text(dir / "sequential" / "bridge.csv"));
  }
}

// The level switch on the lower tank's drain instead of the upper tank's inflow: an event sets
// a parameter (the orifice), which is held like an input and rebuilds the tank's model at the
// event's own time. The upper tank runs at a constant inflow.
std::string drain_switch_text() {
  std::string text = shipped_text();
  text = edited(text, "output_interval = 10.0", "output_interval = 0.5");
  text = edited(text, "t_end = 2000.0", "t_end = 600.0");
  text = edited(text, "parameters = { area = 1.0, orifice = 0.01 }\nintegrator = \"rk4\"\nh = 1.0",
                "parameters = { area = 1.0, orifice = 0.01 }\ninputs = { inflow = 0.02 }\n"
                "integrator = \"rk4\"\nh = 0.5");
  text = edited(text, "parameters = { area = 2.0, orifice = 0.015 }",
                "parameters = { area = 2.0, orifice = 0.005 }");
  // Low: a narrow drain (the level rises); high: a wide one (it falls).
  text = edited(text, "open_command = 0.05, closed_command = 0.0",
                "open_command = 0.005, closed_command = 0.03");
  return edited(text, "to = \"upper.inflow\"\ninitial = 0.0", "to = \"lower.orifice\"");
}

TEST(HybridRun, AnEventSetsAParameterAtItsOwnTimeUnderEveryMethod) {
  TempDir dir;
  const fs::path file = dir / "drain.toml";
  std::ofstream(file) << drain_switch_text();
  const PartitionedScenario s = load_partitioned_scenario(file);
  ASSERT_EQ(s.bridge->inputs.at(0).parameter, "orifice");
  EXPECT_EQ(s.bridge->inputs.at(0).initial, 0.005) << "a parameter starts at its own value";
  const RunResult reference = run_shipped(dir / "sequential", file.string());
  ASSERT_EQ(reference.status, RunStatus::completed) << reference.error;
  ASSERT_TRUE(reference.events);
  EXPECT_GT(reference.events->crossings, 4u);
  // The commands reach the orifice, alternating.
  std::size_t sets = 0;
  for (const BridgeRow& row : bridge_log(dir / "sequential"))
    if (row.event == "set") {
      EXPECT_EQ(row.to, "lower.orifice");
      EXPECT_TRUE(row.value == 0.005 || row.value == 0.03) << row.value;
      ++sets;
    }
  EXPECT_EQ(sets, reference.events->to_partitions);
  // Each command takes effect at its crossing, not at the next step: the level turns at the
  // band's edges (a command held to the next step, 0.5 s on, would overshoot by up to 2 mm).
  const auto rows = lower_levels(dir / "sequential");
  double high = 0, low = 1;
  bool reached = false;
  for (const auto& [t, level] : rows) {
    reached = reached || level >= 0.2;
    if (!reached) continue;
    high = std::max(high, level);
    low = std::min(low, level);
  }
  EXPECT_LT(high, 0.25 + 1e-6);
  EXPECT_GT(high, 0.25 - 5e-3);
  EXPECT_GT(low, 0.15 - 1e-6);
  EXPECT_LT(low, 0.15 + 5e-3);
  // Every method, with the rollback check (a rollback builds the tank again with the orifice
  // of the step it goes back to): the sequential run's bits.
  for (const SyncMethod m : {SyncMethod::conservative, SyncMethod::optimistic}) {
    const fs::path out = dir / to_string(m);
    const RunResult r = run_checked_in_one_process(file, m, out);
    ASSERT_EQ(r.status, RunStatus::completed) << to_string(m) << ": " << r.error;
    EXPECT_EQ(r.trajectory_sha256, reference.trajectory_sha256) << to_string(m);
    EXPECT_EQ(file_text(out / "bridge.csv"), file_text(dir / "sequential" / "bridge.csv"));
  }
  // What cannot be set so is refused naming the line.
  const std::string drain = drain_switch_text();
  EXPECT_NE(hybrid_error_of(
                edited(drain, "to = \"lower.orifice\"", "to = \"lower.orifice\"\ninitial = 0.01"))
                .find("a parameter starts at its value in the subsystem"),
            std::string::npos);
  EXPECT_NE(hybrid_error_of(edited(drain, "to = \"lower.orifice\"", "to = \"lower.gravity\""))
                .find("has no input, state or parameter 'gravity' (inputs: inflow; states: "
                      "level; parameters given: area, orifice)"),
            std::string::npos);
}

}  // namespace
}  // namespace kausal

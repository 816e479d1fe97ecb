// The pinned digests (scenarios/digests.toml): every shipped scenario is listed, and its
// command, run for real, reproduces the checked-in digest. Then one generated test per cell
// of scenario × method × layout (Cells/Cell.ReproducesThePinnedDigest/thesis_optimistic_
// pendulum, ..., thesis_conservative_step_blocks_2), each running `kausal run` with real component
// processes, so that a failing cell names itself; and cells of scenario × method × layout ×
// service (..._single_rollback_check, ..._realtime, ..._external_clock, ..._resume).
#include <gtest/gtest.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kausal_process.hpp"
#include "monitor/core/capabilities.hpp"
#include "monitor/run/run.hpp"

namespace kausal::testing {
namespace {

const fs::path kSource = KAUSAL_SOURCE_DIR;

struct Pinned {
  std::string file, command, sha256;
};

std::vector<Pinned> pinned_digests() {
  const toml::table root = toml::parse_file((kSource / "scenarios/digests.toml").string());
  std::vector<Pinned> list;
  for (const auto& node : *root["scenario"].as_array()) {
    const toml::table& t = *node.as_table();
    list.push_back({t["file"].value_or(std::string{}), t["command"].value_or(std::string{}),
                    t["sha256"].value_or(std::string{})});
  }
  return list;
}

// "kausal run scenarios/x.toml --method sequential" as arguments, with the scenario's path
// made absolute.
std::vector<std::string> arguments_of(const std::string& command) {
  std::istringstream words(command);
  std::vector<std::string> args;
  for (std::string w; words >> w;)
    args.push_back(w.rfind("scenarios/", 0) == 0 ? (kSource / w).string() : w);
  EXPECT_FALSE(args.empty());
  EXPECT_EQ(args.front(), "kausal");
  args.erase(args.begin());
  return args;
}

TEST(PinnedDigests, EveryShippedScenarioIsPinned) {
  std::set<std::string> listed;
  for (const Pinned& p : pinned_digests()) {
    EXPECT_EQ(p.sha256.size(), 64u) << p.file;
    EXPECT_TRUE(listed.insert(p.file).second) << p.file << " is listed twice";
  }
  for (const auto& entry : fs::directory_iterator(kSource / "scenarios")) {
    const fs::path f = entry.path();
    if (f.extension() != ".toml" || f.filename() == "digests.toml") continue;
    EXPECT_TRUE(listed.count(f.filename().string()))
        << f.filename() << " has no pinned digest in scenarios/digests.toml";
  }
}

TEST(PinnedDigests, EachCommandReproducesItsDigest) {
  TempDir dir;
  int k = 0;
  for (const Pinned& p : pinned_digests()) {
    std::vector<std::string> args = arguments_of(p.command);
    const fs::path out = dir / ("run-" + std::to_string(k++));
    args.insert(args.end(), {"--out", out.string()});
    std::string err;
    ASSERT_EQ(run_kausal(args, dir.path(), &err), 0) << p.command << "\n" << err;
    EXPECT_EQ(read_json(out / "summary.json")["trajectory_sha256"], p.sha256)
        << p.command << ": the digest differs from scenarios/digests.toml";
  }
}

// One cell: a shipped scenario run with one method in one layout.
struct Cell {
  Pinned pinned;
  std::vector<std::string> args;  // "--method", ..., "--layout", ...
  std::string name;               // for the test's name: letters, digits and '_'
  // > 0: the cell runs the scenario's first `duration` seconds and compares with the
  // sequential run of that stretch (see kMostPendulumStepsPerProcessCell).
  double duration = 0;
  // A service someone acts on (the run has --external-clock): external_clock, the test ticks
  // every step (kausal tick --all); resume, it ticks the first kTicksBeforeResume, stops
  // the run (SIGINT) and resumes it (kausal run --resume); inject, it sends `injection`
  // (kausal inject) before it ticks every step; replay, the same and then kausal run
  // --replay. None: the run goes by itself.
  std::optional<Service> act{};
  std::vector<std::string> injection{};
};

// Steps (a discrete-event run's thousandths) a resume cell releases before it stops the run.
constexpr int kTicksBeforeResume = 100;

// The layouts that serve each pendulum on its own (process, pendulum, single: its own
// processes or its own servants in the monitor's process) cost one round trip per pendulum
// and step, about 150 µs of CPU per pendulum-step in the process layout on the 2-CPU test
// machine (a conservative thesis.toml run whole: 15.6 CPU-seconds). Such a cell runs no more
// pendulum-steps than this, and at least its first second, against the sequential run of the
// same stretch, whose digest the same binary computes: thesis.toml and heterogeneous.toml
// their first 5 s (38 impacts), cradle.toml its first 5 s (49), large.toml its first second
// (134 impacts, 32 pendulums). The stretch must hold kLeastImpactsShortened impacts at least
// (checked: a cell without impacts would show nothing). The whole scenario is checked against
// its pinned digest by PinnedDigests and in the block layouts. (At 100,000 pendulum-steps
// these cells were a quarter of the release tests' time: docs/performance.md, "Build and test
// times".)
constexpr double kMostPendulumStepsPerProcessCell = 25'000;
constexpr int kLeastImpactsShortened = 20;

// The seconds of a pendulum chain a cell in `layout` runs: all of them (0) unless serving
// each pendulum on its own would exceed the bound above; never less than one.
double cell_duration(const toml::table& root, const std::string& layout) {
  if (layout != "process" && layout != "pendulum" && layout != "single") return 0;
  const double duration = root["simulation"]["duration"].value_or(0.0);
  const double step = root["simulation"]["step"].value_or(1.0);
  const double pendulum_steps = root["pendulum"].as_array()->size() * duration / step;
  if (pendulum_steps <= kMostPendulumStepsPerProcessCell) return 0;
  return std::max(1.0, std::floor(duration * kMostPendulumStepsPerProcessCell / pendulum_steps));
}

// The scenario with its duration cut to `seconds`, written into `dir`.
fs::path shortened_scenario(const std::string& file, double seconds, const fs::path& dir) {
  toml::table root = toml::parse_file((kSource / "scenarios" / file).string());
  root["simulation"].as_table()->insert_or_assign("duration", seconds);
  const fs::path copy = dir / file;
  std::ofstream(copy) << root;
  return copy;
}

// The row of the capability table a shipped scenario is.
ModelKind kind_of_file(const std::string& file) {
  const toml::table root = toml::parse_file((kSource / "scenarios" / file).string());
  if (root.contains("events"))
    return root.contains("subsystem") ? ModelKind::hybrid : ModelKind::events;
  if (!root.contains("subsystem")) return ModelKind::chain;
  return root.contains("master") ? ModelKind::master : ModelKind::partitioned;
}

std::string identifier(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// The layouts of a cell as the command line spells them, with the words its name gets:
// blocks in two (and, conservative, three where the chain has that many pendulums: an
// uneven cut); event groups in 1, 2 and 3 threads, or 2 processes.
std::vector<std::pair<std::vector<std::string>, std::string>> spelled(Layout layout, ModelKind kind,
                                                                      SyncMethod method,
                                                                      std::size_t pendulums) {
  const std::string name(name_of(layout));
  if (kind == ModelKind::events) {
    std::vector<std::pair<std::vector<std::string>, std::string>> groups;
    for (const std::string g : {"1", "2", "3"})
      if (layout == Layout::single || g == "2")
        groups.push_back({{"--layout", name, "--groups", g},
                          (layout == Layout::single ? "" : name + "_") + g + "_groups"});
    return groups;
  }
  if (!in_blocks(layout)) return {{{"--layout", name}, name}};
  std::vector<std::pair<std::vector<std::string>, std::string>> cuts;
  for (const std::size_t k : {2u, 3u})
    if (k == 2 ||
        (method == SyncMethod::conservative && layout == Layout::blocks && pendulums >= k))
      cuts.push_back(
          {{"--layout", name + ":" + std::to_string(k)}, name + "_" + std::to_string(k)});
  return cuts;
}

// Every cell the capability table says yes to (monitor/core/capabilities.hpp): each
// conservative and optimistic method of the scenario's kind in each of its layouts.
// Partitioned models are pinned at tolerance 0, where optimistic must give the sequential
// bits too.
std::vector<Cell> all_cells() {
  std::vector<Cell> cells;
  for (const Pinned& p : pinned_digests()) {
    const ModelKind kind = kind_of_file(p.file);
    const toml::table root = toml::parse_file((kSource / "scenarios" / p.file).string());
    const std::size_t pendulums =
        kind == ModelKind::chain ? root["pendulum"].as_array()->size() : 0;
    const std::string base = p.file.substr(0, p.file.size() - 5);
    for (const auto& [method, guarantee] : methods_of(kind)) {
      if (method == SyncMethod::sequential) continue;
      std::vector<std::string> args = {"--method", to_string(method)};
      if (guarantee != Guarantee::none)
        args.insert(args.end(), {"--guarantee", to_string(guarantee)});
      if (method == SyncMethod::optimistic && kind == ModelKind::partitioned)
        args.insert(args.end(), {"--tolerance", "0"});
      const std::string label = base + "_" + method_dir(method, guarantee);
      for (const Layout layout : layouts_of(kind))
        for (const auto& [layout_args, words] : spelled(layout, kind, method, pendulums)) {
          std::vector<std::string> cell_args = args;
          cell_args.insert(cell_args.end(), layout_args.begin(), layout_args.end());
          cells.push_back({p, cell_args, identifier(label + "_" + words),
                           kind == ModelKind::chain ? cell_duration(root, to_string(layout)) : 0});
        }
    }
  }
  return cells;
}

// Cells of services too, each with the pinned digest, for every method the table gives one
// scenario of each kind, in the single layout (every kind has it; its runs start no
// processes, so that a cell costs about a second): --rollback-check (every Integrator, block
// or event handled twice), paced at the fastest pace (--realtime 1e6, every step released by
// the clock), --external-clock (every step released by kausal tick) and --resume (a run
// ticked from outside, stopped after its first steps and resumed). Named
// <scenario>_<method>_single_<service>. The other services need more than a tick (an
// injection changes the digest, a window, a node, certificates): their own tests run them.
std::vector<Cell> service_cells() {
  const std::pair<Service, std::vector<std::string>> services[] = {
      {Service::rollback_check, {"--rollback-check"}},
      {Service::paced, {"--realtime", "1e6", "--skip-feasibility-check"}},
      {Service::external_clock, {"--external-clock"}},
      {Service::resume, {"--external-clock"}},
      {Service::inject, {"--external-clock"}},
      {Service::replay, {"--external-clock"}}};
  // What an operator sends into each scenario: an impulse, a parameter, an event.
  const std::map<std::string, std::vector<std::string>> injections = {
      {"cradle.toml", {"push", "1", "0.05"}},
      {"two-mass.toml", {"set", "mass1.d", "0.2"}},
      {"two-mass-master.toml", {"set", "mass1.d", "0.2"}},
      {"phold.toml", {"send", "component-3"}},
      {"two-tanks-level-switch.toml", {"set", "upper.orifice", "0.012"}}};
  std::vector<Cell> cells;
  for (const Pinned& p : pinned_digests()) {
    if (!injections.contains(p.file)) continue;
    const ModelKind kind = kind_of_file(p.file);
    const std::string base = p.file.substr(0, p.file.size() - 5);
    for (const auto& [method, guarantee] : methods_of(kind)) {
      if (method == SyncMethod::sequential) continue;
      const RunShape shape{kind, method, guarantee, RunLayout{Layout::single}};
      for (const auto& [service, service_args] : services) {
        if (refusal(shape, service)) continue;
        std::vector<std::string> args = {"--method", to_string(method)};
        if (guarantee != Guarantee::none)
          args.insert(args.end(), {"--guarantee", to_string(guarantee)});
        if (method == SyncMethod::optimistic && kind == ModelKind::partitioned)
          args.insert(args.end(), {"--tolerance", "0"});
        args.insert(args.end(), {"--layout", "single"});
        args.insert(args.end(), service_args.begin(), service_args.end());
        const bool acted = service != Service::rollback_check && service != Service::paced;
        std::string named(name_of(service));  // "--resume", "kausal inject"
        named = named.substr(named.rfind("kausal ", 0) == 0 ? 7 : named.find_first_not_of('-'));
        cells.push_back(
            {p, args, identifier(base + "_" + method_dir(method, guarantee) + "_single_" + named),
             0, acted ? std::optional(service) : std::nullopt, injections.at(p.file)});
      }
    }
  }
  return cells;
}

std::vector<Cell> every_cell() {
  std::vector<Cell> cells = all_cells();
  for (Cell& c : service_cells()) cells.push_back(std::move(c));
  return cells;
}

class Cells : public ::testing::TestWithParam<Cell> {};

// Runs a cell of a service someone acts on (Cell::act): the run ticked from outside to its
// end (after an injection, for inject and replay), or ticked, stopped and resumed; either
// way DIR/out holds the completed run. A replay's run is DIR/out/replay.
void act_on(const std::vector<std::string>& args, const Cell& cell, const TempDir& dir) {
  const Service act = *cell.act;
  const std::string out = (dir / "out").string();
  KausalProcess run(args, dir.path());
  for (int k = 0; k < 1000 && !fs::exists(dir / "out" / "clock.ior"); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(dir / "out" / "clock.ior")) << run.err();
  std::string err;
  if (act == Service::inject || act == Service::replay) {
    std::vector<std::string> inject{"inject", out};
    inject.insert(inject.end(), cell.injection.begin(), cell.injection.end());
    ASSERT_EQ(run_kausal(inject, dir.path(), &err), 0) << err;
  }
  if (act != Service::resume) {
    const int ticked =
        run_kausal({"tick", out, "--all"}, dir.path(), &err, std::chrono::seconds(300));
    if (ticked != 0) run.wait(std::chrono::seconds(10));
    ASSERT_EQ(ticked, 0) << err << "\nthe run:\n" << run.err();
    ASSERT_EQ(run.wait(std::chrono::seconds(60)), std::optional<int>(0)) << run.err();
    if (act == Service::replay) {
      KausalProcess replay({"run", "--replay", out}, dir.path());
      EXPECT_EQ(replay.wait(std::chrono::seconds(300)), std::optional<int>(0)) << replay.err();
      EXPECT_NE(replay.out().find("the same digest"), std::string::npos) << replay.out();
    }
    return;
  }
  ASSERT_EQ(
      run_kausal({"tick", out, "--count", std::to_string(kTicksBeforeResume)}, dir.path(), &err), 0)
      << err;
  ASSERT_EQ(kill(run.pid(), SIGINT), 0);
  ASSERT_EQ(run.wait(std::chrono::seconds(60)), std::optional<int>(130)) << run.err();
  EXPECT_EQ(read_json(dir / "out" / "summary.json")["status"], "interrupted");
  ASSERT_EQ(run_kausal({"run", "--resume", out}, dir.path(), &err, std::chrono::seconds(300)), 0)
      << err;
  EXPECT_FALSE(read_json(dir / "out" / "summary.json")["resumed_from"].empty());
}

TEST_P(Cells, ReproducesThePinnedDigest) {
  const Cell& cell = GetParam();
  TempDir dir;
  fs::path scenario = kSource / "scenarios" / cell.pinned.file;
  std::string expected = cell.pinned.sha256;
  std::string err;
  if (cell.duration > 0) {
    scenario = shortened_scenario(cell.pinned.file, cell.duration, dir.path());
    const fs::path reference = dir / "sequential";
    ASSERT_EQ(run_kausal({"run", scenario.string(), "--out", reference.string()}, dir.path(), &err),
              0)
        << err;
    const auto sequential = read_json(reference / "summary.json");
    expected = sequential["trajectory_sha256"];
    EXPECT_GE(sequential["collisions"].get<int>(), kLeastImpactsShortened)
        << "the first " << cell.duration << " s of " << cell.pinned.file;
  }
  std::vector<std::string> args = {"run", scenario.string()};
  args.insert(args.end(), cell.args.begin(), cell.args.end());
  args.insert(args.end(), {"--out", (dir / "out").string()});
  // The largest cell (large.toml's first second in 64 processes, conservative step) takes
  // seconds alone on a 2-core machine and several times that beside the other tests and a
  // CPU hog: slow, not stuck.
  if (cell.act) {
    act_on(args, cell, dir);
  } else {
    ASSERT_EQ(run_kausal(args, dir.path(), &err, std::chrono::seconds(300)), 0) << err;
  }
  const auto summary = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(summary["status"], "completed");
  // "blocks:3" is the layout "blocks" with 3 blocks (and "block-processes:2" likewise); a
  // sequential cell has none.
  const auto asked = std::find(cell.args.begin(), cell.args.end(), "--layout");
  const std::string layout = asked == cell.args.end() ? "none" : *(asked + 1);
  const auto colon = layout.find(':');
  EXPECT_EQ(summary["layout"], layout.substr(0, colon));
  if (colon != std::string::npos) {
    EXPECT_EQ(summary["blocks"], std::stoi(layout.substr(colon + 1)));
  }
  // A paced cell was paced: its summary times the releases.
  if (std::find(cell.args.begin(), cell.args.end(), "--realtime") != cell.args.end()) {
    EXPECT_TRUE(summary.contains("realtime")) << cell.name;
  }
  if (cell.act == Service::inject || cell.act == Service::replay) {
    // The injection changed what was computed (the replay above reproduced it).
    EXPECT_NE(summary["trajectory_sha256"], expected) << cell.name << ": the injection did nothing";
    const std::string recorded = read_file(dir / "out" / "injections.jsonl");
    EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), 1) << recorded;
  } else if (cell.duration > 0) {
    EXPECT_EQ(summary["trajectory_sha256"], expected)
        << cell.name << " differs from the sequential run of the first " << cell.duration
        << " s of " << cell.pinned.file;
  } else {
    EXPECT_EQ(summary["trajectory_sha256"], expected)
        << cell.name << " differs from the digest pinned for " << cell.pinned.file << " ("
        << cell.pinned.command << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Every, Cells, ::testing::ValuesIn(every_cell()),
                         [](const ::testing::TestParamInfo<Cell>& cell) {
                           return cell.param.name;
                         });

}  // namespace
}  // namespace kausal::testing

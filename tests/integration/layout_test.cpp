// The layouts (--layout process|pendulum|single) as real processes: every method gives the
// sequential digest in the pendulum and single layouts, components keep their names and
// report the process they live in, compare runs every method in every layout listed.
// (A killed pendulum process and the version check in the pendulum layout: failure_test.)
#include <gtest/gtest.h>

#include <set>

#include "../unit/test_support.hpp"
#include "kausal_process.hpp"
#include "scenario_file.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

struct Finished {
  nlohmann::json summary;
  pid_t kausal_pid = -1;
};

Finished run_ok(const fs::path& scenario, const std::vector<std::string>& method,
                const fs::path& out, const TempDir& dir) {
  std::vector<std::string> args = {"run", scenario.string(), "--out", out.string()};
  args.insert(args.end(), method.begin(), method.end());
  KausalProcess p(args, dir.path());
  const auto code = p.wait(120s);
  EXPECT_EQ(code, 0) << p.err();
  if (code != 0) return {};
  EXPECT_TRUE(children_of(p.pid()).empty());
  return {read_json(out / "summary.json"), p.pid()};
}

// Every component under its own name, in the process the layout puts it in.
void expect_placed(const Finished& r, const std::string& layout, std::size_t n,
                   const std::string& label) {
  const auto& components = r.summary["components"];
  std::map<std::string, long> pid_of;
  for (const auto& c : components) {
    pid_of[c["name"]] = c["pid"].get<long>();
    EXPECT_TRUE(c["reachable"].get<bool>()) << label << " " << c["name"];
    EXPECT_GT(c["trace_spans"].get<int>(), 0) << label << " " << c["name"];
  }
  std::set<long> pendulum_pids;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::string sys = "system-" + std::to_string(i),
                      integ = "integrator-" + std::to_string(i);
    ASSERT_TRUE(pid_of.count(sys) && pid_of.count(integ)) << label;
    if (layout == "pendulum") {
      EXPECT_EQ(pid_of[sys], pid_of[integ]) << label << " pendulum " << i;
      EXPECT_NE(pid_of[sys], r.kausal_pid) << label;
      pendulum_pids.insert(pid_of[sys]);
    } else {
      EXPECT_EQ(pid_of[sys], r.kausal_pid) << label;
      EXPECT_EQ(pid_of[integ], r.kausal_pid) << label;
    }
  }
  if (layout == "pendulum") {
    EXPECT_EQ(pendulum_pids.size(), n) << label;
  }
}

void expect_layouts_agree(const fs::path& scenario, std::size_t n, const std::string& label) {
  TempDir dir;
  const auto seq = run_ok(scenario, {"--method", "sequential"}, dir / "seq", dir);
  ASSERT_FALSE(seq.summary.is_null());
  EXPECT_EQ(seq.summary["layout"], "none");
  const std::vector<std::vector<std::string>> methods = {
      {"--method", "conservative"},
      {"--method", "conservative", "--guarantee", "lookahead", "--check-guarantees"},
      {"--method", "optimistic"},
      {"--method", "optimistic", "--batch", "3", "--window", "20", "--pin", "none"},
  };
  for (const std::string layout : {"pendulum", "single"}) {
    for (std::size_t k = 0; k < methods.size(); ++k) {
      auto args = methods[k];
      args.insert(args.end(), {"--layout", layout});
      const std::string what = label + " / " + layout + " / " + std::to_string(k);
      const auto r = run_ok(scenario, args, dir / (layout + std::to_string(k)), dir);
      if (r.summary.is_null()) continue;
      EXPECT_EQ(r.summary["layout"], layout) << what;
      EXPECT_EQ(r.summary["trajectory_sha256"], seq.summary["trajectory_sha256"]) << what;
      EXPECT_EQ(r.summary["collisions"], seq.summary["collisions"]) << what;
      expect_placed(r, layout, n, what);
    }
  }
}

TEST(Layouts, EveryMethodGivesTheSequentialDigestInThePendulumAndSingleLayouts) {
  TempDir dir;
  const auto thesis =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 3.0"}});
  expect_layouts_agree(thesis, 5, "thesis");
  const auto random = write_toml(random_scenario(707, 7, 1500), dir / "random.toml");
  expect_layouts_agree(random, 7, "seed 707");
}

TEST(Layouts, PendulumLayoutRunsOneChildPerPendulum) {
  TempDir dir;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 60.0"}});
  const fs::path out = dir / "out";
  KausalProcess kausal({"run", file.string(), "--method", "conservative", "--layout", "pendulum",
                        "--out", out.string()},
                       dir.path());
  // Running: every child has started and steps are being committed.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(fs::exists(out / "trajectory.csv") && fs::file_size(out / "trajectory.csv") > 2000))
    std::this_thread::sleep_for(20ms);
  const auto children = children_of(kausal.pid());
  EXPECT_EQ(children.size(), 5u);
  for (const auto& [pid, cmd] : children)
    EXPECT_NE(cmd.find("kausal-pendulum"), std::string::npos) << cmd;
  ASSERT_EQ(kill(kausal.pid(), SIGINT), 0);
  const auto code = kausal.wait(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 130) << kausal.err();
  for (const auto& [pid, cmd] : children) EXPECT_FALSE(process_exists(pid)) << cmd;
}

TEST(Layouts, CompareRunsEveryMethodInEveryLayoutListed) {
  TempDir dir;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  const fs::path out = dir / "out";
  KausalProcess p(
      {"compare", file.string(), "--layout", "process,pendulum,single", "--out", out.string()},
      dir.path());
  const auto code = p.wait(120s);
  ASSERT_TRUE(code);
  ASSERT_EQ(*code, 0) << p.err();
  const auto seq = read_json(out / "sequential" / "summary.json");
  EXPECT_EQ(seq["layout"], "none");
  for (const std::string layout : {"process", "pendulum", "single"}) {
    for (const std::string method : {"conservative-step", "conservative-lookahead", "optimistic"}) {
      const auto summary = read_json(out / layout / method / "summary.json");
      EXPECT_EQ(summary["layout"], layout) << method;
      EXPECT_EQ(summary["status"], "completed") << layout << " " << method;
      EXPECT_EQ(summary["trajectory_sha256"], seq["trajectory_sha256"]) << layout << " " << method;
    }
    EXPECT_NE(p.out().find("optimistic [" + layout + "]"), std::string::npos) << p.out();
  }
  EXPECT_TRUE(children_of(p.pid()).empty());
}

TEST(Layouts, BadLayoutIsBadInput) {
  TempDir dir;
  const std::string thesis = std::string(KAUSAL_SOURCE_DIR) + "/scenarios/thesis.toml";
  EXPECT_EQ(
      run_kausal({"run", thesis, "--method", "conservative", "--layout", "threads"}, dir.path()),
      2);
  EXPECT_EQ(run_kausal({"compare", thesis, "--layout", "process,bogus"}, dir.path()), 2);
  // Sequential deploys no components: a layout for it is a mistake, not a no-op.
  EXPECT_EQ(run_kausal({"run", thesis, "--method", "sequential", "--layout", "single"}, dir.path()),
            2);
}

}  // namespace
}  // namespace kausal::testing

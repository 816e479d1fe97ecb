// The layouts (--layout process|pendulum|single|blocks:K) as real processes: every method
// gives the sequential digest in the pendulum and single layouts, components keep their names
// and report the process they live in, compare runs every method in every layout listed;
// blocks of pendulums run in the kausal process and give the sequential digest too.
// (A killed pendulum process and the version check in the pendulum layout: failure_test.)
#include <gtest/gtest.h>

#include <set>

#include "../unit/test_support.hpp"
#include "kausal_process.hpp"
#include "scenario_file.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

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
  const std::string impacts = slurp(dir / "seq" / "collisions.csv");
  EXPECT_EQ(static_cast<std::int64_t>(std::count(impacts.begin(), impacts.end(), '\n')) - 1,
            seq.summary["collisions"].get<std::int64_t>())
      << label;
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
      // collisions.csv: a row per impact, the same bytes whoever resolved them.
      EXPECT_EQ(slurp(dir / (layout + std::to_string(k)) / "collisions.csv"),
                slurp(dir / "seq" / "collisions.csv"))
          << what;
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

// Blocks on threads (blocks:K: the kausal process alone) or in processes (block-processes:K:
// a kausal-block each): a component per block with its Calcs, the sequential digest,
// collisions and Calc count (optimistic: plus the Calcs it threw away).
void expect_blocks_give_the_sequential_run(const std::string& layout) {
  const bool processes = layout == "block-processes";
  TempDir dir;
  const auto random = write_toml(random_scenario(909, 11, 2000), dir / "random.toml");
  const auto seq = run_ok(random, {"--method", "sequential"}, dir / "seq", dir);
  ASSERT_FALSE(seq.summary.is_null());
  std::uint64_t rollbacks = 0;
  for (const auto& [method, k] :
       std::vector<std::pair<std::string, std::string>>{{"conservative", "2"},
                                                        {"conservative", "5"},
                                                        {"conservative", "11"},
                                                        {"lookahead", "2"},
                                                        {"lookahead", "5"},
                                                        {"optimistic", "2"},
                                                        {"optimistic", "11"}}) {
    std::vector<std::string> args = {"--method", method};
    if (method == "lookahead") args = {"--method", "conservative", "--guarantee", "lookahead"};
    args.insert(args.end(), {"--layout", layout + ":" + k});
    const auto r = run_ok(random, args, dir / (method + k), dir);
    ASSERT_FALSE(r.summary.is_null()) << method << k;
    EXPECT_EQ(r.summary["layout"], layout) << k;
    EXPECT_EQ(r.summary["blocks"], std::stoi(k));
    EXPECT_EQ(r.summary["trajectory_sha256"], seq.summary["trajectory_sha256"]) << method << k;
    EXPECT_EQ(r.summary["collisions"], seq.summary["collisions"]) << k;
    EXPECT_EQ(slurp(dir / (method + k) / "collisions.csv"), slurp(dir / "seq" / "collisions.csv"))
        << method << k;
    EXPECT_EQ(r.summary["calc_calls"].get<std::uint64_t>(),
              seq.summary["calc_calls"].get<std::uint64_t>() +
                  r.summary["wasted_calc_calls"].get<std::uint64_t>())
        << method << k;
    if (method == "lookahead") {
      EXPECT_EQ(r.summary["rollbacks"], 0) << k;
      EXPECT_EQ(r.summary["wasted_calc_calls"], 0) << k;
      EXPECT_LT(r.summary["rounds"].get<std::uint64_t>(), 2000u) << k;  // stretches granted
    }
    if (method == "optimistic") {
      rollbacks += r.summary["rollbacks"].get<std::uint64_t>();
      EXPECT_FALSE(r.summary.contains("batch_size"));
      EXPECT_EQ(r.summary["window"], 128);
      EXPECT_EQ(r.text.find("batch"), std::string::npos) << r.text;
    }
    std::set<std::string> blocks;
    std::set<long> pids;
    for (const auto& c : r.summary["components"]) {
      const long pid = c["pid"].get<long>();
      if (!processes || c["role"] != "block")
        EXPECT_EQ(pid, r.kausal_pid) << c["name"];
      else
        EXPECT_TRUE(pid != r.kausal_pid && pids.insert(pid).second) << c["name"];
      if (c["role"] == "block") {
        blocks.insert(c["name"].get<std::string>());
        EXPECT_GT(c["calc_calls"].get<std::uint64_t>(), 0u) << c["name"];
        EXPECT_GT(c["trace_spans"].get<int>(), 0) << c["name"];
      }
    }
    EXPECT_EQ(blocks.size(), static_cast<std::size_t>(std::stoi(k)));
    EXPECT_TRUE(blocks.count("block-1") && blocks.count("block-" + k)) << k;
  }
  EXPECT_GT(rollbacks, 0u);  // the random chain has contacts across boundaries
}

TEST(Blocks, BlocksRunInTheKausalProcessAndGiveTheSequentialRun) {
  expect_blocks_give_the_sequential_run("blocks");
}

TEST(Blocks, BlocksInProcessesGiveTheSequentialRun) {
  expect_blocks_give_the_sequential_run("block-processes");
}

TEST(Blocks, CompareRunsEveryMethodInBlocksBesideTheOtherLayouts) {
  TempDir dir;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  const fs::path out = dir / "out";
  KausalProcess p({"compare", file.string(), "--layout", "single,blocks:2", "--out", out.string()},
                  dir.path());
  const auto code = p.wait(120s);
  ASSERT_TRUE(code);
  ASSERT_EQ(*code, 0) << p.err();
  const auto seq = read_json(out / "sequential" / "summary.json");
  const auto blocks = read_json(out / "blocks" / "conservative-step" / "summary.json");
  EXPECT_EQ(blocks["trajectory_sha256"], seq["trajectory_sha256"]);
  EXPECT_EQ(blocks["blocks"], 2);
  const auto optimistic = read_json(out / "blocks" / "optimistic" / "summary.json");
  EXPECT_EQ(optimistic["trajectory_sha256"], seq["trajectory_sha256"]);
  const auto lookahead = read_json(out / "blocks" / "conservative-lookahead" / "summary.json");
  EXPECT_EQ(lookahead["trajectory_sha256"], seq["trajectory_sha256"]);
  EXPECT_EQ(lookahead["guarantee"], "lookahead");
  EXPECT_TRUE(fs::exists(out / "single" / "conservative-lookahead" / "summary.json"));
  EXPECT_EQ(read_json(out / "comparison.json")["rows"].size(), 7u);
  for (const char* row :
       {"conservative/step [blocks]", "conservative/lookahead [blocks]", "optimistic [blocks]"})
    EXPECT_NE(p.out().find(row), std::string::npos) << row << "\n" << p.out();
}

TEST(Blocks, WhatBlocksCannotDoIsRefusedWithItsReason) {
  TempDir dir;
  const std::string src = KAUSAL_SOURCE_DIR;
  const std::string thesis = src + "/scenarios/thesis.toml";
  struct Refusal {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Refusal> refusals = {
      {{"run", thesis, "--method", "optimistic", "--layout", "blocks:2", "--batch", "4"},
       "ship no batches"},
      {{"run", thesis, "--method", "conservative", "--layout", "blocks:6"}, "at most one block"},
      {{"run", thesis, "--method", "conservative", "--layout", "blocks:1"}, "blocks:K needs"},
      {{"run", src + "/scenarios/two-tanks.toml", "--method", "conservative", "--layout",
        "blocks:2"},
       "blocks cut a row of pendulums"},
      {{"compare", thesis, "--layout", "blocks:2,blocks:3"}, "one block count"},
      {{"compare", thesis, "--layout", "blocks:2,block-processes:3"}, "one block count"},
      {{"run", thesis, "--method", "optimistic", "--layout", "block-processes:2", "--batch", "4"},
       "ship no batches"},
      {{"run", thesis, "--method", "conservative", "--layout", "block-processes:1"},
       "block-processes:K needs"},
      {{"run", thesis, "--method", "conservative", "--layout", "blocks:2", "--deploy",
        (dir / "deploy.toml").string()},
       "block-processes:K"},
  };
  // (A deployment file no node is asked about: the layout is refused first.)
  std::ofstream(dir / "deploy.toml") << "naming = \"corbaloc::127.0.0.1:1/NameService\"\n"
                                     << "[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n";
  for (const auto& [args, says] : refusals) {
    std::string err;
    EXPECT_EQ(run_kausal(args, dir.path(), &err), 2) << args.back() << "\n" << err;
    EXPECT_NE(err.find(says), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace kausal::testing

// The co-simulation master through the command line, with real component processes:
// `kausal compare --reference` measures every method's global error against the monolithic
// CVODE answer and shows the master's figures; what the master cannot do (speculate, be
// resumed) is refused with exit 2 and a reason.
#include <gtest/gtest.h>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

TEST(CosimulationCli, CompareWithAReferenceGivesEveryMethodsGlobalErrorAndTheMastersFigures) {
  TempDir dir;
  const fs::path out = dir / "cmp";
  KausalProcess p({"compare", (kScenarios / "two-mass-master.toml").string(), "--reference",
                   "--out", out.string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(240)).value_or(-1), 0) << p.err();
  for (const char* column :
       {"macro steps", "extra passes", "input jumps", "global error", "idle s"})
    EXPECT_NE(p.out().find(column), std::string::npos) << column << "\n" << p.out();
  // State by state, each partition alone against the coupled run.
  EXPECT_NE(p.out().find("error by state: each partition alone"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("\nmass2.v "), std::string::npos) << p.out();
  const auto table = read_json(out / "comparison.json");
  ASSERT_EQ(table["rows"].size(),
            2u);  // sequential and conservative: the master does not speculate
  for (const auto& row : table["rows"]) {
    EXPECT_TRUE(row["digest_equal"].get<bool>()) << row.dump();
    // The master's combined features keep E within 1e-3 of the exact answer (CVODE here).
    EXPECT_LT(row["global_error"].get<double>(), 1e-3) << row.dump();
    EXPECT_GT(row["cosimulation"]["macro_steps"].get<std::uint64_t>(), 100u);
    EXPECT_EQ(row["cosimulation"]["input_discontinuities"].get<std::uint64_t>(), 0u);
  }
  // Each of the four states alone (RK4 at 1 ms, its inputs exact) within 1e-6 of the
  // reference, coupled not below that: the rest is the coupling's.
  ASSERT_EQ(table["error_by_state"].size(), 4u) << table.dump();
  for (const auto& state : table["error_by_state"]) {
    EXPECT_LT(state["alone"].get<double>(), 1e-6) << state.dump();
    EXPECT_GE(state["coupled"].get<double>(), state["alone"].get<double>()) << state.dump();
  }
  EXPECT_EQ(table["error_by_state"][0]["state"], "mass1.x");
  const auto summary = read_json(out / "conservative" / "summary.json");
  EXPECT_EQ(summary["cosimulation"]["exchange"], "gauss-seidel");
  EXPECT_EQ(summary["layout"], "process");
}

TEST(CosimulationCli, TheSampleCoupledModelGetsAGlobalErrorToo) {
  TempDir dir;
  const fs::path out = dir / "cmp";
  std::string err;
  ASSERT_EQ(run_kausal({"compare", (kScenarios / "two-mass.toml").string(), "--reference",
                        "--layout", "single", "--out", out.string()},
                       dir.path(), &err),
            0)
      << err;
  const auto table = read_json(out / "comparison.json");
  ASSERT_EQ(table["rows"].size(), 3u);
  for (const auto& row : table["rows"]) {
    EXPECT_GT(row["global_error"].get<double>(), 0.0);
    EXPECT_LT(row["global_error"].get<double>(), 1e-2);
  }
}

TEST(CosimulationCli, WhatTheMasterCannotDoIsRefusedWithTheReason) {
  TempDir dir;
  const std::string s = (kScenarios / "two-mass-master.toml").string();
  std::string err;
  EXPECT_EQ(run_kausal({"run", s, "--method", "optimistic", "--out", (dir / "opt").string()},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("the master retries a macro step instead of speculating"), std::string::npos)
      << err;
  // (A master run is resumed like any other: a finished one has nothing left.)
  ASSERT_EQ(run_kausal({"run", s, "--out", (dir / "seq").string()}, dir.path(), &err), 0) << err;
  EXPECT_EQ(run_kausal({"run", "--resume", (dir / "seq").string()}, dir.path(), &err), 0) << err;
  EXPECT_EQ(read_json(dir / "seq" / "summary.json")["status"], "completed");
  EXPECT_EQ(run_kausal({"compare", (kScenarios / "thesis.toml").string(), "--reference", "--out",
                        (dir / "chain").string()},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("--reference with the chain model"), std::string::npos) << err;
}

}  // namespace
}  // namespace kausal::testing

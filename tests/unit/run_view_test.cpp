#include "animation/run_view.hpp"

#include <gtest/gtest.h>

#include "system/errors.hpp"
#include "view_test_support.hpp"

namespace kausal {
namespace {

using testing::TempDir;

// The message of the InputError that loading `dir` raises ("" if none).
std::string load_error(const TempDir& dir) {
  try {
    load_run_dir(dir.path());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunView, ReadsSummaryTraceAndTrajectory) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  const RunView run = load_run_dir(dir.path());
  EXPECT_EQ(run.label, "conservative/lookahead");
  EXPECT_EQ(run.scenario, "pair");
  EXPECT_EQ(run.status, "completed");
  EXPECT_DOUBLE_EQ(run.wall_s, 1.5);
  ASSERT_EQ(run.geometry.size(), 2u);
  EXPECT_DOUBLE_EQ(run.geometry[1].pivot_x, 0.2);
  EXPECT_DOUBLE_EQ(run.geometry[1].length, 0.5);
  EXPECT_DOUBLE_EQ(run.geometry[1].radius, 0.05);
  ASSERT_EQ(run.tracks.size(), 2u);
  EXPECT_EQ(run.tracks[0].name, "monitor");
  EXPECT_EQ(run.tracks[0].role, "monitor");
  ASSERT_EQ(run.tracks[1].spans.size(), 2u);
  EXPECT_DOUBLE_EQ(run.tracks[1].spans[0].begin_s, 0.5);
  EXPECT_DOUBLE_EQ(run.tracks[1].spans[0].end_s, 0.75);
  EXPECT_EQ(run.tracks[1].spans[1].kind, ActivityKind::rollback);
  EXPECT_NEAR(run.tracks[1].spans[1].end_s, 1.1000005, 1e-12);
  ASSERT_EQ(run.trajectory.t.size(), 3u);
  EXPECT_DOUBLE_EQ(run.trajectory.t[2], 0.02);
  EXPECT_EQ(run.trajectory.states[1], (std::vector<double>{0.49, -0.1, 0.01, 0.2}));
  EXPECT_DOUBLE_EQ(run.timeline_end_s(), 1.5);
}

TEST(RunView, StepPicksTheLastRowAtOrBeforeIt) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  const RunView run = load_run_dir(dir.path());
  EXPECT_EQ(run.row_for_step(0), 0u);
  EXPECT_EQ(run.row_for_step(9), 0u);
  EXPECT_EQ(run.row_for_step(10), 1u);
  EXPECT_EQ(run.row_for_step(19), 1u);
  EXPECT_EQ(run.row_for_step(20), 2u);
  EXPECT_EQ(run.row_for_step(1000000), 2u);
}

TEST(RunView, MissingDirectoryOrFileIsNamed) {
  TempDir dir;
  EXPECT_NE(load_error(dir).find("summary.json: cannot open"), std::string::npos);
  dir.write("summary.json", testing::two_pendulum_summary());
  EXPECT_NE(load_error(dir).find("trace.json: cannot open"), std::string::npos);
  dir.write("trace.json", testing::two_pendulum_trace());
  EXPECT_NE(load_error(dir).find("trajectory.csv: cannot open"), std::string::npos);
  EXPECT_THROW(load_run_dir(dir.path() / "nothing-here"), InputError);
}

TEST(RunView, BadSummaryNamesTheField) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  dir.write("summary.json", R"({"method": "optimistic", "scenario": "x", "status": "completed"})");
  EXPECT_NE(load_error(dir).find("missing field \"wall_s\""), std::string::npos);
  dir.write("summary.json", "{not json");
  EXPECT_NE(load_error(dir).find("summary.json: not valid JSON"), std::string::npos);
  dir.write("summary.json", R"({"method": "optimistic", "scenario": "x", "status": "completed",
    "wall_s": 1, "geometry": [{"pivot_x": 0, "length": -1, "radius": 0.1}]})");
  EXPECT_NE(load_error(dir).find("geometry[0]: length and radius must be positive"),
            std::string::npos);
}

TEST(RunView, BadTrajectoryNamesTheLine) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  dir.write("trajectory.csv", "t,phi_1,omega_1\n0,1,2\n");
  EXPECT_NE(load_error(dir).find("trajectory.csv:1: header"), std::string::npos);
  dir.write("trajectory.csv", "t,phi_1,omega_1,phi_2,omega_2\n0,1,2,3,4\n0.01,1,nan,3,4\n");
  EXPECT_NE(load_error(dir).find("trajectory.csv:3: \"nan\" is not a finite number"),
            std::string::npos);
  dir.write("trajectory.csv", "t,phi_1,omega_1,phi_2,omega_2\n0,1,2,3\n");
  EXPECT_NE(load_error(dir).find("trajectory.csv:2: 4 fields, expected 5"), std::string::npos);
}

TEST(RunView, BadTraceIsRefused) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  dir.write("trace.json", R"({"traceEvents":[{"ph":"X","name":"busy","tid":7,"ts":0,"dur":1}]})");
  EXPECT_NE(load_error(dir).find("track 7 which has no thread_name"), std::string::npos);
  dir.write("trace.json", R"({"traceEvents":[
    {"ph":"M","name":"thread_name","tid":1,"args":{"name":"monitor"}},
    {"ph":"X","name":"sleeping","tid":1,"ts":0,"dur":1}]})");
  EXPECT_NE(load_error(dir).find("span kind \"sleeping\""), std::string::npos);
}

TEST(RunView, SummaryOnlyNeedsNoOtherFile) {
  TempDir dir;
  dir.write("summary.json", R"({"method": "optimistic", "scenario": "x", "status": "completed",
    "wall_s": 2.25})");
  const RunView run = load_run_summary(dir.path());
  EXPECT_EQ(run.label, "optimistic");
  EXPECT_DOUBLE_EQ(run.wall_s, 2.25);
}

}  // namespace
}  // namespace kausal

#include "animation/run_view.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <nlohmann/json.hpp>

#include <fstream>

#if defined(KAUSAL_ASAN)
#include <sanitizer/allocator_interface.h>
#endif

#include "common/csv_field.hpp"
#include "common/errors.hpp"
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

// A discrete-event run has no states to draw: said so, with what draws it instead.
TEST(RunView, ADiscreteEventRunIsNotAPictureOfStates) {
  TempDir dir;
  auto summary = nlohmann::json::parse(testing::two_pendulum_summary());
  summary.erase("geometry");
  summary["events"] = {{"model", "phold"}};
  dir.write("summary.json", summary.dump());
  EXPECT_NE(load_error(dir).find("a discrete-event run has no states to draw"), std::string::npos)
      << load_error(dir);
  EXPECT_NE(load_error(dir).find("--timeline"), std::string::npos);
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

// The trace is read as a stream: every mistake is still named, wherever in the file it is.
TEST(RunView, EveryMistakeInTheTraceIsNamed) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  const std::string name = R"({"ph":"M","name":"thread_name","tid":1,"args":{"name":"monitor"}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "not a trace-event object"},
      {R"({"other": 1})", "missing field \"traceEvents\""},
      {R"({"traceEvents": 5})", "\"traceEvents\" is not an array"},
      {R"({"traceEvents": {"a": 1}})", "\"traceEvents\" is not an array"},
      {R"({"traceEvents": [)", "not valid JSON"},
      {R"({"traceEvents":[)" + name + R"(,{"ph":"X","name":"busy","tid":"1","ts":0,"dur":1}]})",
       "field \"tid\" has the wrong type"},
      {R"({"traceEvents":[)" + name + R"(,{"ph":"X","name":"busy","tid":1,"dur":1}]})",
       "missing field \"ts\""},
      {R"({"traceEvents":[)" + name + R"(,{"ph":"X","name":"busy","tid":1,"ts":0,"dur":-1}]})",
       "negative duration"},
      {R"({"traceEvents":[)" + name + R"(,{"ph":"X","name":"busy","tid":1.5,"ts":0,"dur":1}]})",
       "field \"tid\" has the wrong type"},
      {R"({"traceEvents":[{"ph":"M","name":"thread_name","tid":1}]})", "missing field \"args\""},
  };
  for (const auto& [text, expected] : cases) {
    dir.write("trace.json", text);
    EXPECT_NE(load_error(dir).find(expected), std::string::npos)
        << text << " gave: " << load_error(dir);
  }
  // Names may follow the spans; flows, other metadata and unknown members are skipped.
  dir.write("trace.json", R"({"traceEvents":[
    {"ph":"X","cat":"busy","name":"derivative","tid":2,"ts":5,"dur":2,"args":{"step":3,"name":"x"}},
    {"ph":"s","id":1,"name":"commit","cat":"flow","tid":1,"ts":1},
    {"ph":"M","name":"thread_name","tid":2,"args":{"name":"system-1","role":"system"}},
    7, "text", [1, {"ph":"X"}]],
    "otherData":{"trace":{"events":3}}})");
  const RunView run = load_run_dir(dir.path());
  const auto track = std::find_if(run.tracks.begin(), run.tracks.end(),
                                  [](const auto& t) { return t.name == "system-1"; });
  ASSERT_NE(track, run.tracks.end());
  ASSERT_EQ(track->spans.size(), 1u);
  EXPECT_DOUBLE_EQ(track->spans[0].begin_s, 5e-6);
  EXPECT_DOUBLE_EQ(track->spans[0].end_s, 7e-6);
}

// The most heap that `read` held at once beyond what was held before, in bytes. In the
// release build the process's peak resident size; under AddressSanitizer, whose quarantine
// keeps freed blocks resident, the live allocations counted by its malloc and free hooks.
#if defined(KAUSAL_ASAN)
long live_bytes = 0, peak_bytes = 0;
bool counting = false;
void count_malloc(const volatile void*, std::size_t size) {
  if (!counting) return;
  live_bytes += static_cast<long>(size);
  peak_bytes = std::max(peak_bytes, live_bytes);
}
void count_free(const volatile void* p) {
  if (counting)
    live_bytes -= static_cast<long>(__sanitizer_get_allocated_size(const_cast<const void*>(p)));
}
template <typename Read>
long peak_heap_growth(Read read) {
  static const int installed = __sanitizer_install_malloc_and_free_hooks(count_malloc, count_free);
  EXPECT_NE(installed, 0);
  live_bytes = peak_bytes = 0;
  counting = true;
  read();
  counting = false;
  return peak_bytes;
}
#else
template <typename Read>
long peak_heap_growth(Read read) {
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  read();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  return (after.ru_maxrss - before.ru_maxrss) * 1024L;  // ru_maxrss is in KiB
}
#endif

// A trace at the default limit (a million events, over 100 MB) is read without building a
// document of it: a tree of a 30 MB trace took about 700 MB; the stream keeps its spans.
TEST(RunView, ALargeTraceIsReadInBoundedMemory) {
  TempDir dir;
  testing::write_two_pendulum_run(dir);
  constexpr int spans = 300000;
  {
    std::ofstream out(dir.path() / "trace.json");
    out << R"({"traceEvents":[)" << '\n'
        << R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"integrator-1"}})";
    for (int k = 0; k < spans; ++k)
      out << ",\n"
          << R"({"ph":"X","name":"advance","cat":"busy","pid":1,"tid":2,"ts":)" << k * 10
          << R"(.125,"dur":4.5,"args":{"step":)" << k << R"(,"epoch":0}})";
    out << "\n]}\n";
  }
  const auto size = std::filesystem::file_size(dir.path() / "trace.json");
  ASSERT_GT(size, 30u << 20);
  RunView run;
  const long growth = peak_heap_growth([&] { run = load_run_activity(dir.path()); });
  std::size_t read = 0;
  for (const auto& t : run.tracks) read += t.spans.size();
  EXPECT_EQ(read, static_cast<std::size_t>(spans));
  // The peak grew by less than the file's size (the spans take 7 MB).
  EXPECT_LT(growth, static_cast<long>(size))
      << "peak grew by " << growth / (1 << 20) << " MiB for a " << size / (1 << 20) << " MiB trace";
}

TEST(RunView, SummaryOnlyNeedsNoOtherFile) {
  TempDir dir;
  dir.write("summary.json", R"({"method": "optimistic", "scenario": "x", "status": "completed",
    "wall_s": 2.25})");
  const RunView run = load_run_summary(dir.path());
  EXPECT_EQ(run.label, "optimistic");
  EXPECT_DOUBLE_EQ(run.wall_s, 2.25);
}

TEST(RunView, APartitionedRunBecomesOnePlotPerPartition) {
  TempDir dir;
  testing::write_two_partition_run(dir);
  const RunView run = load_run_dir(dir.path());
  EXPECT_TRUE(run.partitioned());
  EXPECT_TRUE(run.geometry.empty());
  EXPECT_EQ(run.plot.plots, (std::vector<std::string>{"tanks", "pipe"}));
  ASSERT_EQ(run.plot.series.size(), 3u);
  EXPECT_EQ(run.plot.series[0].name, "upper.level");
  EXPECT_EQ(run.plot.series[0].plot, 0u);  // "upper", not its prefix "up"
  EXPECT_EQ(run.plot.series[1].plot, 0u);
  EXPECT_EQ(run.plot.series[2].plot, 1u);
  ASSERT_EQ(run.trajectory.t.size(), 3u);
  EXPECT_EQ(run.row_for_step(39), 1u);  // ticks of 0.5 s
  EXPECT_EQ(run.row_for_step(40), 2u);
  const PlotPoints p = run.plot_points(1);
  EXPECT_EQ(p.t, (std::vector<double>{0, 10}));
  ASSERT_EQ(p.values.size(), 3u);
  EXPECT_EQ(p.values[2], (std::vector<double>{5, 4}));
}

// A column named with a comma (an FMU array's element "A[1,2]") is quoted in trajectory.csv and
// read back whole.
TEST(RunView, AQuotedColumnNameIsOneColumn) {
  EXPECT_EQ(csv_field("m.A[1,2]"), "\"m.A[1,2]\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("x[1]"), "x[1]");
  EXPECT_EQ(split_csv_line("t,\"m.A[1,2]\",\"say \"\"hi\"\"\",x,"),
            (std::vector<std::string>{"t", "m.A[1,2]", "say \"hi\"", "x", ""}));
}

// A hybrid model's bridge.csv: a mark per row, labelled as the live view labels them
// (common/bridge_mark.hpp); a row that is not one is named by its line.
TEST(RunView, AHybridRunsBridgeLogBecomesMarks) {
  TempDir dir;
  testing::write_two_partition_run(dir);
  EXPECT_TRUE(load_run_dir(dir.path()).marks.empty()) << "no bridge.csv: no marks";
  dir.write("bridge.csv",
            "t,event,from,to,value\n0,set,switch.valve,upper.inflow,0.050000000000000003\n"
            "49.7,crossing,lower.level,switch.high,0.25\n50.5,add,crew.repair,pipe.wear,-2\n");
  const RunView run = load_run_dir(dir.path());
  ASSERT_EQ(run.marks.size(), 3u);
  EXPECT_EQ(run.marks[0].label, "upper.inflow = 0.05");
  EXPECT_EQ(run.marks[1].t, 49.7);
  EXPECT_EQ(run.marks[1].label, "switch.high");
  EXPECT_EQ(run.marks[2].label, "pipe.wear += -2");
  EXPECT_EQ(run.marks_until(49.7).size(), 2u);
  dir.write("bridge.csv", "t,event,from,to,value\n0,set,a,b,1\nten,set,a,b,1\n");
  EXPECT_NE(load_error(dir).find("bridge.csv:3: expected t,event,from,to,value"), std::string::npos)
      << load_error(dir);
}

TEST(RunView, APartitionedRunsColumnsMustBelongToItsPartitions) {
  TempDir dir;
  testing::write_two_partition_run(dir);
  dir.write("trajectory.csv", "t,upper.level,middle.level\n0,1,2\n");
  EXPECT_NE(load_error(dir).find("column \"middle.level\" belongs to no subsystem"),
            std::string::npos)
      << load_error(dir);
  dir.write("trajectory.csv", "t,upper.level,lower.level\n0,1\n");
  EXPECT_NE(load_error(dir).find("trajectory.csv:2: 2 fields, expected 3"), std::string::npos)
      << load_error(dir);
  dir.write("trajectory.csv", "time,upper.level\n");
  EXPECT_NE(load_error(dir).find("expected \"t,member.state,...\""), std::string::npos)
      << load_error(dir);
  dir.write("summary.json", R"({"method": "optimistic", "scenario": "tanks", "wall_s": 1,
    "status": "completed", "partitions": []})");
  EXPECT_NE(load_error(dir).find("\"partitions\" is not a non-empty array"), std::string::npos)
      << load_error(dir);
}

}  // namespace
}  // namespace kausal

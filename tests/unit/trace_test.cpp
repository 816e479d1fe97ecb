// Activity traces, trace.json and report.html: the raw material of the timelines.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "monitor/record/report.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/record/trace_writer.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal::testing {
namespace {

namespace fs = std::filesystem;

std::uint64_t total_ns(const std::vector<ActivitySpan>& spans, ActivityKind kind) {
  std::uint64_t sum = 0;
  for (const auto& s : spans)
    if (s.kind == kind) sum += s.end_ns - s.begin_ns;
  return sum;
}

SpanTag on_step(std::uint64_t step) {
  return {ActivityCall::unnamed, step};
}

TEST(ActivityTrace, MergesOnlyCloseSpansOfTheSameKindAndStep) {
  ActivityTrace t;
  t.record(ActivityKind::busy, 1000, 2000, on_step(1));
  t.record(ActivityKind::busy, 2500, 3000, on_step(1));          // 500 ns later, same step: merged
  t.record(ActivityKind::busy, 3200, 3300);                      // untagged overhead: joins step 1
  t.record(ActivityKind::busy, 3400, 3500, on_step(2));          // another step: kept apart
  t.record(ActivityKind::rollback, 3600, 3700, on_step(2));      // another kind
  t.record(ActivityKind::rollback, 10'000, 11'000, on_step(2));  // too far
  const auto spans = t.page(0, 100);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0].begin_ns, 1000u);
  EXPECT_EQ(spans[0].end_ns, 3300u);
  EXPECT_EQ(spans[1].begin_ns, 3400u);
  EXPECT_EQ(spans[2].kind, ActivityKind::rollback);
  EXPECT_EQ(t.recorded(), 4u);
  EXPECT_EQ(t.page(3, 100).size(), 1u);
  EXPECT_TRUE(t.page(4, 100).empty());
  EXPECT_EQ(t.page(1, 2).size(), 2u);
}

TEST(ActivityTrace, RollbackMarksTheDiscardedStepsOnly) {
  ActivityTrace t;
  for (std::uint64_t step = 1; step <= 10; ++step)
    t.record(ActivityKind::busy, step * 10'000, step * 10'000 + 500, on_step(step));
  t.mark_rolled_back_after(6);
  auto spans = t.page(0, 100);
  for (std::size_t k = 0; k < spans.size(); ++k)
    EXPECT_EQ(spans[k].kind, k < 6 ? ActivityKind::busy : ActivityKind::rollback) << k;
  // Recompute 7..8 in the new epoch, then roll back further than the first rollback.
  for (std::uint64_t step = 7; step <= 8; ++step)
    t.record(ActivityKind::busy, step * 100'000, step * 100'000 + 500, on_step(step));
  t.mark_rolled_back_after(4);
  spans = t.page(0, 100);
  for (std::size_t k = 0; k < spans.size(); ++k)
    EXPECT_EQ(spans[k].kind, k < 4 ? ActivityKind::busy : ActivityKind::rollback) << k;
}

// A trace keeps the newest spans only; a reader that fell behind learns how many it lost.
TEST(ActivityTrace, KeepsTheNewestSpansAndTellsReadersWhatTheyLost) {
  ActivityTrace t(3);
  for (std::uint64_t k = 0; k < 5; ++k)
    t.record(ActivityKind::busy, k * 10'000, k * 10'000 + 10, on_step(k));
  EXPECT_EQ(t.recorded(), 5u);
  EXPECT_EQ(t.dropped(), 2u);
  const TracePage page = t.read(0, 100);
  EXPECT_EQ(page.first, 2u);  // spans 0 and 1 were overwritten unread
  ASSERT_EQ(page.spans.size(), 3u);
  EXPECT_EQ(page.spans[0].begin_ns, 20'000u);
  // A settled read never hands out the newest span: one recorded next may merge into it.
  EXPECT_EQ(t.read(2, 100, false).spans.size(), 2u);
}

// An optimistic Integrator's spans of steps after its GVT may still become rollback spans:
// settled readers (the trace collector) get them only once a commit passes their step.
TEST(ActivityTrace, SpeculativeSpansSettleWhenTheirStepIsCommitted) {
  ActivityTrace t;
  t.set_speculative();
  for (std::uint64_t step = 1; step <= 6; ++step)
    t.record(ActivityKind::busy, step * 10'000, step * 10'000 + 500, on_step(step));
  EXPECT_TRUE(t.read(0, 100, false).spans.empty());
  t.settle(3);
  auto settled = t.read(0, 100, false).spans;
  ASSERT_EQ(settled.size(), 3u);
  EXPECT_EQ(settled.back().tag.step, 3u);
  t.mark_rolled_back_after(4);  // steps 5 and 6 were wasted
  t.settle(6);
  t.record(ActivityKind::busy, 90'000, 90'500, on_step(5));
  settled = t.read(3, 100, false).spans;
  ASSERT_EQ(settled.size(), 3u);
  EXPECT_EQ(settled[0].kind, ActivityKind::busy);      // step 4
  EXPECT_EQ(settled[1].kind, ActivityKind::rollback);  // step 5, first epoch
  EXPECT_EQ(settled[2].kind, ActivityKind::rollback);  // step 6
}

TEST(ActivityTrace, OptimisticIntegratorsTraceTheirRolledBackWork) {
  Scenario s = shipped("thesis.toml");
  s.steps = 3000;  // every span still in the components' rings when the run ends
  LocalDeployment deployment(s);
  OptimisticStepper stepper(deployment, s, {});
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  const RunResult r = drive_chain(s, SyncMethod::optimistic, stepper, {&recorder}, control);
  ASSERT_GT(r.counters.rollbacks, 0u);
  std::uint64_t rolled_back_ns = 0;
  for (const auto& c : r.components) {
    ASSERT_FALSE(c.spans.empty()) << c.name;
    const double busy_s = 1e-9 * static_cast<double>(total_ns(c.spans, ActivityKind::busy));
    const double rollback_s = 1e-9 * static_cast<double>(total_ns(c.spans, ActivityKind::rollback));
    // Spans cover what the totals count (merging adds at most 1 µs per merged gap).
    EXPECT_GE(busy_s + rollback_s, 0.999 * (c.totals.busy_s + c.totals.rollback_s) - 1e-6)
        << c.name;
    // At most one merged gap (< 1 µs) per recorded piece: requests, Calcs, monitor steps.
    const auto pieces = c.totals.requests + c.totals.calc_calls + s.steps + 1;
    EXPECT_LE(busy_s + rollback_s,
              c.totals.busy_s + c.totals.rollback_s + 1e-6 * static_cast<double>(pieces))
        << c.name;
    for (const auto& span : c.spans) EXPECT_LE(span.begin_ns, span.end_ns);
    if (c.role == ComponentRole::integrator)
      rolled_back_ns += total_ns(c.spans, ActivityKind::rollback);
  }
  EXPECT_GT(rolled_back_ns, 0u);
}

TEST(TraceJson, OneTrackPerComponentAndValidEvents) {
  Scenario s = shipped("thesis.toml");
  s.steps = 3000;
  RunResult r = run_conservative_in_process(s, Guarantee::lookahead);
  ASSERT_EQ(r.status, RunStatus::completed);
  TempDir dir;
  write_trace_json(r, dir.path() / "trace.json");
  const auto j = nlohmann::json::parse(slurp(dir.path() / "trace.json"));
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::map<int, std::string> tracks;
  std::map<int, std::size_t> events;
  std::set<std::string> names;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e;
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tracks[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e["cat"] == "busy" || e["cat"] == "rollback" || e["cat"] == "call") << e;
    names.insert(e["name"].get<std::string>());
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    ++events[e["tid"].get<int>()];
  }
  // (The monitor's grant rounds are streamed from the stepper in real runs: not in a result.)
  EXPECT_EQ(names,
            (std::set<std::string>{"advance", "apply_event", "derivative", "event", "sweep"}));
  ASSERT_EQ(tracks.size(), r.components.size());
  std::size_t k = 0;
  for (const auto& [tid, name] : tracks) {
    EXPECT_EQ(name, r.components[k].name);
    EXPECT_EQ(events[tid], r.components[k].trace_slices) << name;
    ++k;
  }
}

// --trace-limit: the file holds at most that many events, and says what it left out.
TEST(TraceFile, ALimitBoundsTheTraceAndTheSummarySaysSo) {
  TempDir dir;
  TraceFile file(dir.path() / "trace.json", {TraceMode::full, 1000}, 0);
  const int tid = file.track("system-1", ComponentRole::system);
  std::vector<ActivitySpan> spans;
  for (std::uint64_t k = 0; k < 5000; ++k)
    spans.push_back({k * 2000, k * 2000 + 1000, ActivityKind::busy, {ActivityCall::derivative}});
  file.write(tid, spans);
  RunResult r;
  r.components.emplace_back().name = "system-1";
  r.components.back().role = ComponentRole::system;
  const TraceStats stats = file.finish(r);
  EXPECT_EQ(stats.events, 1000u);
  EXPECT_EQ(stats.not_written, 4000u);
  EXPECT_EQ(r.components[0].trace_slices, 1000u);
  EXPECT_EQ(r.components[0].dropped_spans, 4000u);
  EXPECT_NE(describe_trace(stats).find("capped at --trace-limit 1000: 4000 later spans"),
            std::string::npos);
  const auto j = nlohmann::json::parse(slurp(dir.path() / "trace.json"));
  EXPECT_EQ(j["traceEvents"].size(), 1000u + 3);  // and the process and track metadata
  EXPECT_TRUE(j["otherData"]["trace"].contains("capped"));
}

// Spans from before the origin (a remote clock a little off, work before the first step)
// are clamped to 0, never written with negative times.
TEST(TraceFile, NothingBeforeTheOrigin) {
  TempDir dir;
  TraceFile file(dir.path() / "trace.json", {}, 1'000'000);
  const int tid = file.track("integrator-1", ComponentRole::integrator);
  const std::vector<ActivitySpan> spans{
      {400'000, 900'000, ActivityKind::busy, {ActivityCall::advance, 1}},
      {900'000, 1'500'000, ActivityKind::busy, {ActivityCall::advance, 2}},
      {2'000'000, 2'500'000, ActivityKind::busy, {ActivityCall::advance, 3}}};
  file.write(tid, spans, 300'000);  // its clock runs 0.3 ms ahead of the monitor's
  RunResult r;
  const TraceStats stats = file.finish(r);
  EXPECT_EQ(stats.clamped, 2u);  // the first ended before the origin: not written
  const auto j = nlohmann::json::parse(slurp(dir.path() / "trace.json"));
  std::vector<double> ts;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X") ts.push_back(e["ts"].get<double>());
  EXPECT_EQ(ts, (std::vector<double>{0.0, 700.0}));
}

// Coarse: each bin's busy time is one slice as long as the time spent, so utilisation is kept.
TEST(TraceFile, CoarseBinsKeepTheBusyTime) {
  TempDir dir;
  TraceFile file(dir.path() / "trace.json", {TraceMode::coarse, 1000}, 0);
  const int tid = file.track("integrator-1", ComponentRole::integrator);
  std::vector<ActivitySpan> spans;
  for (std::uint64_t k = 0; k < 1000; ++k)  // 50 % busy for 100 ms, 100 µs periods
    spans.push_back(
        {k * 100'000, k * 100'000 + 50'000, ActivityKind::busy, {ActivityCall::advance, k}});
  file.write(tid, spans);
  RunResult r;
  file.finish(r);
  const auto j = nlohmann::json::parse(slurp(dir.path() / "trace.json"));
  double busy_us = 0;
  std::size_t slices = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++slices;
    busy_us += e["dur"].get<double>();
    EXPECT_EQ(e["name"], "advance");
    EXPECT_NEAR(e["dur"].get<double>(), 5000.0, 1e-6);
  }
  EXPECT_EQ(slices, 10u);
  EXPECT_NEAR(busy_us, 50'000.0, 1e-3);
}

TEST(Report, EscapesAndEncodes) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  TempDir dir;
  for (auto [text, expected] : {std::pair<std::string, std::string>{"foobar", "Zm9vYmFy"},
                                {"fooba", "Zm9vYmE="},
                                {"f", "Zg=="},
                                {"", ""}}) {
    std::ofstream(dir.path() / "b") << text;
    EXPECT_EQ(base64_of_file(dir.path() / "b"), expected) << text;
  }
  EXPECT_THROW(base64_of_file(dir.path() / "missing"), InputError);
}

// The page is written even when the charts cannot be drawn; a differing digest is marked.
TEST(Report, TableMatchesTheResultsAndMarksADifferingDigest) {
  const Scenario s = shipped("thesis.toml");
  std::vector<ReportRun> runs;
  runs.push_back({run_sequential(s), "seq"});
  runs.push_back({run_conservative_in_process(s), "con"});
  runs.push_back({run_optimistic_in_process(s), "opt"});
  runs[1].result.guarantee = Guarantee::step;
  runs[2].result.trajectory_sha256[0] = runs[2].result.trajectory_sha256[0] == '0' ? '1' : '0';
  TempDir dir;
  const auto warnings =
      write_report(runs, {dir.path(), dir.path() / "no-such-renderer", "thesis", "5 pendulums"});
  EXPECT_EQ(warnings.size(), 1u + runs.size());  // the wall-time chart and every timeline
  const std::string html = slurp(dir.path() / "report.html");
  EXPECT_NE(html.find("could not be drawn"), std::string::npos);
  const std::regex row("<tr data-method=\"([^\"]+)\">");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(html.begin(), html.end(), row), std::sregex_iterator()),
      3);
  for (const auto& run : runs) {
    const std::string calc =
        "data-key=\"calc_calls\" data-value=\"" + std::to_string(run.result.calc_calls) + "\"";
    EXPECT_NE(html.find(calc), std::string::npos) << run.result.label();
  }
  EXPECT_NE(html.find("class=\"differs\""), std::string::npos);
  EXPECT_NE(html.find("DIFFERS"), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 10, true);
  const auto rows = comparison_rows({runs[0].result, runs[1].result, runs[2].result});
  EXPECT_TRUE(rows[1].digest_equal);
  EXPECT_FALSE(rows[2].digest_equal);
  EXPECT_NEAR(rows[1].vs_step, 1.0, 1e-12);
}

}  // namespace
}  // namespace kausal::testing

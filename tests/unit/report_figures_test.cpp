// The figures a run and a comparison print (console, summary.json, comparison.json,
// report.html): true for every model kind or not printed, readable at every magnitude.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/text_table.hpp"
#include "monitor/deploy/local_deployment.hpp"
#include "monitor/record/report.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"
#include "tests/unit/partitioned_runs.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::shipped_text;
using testing::slurp;
using testing::TempDir;

RunResult run(const std::string& method, const std::string& variant, const std::string& layout,
              double wall_s, const std::string& digest = "d1g3st") {
  RunResult r;
  r.method = *sync_method_named(method);
  r.guarantee = *guarantee_named(variant);
  r.layout = method == "sequential" ? RunLayout{} : RunLayout{parse_layout(layout)};
  r.model = "pendulum-chain";
  r.wall_s = wall_s;
  r.trajectory_sha256 = digest;
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The fields of a table line: runs of text separated by two or more spaces.
std::size_t fields(const std::string& line) {
  static const std::regex gap(" {2,}");
  return static_cast<std::size_t>(std::distance(
      std::sregex_token_iterator(line.begin(), line.end(), gap, -1), std::sregex_token_iterator()));
}

// Header and rows split into the same columns, whatever the magnitudes.
void expect_columns_apart(const std::string& table, std::size_t lines) {
  const auto all = lines_of(table);
  ASSERT_GE(all.size(), lines) << table;
  for (std::size_t k = 1; k < lines; ++k)
    EXPECT_EQ(fields(all[k]), fields(all[0])) << "line " << k << " of\n" << table;
}

TEST(ComparisonFigures, RatiosNeverRoundToZero) {
  EXPECT_EQ(ratio_text(2.45), "2.45×");
  EXPECT_EQ(ratio_text(706.4), "706×");
  EXPECT_EQ(ratio_text(2490.2), "2490×");
  EXPECT_EQ(ratio_text(999.7), "1000×");
  EXPECT_EQ(ratio_text(0.35), "0.35×");
  EXPECT_EQ(ratio_text(1.0), "1×");
  EXPECT_EQ(ratio_text(0), "–");
  // Large slow-downs as fractions: 704 times slower.
  EXPECT_EQ(ratio_text(0.00142), "1/704×");
  EXPECT_EQ(ratio_text(0.05), "1/20×");
  for (const double tiny : {1e-3, 3.3e-5, 1e-9}) {
    const std::string text = ratio_text(tiny);
    ASSERT_EQ(text.rfind("1/", 0), 0u) << tiny << ": " << text;
    EXPECT_NEAR(1 / std::stod(text.substr(2)), tiny, 0.005 * tiny) << text;
  }
  // The report's cell shows the same text (it used to show 0.00×).
  std::vector<ReportRun> runs{{run("sequential", "", "", 0.005), "seq"},
                              {run("conservative", "step", "process", 3.29), "step"}};
  TempDir dir;
  write_report(runs, {dir.path(), dir.path() / "no-such-renderer", "thesis", "setup"});
  const std::string html = slurp(dir.path() / "report.html");
  EXPECT_EQ(html.find("0.00×"), std::string::npos);
  EXPECT_NE(html.find(">1/658×<"), std::string::npos);
}

// Drawing the charts takes a while: each is announced, numbered k of n, before it is drawn.
TEST(ComparisonFigures, TheReportAnnouncesEveryChart) {
  std::vector<ReportRun> runs{{run("sequential", "", "", 0.005), "seq"},
                              {run("conservative", "step", "process", 3.29), "step"},
                              {run("optimistic", "", "process", 1.5), "opt"}};
  TempDir dir;
  ReportOptions options{dir.path(), dir.path() / "no-such-renderer", "thesis", "setup", {}};
  std::vector<std::string> told;
  options.progress = [&](std::size_t k, std::size_t n, const std::string& what) {
    told.push_back(std::to_string(k) + "/" + std::to_string(n) + " " + what);
  };
  const auto warnings = write_report(runs, options);
  // The wall-time chart and one timeline per method; none could be drawn here.
  ASSERT_EQ(told.size(), 4u);
  EXPECT_EQ(told[0], "1/4 wall time per method");
  EXPECT_EQ(told[1], "2/4 timeline of sequential");
  EXPECT_EQ(told[3], "4/4 timeline of optimistic");
  EXPECT_EQ(warnings.size(), 4u);
}

// A chain run whose trace holds an impact the monitor applied gets a second timeline, 5 ms
// around it; one without (no impacts, or none in its trace) does not.
TEST(ComparisonFigures, AChainRunWithAnImpactGetsAZoomAroundIt) {
  TempDir dir;
  std::vector<ReportRun> runs{{run("sequential", "", "", 0.005), dir / "seq"},
                              {run("conservative", "step", "process", 3.29), dir / "step"},
                              {run("optimistic", "", "process", 1.5), dir / "opt"}};
  for (ReportRun& r : runs) {
    r.result.collisions = 3;
    fs::create_directories(r.dir);
  }
  std::ofstream(dir / "step" / "trace.json")
      << R"({"traceEvents":[{"ph":"X","name":"event","cat":"busy","pid":1,"tid":1,"ts":5,"dur":1}]})";
  std::ofstream(dir / "opt" / "trace.json") << R"({"traceEvents":[]})";
  ReportOptions options{dir.path(), dir.path() / "no-such-renderer", "thesis", "setup", {}};
  std::vector<std::string> told;
  options.progress = [&](std::size_t k, std::size_t n, const std::string& what) {
    told.push_back(std::to_string(k) + "/" + std::to_string(n) + " " + what);
  };
  write_report(runs, options);
  ASSERT_EQ(told.size(), 5u);
  EXPECT_EQ(told[3], "4/5 conservative/step around its first impact");
  EXPECT_EQ(told[4], "5/5 timeline of optimistic");
}

TEST(ComparisonFigures, EveryColumnKeepsASeparatorWhateverTheMagnitude) {
  std::vector<RunResult> results{run("sequential", "", "", 0.001),
                                 run("conservative", "step", "process", 2.49),
                                 run("optimistic", "", "process", 12345.678, "other")};
  results[1].calc_calls = 123456789012;
  results[1].collisions = 999999999;
  results[1].counters.monitor_calls = 98765432109;
  results[2].counters.rolled_back_steps = 1234567890123;
  const std::string table = format_comparison(comparison_rows(results));
  expect_columns_apart(table, 4);
  // The old table ran "vs seq" into "vs step": 1x2.49e+03x.
  EXPECT_EQ(table.find("x2"), std::string::npos) << table;
  EXPECT_EQ(table.find("e+"), std::string::npos) << table;
  EXPECT_NE(table.find("2490×"), std::string::npos) << table;
  EXPECT_NE(table.find("DIFFERS"), std::string::npos) << table;
}

// eta = sigma/p: p is 1 for the sequential run, else the parts that compute side by side
// (pendulums, blocks, partitions and a hybrid model's discrete group, event groups), at most
// the CPUs there are; the table shows it with its p, and fits a given width.
TEST(ComparisonFigures, EfficiencyIsTheSpeedUpPerProcessorTheRunCouldUse) {
  std::vector<RunResult> results{run("sequential", "", "", 1.0),
                                 run("conservative", "step", "process", 0.5),
                                 run("optimistic", "", "blocks:3", 0.25)};
  for (RunResult& r : results) r.pendulums = 5;
  results[2].blocks = 3;
  auto rows = comparison_rows(results, 2);
  EXPECT_EQ(rows[0].processors, 1u);
  EXPECT_DOUBLE_EQ(rows[0].efficiency, 1.0);
  EXPECT_EQ(rows[1].processors, 2u);  // 5 pendulums on 2 CPUs
  EXPECT_DOUBLE_EQ(rows[1].efficiency, 1.0);
  EXPECT_EQ(rows[2].processors, 2u);
  EXPECT_DOUBLE_EQ(rows[2].efficiency, 2.0);
  rows = comparison_rows(results, 8);
  EXPECT_EQ(rows[1].processors, 5u);
  EXPECT_DOUBLE_EQ(rows[1].efficiency, 0.4);
  EXPECT_EQ(rows[2].processors, 3u);  // its blocks
  const std::string table = format_comparison(rows, 100);
  EXPECT_NE(table.find("0.40 (p 5)"), std::string::npos) << table;
  for (const std::string& line : lines_of(table)) EXPECT_LE(display_width(line), 100u) << table;

  RunResult slow = run("conservative", "step", "process", 700.0);
  slow.pendulums = 5;
  const std::string slow_table =
      format_comparison(comparison_rows(std::vector<RunResult>{results[0], slow}, 2));
  EXPECT_NE(slow_table.find("0.00071 (p 2)"), std::string::npos) << "never rounded to 0\n"
                                                                 << slow_table;

  RunResult partitioned = run("optimistic", "", "process", 0.5);
  partitioned.model = "partitioned";
  partitioned.partitions.resize(3);
  EXPECT_EQ(comparison_rows(std::vector<RunResult>{results[0], partitioned}, 8)[1].processors, 3u);
  partitioned.events = EventFigures{};  // a hybrid model: its event groups too
  partitioned.events->groups = 1;
  EXPECT_EQ(comparison_rows(std::vector<RunResult>{results[0], partitioned}, 8)[1].processors, 4u);
  partitioned.events->groups = 2;
  EXPECT_EQ(comparison_rows(std::vector<RunResult>{results[0], partitioned}, 8)[1].processors, 5u);
}

// A discrete-event comparison shows the deadlocks the watch found and recovered from, where
// some run had one (phold-zero-lookahead.toml), with its meaning under the table.
TEST(ComparisonFigures, AnEventComparisonShowsItsDeadlocksWhereThereAreAny) {
  auto events_run = [](const std::string& method, std::uint64_t deadlocks) {
    RunResult r = run(method, "", method == "sequential" ? "" : "single", 0.1);
    r.model = "phold";
    r.events = EventFigures{};
    r.events->groups = 2;
    r.events->committed = 1000;
    r.events->deadlocks = deadlocks;
    return r;
  };
  const std::string quiet = format_comparison(comparison_rows(
      std::vector<RunResult>{events_run("sequential", 0), events_run("optimistic", 0)}));
  EXPECT_EQ(quiet.find("deadlocks"), std::string::npos) << quiet;
  const std::string table = format_comparison(comparison_rows(std::vector<RunResult>{
      events_run("sequential", 0), events_run("conservative", 1581), events_run("optimistic", 0)}));
  const auto lines = lines_of(table);
  ASSERT_GE(lines.size(), 4u) << table;
  EXPECT_NE(lines[0].find("null messages  deadlocks  util"), std::string::npos) << table;
  EXPECT_NE(lines[2].find(" 1581 "), std::string::npos) << table;
  expect_columns_apart(table, 4);
  EXPECT_NE(table.find("deadlocks: times the groups' guarantees went round in a cycle"),
            std::string::npos)
      << table;
}

// "vs step" is against conservative/step of the same layout; labels name the layout.
TEST(ComparisonFigures, VsStepComparesWithinEachLayout) {
  const auto rows = comparison_rows(std::vector<RunResult>{
      run("sequential", "", "", 0.1), run("conservative", "step", "process", 2.0),
      run("optimistic", "", "process", 1.0), run("conservative", "step", "pendulum", 1.0),
      run("optimistic", "", "pendulum", 0.25)});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[3].label, "conservative/step [pendulum]");
  EXPECT_EQ(rows[2].label, "optimistic [process]");
  EXPECT_EQ(rows[0].label, "sequential");
  EXPECT_DOUBLE_EQ(rows[2].vs_step, 2.0);
  EXPECT_DOUBLE_EQ(rows[3].vs_step, 1.0);
  EXPECT_DOUBLE_EQ(rows[4].vs_step, 4.0);
  EXPECT_EQ(rows[0].vs_step, 0.0);  // two layouts: no single step run to compare with
  EXPECT_DOUBLE_EQ(rows[4].vs_sequential, 0.4);
  // With one layout the reference is compared with its step run.
  const auto one = comparison_rows(std::vector<RunResult>{
      run("sequential", "", "", 0.1), run("conservative", "step", "single", 2.0)});
  EXPECT_DOUBLE_EQ(one[0].vs_step, 20.0);
  EXPECT_EQ(one[1].label, "conservative/step");
}

// compare --repeat: medians, the range of the wall times, the ratios' medians per round.
TEST(ComparisonFigures, RepetitionsGiveMediansAndTheRange) {
  std::vector<std::vector<RunResult>> rounds;
  const double seq[] = {0.1, 0.3, 0.2}, step[] = {1.0, 3.0, 4.0};
  for (int k = 0; k < 3; ++k) {
    rounds.push_back(
        {run("sequential", "", "", seq[k]), run("conservative", "step", "process", step[k])});
    rounds.back()[1].calc_calls = 100 + static_cast<std::uint64_t>(k);
  }
  auto rows = comparison_rows(rounds);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].runs, 3u);
  EXPECT_DOUBLE_EQ(rows[1].wall_s, 3.0);
  EXPECT_DOUBLE_EQ(rows[1].wall_min_s, 1.0);
  EXPECT_DOUBLE_EQ(rows[1].wall_max_s, 4.0);
  EXPECT_DOUBLE_EQ(rows[1].vs_sequential, 0.1);  // 0.1, 0.1, 0.05 per round
  EXPECT_EQ(rows[1].calc_calls, 101u);
  EXPECT_TRUE(rows[1].digest_equal);
  const std::string table = format_comparison(rows);
  EXPECT_NE(table.find("1.000–4.000"), std::string::npos) << table;
  EXPECT_NE(table.find("median s"), std::string::npos) << table;
  EXPECT_NE(table.find("run 3 times"), std::string::npos) << table;
  expect_columns_apart(table, 3);
  // One repetition with another digest marks the row.
  rounds[2][1].trajectory_sha256 = "other";
  EXPECT_FALSE(comparison_rows(rounds)[1].digest_equal);
  // A round cut short by a failure still counts where it ran.
  rounds.push_back({run("sequential", "", "", 0.2)});
  rows = comparison_rows(rounds);
  EXPECT_EQ(rows[0].runs, 4u);
  EXPECT_EQ(rows[1].runs, 3u);
  // comparison.json holds the same rows.
  TempDir dir;
  write_comparison_json(rows, dir.path() / "comparison.json");
  const auto json = nlohmann::json::parse(slurp(dir.path() / "comparison.json"));
  EXPECT_EQ(json["rows"][1]["wall_max_s"], 4.0);
  EXPECT_EQ(json["rows"][1]["runs"], 3);
}

// A run paced by a wall clock: 3 overruns (2 of them the machine's), its state 250 µs late
// at p99.
RealtimeFigures paced_figures() {
  RealtimeFigures f;
  f.clock = ClockSource::wall;
  f.factor = 1;
  f.budget_s = 1e-3;
  f.overruns = 3;
  f.start_delay_s = {100, 5e-6, 20e-6, 40e-6};
  f.lateness_s = {100, -400e-6, 250e-6, 900e-6};
  f.step_s = {100, 300e-6, 1.1e-3, 1.5e-3};
  f.load = {100, 0.3, 1.1, 1.5};
  f.components = {{"integrator-1", {100, 200e-6, 800e-6, 1e-3}, {100, 50e-6, 90e-6, 1e-4}}};
  f.machine = {.watched = true,
               .preempts = true,
               .cpus = 2,
               .threshold_s = 100e-6,
               .samples = 200,
               .stalls = 7,
               .over_1ms = 1,
               .longest_s = 3.1e-3,
               .overruns_machine = 2};
  return f;
}

// Paced runs add their overruns, those the machine made and the p99 lateness to the
// comparison (table, comparison.json, report.html) and their spreads and the machine's
// stalls to the report and the summary; unpaced rows show "–" there.
TEST(ComparisonFigures, PacedRunsShowTheirRealTimeFigures) {
  RunResult paced = run("conservative", "step", "process", 1.5);
  paced.realtime = paced_figures();
  const std::vector<RunResult> results{run("sequential", "", "", 0.5), paced};
  const auto rows = comparison_rows(results);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].paced);
  EXPECT_TRUE(rows[1].paced);
  EXPECT_EQ(rows[1].overruns, 3u);
  EXPECT_EQ(rows[1].overruns_machine, 2u);
  EXPECT_DOUBLE_EQ(rows[1].lateness_p99_s, 250e-6);
  const std::string table = format_comparison(rows);
  EXPECT_NE(table.find("overruns"), std::string::npos) << table;
  EXPECT_NE(table.find("p99 lateness µs"), std::string::npos) << table;
  EXPECT_NE(table.find("machine's"), std::string::npos) << table;
  EXPECT_NE(table.find("250.0"), std::string::npos) << table;
  expect_columns_apart(table, 3);
  TempDir dir;
  write_comparison_json(rows, dir.path() / "comparison.json");
  const auto json = nlohmann::json::parse(slurp(dir.path() / "comparison.json"));
  EXPECT_FALSE(json["rows"][0].contains("overruns"));
  EXPECT_EQ(json["rows"][1]["overruns"], 3);
  EXPECT_EQ(json["rows"][1]["overruns_machine"], 2);
  EXPECT_DOUBLE_EQ(json["rows"][1]["lateness_p99_s"].get<double>(), 250e-6);

  std::vector<ReportRun> runs{{results[0], "seq"}, {paced, "step"}};
  write_report(runs, {dir.path(), dir.path() / "no-such-renderer", "thesis", "setup"});
  const std::string html = slurp(dir.path() / "report.html");
  EXPECT_NE(html.find("<th>overruns</th><th>the machine's</th><th>p99 lateness µs</th>"),
            std::string::npos);
  EXPECT_NE(html.find("data-key=\"overruns\" data-value=\"3\">3<"), std::string::npos);
  EXPECT_NE(html.find("data-key=\"overruns_machine\" data-value=\"2\">2<"), std::string::npos);
  EXPECT_NE(html.find(">250.0<"), std::string::npos);
  EXPECT_NE(html.find("<td>–</td><td>–</td><td>–</td>"), std::string::npos);  // sequential
  // One section, for the paced run: the rows of the terminal summary's table.
  ASSERT_EQ(html.find("<h4>Real time</h4>"), html.rfind("<h4>Real time</h4>"));
  const auto section = html.find("<h4>Real time</h4>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_GT(section, html.find("<h3>conservative/step</h3>"));
  EXPECT_NE(html.find("3 overruns (2 of them the machine&#39;s)", section), std::string::npos)
      << html.substr(section, 600);
  EXPECT_NE(html.find("machine: 7 stalls over 100.0 µs on 2 CPUs (1 over 1 ms, longest 3.1 ms) "
                      "in 200 samples",
                      section),
            std::string::npos);
  EXPECT_NE(html.find("committed after it was due", section), std::string::npos);
  for (const char* row :
       {"<td>start delay µs</td><td>5.0</td><td>20.0</td><td>40.0</td>",
        "<td>lateness µs</td><td>-400.0</td><td>250.0</td><td>900.0</td>", "<td>step µs</td>",
        "<td>load</td><td>0.300</td><td>1.100</td>", "<td>  integrator-1 µs</td><td>200.0</td>"})
    EXPECT_NE(html.find(row, section), std::string::npos) << row;
  // Nothing measured, not shown: compute and communication.
  EXPECT_EQ(html.find("compute µs"), std::string::npos);
  // The terminal summary shows the same rows.
  const std::string summary = format_summary(paced);
  EXPECT_NE(summary.find("lateness µs"), std::string::npos);
  EXPECT_NE(summary.find("3 overruns (2 of them the machine's)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("machine: 7 stalls"), std::string::npos) << summary;
}

TEST(ComparisonFigures, UnpacedRunsShowNoRealTimeFigures) {
  const std::vector<RunResult> results{run("sequential", "", "", 0.5),
                                       run("conservative", "step", "process", 1.5)};
  const auto rows = comparison_rows(results);
  EXPECT_FALSE(any_paced(rows));
  const std::string table = format_comparison(rows);
  EXPECT_EQ(table.find("overruns"), std::string::npos) << table;
  EXPECT_EQ(table.find("lateness"), std::string::npos) << table;
  TempDir dir;
  write_comparison_json(rows, dir.path() / "comparison.json");
  const auto json = nlohmann::json::parse(slurp(dir.path() / "comparison.json"));
  for (const auto& row : json["rows"]) {
    EXPECT_FALSE(row.contains("overruns"));
    EXPECT_FALSE(row.contains("lateness_p99_s"));
  }
  std::vector<ReportRun> runs{{results[0], "seq"}, {results[1], "step"}};
  write_report(runs, {dir.path(), dir.path() / "no-such-renderer", "thesis", "setup"});
  const std::string html = slurp(dir.path() / "report.html");
  for (const char* word : {"Real time", "overruns", "lateness"})
    EXPECT_EQ(html.find(word), std::string::npos) << word;
}

TEST(ComparisonFigures, AFinishedRunIsAnnouncedWithItsDigestCheck) {
  const RunResult ref = run("sequential", "", "", 0.005);
  const RunResult same = run("optimistic", "", "pendulum", 1.5);
  RunResult other = run("conservative", "lookahead", "pendulum", 1.25, "abc");
  const std::string first = format_finished_run(ref, true, ref, 1, 7);
  EXPECT_NE(first.find("[1/7] sequential"), std::string::npos) << first;
  EXPECT_NE(first.find("the reference"), std::string::npos) << first;
  const std::string ok = format_finished_run(same, true, ref, 2, 7);
  EXPECT_NE(ok.find("[2/7] optimistic [pendulum]  1.500 s  digest = sequential"), std::string::npos)
      << ok;
  EXPECT_NE(format_finished_run(other, false, ref, 3, 7).find("differs from sequential"),
            std::string::npos);
  other.status = RunStatus::failed;
  other.error = "system-2: cannot be reached\nmore";
  const std::string failed = format_finished_run(other, false, ref, 3, 7);
  EXPECT_NE(failed.find("failed: system-2: cannot be reached"), std::string::npos) << failed;
  EXPECT_EQ(failed.find("more"), std::string::npos) << failed;
}

TEST(RunFigures, ComponentColumnsKeepASeparator) {
  RunResult r = run("conservative", "step", "process", 12345.6);
  ComponentReport c{
      "integrator-1234567", ComponentRole::integrator, "", 0, true, {}, -1, {}, 0, {}};
  c.totals.busy_s = 1234567.891;
  c.totals.idle_s = 7654321.123;
  c.totals.rollback_s = 99999.5;
  c.totals.calc_calls = 123456789012345;
  r.components = {c, c};
  const std::string text = format_summary(r);
  const auto header = text.find("  component");
  ASSERT_NE(header, std::string::npos) << text;
  expect_columns_apart(text.substr(header), 3);
}

// The typed words of a run read and write as their names: in summary.json, checkpoints and
// on the command line; an unknown name is no value at all.
TEST(RunKind, NamesRoundTripAndUnknownNamesAreRefused) {
  for (SyncMethod m : {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
    EXPECT_EQ(sync_method_named(name_of(m)), m);
    EXPECT_EQ(nlohmann::json(m), to_string(m));
  }
  for (Guarantee g : {Guarantee::none, Guarantee::step, Guarantee::lookahead})
    EXPECT_EQ(guarantee_named(name_of(g)), g);
  for (RunStatus st : {RunStatus::completed, RunStatus::failed, RunStatus::interrupted}) {
    EXPECT_EQ(run_status_named(name_of(st)), st);
    EXPECT_EQ(nlohmann::json(st), to_string(st));
  }
  EXPECT_FALSE(sync_method_named("Optimistic "));
  EXPECT_FALSE(guarantee_named("steps"));
  EXPECT_FALSE(run_status_named(""));
  for (Layout l : {Layout::process, Layout::pendulum, Layout::single}) {
    EXPECT_EQ(layout_named(name_of(l)), l);
    EXPECT_EQ(run_layout_named(layout_label(l)), RunLayout{l});
  }
  EXPECT_EQ(layout_named("pair"), Layout::pendulum);  // a System and its Integrator together
  EXPECT_EQ(layout_label(RunLayout{}), "none");
  EXPECT_EQ(run_layout_named("none"), std::optional<RunLayout>{RunLayout{}});  // known: no layout
  EXPECT_EQ(run_layout_named("threads"), std::nullopt);                        // unknown
  EXPECT_FALSE(layout_named("none"));
  EXPECT_THROW(parse_layout("threads"), InputError);
  EXPECT_EQ(method_label(SyncMethod::conservative, Guarantee::lookahead), "conservative/lookahead");
  EXPECT_EQ(method_label(SyncMethod::optimistic, Guarantee::none), "optimistic");
  for (ComponentRole role : {ComponentRole::monitor, ComponentRole::sequential,
                             ComponentRole::system, ComponentRole::integrator})
    EXPECT_EQ(nlohmann::ordered_json(role), to_string(role));  // trace.json is ordered
  // summary.json says "failed", not 1.
  RunResult r = run("conservative", "step", "process", 1.0);
  r.status = RunStatus::failed;
  TempDir dir;
  write_summary_json(r, dir.path() / "summary.json");
  const auto json = nlohmann::json::parse(slurp(dir.path() / "summary.json"));
  EXPECT_EQ(json["status"], "failed");
  EXPECT_EQ(json["method"], "conservative");
  EXPECT_EQ(json["guarantee"], "step");
}

// A run that failed before its first step (an address it cannot serve on, say) says why and
// shows no empty digest or component table.
TEST(RunFigures, ARunThatNeverStartedShowsNoEmptyFigures) {
  RunResult r = run("conservative", "step", "process", 0.0);
  r.status = RunStatus::failed;
  r.error = "--host 10.99.99.99: cannot serve on this address";
  r.trajectory_sha256.clear();
  r.components.clear();
  const std::string text = format_summary(r);
  EXPECT_NE(text.find("failed — --host 10.99.99.99"), std::string::npos) << text;
  EXPECT_EQ(text.find("digest"), std::string::npos) << text;
  EXPECT_EQ(text.find("component"), std::string::npos) << text;
}

// A partitioned model has no collisions, guarantee rounds, batches or stale batches: not
// printed, not in summary.json, not a column of the comparison.
TEST(RunFigures, PartitionedRunsPrintNoChainFigures) {
  RunResult r = run("optimistic", "", "process", 1.0);
  r.model = "partitioned";
  r.partitions.push_back({"p", {"a"}, "rk4", 0.001, 10, {}, {}});
  r.window = 64;
  r.counters.wasted_calc_calls = 36556;
  r.state_list_peak = 65;
  const std::string text = format_summary(r);
  EXPECT_EQ(text.find("collisions"), std::string::npos) << text;
  EXPECT_EQ(text.find("batch"), std::string::npos) << text;
  EXPECT_EQ(text.find("stale"), std::string::npos) << text;
  EXPECT_NE(text.find("36556 Calc calls wasted"), std::string::npos) << text;
  EXPECT_NE(text.find("at most 65 entries (window 64)"), std::string::npos) << text;
  EXPECT_NE(text.find("predictions"), std::string::npos) << text;
  // Only the optimistic method predicts and rolls back.
  RunResult conservative = r;
  conservative.method = SyncMethod::conservative;
  const std::string plain = format_summary(conservative);
  for (const char* word : {"predictions", "rollbacks", "tolerance", "state list", "wasted"})
    EXPECT_EQ(plain.find(word), std::string::npos) << word << " in\n" << plain;
  TempDir dir;
  write_summary_json(r, dir.path() / "summary.json");
  const auto json = nlohmann::json::parse(slurp(dir.path() / "summary.json"));
  for (const char* key : {"collisions", "rounds", "stale_batches", "batch_size"})
    EXPECT_FALSE(json.contains(key)) << key;
  EXPECT_EQ(json["wasted_calc_calls"], 36556);
  RunResult seq = run("sequential", "", "", 0.5);
  seq.model = "partitioned";
  const std::string table = format_comparison(comparison_rows(std::vector<RunResult>{seq, r}));
  EXPECT_EQ(table.find("collisions"), std::string::npos) << table;
  std::vector<ReportRun> runs{{seq, "seq"}, {r, "opt"}};
  write_report(runs, {dir.path(), dir.path() / "no-such-renderer", "two-mass", "setup"});
  EXPECT_EQ(slurp(dir.path() / "report.html").find("collisions"), std::string::npos);
}

// The figures of a partitioned optimistic run are measured, not left at zero: the Calc
// calls of rolled-back steps (RK4 without events: all the calls beyond the sequential
// run's), the state list's peak and the wait per Calc; the sequential run is busy all along.
TEST(RunFigures, PartitionedRunsMeasureWasteStateListAndCalcCost) {
  std::string text = shipped_text("two-mass.toml");
  text.replace(text.find("t_end = 5.0"), 11, "t_end = 1.0");
  const PartitionedScenario s = parse_partitioned_scenario(text, "two-mass.toml");
  RunControl control;
  const PartitionedPlan seq_plan = plan_partitions(s, {});
  PartitionedRecorder seq_recorder("", s, seq_plan);
  const RunResult seq =
      run_partitioned_sequential(s, seq_plan, control, {nullptr, {&seq_recorder}});
  ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
  ASSERT_EQ(seq.components.size(), 1u);
  EXPECT_EQ(seq.components[0].role, ComponentRole::sequential);
  ASSERT_EQ(seq.components[0].spans.size(), 1u);
  EXPECT_NEAR(1e-9 * static_cast<double>(seq.components[0].spans[0].end_ns -
                                         seq.components[0].spans[0].begin_ns),
              seq.wall_s, 1e-6);
  EXPECT_GT(calc_cost_us(seq), 0.0);

  const PartitionedMode mode{true, 0, 32};
  const PartitionedPlan plan = plan_partitions(s, mode);
  PartitionedRecorder recorder("", s, plan);
  LocalDeployment deployment(partitioned_deployment(s, plan));
  const RunResult opt = run_partitioned_distributed(s, SyncMethod::optimistic, plan, deployment,
                                                    control, {nullptr, {&recorder}});
  ASSERT_EQ(opt.status, RunStatus::completed) << opt.error;
  ASSERT_GT(opt.counters.rollbacks, 0u);
  EXPECT_GT(opt.counters.wasted_calc_calls, 0u);
  EXPECT_EQ(opt.calc_calls, seq.calc_calls + opt.counters.wasted_calc_calls);
  EXPECT_EQ(opt.counters.wasted_calc_calls, 4 * opt.counters.rolled_back_steps);  // RK4
  EXPECT_GT(opt.state_list_peak, 1u);
  EXPECT_LE(opt.state_list_peak, 32u + 1);
  EXPECT_GT(calc_cost_us(opt), 0.0);
  const std::string summary = format_summary(opt);
  EXPECT_EQ(summary.find(" 0 Calc calls wasted"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("at most 0 entries"), std::string::npos) << summary;
}

TEST(TextTable, WordsWrapAtSpacesKeepingBreaksAndIndentation) {
  EXPECT_EQ(wrap_words("one two three four", 9), "one two\nthree\nfour");
  EXPECT_EQ(wrap_words("a verylongword b", 4), "a\nverylongword\nb");
  EXPECT_EQ(wrap_words("first line\n  indented words here\n", 12),
            "first line\n  indented\n  words here\n");
  EXPECT_EQ(wrap_words("µs µs µs", 5), "µs µs\nµs") << "columns, not bytes";
  EXPECT_EQ(wrap_words("a   b", 10), "a b");
  EXPECT_EQ(wrap_words("", 10), "");
}

// A table wider than the terminal comes in parts, each within the width and starting with
// the rows' names; one that fits, or no width, stays whole.
TEST(TextTable, AWideTableIsSplitIntoPartsThatFitEachWithTheFirstColumn) {
  const std::vector<std::vector<std::string>> rows{
      {"method", "aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddddddddd"},
      {"sequential", "1", "2", "3", "4"},
      {"optimistic", "5", "6", "7", "8"}};
  const std::vector<Align> align{Align::left, Align::right, Align::right, Align::right,
                                 Align::right};
  const std::string whole = format_table(rows, align);
  EXPECT_EQ(lines_of(whole).size(), 3u);
  EXPECT_EQ(format_table(rows, align, "", 200), whole);
  const std::string split = format_table(rows, align, "", 40);
  const auto lines = lines_of(split);
  ASSERT_EQ(lines.size(), 3u * 2 + 1) << split;  // two parts of three lines, an empty one
  EXPECT_EQ(lines[3], "");
  for (const std::string& line : lines) EXPECT_LE(display_width(line), 40u) << split;
  EXPECT_EQ(lines[0].rfind("method", 0), 0u) << split;
  EXPECT_EQ(lines[4].rfind("method", 0), 0u) << split;
  EXPECT_NE(lines[5].find("sequential"), std::string::npos) << split;
  EXPECT_NE(split.find("dddddddddd"), std::string::npos) << split;
  // Too narrow for even one column beside the first: one column per part.
  EXPECT_EQ(lines_of(format_table(rows, align, "", 10)).size(), 4u * 3 + 3);
}

TEST(TextTable, WidthsCountCharactersNotBytes) {
  EXPECT_EQ(display_width("µs/Calc"), 7u);
  EXPECT_EQ(display_width("2.45×"), 5u);
  const std::string t = format_table({{"a", "µs"}, {"bb", "1"}}, {Align::left, Align::right});
  EXPECT_EQ(t, "a   µs\nbb   1\n");
}

}  // namespace
}  // namespace kausal

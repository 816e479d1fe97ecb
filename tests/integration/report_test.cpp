// kausal compare's report.html and every run's trace.json, from real processes; the live
// animation started and stopped by kausal, closed mid-run.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

const char* const kRuns[] = {"sequential", "conservative-step", "conservative-lookahead",
                             "optimistic"};

// data-key -> data-value of every cell of the row of `method` in report.html.
std::map<std::string, std::string> report_row(const std::string& html, const std::string& method) {
  const auto begin = html.find("<tr data-method=\"" + method + "\">");
  EXPECT_NE(begin, std::string::npos) << method;
  const auto end = html.find("</tr>", begin);
  const std::string row = html.substr(begin, end - begin);
  std::map<std::string, std::string> cells;
  const std::regex cell("data-key=\"([a-z_0-9]+)\" data-value=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(row.begin(), row.end(), cell); it != std::sregex_iterator();
       ++it)
    cells[(*it)[1]] = std::regex_replace((*it)[2].str(), std::regex("&quot;"), "\"");
  return cells;
}

// The slices of one trace.json track, and the flow ends, as read back.
struct Slice {
  double ts = 0, dur = 0;
  std::string name, cat;
  nlohmann::json args;
};
struct ParsedTrace {
  std::map<int, std::string> tracks;  // tid -> component
  std::map<int, std::vector<Slice>> slices;
  std::map<long, std::map<std::string, nlohmann::json>> flows;  // id -> "s"/"f" -> event
  nlohmann::json other;
};

ParsedTrace parse_trace(const fs::path& file) {
  const auto trace = read_json(file);
  ParsedTrace t;
  EXPECT_TRUE(trace["traceEvents"].is_array()) << file;
  t.other = trace["otherData"];
  for (const auto& e : trace["traceEvents"]) {
    EXPECT_TRUE(e["ph"].is_string() && e["pid"].is_number() && e["tid"].is_number()) << e;
    if (e["ph"] == "M" && e["name"] == "thread_name") t.tracks[e["tid"]] = e["args"]["name"];
    if (e["ph"] == "s" || e["ph"] == "f") t.flows[e["id"]][e["ph"]] = e;
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e;
    t.slices[e["tid"]].push_back({e["ts"], e["dur"], e["name"], e.value("cat", ""),
                                  e.value("args", nlohmann::json::object())});
  }
  return t;
}

// The slice of track `tid` that encloses time ts (the innermost), if any.
const Slice* slice_at(const ParsedTrace& t, int tid, double ts) {
  const Slice* found = nullptr;
  for (const Slice& s : t.slices.at(tid))
    if (s.ts <= ts && ts <= s.ts + s.dur && (!found || s.dur <= found->dur)) found = &s;
  return found;
}

void expect_valid_trace(const fs::path& run) {
  const auto summary = read_json(run / "summary.json");
  const ParsedTrace t = parse_trace(run / "trace.json");
  // One track per component of summary.json, in its order, each with its slices.
  ASSERT_EQ(t.tracks.size(), summary["components"].size()) << run;
  std::size_t k = 0;
  for (const auto& [tid, name] : t.tracks) {
    const auto& c = summary["components"][k++];
    EXPECT_EQ(name, c["name"]) << run;
    const auto& slices = t.slices.count(tid) ? t.slices.at(tid) : std::vector<Slice>{};
    EXPECT_EQ(slices.size(), c["trace_spans"].get<std::size_t>()) << name;
    EXPECT_GT(slices.size(), 0u) << run << " " << name;
    double worked_us = 0;
    for (const Slice& s : slices) {
      EXPECT_GE(s.ts, 0.0) << run << " " << name;
      EXPECT_GE(s.dur, 0.0);
      EXPECT_TRUE(s.cat == "busy" || s.cat == "rollback" || s.cat == "call") << s.cat;
      if (s.cat == "busy" || s.cat == "rollback") worked_us += s.dur;
    }
    // The busy and rollback slices add up to the time counted (merging adds < 1 µs per
    // merged piece). The split may differ: a discarded step's request overhead is rollback
    // in the trace, busy in the totals.
    const double counted_s = c["busy_s"].get<double>() + c["rollback_s"].get<double>();
    EXPECT_GE(1e-6 * worked_us, 0.99 * counted_s - 1e-5) << run << " " << name;
  }
}

TEST(Report, CompareWritesReportAndTracesThatAgreeWithTheSummaries) {
  TempDir dir;
  const auto short_run =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 3.0"}});
  KausalProcess p({"compare", short_run.string(), "--out", (dir / "cmp").string()}, dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(120)), 0) << p.err();
  EXPECT_NE(p.out().find("report.html"), std::string::npos);
  const std::string html = read_file(dir / "cmp/report.html");
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.find("could not be drawn"), std::string::npos) << p.err();
  // The wall-time chart, one timeline per method, and one zoom around the first impact per
  // method but sequential (whose monitor applies none), embedded.
  std::size_t images = 0;
  for (auto at = html.find("src=\"data:image/png;base64,"); at != std::string::npos;
       at = html.find("src=\"data:image/png;base64,", at + 1))
    ++images;
  EXPECT_EQ(images, 1u + std::size(kRuns) + (std::size(kRuns) - 1));
  EXPECT_NE(html.find("conservative/step around its first impact"), std::string::npos);
  for (const char* run : kRuns) {
    const auto summary = read_json(dir / "cmp" / run / "summary.json");
    const std::string label =
        summary.contains("guarantee")
            ? summary["method"].get<std::string>() + "/" + summary["guarantee"].get<std::string>()
            : summary["method"].get<std::string>();
    auto cells = report_row(html, label);
    for (const char* key : {"wall_s", "calc_calls", "collisions", "rollbacks", "rolled_back_steps",
                            "monitor_calls", "mean_utilisation", "calc_cost_us"})
      EXPECT_EQ(nlohmann::json::parse(cells[key]), summary[key]) << run << " " << key;
    EXPECT_EQ(cells["trajectory_sha256"], summary["trajectory_sha256"].get<std::string>());
    expect_valid_trace(dir / "cmp" / run);
  }
  EXPECT_EQ(html.find("class=\"differs\""), std::string::npos);
  // The pictures were drawn without a word (no warning of a missing runtime directory): no
  // renderer log is left.
  for (const auto& entry : fs::directory_iterator(dir / "cmp"))
    EXPECT_NE(entry.path().extension(), ".log") << entry.path() << ": " << read_file(entry.path());
}

// A hybrid model's report compares it as partitions (the steps, rollbacks and calls of
// summary.json, as the terminal's table does), says what crossed the boundary, and its
// traces hold a track per component.
TEST(Report, AHybridModelIsComparedAsPartitionsWithItsBridge) {
  TempDir dir;
  KausalProcess p(
      {"compare", (fs::path(KAUSAL_SOURCE_DIR) / "scenarios" / "bouncing-ball-floor.toml").string(),
       "--out", (dir / "cmp").string()},
      dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(120)), 0) << p.err();
  const std::string html = read_file(dir / "cmp/report.html");
  EXPECT_EQ(html.find("could not be drawn"), std::string::npos) << p.err();
  EXPECT_EQ(html.find("anti-messages"), std::string::npos) << "not a discrete-event table";
  for (const char* run : {"sequential", "conservative", "optimistic"}) {
    const auto summary = read_json(dir / "cmp" / run / "summary.json");
    auto cells = report_row(html, run);
    for (const char* key : {"wall_s", "calc_calls", "rollbacks", "rolled_back_steps",
                            "monitor_calls", "mean_utilisation", "calc_cost_us"})
      EXPECT_EQ(nlohmann::json::parse(cells[key]), summary[key]) << run << " " << key;
    EXPECT_EQ(cells["trajectory_sha256"], summary["trajectory_sha256"].get<std::string>());
    EXPECT_NE(html.find(std::to_string(summary["events"]["crossings"].get<std::uint64_t>()) +
                        " crossings to the discrete components"),
              std::string::npos)
        << run;
    if (std::string(run) != "sequential") {
      EXPECT_GT(summary["monitor_calls"].get<std::uint64_t>(), 0u) << run;
      expect_valid_trace(dir / "cmp" / run);
      // Events as arrows: each crossing from the ball's Integrator to the monitor (the
      // discrete side), each answer from the monitor to the Integrator.
      const ParsedTrace t = parse_trace(dir / "cmp" / run / "trace.json");
      std::map<std::string, std::size_t> arrows;  // "crossing integrator-ball -> monitor"
      for (const auto& [id, ends] : t.flows) {
        if (!ends.contains("s") || !ends.contains("f")) continue;
        arrows[ends.at("s")["name"].get<std::string>() + " " +
               t.tracks.at(ends.at("s")["tid"].get<int>()) + " -> " +
               t.tracks.at(ends.at("f")["tid"].get<int>())]++;
      }
      const auto crossings = summary["events"]["crossings"].get<std::size_t>();
      EXPECT_GE(arrows["crossing integrator-ball -> monitor"], crossings) << run;
      EXPECT_GE(arrows["schedule monitor -> integrator-ball"], crossings) << run;
    }
  }
  EXPECT_EQ(html.find("class=\"differs\""), std::string::npos);
  // The events across the boundary: bridge.csv's rows in a table (the ball's impacts, each
  // answered by the floor's rebound), counted.
  const std::string csv = read_file(dir / "cmp" / "sequential" / "bridge.csv");
  const auto rows = static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1;
  const auto section = html.find("<h2>Events across the boundary</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find(std::to_string(rows) + " rows of ", section), std::string::npos);
  EXPECT_NE(html.find("<td>crossing</td><td>ball.h</td><td>floor.impact</td>", section),
            std::string::npos)
      << html.substr(section, 2000);
  EXPECT_NE(html.find("<td>set</td><td>floor.rebound</td><td>ball.v</td>", section),
            std::string::npos);
}

// Two layouts, two rounds: a line as each run ends, medians and ranges in the table, "vs step"
// within each layout, every figure readable, the timelines on one axis.
TEST(Report, CompareAcrossLayoutsWithRepetitions) {
  TempDir dir;
  const auto short_run =
      scenario_variant("tutorial.toml", dir.path(), {{"duration = 6.0", "duration = 0.5"}});
  KausalProcess p({"compare", short_run.string(), "--layout", "single,pendulum", "--repeat", "2",
                   "--out", (dir / "cmp").string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(120)), 0) << p.err();
  const std::string out = p.out();
  // 2 rounds of sequential and 3 methods in 2 layouts: each announced as it ended.
  for (int k = 1; k <= 14; ++k) {
    std::string counter = "[";  // (appended, not concatenated: GCC 12 warns on "[" + string)
    counter += std::to_string(k);
    counter += "/14] ";
    EXPECT_NE(out.find(counter), std::string::npos) << k << "\n" << out;
  }
  EXPECT_NE(out.find("[1/14] sequential  "), std::string::npos) << out;
  EXPECT_NE(out.find("(the reference)"), std::string::npos) << out;
  EXPECT_NE(out.find("] optimistic [pendulum]  "), std::string::npos) << out;
  EXPECT_NE(out.find("digest = sequential"), std::string::npos) << out;
  EXPECT_EQ(out.find("differs"), std::string::npos) << out;
  EXPECT_NE(out.find("min–max s"), std::string::npos) << out;

  const auto table = read_json(dir / "cmp/comparison.json")["rows"];
  ASSERT_EQ(table.size(), 7u);
  auto wall = [&](const std::string& layout, const std::string& method, int round) {
    return read_json(dir / "cmp" / layout / method / std::to_string(round) /
                     "summary.json")["wall_s"]
        .get<double>();
  };
  for (const auto& row : table) {
    EXPECT_EQ(row["runs"], 2) << row;
    EXPECT_TRUE(row["digest_equal"].get<bool>()) << row;
    const std::string layout = row["layout"];
    if (layout == "none") continue;
    const std::string label = row["label"];
    EXPECT_NE(label.find("[" + layout + "]"), std::string::npos) << label;
    // Against conservative/step of the same layout, round by round, then the median.
    const std::string dir_name =
        label.substr(0, label.find(' ')) == "optimistic"
            ? "optimistic"
            : "conservative-" +
                  label.substr(label.find('/') + 1, label.find(' ') - label.find('/') - 1);
    double expected = 0;
    for (int round : {1, 2})
      expected += 0.5 * wall(layout, "conservative-step", round) / wall(layout, dir_name, round);
    EXPECT_NEAR(row["vs_step"].get<double>(), expected, 1e-9 * expected) << label;
    EXPECT_GE(row["wall_max_s"].get<double>(), row["wall_s"].get<double>());
    EXPECT_LE(row["wall_min_s"].get<double>(), row["wall_s"].get<double>());
  }
  const std::string html = read_file(dir / "cmp/report.html");
  EXPECT_EQ(html.find("could not be drawn"), std::string::npos) << p.err();
  EXPECT_EQ(html.find("0.00×"), std::string::npos);
  EXPECT_NE(html.find("<tr data-method=\"conservative/step [pendulum]\">"), std::string::npos);
  EXPECT_NE(html.find("same time axis"), std::string::npos);
  std::size_t images = 0;
  for (auto at = html.find("src=\"data:image/png;base64,"); at != std::string::npos;
       at = html.find("src=\"data:image/png;base64,", at + 1))
    ++images;
  EXPECT_EQ(images, 1u + table.size());  // the chart, one timeline per row
}

// The view kausal starts for --animate, found among its children.
std::optional<pid_t> animation_pid(KausalProcess& p) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& [pid, cmd] : children_of(p.pid()))
      if (cmd.find("kausal-animation") != std::string::npos) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

struct AnimatedRun {
  int exit_code = -1;
  std::string digest;
  std::string err;
  bool animation_seen = false;
  bool animation_left = true;
};

AnimatedRun run_animated(const fs::path& scenario, const fs::path& dir, const std::string& method,
                         const std::map<std::string, std::string>& env, bool kill_view = false) {
  std::map<std::string, std::string> all_env{{"QT_QPA_PLATFORM", "offscreen"}};
  all_env.insert(env.begin(), env.end());
  KausalProcess p({"run", scenario.string(), "--method", method, "--animate", "--realtime", "0",
                   "--animate-until", "run-end", "--out", (dir / method).string()},
                  dir, all_env);
  AnimatedRun r;
  const auto view = animation_pid(p);
  r.animation_seen = view.has_value();
  if (view && kill_view) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the run is under way
    kill(*view, SIGKILL);                                         // a crashed view
  }
  r.exit_code = p.wait(std::chrono::seconds(100)).value_or(-1);
  r.err = p.err();
  r.animation_left = view && process_exists(*view);
  r.digest = read_json(dir / method / "summary.json")["trajectory_sha256"];
  return r;
}

class Animation : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ =
        scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 3.0"}});
    ASSERT_EQ(
        run_kausal({"run", scenario_.string(), "--out", (dir_ / "seq").string()}, dir_.path()), 0);
    reference_ = read_json(dir_ / "seq/summary.json")["trajectory_sha256"];
  }
  TempDir dir_;
  fs::path scenario_;
  std::string reference_;
};

TEST_F(Animation, StartsAndStopsWithTheRunWithoutLeakingAProcess) {
  for (const char* method : {"optimistic", "conservative", "sequential"}) {
    const AnimatedRun r = run_animated(scenario_, dir_.path(), method, {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.animation_seen) << method;
    EXPECT_FALSE(r.animation_left) << method;
    EXPECT_EQ(r.digest, reference_) << method;
    EXPECT_NE(r.err.find("animation: 0 frames dropped"), std::string::npos) << r.err;
    // The view took every frame of the run and found nothing in the feed to reject.
    const std::string log = read_file(dir_ / method / "logs/animation.log");
    EXPECT_NE(log.find("3001 frames received, 0 dropped, 0 rejected"), std::string::npos)
        << method << ":\n"
        << log;
  }
}

TEST_F(Animation, WindowClosedMidRunChangesNothingButDropsFrames) {
  const AnimatedRun r = run_animated(scenario_, dir_.path(), "conservative",
                                     {{"KAUSAL_TEST_ANIMATION_CLOSE_AFTER_FRAMES", "300"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.digest, reference_);
  EXPECT_FALSE(r.animation_left);
  const std::regex dropped("animation: ([0-9]+) frames dropped \\(the window was closed\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, dropped)) << r.err;
  EXPECT_GT(std::stoul(m[1]), 0u);
}

TEST_F(Animation, ACrashedViewChangesNothing) {
  const AnimatedRun r = run_animated(scenario_, dir_.path(), "conservative", {}, true);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.digest, reference_);
  EXPECT_FALSE(r.animation_left);
}

// ---- trace.json of real runs: named slices, step and epoch, flows, no negative times ----

const std::set<std::string> kCallNames = {
    "event",      "advance", "run_ahead", "apply_event", "rollback", "commit",  "grant", "sweep",
    "derivative", "output",  "jacobian",  "indicators",  "provide",  "outputs", "busy",  "route"};

// Every flow has both ends, each inside a slice of its track: the caller's ("s", open while
// it waits) and the callee's ("f", named as the flow). Returns caller -> callee slice names.
std::multiset<std::pair<std::string, std::string>> checked_flows(const ParsedTrace& t) {
  std::multiset<std::pair<std::string, std::string>> out;
  for (const auto& [id, ends] : t.flows) {
    EXPECT_TRUE(ends.count("s") && ends.count("f")) << "flow " << id;
    if (!ends.count("s") || !ends.count("f")) continue;
    const auto& s = ends.at("s");
    const auto& f = ends.at("f");
    EXPECT_LE(s["ts"].get<double>(), f["ts"].get<double>()) << s << f;
    const Slice* from = slice_at(t, s["tid"], s["ts"]);
    const Slice* to = slice_at(t, f["tid"], f["ts"]);
    EXPECT_TRUE(from && to) << s << f;
    if (!from || !to) continue;
    EXPECT_EQ(to->name, f["name"].get<std::string>());
    out.insert({t.tracks.at(s["tid"]).substr(0, 3) + ":" + from->name,
                t.tracks.at(f["tid"]).substr(0, 3) + ":" + to->name});
  }
  return out;
}

TEST(Trace, RealRunsNameTheirCallsCarryStepsAndDrawConnectedFlows) {
  TempDir dir;
  const auto scenario =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 2.0"}});
  for (const std::string method : {"conservative", "optimistic"}) {
    KausalProcess p(
        {"run", scenario.string(), "--method", method, "--out", (dir / method).string()},
        dir.path());
    ASSERT_EQ(p.wait(std::chrono::seconds(60)), 0) << p.err();
    expect_valid_trace(dir / method);
    const ParsedTrace t = parse_trace(dir / method / "trace.json");
    bool rolled_back = false, later_epoch = false;
    for (const auto& [tid, slices] : t.slices) {
      const std::string& track = t.tracks.at(tid);
      for (const Slice& s : slices) {
        EXPECT_TRUE(kCallNames.count(s.name)) << track << ": " << s.name;
        EXPECT_NE(s.name, "busy") << track;  // every span knows its call
        EXPECT_GE(s.ts, 0.0) << track << " " << s.name;
        if (track.rfind("integrator", 0) == 0 && s.cat == "call") {
          EXPECT_TRUE(s.args.contains("step") && s.args.contains("epoch"))
              << track << " " << s.name;
          if (s.args.value("epoch", 0) > 0) later_epoch = true;
        }
        if (s.name == "rollback") rolled_back = true;
      }
    }
    const auto flows = checked_flows(t);
    const std::string request = method == "conservative" ? "advance" : "run_ahead";
    EXPECT_GT(flows.count({"int:" + request, "sys:derivative"}), 0u) << method;
    EXPECT_GT(flows.count({"mon:sweep", "int:apply_event"}), 0u) << method;
    EXPECT_GT(flows.count({"int:apply_event", "sys:event"}), 0u) << method;
    if (method == "conservative") {
      EXPECT_GT(flows.count({"mon:grant", "int:advance"}), 0u);
    } else {
      EXPECT_TRUE(rolled_back);
      EXPECT_TRUE(later_epoch);
      EXPECT_GT(flows.count({"mon:sweep", "int:rollback"}), 0u);
      EXPECT_GT(flows.count({"mon:commit", "int:commit"}), 0u);
    }
    EXPECT_EQ(t.other["trace"]["spans_lost"], 0) << method;
  }
}

// The peak memory of a running kausal, as far as it got (VmHWM only grows); 0 before the
// forked test process has become kausal (until exec it shows the test's own memory).
std::size_t peak_rss_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  bool kausal = false;
  while (std::getline(status, line)) {
    if (line.rfind("Name:", 0) == 0) kausal = line.find("kausal") != std::string::npos;
    if (line.rfind("VmHWM:", 0) == 0) return kausal ? std::stoul(line.substr(6)) : 0;
  }
  return 0;
}

struct MeasuredRun {
  int exit_code = -1;
  std::size_t peak_rss_kb = 0;
  std::string out;
};

MeasuredRun measured_run(const std::vector<std::string>& args, const fs::path& dir) {
  KausalProcess p(args, dir);
  MeasuredRun r;
  for (;;) {
    r.peak_rss_kb = std::max(r.peak_rss_kb, peak_rss_kb(p.pid()));
    if (auto code = p.wait(std::chrono::milliseconds(5))) {
      r.exit_code = *code;
      break;
    }
  }
  r.out = p.out();
  return r;
}

// The monitor streams every trace to disk as the run goes: a run three times longer needs
// no more memory (the old monitor kept its own spans and collected every component's at the
// end), and trace.json stays within --trace-limit, as the summary says. Both runs are long
// enough for the monitor's memory to have levelled off (by about 50,000 steps here: the
// recorder's bounded pipeline of 1 MiB blocks fills, the allocator's arenas settle); a
// shorter run would never get there and look smaller. (The pendulum layout: the components
// in processes of their own, as in the process layout, at a seventh of its time.)
TEST(Trace, MonitorMemoryAndTraceSizeDoNotGrowWithTheRun) {
  TempDir dir;
  std::map<double, MeasuredRun> runs;
  constexpr std::uint64_t limit = 20'000;
  for (const std::string seconds : {"60", "180"}) {
    const double duration = std::stod(seconds);
    const auto scenario = scenario_variant("thesis.toml", dir.path(),
                                           {{"duration = 20.0", "duration = " + seconds + ".0"}});
    const fs::path out = dir / ("d" + seconds);
    runs[duration] = measured_run(
        {"run", scenario.string(), "--method", "conservative", "--guarantee", "lookahead",
         "--layout", "pendulum", "--trace-limit", std::to_string(limit), "--out", out.string()},
        dir.path());
    ASSERT_EQ(runs[duration].exit_code, 0) << runs[duration].out;
    const ParsedTrace t = parse_trace(out / "trace.json");
    std::size_t events = 0;
    for (const auto& [tid, slices] : t.slices) events += slices.size();
    for (const auto& [id, ends] : t.flows) events += ends.size();
    EXPECT_LE(events, limit);
    EXPECT_EQ(t.other["trace"]["events"].get<std::size_t>(), events);
    EXPECT_LE(fs::file_size(out / "trace.json"), 200 * limit);
    const auto summary = read_json(out / "summary.json");
    EXPECT_GT(summary["trace"]["spans_not_written"].get<std::uint64_t>(), 0u);
    EXPECT_TRUE(t.other["trace"].contains("capped"));
    EXPECT_NE(runs[duration].out.find("capped at --trace-limit"), std::string::npos)
        << runs[duration].out;
  }
  // Levelled off, the peak still moves by a few MiB from run to run on this kind of host (the
  // recorder's pipeline of 1 MiB blocks and the allocator's arenas: 4.2 and 5.7 MiB more for
  // the longer run were seen with nothing else running); a trace kept whole would add tens of
  // MiB (120,000 more steps, several spans each).
  ASSERT_GT(runs[60.0].peak_rss_kb, 0u);
  EXPECT_LT(runs[180.0].peak_rss_kb, runs[60.0].peak_rss_kb + 8192)
      << runs[60.0].peak_rss_kb << " kB for 60,000 steps";
}

TEST(Trace, CoarseTracesKeepTheUtilisationOfTheWholeRun) {
  TempDir dir;
  const auto scenario =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 2.0"}});
  KausalProcess p({"run", scenario.string(), "--method", "conservative", "--trace", "coarse",
                   "--out", (dir / "c").string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(60)), 0) << p.err();
  EXPECT_NE(p.out().find("coarse"), std::string::npos) << p.out();
  expect_valid_trace(dir / "c");
  const ParsedTrace t = parse_trace(dir / "c" / "trace.json");
  const double wall_us = 1e6 * t.other["wall_s"].get<double>();
  for (const auto& [tid, slices] : t.slices) {
    // At most one busy and one rollback slice per 10 ms bin (and the bin of the origin).
    EXPECT_LE(slices.size(), 2 * (static_cast<std::size_t>(wall_us / 10'000) + 3)) << tid;
    for (const Slice& s : slices) {
      EXPECT_EQ(s.args["bin_ms"], 10);
      EXPECT_LE(s.dur, 10'000.0 + 1e-3);
    }
  }
  EXPECT_TRUE(t.flows.empty());
}

// ---- --animate without a display: refused before the run, or the run goes on without it ----

TEST(Animate, WithoutADisplayIsRefusedBeforeTheRun) {
  TempDir dir;
  const auto scenario =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  const std::map<std::string, std::string> no_display{
      {"DISPLAY", ""}, {"WAYLAND_DISPLAY", ""}, {"QT_QPA_PLATFORM", ""}};
  KausalProcess p(
      {"run", scenario.string(), "--animate", "--realtime", "0", "--out", (dir / "a").string()},
      dir.path(), no_display);
  EXPECT_EQ(p.wait(std::chrono::seconds(30)), 2) << p.err();
  EXPECT_NE(p.err().find("no display"), std::string::npos) << p.err();
  EXPECT_NE(p.err().find("--animate-until run-end"), std::string::npos) << p.err();
  EXPECT_FALSE(fs::exists(dir / "a" / "summary.json"));  // nothing ran

  KausalProcess q({"run", scenario.string(), "--animate", "--realtime", "0", "--animate-until",
                   "run-end", "--out", (dir / "b").string()},
                  dir.path(), no_display);
  EXPECT_EQ(q.wait(std::chrono::seconds(30)), 0) << q.err();
  EXPECT_NE(q.err().find("no display"), std::string::npos) << q.err();
  EXPECT_NE(q.err().find("without the animation"), std::string::npos) << q.err();
  EXPECT_TRUE(fs::exists(dir / "b" / "summary.json"));
}

// Offscreen there is a view but no window anyone could close: kausal does not wait for it.
TEST(Animate, AnOffscreenViewEndsWithTheRun) {
  TempDir dir;
  const auto scenario =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  KausalProcess p(
      {"run", scenario.string(), "--animate", "--realtime", "0", "--out", (dir / "a").string()},
      dir.path(), {{"QT_QPA_PLATFORM", "offscreen"}});
  EXPECT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.err();
  EXPECT_NE(p.err().find("no window to close"), std::string::npos) << p.err();
}

// A display that names no server: the view cannot open its window and says so.
TEST(Animate, AViewThatCannotOpenItsWindowIsRefused) {
  TempDir dir;
  const auto scenario =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  KausalProcess p(
      {"run", scenario.string(), "--animate", "--realtime", "0", "--out", (dir / "a").string()},
      dir.path(), {{"DISPLAY", ":87"}, {"WAYLAND_DISPLAY", ""}, {"QT_QPA_PLATFORM", "xcb"}});
  EXPECT_EQ(p.wait(std::chrono::seconds(30)), 2) << p.err();
  EXPECT_NE(p.err().find("could not open its window"), std::string::npos) << p.err();
}

}  // namespace
}  // namespace kausal::testing

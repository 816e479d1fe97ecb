// kausal compare's report.html and every run's trace.json, from real processes; the live
// animation started and stopped by kausal, closed mid-run.
#include <gtest/gtest.h>

#include <regex>

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

void expect_valid_trace(const fs::path& run) {
  const auto summary = read_json(run / "summary.json");
  const auto trace = read_json(run / "trace.json");
  ASSERT_TRUE(trace["traceEvents"].is_array()) << run;
  std::map<int, std::string> tracks;
  std::map<int, double> busy_us;
  std::map<int, std::size_t> events;
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e["ph"].is_string() && e["pid"].is_number() && e["tid"].is_number()) << e;
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks[e["tid"]] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e;
    ASSERT_GE(e["dur"].get<double>(), 0.0);
    ASSERT_TRUE(e["name"] == "busy" || e["name"] == "rollback") << e;
    if (e["name"] == "busy") busy_us[e["tid"]] += e["dur"].get<double>();
    ++events[e["tid"]];
  }
  // One track per component of summary.json, in its order, each with its spans.
  ASSERT_EQ(tracks.size(), summary["components"].size()) << run;
  std::size_t k = 0;
  for (const auto& [tid, name] : tracks) {
    const auto& c = summary["components"][k++];
    EXPECT_EQ(name, c["name"]) << run;
    EXPECT_EQ(events[tid], c["trace_spans"].get<std::size_t>()) << name;
    EXPECT_GT(events[tid], 0u) << run << " " << name;
    // The busy events add up to the busy time (merging adds < 1 µs per merged piece).
    const double busy_s = c["busy_s"].get<double>();
    EXPECT_GE(1e-6 * busy_us[tid], 0.99 * busy_s - 1e-5) << run << " " << name;
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
  // The wall-time chart and one timeline per method, embedded.
  std::size_t images = 0;
  for (auto at = html.find("src=\"data:image/png;base64,"); at != std::string::npos;
       at = html.find("src=\"data:image/png;base64,", at + 1))
    ++images;
  EXPECT_EQ(images, 1u + std::size(kRuns));
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
  for (int k = 1; k <= 14; ++k)
    EXPECT_NE(out.find("[" + std::to_string(k) + "/14] "), std::string::npos) << k << "\n" << out;
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
  KausalProcess p({"run", scenario.string(), "--method", method, "--animate", "--animate-until",
                   "run-end", "--out", (dir / method).string()},
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

}  // namespace
}  // namespace kausal::testing

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
  for (auto it = std::sregex_iterator(row.begin(), row.end(), cell); it != std::sregex_iterator(); ++it)
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
                            "messages", "mean_utilisation", "calc_cost_us"})
      EXPECT_EQ(nlohmann::json::parse(cells[key]), summary[key]) << run << " " << key;
    EXPECT_EQ(cells["trajectory_sha256"], summary["trajectory_sha256"].get<std::string>());
    expect_valid_trace(dir / "cmp" / run);
  }
  EXPECT_EQ(html.find("class=\"differs\""), std::string::npos);
}

}  // namespace
}  // namespace kausal::testing

#include "monitor/report.hpp"

#include <openssl/evp.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "monitor/child_process.hpp"
#include "monitor/summary.hpp"
#include "system/errors.hpp"

namespace kausal {
namespace {

constexpr std::chrono::seconds render_timeout{120};

// Runs the renderer; the PNG as a data URI, or the reason it could not be drawn.
struct Rendered {
  std::string data_uri;
  std::string error;
};

// `kausal-animation MODE out/NAME.png ARGS...`
Rendered render(const ReportOptions& o, const std::string& name, const std::string& mode,
                const std::vector<std::string>& args) {
  if (!std::filesystem::exists(o.renderer))
    return {"", o.renderer.string() + " not found (it is built with kausal: cmake --build)"};
  const std::filesystem::path png = o.out_dir / (name + ".png");
  std::vector<std::string> all{mode, png.string()};
  all.insert(all.end(), args.begin(), args.end());
  try {
    ChildProcess renderer("render " + name, o.renderer, all,
                          o.out_dir / ("render-" + name + ".log"));
    if (!renderer.wait_for_exit(render_timeout)) {
      renderer.stop(std::chrono::seconds(1));
      return {"",
              "renderer did not finish within " + std::to_string(render_timeout.count()) + " s"};
    }
    const std::string status = renderer.status();
    if (status != "exited with code 0")
      return {"", "renderer " + status + " (see " + renderer.log_file().string() + ")"};
    return {"data:image/png;base64," + base64_of_file(png), ""};
  } catch (const std::exception& e) {
    return {"", std::string("renderer could not run: ") + e.what()};
  }
}

std::string image(const Rendered& r, const std::string& alt, std::vector<std::string>& warnings) {
  if (!r.error.empty()) {
    warnings.push_back(alt + ": " + r.error);
    return "<p class=\"error\">" + html_escape(alt) +
           " could not be drawn: " + html_escape(r.error) + "</p>\n";
  }
  return "<img alt=\"" + html_escape(alt) + "\" src=\"" + r.data_uri + "\">\n";
}

// A table cell whose exact value (as in summary.json) is kept in data-value.
std::string cell(const char* key, const nlohmann::json& value, const std::string& shown) {
  return "<td data-key=\"" + std::string(key) + "\" data-value=\"" + html_escape(value.dump()) +
         "\">" + html_escape(shown) + "</td>";
}

std::string times(double x) {
  return x > 0 ? fixed(x, 2) + "×" : "–";
}

std::string table(const std::vector<ComparisonRow>& rows) {
  std::ostringstream o;
  o << "<table id=\"comparison\">\n<tr><th>method</th><th>wall s</th><th>vs sequential</th>"
       "<th>vs conservative/step</th><th>Calc calls</th><th>µs per Calc</th><th>collisions</th>"
       "<th>rollbacks</th><th>rolled-back steps</th><th>messages</th><th>mean utilisation</th>"
       "<th>digest</th></tr>\n";
  for (const ComparisonRow& row : rows) {
    o << "<tr data-method=\"" << html_escape(row.label) << "\"><td>" << html_escape(row.label)
      << "</td>" << cell("wall_s", row.wall_s, fixed(row.wall_s, 3))
      << cell("vs_sequential", row.vs_sequential, times(row.vs_sequential))
      << cell("vs_step", row.vs_step, times(row.vs_step))
      << cell("calc_calls", row.calc_calls, std::to_string(row.calc_calls))
      << cell("calc_cost_us", row.calc_cost_us, fixed(row.calc_cost_us, 2))
      << cell("collisions", row.collisions, std::to_string(row.collisions))
      << cell("rollbacks", row.rollbacks, std::to_string(row.rollbacks))
      << cell("rolled_back_steps", row.rolled_back_steps, std::to_string(row.rolled_back_steps))
      << cell("messages", row.messages, std::to_string(row.messages))
      << cell("mean_utilisation", row.mean_utilisation, fixed(100 * row.mean_utilisation, 1) + " %")
      << "<td data-key=\"trajectory_sha256\" data-value=\"" << row.digest << "\" class=\""
      << (row.digest_equal ? "same" : "differs") << "\">" << row.digest.substr(0, 16) << "… "
      << (row.status != "completed" ? html_escape(row.status)
          : row.digest_equal        ? "= reference"
                                    : "DIFFERS")
      << "</td></tr>\n";
  }
  o << "</table>\n";
  return o.str();
}

const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.same { color: #2e7d32; } td.differs { color: #c62828; font-weight: bold; }
p.error { color: #c62828; } img { max-width: 100%; border: 1px solid #ddd; }
.legend span { display: inline-block; width: 1em; height: 1em; vertical-align: middle; margin: 0 0.3em 0 1em; }
</style>)";

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64_of_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot read");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::vector<std::string> write_report(const std::vector<ReportRun>& runs, const ReportOptions& o) {
  std::vector<std::string> warnings;
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>kausal "
          "compare · "
       << html_escape(o.title) << "</title>\n"
       << kStyle << "</head><body>\n<h1>kausal compare · " << html_escape(o.title) << "</h1>\n<p>"
       << html_escape(o.setup) << "</p>\n";
  std::vector<RunResult> results;
  for (const auto& r : runs) results.push_back(r.result);
  const auto rows = comparison_rows(results);  // labels name the layout when several are run
  page << table(rows);

  std::vector<std::string> dirs{"--runs"};
  for (const auto& r : runs) dirs.push_back(r.dir.string());
  page << "<h2>Wall time per method</h2>\n"
       << image(render(o, "wall-time", "--chart", dirs), "wall time per method", warnings);

  page << "<h2>Utilisation timelines</h2>\n<p class=\"legend\">One strip per component over the "
          "run's wall time, a utilisation bar per pixel column:"
          "<span style=\"background:#2e7d32\"></span>busy"
          "<span style=\"background:#c62828\"></span>rolling back (work a rollback discarded)"
          "<span style=\"background:#e0e0e0\"></span>waiting. The same intervals are in each "
          "run's trace.json (open it in https://ui.perfetto.dev).</p>\n";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const ReportRun& r = runs[k];
    const std::string label = rows[k].label;
    std::string name = "timeline-" + label;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
    page << "<h3>" << html_escape(label) << "</h3>\n<p>wall " << fixed(r.result.wall_s, 3)
         << " s, mean utilisation " << fixed(100 * mean_utilisation(r.result), 1) << " %";
    if (r.result.counters.rollbacks)
      page << ", " << r.result.counters.rollbacks << " rollbacks ("
           << r.result.counters.rolled_back_steps << " steps)";
    page << "; output " << html_escape(r.dir.string()) << "</p>\n"
         << image(render(o, name, "--timeline", {"--run", r.dir.string()}), "timeline of " + label,
                  warnings);
  }
  page << "</body></html>\n";
  std::ofstream out(o.out_dir / "report.html", std::ios::trunc);
  out << page.str();
  if (!out.flush())
    throw InputError((o.out_dir / "report.html").string() + ": cannot write report");
  return warnings;
}

}  // namespace kausal

#include "monitor/record/report.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/bridge_mark.hpp"
#include "common/errors.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/record/summary.hpp"

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
    // A picture drawn without a word leaves no log.
    std::error_code ec;
    if (std::filesystem::file_size(renderer.log_file(), ec) == 0 && !ec)
      std::filesystem::remove(renderer.log_file(), ec);
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

// Whether a run's trace.json holds an impact the monitor applied (an "event" span): the
// centre of its zoomed timeline (kausal-animation --around-first-event).
bool has_impact_span(const ReportRun& r) {
  if (r.result.collisions == 0) return false;
  std::ifstream in(r.dir / "trace.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("\"name\":\"event\"") != std::string::npos;
}

// A table cell whose exact value (as in summary.json) is kept in data-value.
std::string cell(const char* key, const nlohmann::json& value, const std::string& shown) {
  return "<td data-key=\"" + std::string(key) + "\" data-value=\"" + html_escape(value.dump()) +
         "\">" + html_escape(shown) + "</td>";
}

// The cells of the real-time columns of a row: "–" for a row that was not paced.
std::string realtime_html_cells(const ComparisonRow& row) {
  if (!row.paced) return "<td>–</td><td>–</td><td>–</td>";
  return cell("overruns", row.overruns, std::to_string(row.overruns)) +
         cell("overruns_machine", row.overruns_machine, std::to_string(row.overruns_machine)) +
         cell("lateness_p99_s", row.lateness_p99_s, micros(row.lateness_p99_s));
}

// The columns of a discrete-event row: its events, not Calc calls and steps (which it has
// none of).
const char* const event_headers =
    "<th>committed events</th><th>committed/s</th><th>efficiency</th><th>rollbacks</th>"
    "<th>events undone</th><th>anti-messages</th><th>null messages</th>"
    "<th>messages between groups</th>";

std::string event_cells(const ComparisonRow& row) {
  if (!row.events)
    return "<td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td>";
  const EventFigures& e = *row.events;
  return cell("committed", e.committed, std::to_string(e.committed)) +
         cell("committed_per_s", row.committed_per_s, fixed(row.committed_per_s, 0)) +
         cell("efficiency", e.efficiency(), fixed(100 * e.efficiency(), 1) + " %") +
         cell("rollbacks", e.rollbacks, std::to_string(e.rollbacks)) +
         cell("rolled_back", e.rolled_back, std::to_string(e.rolled_back)) +
         cell("anti_messages", e.anti_messages, std::to_string(e.anti_messages)) +
         cell("null_messages", e.null_messages, std::to_string(e.null_messages)) +
         cell("messages", e.messages, std::to_string(e.messages));
}

// The columns of a continuous row (a pendulum chain or a partitioned model).
std::string step_cells(const ComparisonRow& row, bool collisions) {
  std::string o = cell("calc_calls", row.calc_calls, std::to_string(row.calc_calls)) +
                  cell("calc_cost_us", row.calc_cost_us, fixed(row.calc_cost_us, 2));
  if (collisions)
    o += row.chain ? cell("collisions", row.collisions, std::to_string(row.collisions))
                   : "<td>–</td>";
  return o + cell("rollbacks", row.rollbacks, std::to_string(row.rollbacks)) +
         cell("rolled_back_steps", row.rolled_back_steps, std::to_string(row.rolled_back_steps)) +
         cell("monitor_calls", row.monitor_calls, std::to_string(row.monitor_calls));
}

std::string table(const std::vector<ComparisonRow>& rows) {
  // A hybrid model's rows are compared as partitions (their steps, rollbacks and calls), as
  // in the terminal's table.
  const bool events =
      std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.events && !r.hybrid; });
  const bool collisions = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.chain; });
  const bool repeated = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.runs > 1; });
  const bool paced = any_paced(rows);
  std::ostringstream o;
  o << "<table id=\"comparison\">\n<tr><th>method</th><th>"
    << (repeated ? "wall s (median)</th><th>wall s (min–max)" : "wall s")
    << "</th><th>vs sequential</th><th>vs conservative/step (same layout)</th>"
    << "<th>η = σ/p (p: processors it could use)</th>";
  if (events)
    o << event_headers;
  else
    o << "<th>Calc calls</th><th>µs per Calc</th>" << (collisions ? "<th>collisions</th>" : "")
      << "<th>rollbacks</th><th>rolled-back steps</th><th>monitor calls</th>";
  o << "<th>mean utilisation</th>"
    << (paced ? "<th>overruns</th><th>the machine's</th><th>p99 lateness µs</th>" : "")
    << "<th>digest</th></tr>\n";
  for (const ComparisonRow& row : rows) {
    o << "<tr data-method=\"" << html_escape(row.label) << "\"><td>" << html_escape(row.label)
      << "</td>" << cell("wall_s", row.wall_s, fixed(row.wall_s, 3));
    if (repeated)
      o << cell("wall_range_s", nlohmann::json::array({row.wall_min_s, row.wall_max_s}),
                fixed(row.wall_min_s, 3) + "–" + fixed(row.wall_max_s, 3));
    o << cell("vs_sequential", row.vs_sequential, ratio_text(row.vs_sequential))
      << cell("vs_step", row.vs_step, ratio_text(row.vs_step))
      << cell("efficiency", row.efficiency, efficiency_text(row))
      << (events ? event_cells(row) : step_cells(row, collisions))
      << cell("mean_utilisation", row.mean_utilisation,
              fixed(100 * row.mean_utilisation, 1) + " %");
    if (paced) o << realtime_html_cells(row);
    o << "<td data-key=\"trajectory_sha256\" data-value=\"" << row.digest << "\" class=\""
      << (row.digest_equal ? "same" : "differs") << "\">" << row.digest.substr(0, 16) << "… "
      << (row.status != RunStatus::completed ? html_escape(to_string(row.status))
          : row.digest_equal                 ? "= reference"
                                             : "DIFFERS")
      << "</td></tr>\n";
  }
  o << "</table>\n";
  if (repeated)
    o << "<p>Each method ran " << rows.front().runs
      << " times, in rounds (every method once per round). The table gives medians; the "
         "speed-ups are the medians of each round's own ratios.</p>\n";
  return o.str();
}

// A table of text, rows[0] its header.
std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream o;
  o << "<table>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const char* tag = i == 0 ? "th" : "td";
    o << "<tr>";
    for (const auto& text : rows[i])
      o << "<" << tag << ">" << html_escape(text) << "</" << tag << ">";
    o << "</tr>\n";
  }
  o << "</table>\n";
  return o.str();
}

// A hybrid model's events across the boundary (docs/events.md): the first rows of one run's
// bridge.csv (every method writes the same bytes: one digest), how many there are and where
// the rest is; "" for any other model.
std::string bridge_section(const std::vector<ReportRun>& runs) {
  const auto hybrid = std::find_if(runs.begin(), runs.end(), [](const ReportRun& r) {
    return r.result.events && !r.result.partitions.empty();
  });
  if (hybrid == runs.end()) return "";
  constexpr std::size_t shown = 24;
  const std::filesystem::path file = hybrid->dir / "bridge.csv";
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows{{"t", "event", "from", "to", "value"}};
  std::size_t events = 0;
  std::string line;
  const bool has_header = static_cast<bool>(std::getline(in, line));
  while (std::getline(in, line)) {
    ++events;
    if (rows.size() > shown) continue;
    const auto event = parse_bridge_row(line);
    if (!event) continue;  // (a row the run did not write: not shown)
    // Times and values to 9 significant digits: the file has every bit.
    const auto digits = [](double v) {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", v);
      return std::string(text);
    };
    rows.push_back({digits(event->t), event->event, event->from, event->to, digits(event->value)});
  }
  const EventFigures& e = *hybrid->result.events;
  std::ostringstream o;
  o << "<h2>Events across the boundary</h2>\n<p>" << e.crossings
    << " crossings located in the partitions' steps and sent to the discrete components, "
    << e.to_partitions << " events sent to the partitions, each at its own time (every method "
    << "the same: they are in the digest). "
    << (events > shown ? "The first " + std::to_string(shown) + " of " + std::to_string(events)
                       : std::to_string(events))
    << " rows of " << html_escape(file.string()) << ":</p>\n";
  return o.str() + (has_header ? text_table(rows) : "");
}

// A paced run's spreads per step, as in its terminal summary; "" for a run not paced.
std::string realtime_section(const RunResult& r) {
  if (!r.realtime) return "";
  return "<h4>Real time</h4>\n<p>" + html_escape(realtime_setup(*r.realtime)) +
         ". An overrun is a state committed after it was due; its lateness is its commit time "
         "minus its due time (negative: early). Load is a step's time over the time between its "
         "release and the next one: above 1 the run cannot keep up.</p>\n" +
         (r.realtime->machine.watched
              ? "<p>" + html_escape(machine_stalls_line(r.realtime->machine)) +
                    ": a stall is a CPU the machine gave back more than the threshold late to a "
                    "thread that asked for it; an overrun is the machine's when its stalls held a "
                    "CPU back at least as long as the state came late, from its lateness plus a "
                    "typical step before it was due up to its commit.</p>\n"
              : "") +
         text_table(realtime_rows(*r.realtime));
}

// The run of each row shown as a timeline: the repetition whose wall time is nearest the
// median of the row.
std::vector<const ReportRun*> representatives(const std::vector<ReportRun>& runs,
                                              const std::vector<ComparisonRow>& rows) {
  std::vector<const ReportRun*> out(rows.size(), nullptr);
  std::vector<std::size_t> index_in_round;
  for (const ReportRun& r : runs) {
    if (r.round >= index_in_round.size()) index_in_round.resize(r.round + 1, 0);
    const std::size_t i = index_in_round[r.round]++;
    if (i >= rows.size()) continue;
    const double distance = std::abs(r.result.wall_s - rows[i].wall_s);
    if (!out[i] || distance < std::abs(out[i]->result.wall_s - rows[i].wall_s)) out[i] = &r;
  }
  return out;
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

std::vector<ComparisonRow> report_rows(const std::vector<ReportRun>& runs) {
  std::vector<std::vector<RunResult>> rounds;
  for (const auto& r : runs) {
    if (r.round >= rounds.size()) rounds.resize(r.round + 1);
    rounds[r.round].push_back(r.result);
  }
  return comparison_rows(rounds);
}

std::vector<std::string> write_report(const std::vector<ReportRun>& runs, const ReportOptions& o) {
  std::vector<std::string> warnings;
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>kausal "
          "compare · "
       << html_escape(o.title) << "</title>\n"
       << kStyle << "</head><body>\n<h1>kausal compare · " << html_escape(o.title) << "</h1>\n<p>"
       << html_escape(o.setup) << "</p>\n";
  const auto rows = report_rows(runs);  // labels name the layout when several are run
  page << table(rows) << bridge_section(runs);

  // One time axis for every timeline, so that their lengths compare.
  const auto shown = representatives(runs, rows);
  std::vector<char> zoomed(shown.size(), 0);
  for (std::size_t k = 0; k < shown.size(); ++k) zoomed[k] = shown[k] && has_impact_span(*shown[k]);
  const std::size_t charts = 1 +
                             static_cast<std::size_t>(std::count_if(shown.begin(), shown.end(),
                                                                    [](auto* r) { return r; })) +
                             static_cast<std::size_t>(std::count(zoomed.begin(), zoomed.end(), 1));
  std::size_t drawn = 0;
  auto announce = [&](const std::string& what) {
    if (o.progress) o.progress(++drawn, charts, what);
  };

  std::vector<std::string> dirs{"--runs"};
  for (const auto& r : runs) dirs.push_back(r.dir.string());
  announce("wall time per method");
  page << "<h2>Wall time per method</h2>\n"
       << image(render(o, "wall-time", "--chart", dirs), "wall time per method", warnings);

  double span_s = 0;
  for (const ReportRun* r : shown)
    if (r) span_s = std::max(span_s, r->result.wall_s);
  const std::string span = fixed(std::max(span_s, 1e-6), 6);
  page << "<h2>Utilisation timelines</h2>\n<p class=\"legend\">One strip per component, a "
          "utilisation bar per pixel column:"
          "<span style=\"background:#2e7d32\"></span>busy"
          "<span style=\"background:#c62828\"></span>rolling back (work a rollback discarded)"
          "<span style=\"background:#e0e0e0\"></span>waiting. <strong>Every timeline has the "
          "same time axis, 0 to "
       << fixed(span_s, 3)
       << " s (the longest run)</strong>: a shorter run ends further left. The same intervals "
          "are in each run's trace.json (open it in https://ui.perfetto.dev).</p>\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!shown[k]) continue;
    const ReportRun& r = *shown[k];
    const std::string label = rows[k].label;
    std::string name = "timeline-" + label;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
    announce("timeline of " + label);
    page << "<h3>" << html_escape(label) << "</h3>\n<p>wall " << fixed(r.result.wall_s, 3)
         << " s, mean utilisation " << fixed(100 * mean_utilisation(r.result), 1) << " %";
    const RunResult& result = r.result;
    if (result.events && result.partitions.empty()) {
      // A discrete-event run's rollbacks are its components'.
      if (result.events->rollbacks)
        page << ", " << result.events->rollbacks << " rollbacks (" << result.events->rolled_back
             << " events undone)";
    } else if (result.counters.rollbacks) {
      page << ", " << result.counters.rollbacks << " rollbacks ("
           << result.counters.rolled_back_steps << " steps)";
    }
    if (result.events && !result.partitions.empty())
      page << ", " << result.events->crossings << " crossings to the discrete components, "
           << result.events->to_partitions << " events to the partitions";
    page << "; output " << html_escape(r.dir.string()) << "</p>\n"
         << image(render(o, name, "--timeline", {"--run", r.dir.string(), "--time-span", span}),
                  "timeline of " + label, warnings);
    if (zoomed[k]) {
      announce(label + " around its first impact");
      page << "<p>The same run over 5 ms of wall time around the moment its monitor applied "
              "the first impact: each round of the protocol is wide enough to see.</p>\n"
           << image(render(o, name + "-first-impact", "--timeline",
                           {"--run", r.dir.string(), "--around-first-event"}),
                    label + " around its first impact", warnings);
    }
    page << realtime_section(r.result);
  }
  page << "</body></html>\n";
  std::ofstream out(o.out_dir / "report.html", std::ios::trunc);
  out << page.str();
  if (!out.flush())
    throw InputError((o.out_dir / "report.html").string() + ": cannot write report");
  return warnings;
}

}  // namespace kausal

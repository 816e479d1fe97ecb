// The figures the docs quote, checked against real runs (docs/figures.toml): every marker
// <!-- figures: RUN.FIELD ... --> in the repository's Markdown names a run of figures.toml
// and a field of its summary.json, and the value must stand in the text it marks — the
// line before the marker, or the code block just above a marker on a line of its own.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

const fs::path kSource = KAUSAL_SOURCE_DIR;

struct Marker {
  fs::path file;
  std::size_t line = 0;
  std::string run, field;
  std::string text;  // what it marks
};

// Where the docs are: README.md files and docs/, not the build trees or test data.
std::vector<fs::path> markdown_files() {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(kSource); it != fs::end(it); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "build" || name == "runs" || name.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".md") files.push_back(it->path());
  }
  return files;
}

std::vector<Marker> markers_in(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex marker(R"(<!-- figures: ([^>]*?) -->)");
  std::vector<Marker> found;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    for (auto m = std::sregex_iterator(lines[k].begin(), lines[k].end(), marker);
         m != std::sregex_iterator(); ++m) {
      std::string text = lines[k].substr(0, static_cast<std::size_t>(m->position()));
      // A marker alone on its line after a code block checks the block.
      if (text.find_first_not_of(' ') == std::string::npos && k > 0 &&
          lines[k - 1].starts_with("```")) {
        text.clear();
        for (std::size_t j = k - 1; j-- > 0 && !lines[j].starts_with("```");)
          text = lines[j] + "\n" + text;
      }
      std::istringstream names((*m)[1].str());
      for (std::string name; names >> name;) {
        const auto dot = name.find('.');
        found.push_back({file, k + 1, name.substr(0, dot),
                         dot == std::string::npos ? "" : name.substr(dot + 1), text});
      }
    }
  }
  return found;
}

// summary.json's field at a dotted path ("events.crossings").
nlohmann::json field_of(const nlohmann::json& summary, const std::string& path) {
  nlohmann::json at = summary;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!at.is_object() || !at.contains(part)) return nullptr;
    at = at[part];
  }
  return at;
}

// The text's tokens as a reader sees figures: runs of digits with their thousands commas
// dropped ("12,008" is 12008), and words.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string token;
  for (std::size_t k = 0; k <= text.size(); ++k) {
    const char c = k < text.size() ? text[k] : ' ';
    const bool digit_comma = c == ',' && !token.empty() && std::isdigit(token.back()) &&
                             k + 1 < text.size() && std::isdigit(text[k + 1]);
    if (std::isalnum(static_cast<unsigned char>(c))) {
      token += c;
    } else if (!digit_comma) {
      if (!token.empty()) out.push_back(token);
      token.clear();
    }
  }
  return out;
}

// Whether the value stands in the text: an integer as a token of its own, a text (a digest)
// as a token it starts with, at least 16 characters of it.
bool stands_in(const nlohmann::json& value, const std::string& text) {
  for (const std::string& t : tokens(text)) {
    if (value.is_number_integer() && t == std::to_string(value.get<std::int64_t>())) return true;
    if (value.is_string() && t.size() >= 16 && value.get<std::string>().starts_with(t)) return true;
  }
  return false;
}

TEST(DocFigures, EveryQuotedFigureIsWhatItsRunGives) {
  const toml::table figures = toml::parse_file((kSource / "docs" / "figures.toml").string());
  std::map<std::string, std::vector<std::string>> runs;
  for (const toml::node& node : *figures["run"].as_array()) {
    const toml::table& run = *node.as_table();
    std::vector<std::string> args;
    for (const toml::node& a : *run["args"].as_array())
      args.push_back(a.value<std::string>().value());
    runs[run["id"].value<std::string>().value()] = args;
  }
  std::vector<Marker> markers;
  for (const fs::path& file : markdown_files()) {
    const auto found = markers_in(file);
    markers.insert(markers.end(), found.begin(), found.end());
  }
  ASSERT_GE(markers.size(), 20u) << "the docs' figures lost their markers";
  std::map<std::string, bool> used;
  for (const Marker& m : markers) used[m.run] = true;
  for (const auto& [id, args] : runs)
    EXPECT_TRUE(used[id]) << "docs/figures.toml: run '" << id << "' is quoted nowhere";
  TempDir dir;
  std::map<std::string, nlohmann::json> summaries;
  for (const auto& [id, args] : runs) {
    if (!used[id]) continue;
    // (Paths in figures.toml are the repository's, as the docs write them.)
    std::vector<std::string> command;
    for (const std::string& a : args)
      command.push_back(a.starts_with("scenarios/") ? (kSource / a).string() : a);
    command.insert(command.end(), {"--out", (dir / id).string()});
    std::string err;
    ASSERT_EQ(run_kausal(command, dir.path(), &err, std::chrono::seconds(120)), 0)
        << id << ": " << err;
    summaries[id] = read_json(dir / id / "summary.json");
  }
  for (const Marker& m : markers) {
    const std::string where =
        fs::relative(m.file, kSource).string() + ":" + std::to_string(m.line) + ": ";
    if (!runs.contains(m.run)) {
      ADD_FAILURE() << where << "'" << m.run << "' is not a run of docs/figures.toml";
      continue;
    }
    const nlohmann::json value = field_of(summaries[m.run], m.field);
    std::string command = "kausal";
    for (const std::string& a : runs[m.run]) command += " " + a;
    if (!value.is_number_integer() && !value.is_string()) {
      ADD_FAILURE() << where << "'" << m.field << "' is no count or text of `" << command
                    << "`'s summary.json (" << value.dump() << ")";
      continue;
    }
    EXPECT_TRUE(stands_in(value, m.text)) << where << "the text does not say " << value.dump()
                                          << ", the " << m.field << " of `" << command << "`:\n"
                                          << m.text;
  }
}

}  // namespace
}  // namespace kausal::testing

#include "monitor/scenario/input_table_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "common/csv_field.hpp"
#include "common/errors.hpp"
#include "monitor/scenario/input_file.hpp"

namespace kausal {

namespace {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// A finite number, the whole field (a leading '+' allowed); nullopt otherwise.
std::optional<double> number_in(std::string_view field) {
  field = trimmed(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double v = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() ||
      !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::pair<std::string, InputTable>> parse_input_tables(std::string_view text,
                                                                   const std::string& file) {
  std::vector<std::pair<std::string, InputTable>> tables;
  std::vector<double> times;
  std::size_t line_number = 0;
  std::size_t header_line = 0;
  auto fail = [&](const std::string& message) -> void {
    throw InputError(file + ":" + std::to_string(std::max<std::size_t>(line_number, 1)) + ": " +
                     message);
  };
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = trimmed(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string> fields = split_csv_line(line);
    if (header_line == 0) {
      header_line = line_number;
      if (fields.size() < 2)
        fail("the header names the time and no input: write 'time,<input>,...'");
      std::set<std::string> seen;
      for (std::size_t c = 1; c < fields.size(); ++c) {
        const std::string name(trimmed(fields[c]));
        if (name.empty()) fail("column " + std::to_string(c + 1) + " has no name");
        if (!seen.insert(name).second) fail("column '" + name + "' is named twice");
        tables.push_back({name, {}});
      }
      continue;
    }
    if (fields.size() != tables.size() + 1)
      fail(std::to_string(fields.size()) + " fields, where the header (line " +
           std::to_string(header_line) + ") has " + std::to_string(tables.size() + 1));
    if (times.size() == max_input_table_rows)
      fail("more than " + std::to_string(max_input_table_rows) + " rows");
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const auto v = number_in(fields[c]);
      if (!v)
        fail("'" + std::string(trimmed(fields[c])) + "' in column " + std::to_string(c + 1) +
             " is not a finite number");
      if (c == 0) {
        if (!times.empty() && *v < times.back())
          fail("the time " + std::string(trimmed(fields[c])) + " goes back (rows must be in " +
               "time order; a time given twice is a step)");
        times.push_back(*v);
      } else {
        tables[c - 1].second.values.push_back(*v);
      }
    }
  }
  if (header_line == 0) fail("no header: the first line names the time and the inputs");
  if (times.empty()) fail("no rows after the header");
  for (auto& [name, table] : tables) table.times = times;
  return tables;
}

std::vector<std::pair<std::string, InputTable>> read_input_tables(
    const std::filesystem::path& file) {
  return parse_input_tables(read_input_file(file, "input table"), file.string());
}

}  // namespace kausal

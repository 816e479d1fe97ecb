#pragma once
// One field of a CSV line (RFC 4180): as it is, unless it holds a comma, a quote or a line
// break; then in quotes, its quotes doubled. An FMU's array element "A[1,2]" is such a name.
// split_csv_line reads what csv_field writes.
#include <string>
#include <string_view>
#include <vector>

namespace kausal {

inline std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

inline std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quoted && c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
      out.back() += '"';
      ++k;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace kausal

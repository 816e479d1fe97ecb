#include "common/text_table.hpp"

#include <algorithm>
#include <sstream>

namespace kausal {

std::size_t display_width(const std::string& text) {
  // Continuation bytes of a UTF-8 sequence are 10xxxxxx.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<Align>& align, const std::string& indent) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string fill(widths[c] - display_width(row[c]), ' ');
      const bool right = c < align.size() && align[c] == Align::right;
      if (c > 0) line += "  ";
      line += right ? fill + row[c] : row[c] + fill;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
  }
  return out;
}

std::string wrap_words(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream lines(text);
  bool first = true;
  for (std::string line; std::getline(lines, line);) {
    if (!first) out += '\n';
    first = false;
    // Its indentation starts each of the lines it becomes.
    const std::string indent = line.substr(0, line.find_first_not_of(' '));
    std::istringstream words(line);
    std::string wrapped = indent;
    bool empty = true;
    for (std::string word; words >> word;) {
      if (!empty && display_width(wrapped) + 1 + display_width(word) > width) {
        out += wrapped + '\n';
        wrapped = indent;
        empty = true;
      }
      wrapped += (empty ? "" : " ") + word;
      empty = false;
    }
    out += empty ? "" : wrapped;
  }
  if (!text.empty() && text.back() == '\n') out += '\n';
  return out;
}

}  // namespace kausal

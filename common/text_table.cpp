#include "common/text_table.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kausal {

std::size_t display_width(const std::string& text) {
  // Continuation bytes of a UTF-8 sequence are 10xxxxxx.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

namespace {

// The columns `columns` of `rows`, each as wide as `widths` says.
std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::vector<Align>& align, const std::string& indent,
                           const std::vector<std::size_t>& widths,
                           const std::vector<std::size_t>& columns) {
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    bool first = true;
    for (std::size_t c : columns) {
      if (c >= row.size()) continue;
      const std::string fill(widths[c] - display_width(row[c]), ' ');
      const bool right = c < align.size() && align[c] == Align::right;
      if (!first) line += "  ";
      first = false;
      line += right ? fill + row[c] : row[c] + fill;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
  }
  return out;
}

}  // namespace

std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<Align>& align, const std::string& indent,
                         std::size_t width) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], display_width(row[c]));
  }
  // Parts of the first column and as many of the next as fit in `width`.
  std::vector<std::vector<std::size_t>> parts{{0}};
  std::size_t used = display_width(indent) + (widths.empty() ? 0 : widths[0]);
  for (std::size_t c = 1; c < widths.size(); ++c) {
    if (width > 0 && used + 2 + widths[c] > width && parts.back().size() > 1) {
      parts.push_back({0});
      used = display_width(indent) + widths[0];
    }
    parts.back().push_back(c);
    used += 2 + widths[c];
  }
  std::string out;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (k > 0) out += '\n';
    out += format_columns(rows, align, indent, widths, parts[k]);
  }
  return out;
}

std::string counted(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::size_t terminal_width() {
  std::size_t columns = 100;
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    columns = size.ws_col;
  else if (const char* env = std::getenv("COLUMNS"); env && std::atoi(env) > 0)
    columns = static_cast<std::size_t>(std::atoi(env));
  return std::clamp<std::size_t>(columns, 60, 200);
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

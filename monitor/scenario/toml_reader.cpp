#include "monitor/scenario/toml_reader.hpp"

#include <cctype>
#include <vector>

namespace kausal {
namespace {

// Measures how deep a TOML text nests, in one pass and without recursion. It follows TOML's
// structure only as far as depth goes (keys, strings, comments, brackets) and leaves every
// other judgement to toml++: on text toml++ would refuse it may count anything, but on text
// toml++ accepts it never counts less than the depth toml++ would build.
class NestingScan {
 public:
  NestingScan(const std::string& text, const std::string& file) : t_(text), file_(file) {}

  void run() {
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        if (stack_.empty()) expect_ = Expect::key;  // a new line at top level: a new key
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      } else if (expect_ == Expect::key) {
        key(c);
      } else if (expect_ == Expect::value) {
        value(c);
      } else {
        separator(c);
      }
    }
  }

 private:
  enum class Expect { key, value, separator };
  struct Frame {
    bool table;  // inline table; else array
    int depth;   // of the container itself
  };

  void check(int depth) const {
    if (depth > kMaxTomlDepth)
      throw InputError(file_ + ":" + std::to_string(line_) + ": nested more than " +
                       std::to_string(kMaxTomlDepth) +
                       " levels deep (table headers, dotted keys, arrays, inline tables)");
  }

  // A table header, a key, or the end of an inline table.
  void key(char c) {
    if (stack_.empty() && c == '[') {
      ++i_;
      if (i_ < t_.size() && t_[i_] == '[') ++i_;
      // Each part may name an array of tables, whose elements are one level further.
      header_depth_ = 2 * key_parts();
      check(header_depth_);
      expect_ = Expect::separator;
      return;
    }
    if (!stack_.empty() && stack_.back().table && c == '}') {
      ++i_;
      stack_.pop_back();
      expect_ = Expect::separator;
      return;
    }
    const int parts = key_parts();
    if (i_ < t_.size() && t_[i_] == '=') {
      ++i_;
      value_depth_ = (stack_.empty() ? header_depth_ : stack_.back().depth) + parts;
      check(value_depth_);
      expect_ = Expect::value;
    } else if (parts == 0) {
      ++i_;  // not a key: toml++ will say what is wrong
    }
  }

  void value(char c) {
    if (c == '[' || c == '{') {
      ++i_;
      stack_.push_back({c == '{', value_depth_});
      value_depth_ += 1;  // array elements
      check(value_depth_);
      expect_ = c == '{' ? Expect::key : Expect::value;
    } else if (c == ']' && !stack_.empty() && !stack_.back().table) {
      ++i_;
      stack_.pop_back();  // an empty array, or one with a trailing comma
      expect_ = Expect::separator;
    } else if (c == '"' || c == '\'') {
      string();
      expect_ = Expect::separator;
    } else {
      while (i_ < t_.size() && !ends_scalar(t_[i_])) ++i_;  // a number, date, boolean
      expect_ = Expect::separator;
    }
  }

  void separator(char c) {
    ++i_;
    if (stack_.empty()) return;  // junk after a value: toml++ will say what is wrong
    const Frame top = stack_.back();
    if (c == ',') {
      expect_ = top.table ? Expect::key : Expect::value;
      value_depth_ = top.depth + 1;
    } else if ((c == ']' && !top.table) || (c == '}' && top.table)) {
      stack_.pop_back();
    }
  }

  static bool ends_scalar(char c) {
    return c == ',' || c == ']' || c == '}' || c == '#' || c == '\n' || c == ' ' || c == '\t' ||
           c == '\r' || c == '[' || c == '{' || c == '"' || c == '\'';
  }
  static bool bare_key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  }

  // The parts of a dotted key (bare or quoted, dots with blanks around them); stops at the
  // first character that cannot continue it.
  int key_parts() {
    int parts = 0;
    for (;;) {
      skip_blanks();
      if (i_ >= t_.size()) return parts;
      if (t_[i_] == '"' || t_[i_] == '\'') {
        string();
      } else if (bare_key_char(t_[i_])) {
        while (i_ < t_.size() && bare_key_char(t_[i_])) ++i_;
      } else {
        return parts;
      }
      ++parts;
      skip_blanks();
      if (i_ >= t_.size() || t_[i_] != '.') return parts;
      ++i_;
    }
  }

  void skip_blanks() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t')) ++i_;
  }

  // A basic or literal string, single- or multi-line, from its opening quote.
  void string() {
    const char q = t_[i_];
    const bool multi = t_.compare(i_, 3, std::string(3, q)) == 0;
    i_ += multi ? 3 : 1;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\\' && q == '"') {
        if (i_ + 1 < t_.size() && t_[i_ + 1] == '\n') ++line_;
        i_ += 2;
        continue;
      }
      if (c == '\n') {
        ++line_;
        if (!multi) return;  // unterminated: toml++ will say so
      }
      if (c == q && (!multi || t_.compare(i_, 3, std::string(3, q)) == 0)) {
        i_ += multi ? 3 : 1;
        // """a"""" ends with a quote inside: up to two more belong to the string.
        for (int extra = 0; multi && extra < 2 && i_ < t_.size() && t_[i_] == q; ++extra) ++i_;
        return;
      }
      ++i_;
    }
  }

  const std::string& t_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1;
  Expect expect_ = Expect::key;
  int header_depth_ = 0;  // of the table the last [header] opened
  int value_depth_ = 0;   // of the value that comes next
  std::vector<Frame> stack_;
};

}  // namespace

toml::table parse_toml(const std::string& text, const std::string& file) {
  NestingScan(text, file).run();
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file + ":" + std::to_string(e.source().begin.line) +
                     ": not valid TOML: " + std::string(e.description()));
  }
}

}  // namespace kausal

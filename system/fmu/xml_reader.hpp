#pragma once
// Reading the XML files of the Modelica Association's standards (an FMU's
// modelDescription.xml, an SSP's SystemStructure.ssd) as untrusted input: values parsed as
// XML Schema writes them, and every complaint "<file>:<line>: <what>" (InputError).
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/errors.hpp"

namespace kausal::fmu {

// Lines of the text pugixml parsed: it reports offsets only, the user wants lines. Counted
// forward from the last answer, since the reader asks in document order: linear in the text,
// and no table of line starts (eight bytes per line of a file that may be mostly newlines).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {}
  int line_of(std::ptrdiff_t offset) const {
    // A node without a known offset (-1), or one past the end (never, but cheap to bound).
    const std::size_t at = offset < 0 ? 0 : std::min<std::size_t>(offset, text_.size());
    if (at < at_) {
      at_ = 0;
      line_ = 1;
    }
    line_ += static_cast<std::size_t>(std::count(text_.begin() + at_, text_.begin() + at, '\n'));
    at_ = at;
    return static_cast<int>(std::min<std::size_t>(line_, INT_MAX));
  }

 private:
  std::string_view text_;
  mutable std::size_t at_ = 0, line_ = 1;
};

inline std::string_view trimmed(std::string_view s) {
  // xs:double, xs:int and xs:boolean collapse surrounding whitespace.
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::optional<double> parse_double(std::string_view s) {
  s = trimmed(s);
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);  // xs:double allows '+'
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

inline std::optional<long long> parse_integer(std::string_view s, long long min, long long max) {
  s = trimmed(s);
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < min || v > max)
    return std::nullopt;
  return v;
}

inline std::optional<bool> parse_bool(std::string_view s) {
  s = trimmed(s);
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  return std::nullopt;
}

template <typename Enum, std::size_t N>
struct Keywords {
  std::pair<std::string_view, Enum> words[N];
  std::optional<Enum> find(std::string_view s) const {
    for (const auto& [word, value] : words)
      if (word == s) return value;
    return std::nullopt;
  }
  std::string list() const {
    std::string out;
    for (const auto& [word, value] : words) out += (out.empty() ? "" : ", ") + std::string(word);
    return out;
  }
};

// The element's name without its namespace prefix ("ssd:Component" → "Component"): a file may
// bind a standard's namespace to any prefix.
inline std::string_view local_name(const pugi::xml_node& e) {
  const std::string_view name = e.name();
  const auto colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

// One parse: the file name, the line index, and "<file>:<line>: <what>" for every complaint.
class XmlReader {
 public:
  XmlReader(std::string_view xml, std::string file)
      : file_(std::move(file)), text_(xml), lines_(xml) {}

  // Parses the text into doc; its root element must be `root` (any prefix), written `spelled`
  // in the complaint. UTF-8 as the standards require; no conversion, so pugixml's offsets are
  // offsets into the text.
  pugi::xml_node root_of(pugi::xml_document& doc, std::string_view root,
                         const std::string& spelled) const {
    const pugi::xml_parse_result parsed =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      fail_at_line(line_of_offset(parsed.offset),
                   std::string("not well-formed XML: ") + parsed.description());
    const pugi::xml_node e = doc.document_element();
    if (local_name(e) != root)
      fail(e, std::string("the root element is <") + e.name() + ">, not <" + spelled + ">");
    return e;
  }

  const std::string& file() const { return file_; }

  [[noreturn]] void fail_at_line(int line, const std::string& what) const {
    throw InputError(file_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const pugi::xml_node& at, const std::string& what) const {
    fail_at_line(line(at), what);
  }
  int line(const pugi::xml_node& n) const { return lines_.line_of(n.offset_debug()); }
  int line_of_offset(std::ptrdiff_t offset) const { return lines_.line_of(offset); }

  // `what` names the attribute's owner in messages, e.g. "variable 'x'".
  std::optional<double> real(const pugi::xml_node& e, const char* attr, const std::string& what) {
    const pugi::xml_attribute a = e.attribute(attr);
    if (!a) return std::nullopt;
    const auto v = parse_double(a.value());
    if (!v)
      fail(e, std::string(attr) + " of " + what + " is not a finite number: '" + a.value() + "'");
    return v;
  }
  std::optional<long long> integer(const pugi::xml_node& e, const char* attr,
                                   const std::string& what, long long min, long long max) {
    const pugi::xml_attribute a = e.attribute(attr);
    if (!a) return std::nullopt;
    const auto v = parse_integer(a.value(), min, max);
    if (!v)
      fail(e, std::string(attr) + " of " + what + " is not an integer" +
                  (min == LLONG_MIN
                       ? std::string()
                       : " in [" + std::to_string(min) + ", " + std::to_string(max) + "]") +
                  ": '" + a.value() + "'");
    return v;
  }
  bool flag(const pugi::xml_node& e, const char* attr) {
    const pugi::xml_attribute a = e.attribute(attr);
    if (!a) return false;
    const auto v = parse_bool(a.value());
    if (!v)
      fail(e,
           std::string(attr) + " of <" + e.name() + "> is not true or false: '" + a.value() + "'");
    return *v;
  }
  template <typename Enum, std::size_t N>
  std::optional<Enum> keyword(const pugi::xml_node& e, const char* attr, const std::string& what,
                              const Keywords<Enum, N>& words) {
    const pugi::xml_attribute a = e.attribute(attr);
    if (!a) return std::nullopt;
    const auto v = words.find(a.value());
    if (!v)
      fail(e, std::string(attr) + " '" + a.value() + "' of " + what + " is not one of " +
                  words.list());
    return v;
  }

 private:
  std::string file_;
  std::string_view text_;
  LineIndex lines_;
};

}  // namespace kausal::fmu

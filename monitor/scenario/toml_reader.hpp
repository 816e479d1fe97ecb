#pragma once
// Reading one TOML table of a scenario with "file:line: what is wrong" errors (InputError)
// and every key accounted for: a typo must never become a silent default.
#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace kausal {

// The deepest nesting a TOML file may have; every dotted-key part, array and inline table is
// one level, every table-header part two (it may name an array of tables and its element). toml++
// parses and frees nested values recursively, so a file nested 40,000 levels deep would overflow
// the stack: the depth is measured first.
inline constexpr int kMaxTomlDepth = 64;

// A TOML number (precondition: node.is_number()) as a double. An integer is converted by
// hand: toml++ refuses an integer that no double holds exactly (9223372036854775807), and
// such a value is still a number that range checks name, not a crash.
inline double number_value(const toml::node& node) {
  if (const auto i = node.value_exact<std::int64_t>()) return static_cast<double>(*i);
  return node.value_exact<double>().value();
}

// Parses TOML text, its nesting bounded first. InputError "file:line: ..." for either
// problem.
toml::table parse_toml(const std::string& text, const std::string& file);

// Remembers which keys were read, so that anything else is reported as unknown.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string file, std::string where)
      : table_(table), file_(std::move(file)), where_(std::move(where)) {}

  [[noreturn]] void fail_at(const toml::source_region& at, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(at.begin.line) + ": " + message);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    const toml::node* node = table_.get(key);
    fail_at(node ? node->source() : table_.source(), qualified(key) + " " + message);
  }
  std::string qualified(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  bool has(const std::string& key) const { return table_.contains(key); }

  const toml::node* take(const std::string& key) {
    used_.insert(key);
    return table_.get(key);
  }

  std::optional<double> number(const std::string& key) {
    const toml::node* node = take(key);
    if (!node) return std::nullopt;
    if (!node->is_number()) fail(key, "must be a number");
    const double v = number_value(*node);
    if (!std::isfinite(v)) fail(key, "must be finite");
    return v;
  }
  double required_number(const std::string& key) {
    if (!has(key)) fail_at(table_.source(), "missing field " + qualified(key));
    return *number(key);
  }
  std::optional<std::int64_t> integer(const std::string& key) {
    const toml::node* node = take(key);
    if (!node) return std::nullopt;
    if (!node->is_integer()) fail(key, "must be a whole number");
    return node->value<std::int64_t>().value();
  }
  std::optional<std::string> text(const std::string& key) {
    const toml::node* node = take(key);
    if (!node) return std::nullopt;
    if (!node->is_string()) fail(key, "must be a string");
    return node->value<std::string>().value();
  }
  // A string naming one of `names` (as files write them); nullopt if absent, else a failure
  // that lists them.
  template <typename E>
  std::optional<E> choice(const std::string& key,
                          std::initializer_list<std::pair<std::string_view, E>> names) {
    const auto given = text(key);
    if (!given) return std::nullopt;
    std::string listed;
    std::size_t k = 0;
    for (const auto& [name, value] : names) {
      if (*given == name) return value;
      if (k > 0) listed += k + 1 == names.size() ? " or " : ", ";
      listed.append(1, '"').append(name).append(1, '"');
      ++k;
    }
    fail(key, "must be " + listed);
  }
  std::optional<bool> flag(const std::string& key) {
    const toml::node* node = take(key);
    if (!node) return std::nullopt;
    if (!node->is_boolean()) fail(key, "must be true or false");
    return node->value<bool>().value();
  }
  // An array of finite numbers (at most `most`).
  std::optional<std::vector<double>> numbers(const std::string& key, std::size_t most) {
    const toml::node* node = take(key);
    if (!node) return std::nullopt;
    const toml::array* list = node->as_array();
    if (!list) fail(key, "must be an array of numbers");
    if (list->size() > most) fail(key, "has more than " + std::to_string(most) + " entries");
    std::vector<double> out;
    for (const toml::node& v : *list) {
      if (!v.is_number()) fail(key, "must be an array of numbers");
      out.push_back(number_value(v));
      if (!std::isfinite(out.back())) fail(key, "must hold finite numbers");
    }
    return out;
  }
  const toml::table* subtable(const std::string& key) {
    const toml::node* node = take(key);
    if (node && !node->is_table()) fail(key, "must be a table ([" + qualified(key) + "])");
    return node ? node->as_table() : nullptr;
  }

  void reject_unknown_keys() const {
    for (auto&& [key, node] : table_) {
      if (used_.count(std::string(key.str()))) continue;
      fail_at(key.source(), "unknown key '" + qualified(std::string(key.str())) + "'");
    }
  }

 private:
  const toml::table& table_;
  std::string file_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace kausal

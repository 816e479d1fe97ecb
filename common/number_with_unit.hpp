#pragma once
// Numbers with a unit on command lines ("2ms", "20G"): the number, and the text after it
// for the caller to look up among its units.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace kausal {

// The leading number of `text` and what follows it; nothing if `text` does not start with a
// number (or one beyond the range of a double).
inline std::optional<std::pair<double, std::string>> number_with_unit(const std::string& text) {
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    return std::make_pair(value, text.substr(used));
  } catch (const std::logic_error&) {  // std::stod: invalid_argument, out_of_range
    return std::nullopt;
  }
}

}  // namespace kausal

#pragma once
// Names as a message lists them: "a, b, c", "none" for no names, and at most `most` of them
// ("a, b, ..." after that), so that a message about a huge input stays short.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace kausal {

inline std::string listed(const std::vector<std::string>& names,
                          std::size_t most = std::numeric_limits<std::size_t>::max()) {
  std::string out;
  for (std::size_t k = 0; k < names.size() && k < most; ++k) out += (k ? ", " : "") + names[k];
  if (names.size() > most) out += ", ...";
  return out.empty() ? "none" : out;
}

}  // namespace kausal

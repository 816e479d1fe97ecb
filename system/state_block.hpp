#pragma once
// A contiguous range of a state vector that belongs to one part of a model: a member of a
// partition (pDRE0 uses only the Jacobian's diagonal blocks) or a partition of a whole
// coupled model (kausal analyze).
#include <cstddef>
#include <string>

namespace kausal {

struct StateBlock {
  std::string name;
  std::size_t offset = 0;
  std::size_t size = 0;
};

}  // namespace kausal

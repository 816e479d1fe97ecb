#include "monitor/core/run_control.hpp"

namespace kausal {

std::atomic<bool>& InterruptFlag::flag() {
  static std::atomic<bool> requested{false};
  return requested;
}

}  // namespace kausal

#pragma once
// An artificial, deterministic compute cost per Calc (scenario key model.calc_work): the same
// instructions every time, never a clock, so that a "slow host" costs the same on every
// run. One unit is one step of a dependent floating-point chain (about 3 ns on the
// project's VM, see docs/experiments in docs/performance.md). It never changes a result.
#include <cstdint>

namespace kausal {

inline void artificial_work(std::uint64_t units) {
  double a = 1.0;
  for (std::uint64_t k = 0; k < units; ++k) a = a * 1.0000001 + 1e-9;
  // Keep the chain: the compiler must believe the value is used.
  __asm__ volatile("" : : "x"(a));
}

}  // namespace kausal

#include "monitor/record/readout.hpp"

#include <algorithm>
#include <limits>

#include "system/errors.hpp"

namespace kausal {

Readout::Readout(std::vector<std::vector<std::string>> names, double t0, double tick)
    : t0_(t0), tick_(tick) {
  for (auto& n : names) {
    Unit u;
    u.values.assign(n.size(), 0.0);
    u.names = std::move(n);
    units_.push_back(std::move(u));
  }
}

void Readout::update(std::size_t unit, std::uint64_t step, std::span<const double> values) {
  std::lock_guard lock(mutex_);
  Unit& u = units_.at(unit);
  const std::size_t n = std::min(values.size(), u.values.size());
  std::copy_n(values.begin(), n, u.values.begin());
  u.step = step;
}

Readout::Reading Readout::read(const std::vector<std::string>& names) const {
  std::lock_guard lock(mutex_);
  Reading r;
  r.step = names.empty() ? 0 : std::numeric_limits<std::uint64_t>::max();
  for (const auto& name : names) {
    bool found = false;
    for (const Unit& u : units_) {
      const auto at = std::find(u.names.begin(), u.names.end(), name);
      if (at == u.names.end()) continue;
      r.values.push_back(u.values[static_cast<std::size_t>(at - u.names.begin())]);
      r.step = std::min(r.step, u.step);
      found = true;
      break;
    }
    if (found) continue;
    std::string known;
    std::size_t listed = 0;
    for (const Unit& u : units_)
      for (const auto& n : u.names)
        if (listed++ < 8) known += (known.empty() ? "" : ", ") + n;
    if (listed > 8) known += ", ...";
    throw InputError("no value named '" + name + "' (the run has " + known + ")");
  }
  r.t = t0_ + static_cast<double>(r.step) * tick_;
  return r;
}

}  // namespace kausal

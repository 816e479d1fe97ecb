#include "monitor/core/readout.hpp"

#include <algorithm>
#include <limits>

#include "common/errors.hpp"

namespace kausal {

Readout::Readout(std::vector<std::vector<std::string>> names, double t0, double tick,
                 std::vector<std::uint64_t> ticks_per_step)
    : t0_(t0), tick_(tick), ticks_per_step_(std::move(ticks_per_step)) {
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

void Readout::committed(std::uint64_t step, std::span<const PendulumState> states, std::uint64_t) {
  update(0, step, {states.front().data(), states.size() * pendulum_state_size});
}

void Readout::resumed(std::uint64_t step, std::span<const PendulumState> states,
                      std::uint64_t /*collisions*/) {
  committed(step, states, 0);
}

void Readout::delivered(std::size_t p, const StateBatch& batch, const RoutedSamples&) {
  if (batch.count() == 0) return;
  const std::size_t last = batch.count() - 1;
  std::vector<double> values(batch.state(last).begin(), batch.state(last).end());
  const auto outputs =
      batch.outputs.begin() + static_cast<std::ptrdiff_t>(last * batch.output_size);
  values.insert(values.end(), outputs, outputs + static_cast<std::ptrdiff_t>(batch.output_size));
  const std::uint64_t ticks = p < ticks_per_step_.size() ? ticks_per_step_[p] : 1;
  update(p, (batch.first_step + last) * ticks, values);
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

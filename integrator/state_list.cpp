#include "integrator/state_list.hpp"

#include <algorithm>
#include <iterator>

namespace kausal {

void StateList::save(std::uint64_t step, std::span<const double> x) {
  entries_.push_back({step, {x.begin(), x.end()}});
  peak_ = std::max(peak_, entries_.size());
}

const StateList::Entry* StateList::first_at(std::uint64_t step) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), step,
                             [](const Entry& e, std::uint64_t s) { return e.step < s; });
  return it != entries_.end() && it->step == step ? &*it : nullptr;
}

void StateList::append_last_per_step(std::uint64_t from_step, std::uint64_t to_step,
                                     std::vector<double>& out) const {
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    const Entry& e = entries_[k];
    const bool last_of_its_step = k + 1 == entries_.size() || entries_[k + 1].step != e.step;
    if (e.step >= from_step && e.step < to_step && last_of_its_step)
      out.insert(out.end(), e.x.begin(), e.x.end());
  }
}

void StateList::truncate_after_first_at(std::uint64_t step) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), step,
                             [](const Entry& e, std::uint64_t s) { return e.step < s; });
  if (it != entries_.end() && it->step == step) ++it;
  entries_.erase(it, entries_.end());
}

void StateList::fossil_collect(std::uint64_t gvt) {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), gvt,
                                [](std::uint64_t s, const Entry& e) { return s < e.step; });
  if (after == entries_.begin()) return;
  const std::uint64_t keep_step = std::prev(after)->step;
  auto keep = std::lower_bound(entries_.begin(), after, keep_step,
                               [](const Entry& e, std::uint64_t s) { return e.step < s; });
  entries_.erase(entries_.begin(), keep);
}

}  // namespace kausal

#include "integrator/state_list.hpp"

#include <algorithm>
#include <iterator>

#include "common/errors.hpp"

namespace kausal {

void require_same_step(const std::string& component, std::uint64_t step, const Vector& x,
                       const StepperMemory& memory, const Vector& again,
                       const StepperMemory& memory_again) {
  const bool same_state = same_bits(again, x);
  if (same_state && same_bits(memory_again, memory)) return;
  throw ModelError(component, "rollback check: re-stepping from step " + std::to_string(step) +
                                  " after a restore gave other bits" +
                                  (same_state ? " (in the stepper's memory)" : ""));
}

std::uint64_t StateList::entry_bytes(std::size_t state_size, std::size_t indicator_count,
                                     std::size_t history, std::size_t kept_outputs,
                                     std::size_t internal_bytes) {
  const std::uint64_t vectors = 1 + history;
  // The vectors' heap blocks, the entry itself and its deque slot, the internal state's
  // block and its shared count.
  return 8 * (vectors * state_size + indicator_count + kept_outputs) + sizeof(Entry) +
         16 * (vectors + 1) + (internal_bytes > 0 ? internal_bytes + 32 : 0);
}

StateList::Entry& StateList::save(Entry entry) {
  entries_.push_back(std::move(entry));
  peak_ = std::max(peak_, entries_.size());
  return entries_.back();
}

std::deque<StateList::Entry>::const_iterator StateList::lower(std::uint64_t step) const {
  return std::lower_bound(entries_.begin(), entries_.end(), step,
                          [](const Entry& e, std::uint64_t s) { return e.step < s; });
}

const StateList::Entry* StateList::first_at(std::uint64_t step) const {
  auto it = lower(step);
  return it != entries_.end() && it->step == step ? &*it : nullptr;
}

const StateList::Entry* StateList::last_at(std::uint64_t step) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), step,
                             [](std::uint64_t s, const Entry& e) { return s < e.step; });
  if (it == entries_.begin()) return nullptr;
  --it;
  return it->step == step ? &*it : nullptr;
}

StateList::Rewound StateList::rewind_to(std::uint64_t step) {
  const auto first = entries_.begin() + (lower(step) - entries_.cbegin());
  Rewound r{std::move(*first), {}, 0};
  r.work = r.entry.work;
  r.derivative_calls = r.entry.derivative_calls;
  for (auto it = std::next(first); it != entries_.end(); ++it) {
    r.work += it->work;
    r.derivative_calls += it->derivative_calls;
  }
  entries_.erase(first, entries_.end());
  r.entry.work = {};
  r.entry.derivative_calls = 0;
  return r;
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

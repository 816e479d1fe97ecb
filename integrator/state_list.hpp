#pragma once
// The state list ZL of one component (docs/model.md §1): (step, x) saved before every step and
// every event. Rollback restores from it; fossil collection frees what lies before GVT.
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace kausal {

class StateList {
 public:
  struct Entry {
    std::uint64_t step;
    std::vector<double> x;
  };

  void save(std::uint64_t step, std::span<const double> x);
  // The first state saved at `step`, or nullptr if the list holds none.
  const Entry* first_at(std::uint64_t step) const;
  // Appends, for every step in [from_step, to_step), the last state saved at that step
  // (the state after its events).
  void append_last_per_step(std::uint64_t from_step, std::uint64_t to_step,
                            std::vector<double>& out) const;
  // Drops every entry after the first one saved at `step` (the rest of that timeline).
  void truncate_after_first_at(std::uint64_t step);
  // Frees entries before `gvt`, keeping every entry of the newest step at or before it so
  // that a rollback to that step remains possible.
  void fossil_collect(std::uint64_t gvt);

  std::size_t size() const { return entries_.size(); }
  std::size_t peak() const { return peak_; }
  bool empty() const { return entries_.empty(); }
  const Entry& front() const { return entries_.front(); }
  const Entry& back() const { return entries_.back(); }

 private:
  std::deque<Entry> entries_;
  std::size_t peak_ = 0;
};

}  // namespace kausal

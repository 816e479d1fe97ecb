#pragma once
// A list that grows faster than it is read, kept bounded without losing its span: past its
// bound every second entry goes, evenly over the list, and the first and the newest stay.
// Used for the horizons waiting to be shown (the animation feed's batch, the view's list).
#include <cstddef>
#include <utility>

namespace kausal {

template <typename List>
void thin_out(List& list) {
  if (list.size() < 3) return;
  const std::size_t n = list.size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; i += 2, ++kept)
    if (kept != i) list[kept] = std::move(list[i]);       // never onto itself: that empties it
  if (n % 2 == 0) list[kept++] = std::move(list[n - 1]);  // the newest
  list.resize(kept);
}

}  // namespace kausal

#include "monitor/record/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

namespace kausal {

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  clear();
}

bool stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

void ProgressBar::progress(std::uint64_t step, std::uint64_t total) {
  if (!enabled_ || total == 0) return;
  // Checking the clock every step would cost more than a sequential step; every 256th is plenty.
  if ((step & 255) != 0 && step != total) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double fraction = static_cast<double>(step) / static_cast<double>(total);
  constexpr int width = 30;
  const int filled = static_cast<int>(fraction * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  std::fprintf(stderr, "\r%s [%s] %3.0f%%  step %llu/%llu  %.1f s  eta %.1f s ", label_.c_str(),
               bar.c_str(), 100 * fraction, static_cast<unsigned long long>(step),
               static_cast<unsigned long long>(total), elapsed, eta);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressBar::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace kausal

#pragma once
// A one-line progress bar on stderr for runs longer than a second, only when stderr is a
// terminal; it also carries the Ctrl-C flag to the driver.
#include <chrono>
#include <string>

#include "monitor/core/run_control.hpp"

namespace kausal {

class ProgressBar final : public InterruptFlag {
 public:
  explicit ProgressBar(std::string label, bool enabled);
  ~ProgressBar() override;
  void progress(std::uint64_t step, std::uint64_t total) override;

 private:
  void clear();

  std::string label_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace kausal

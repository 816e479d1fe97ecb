#include "monitor/sync/injections.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {
namespace {

// Orders pending injections by step, and steps against them.
struct StepOrder {
  bool operator()(const Injection& a, std::uint64_t s) const { return a.step < s; }
  bool operator()(std::uint64_t s, const Injection& a) const { return s < a.step; }
};

}  // namespace

Injections::Injections(const Boundaries& boundaries, StepClock* clock,
                       const std::filesystem::path& record, std::vector<Injection> pending,
                       bool continued)
    : at_{std::max<std::uint64_t>(1, boundaries.grid), boundaries.lead, boundaries.last,
          boundaries.first},
      clock_(clock),
      pending_(std::move(pending)),
      record_file_(record) {
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Injection& a, const Injection& b) { return a.step < b.step; });
  if (record.empty()) return;
  record_.open(record, continued ? std::ios::app : std::ios::trunc);
  if (!continued)
    for (const Injection& i : pending_) record_ << injection_line(i) << "\n";
  if (!record_.flush()) throw InputError(record.string() + ": cannot write the injections");
}

std::uint64_t Injections::request(Injection injection) {
  if (!clock_) throw InputError("injections need a paced run (--realtime or --external-clock)");
  std::lock_guard lock(mutex_);
  const std::uint64_t released = clock_->released();
  const std::uint64_t step =
      std::max(((released + at_.grid - 1) / at_.grid + at_.lead) * at_.grid, at_.first);
  if (step >= at_.last || released >= at_.last)
    throw InputError("the run has released its last step: nothing can change any more");
  const auto [first, past] = std::equal_range(pending_.begin(), pending_.end(), step, StepOrder{});
  if (static_cast<std::size_t>(past - first) >= kMaxPerStep)
    throw InputError("busy: " + std::to_string(kMaxPerStep) + " injections wait for step " +
                     std::to_string(step) + " already; try again once the run has reached it");
  injection.step = step;
  // Recorded before it can take effect: a run that fails later still has it on disk.
  if (record_.is_open()) {
    record_ << injection_line(injection) << "\n";
    if (!record_.flush()) throw InputError(record_file_.string() + ": cannot record an injection");
  }
  pending_.insert(past, std::move(injection));
  return step;
}

std::uint64_t Injections::hold() const {
  std::lock_guard lock(mutex_);
  return pending_.empty() ? none : pending_.front().step;
}

std::uint64_t Injections::released() const {
  const std::uint64_t released = clock_ ? clock_->released() : none;
  return std::min(released, hold());
}

std::vector<Injection> Injections::take(std::uint64_t step) {
  std::lock_guard lock(mutex_);
  std::vector<Injection> due, kept;
  for (auto& i : pending_)
    (i.step <= step && i.kind != InjectionKind::stop ? due : kept).push_back(std::move(i));
  pending_ = std::move(kept);
  return due;
}

std::uint64_t Injections::stop_step() const {
  std::lock_guard lock(mutex_);
  for (const Injection& i : pending_)
    if (i.kind == InjectionKind::stop) return i.step;
  return none;
}

void Injections::check_stop(std::uint64_t reached) const {
  const std::uint64_t at = stop_step();
  if (reached >= at) throw Interrupted("stopped by the operator at step " + std::to_string(at));
}

}  // namespace kausal

#include "integrator/events/mailbox.hpp"

#include <iterator>

#include "common/cpus.hpp"
#include "common/spin_wait.hpp"

namespace kausal::des {

bool Mailbox::put(std::vector<GroupMessage>& batch) {
  bool sleeping = false;
  {
    std::lock_guard lock(mutex_);
    if (batch.size() > max_waiting - messages_.size()) return false;
    if (messages_.empty())
      messages_.swap(batch);
    else
      messages_.insert(messages_.end(), std::make_move_iterator(batch.begin()),
                       std::make_move_iterator(batch.end()));
    mail_.store(true, std::memory_order_release);
    sleeping = sleeping_;
  }
  batch.clear();
  if (sleeping) arrived_.notify_one();
  return true;
}

std::chrono::microseconds Mailbox::spin_for(std::uint32_t groups) {
  return std::chrono::microseconds(groups <= available_cpu_count() ? 70 : 0);
}

double Mailbox::take(std::vector<GroupMessage>& into, std::chrono::microseconds wait,
                     std::chrono::microseconds spin) {
  const bool idle = !mail_.load(std::memory_order_acquire);
  const bool waits = idle && wait.count() > 0;
  const auto begin =
      waits ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  if (waits) spin_wait([this] { return mail_.load(std::memory_order_acquire); }, spin);
  std::unique_lock lock(mutex_);
  if (messages_.empty() && !wake_ && wait.count() > 0) {
    sleeping_ = true;
    arrived_.wait_for(lock, wait, [&] { return !messages_.empty() || wake_; });
    sleeping_ = false;
  }
  const double waited =
      waits ? std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() : 0.0;
  if (wake_ || !messages_.empty()) blocked_ = false;
  wake_ = false;
  mail_.store(false, std::memory_order_relaxed);
  if (into.empty()) {
    into.swap(messages_);
  } else {
    into.insert(into.end(), std::make_move_iterator(messages_.begin()),
                std::make_move_iterator(messages_.end()));
    messages_.clear();
  }
  return waited;
}

void Mailbox::wake() {
  {
    std::lock_guard lock(mutex_);
    wake_ = true;
    blocked_ = false;
    mail_.store(true, std::memory_order_release);
  }
  arrived_.notify_one();
}

void Mailbox::mark_blocked() {
  std::lock_guard lock(mutex_);
  blocked_ = true;
}

void Mailbox::clear_blocked() {
  std::lock_guard lock(mutex_);
  blocked_ = false;
}

bool Mailbox::idle_blocked() {
  std::lock_guard lock(mutex_);
  return blocked_ && messages_.empty() && !wake_;
}

}  // namespace kausal::des

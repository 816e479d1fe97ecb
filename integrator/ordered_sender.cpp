#include "integrator/ordered_sender.hpp"

namespace kausal {

OrderedSender::OrderedSender(std::uint64_t budget_bytes)
    : budget_(budget_bytes), thread_([this] { run(); }) {}

OrderedSender::~OrderedSender() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void OrderedSender::post(Call call, std::uint64_t bytes) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return broken_ || queue_.empty() || queued_bytes_ + bytes <= budget_; });
  if (broken_) std::rethrow_exception(broken_);
  queue_.push_back({std::move(call), bytes});
  queued_bytes_ += bytes;
  cv_.notify_all();
}

// Nothing escapes the thread: a call that throws breaks the sender.
void OrderedSender::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Posted next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::exception_ptr failure;
    try {
      next.call();
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    queued_bytes_ -= next.bytes;
    broken_ = failure;
    cv_.notify_all();
    if (broken_) return;
  }
}

}  // namespace kausal

#include "monitor/sync/batch_inbox.hpp"

namespace kausal {

void BatchInbox::push(InboxItem item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(std::move(item));
  }
  cv_.notify_one();
}

void BatchInbox::fail(std::exception_ptr failure) {
  {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = failure;
  }
  cv_.notify_all();
}

std::optional<InboxItem> BatchInbox::pop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!cv_.wait_for(lock, timeout, [&] { return failure_ || !items_.empty(); }))
    return std::nullopt;
  if (failure_) std::rethrow_exception(failure_);
  InboxItem item = std::move(items_.front());
  items_.pop_front();
  return item;
}

}  // namespace kausal

#include "integrator/events/ordered_sender.hpp"

#include <iterator>

namespace kausal::des {

OrderedSender::OrderedSender(Deliver deliver)
    : deliver_(std::move(deliver)), thread_([this] { run(); }) {}

OrderedSender::~OrderedSender() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void OrderedSender::send(std::vector<GroupMessage>& batch) {
  {
    std::lock_guard lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
    if (queue_.empty())
      queue_.swap(batch);
    else
      queue_.insert(queue_.end(), std::make_move_iterator(batch.begin()),
                    std::make_move_iterator(batch.end()));
  }
  batch.clear();
  queued_.notify_one();
}

std::uint64_t OrderedSender::deliveries() const {
  std::lock_guard lock(mutex_);
  return deliveries_;
}

void OrderedSender::run() {
  std::vector<GroupMessage> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty() || failure_) return;  // closing, with nothing (more) to deliver
    batch.swap(queue_);
    lock.unlock();
    try {
      deliver_(batch);
    } catch (...) {
      lock.lock();
      failure_ = std::current_exception();
      continue;
    }
    batch.clear();
    lock.lock();
    ++deliveries_;
  }
}

}  // namespace kausal::des

#include "monitor/fan_out.hpp"

namespace kausal {

FanOut::FanOut(std::size_t width) : width_(width), errors_(width) {
  for (std::size_t i = 1; i < width_; ++i) threads_.emplace_back([this, i] { worker(i); });
}

FanOut::~FanOut() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void FanOut::worker(std::size_t index) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::size_t)>* task;
    {
      std::unique_lock lock(mutex_);
      start_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      task = task_;
    }
    try {
      (*task)(index);
    } catch (...) {
      errors_[index] = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_cv_.notify_one();
  }
}

void FanOut::run(const std::function<void(std::size_t)>& task) {
  if (width_ == 0) return;
  for (auto& e : errors_) e = nullptr;
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    pending_ = width_ - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  try {
    task(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
  }
  for (auto& e : errors_)
    if (e) std::rethrow_exception(e);
}

}  // namespace kausal

#pragma once
// A thread that runs a task every `period` until the task says it is done or its owner
// goes: the heartbeat, the activity feed. Nothing the task throws escapes the thread: it
// ends it (a task that must tell someone catches first).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kausal {

class PeriodicThread {
 public:
  enum class AtStop { nothing, run_once_more };
  // Starts at once; the first run is one period from now. `task` returns false when done.
  // run_once_more: the owner going runs it a last time (a feed sends what is left).
  PeriodicThread(std::chrono::milliseconds period, std::function<bool()> task,
                 AtStop at_stop = AtStop::nothing)
      : at_stop_(at_stop),
        thread_([this, period, task = std::move(task)] { loop(period, task); }) {}
  // Stops and joins (after the run in progress, if any).
  ~PeriodicThread() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  // True once the owner is going: a run in progress may see its peers end with it.
  bool stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
  }

 private:
  void loop(std::chrono::milliseconds period, const std::function<bool()>& task) {
    try {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, period, [&] { return stopping_; })) {
        lock.unlock();
        if (!task()) return;
        lock.lock();
      }
      lock.unlock();
      if (at_stop_ == AtStop::run_once_more) task();
    } catch (...) {
      // The task's failure ends it; it was told (or had nobody to tell).
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  AtStop at_stop_;
  std::thread thread_;  // last: it uses the members above
};

}  // namespace kausal

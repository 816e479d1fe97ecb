#pragma once
// Runs one task per component in parallel on long-lived threads (one per component, as the
// omniORB measurements recommend), so a conservative step costs one round trip, not N.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kausal {

class FanOut {
 public:
  explicit FanOut(std::size_t width);
  ~FanOut();
  FanOut(const FanOut&) = delete;
  FanOut& operator=(const FanOut&) = delete;

  // Runs task(i) for every i in [0, width) and returns when all are done; the calling
  // thread takes i = 0. If tasks throw, rethrows the exception of the lowest index.
  void run(const std::function<void(std::size_t)>& task);

 private:
  void worker(std::size_t index);

  std::size_t width_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::uint64_t generation_ = 0;
  std::size_t pending_ = 0;
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace kausal

#pragma once
// A partition's Integrator stepping on its own thread (conservative or optimistic): it steps
// whenever its inputs allow, and ships every newly final stretch of steps to its sink.
// Samples arrive from other threads through provide(), which pauses the worker at a step
// boundary; deliveries happen without the lock held, so a slow sink never blocks a sample.
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "integrator/coupled_integrator.hpp"

namespace kausal {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // May throw (the receiver is gone): the worker then stops, telling nobody.
  virtual void deliver(const OutputBatch& batch) = 0;
  // The worker stopped on an error (any exception); it takes no more steps.
  virtual void fail(std::exception_ptr error) = 0;
};

class CoupledRunner {
 public:
  // Starts the worker at once; `steps_per_batch` bounds the steps taken between deliveries.
  CoupledRunner(CoupledIntegrator& integrator, OutputSink& sink, std::size_t steps_per_batch);
  ~CoupledRunner();
  CoupledRunner(const CoupledRunner&) = delete;
  CoupledRunner& operator=(const CoupledRunner&) = delete;

  void provide(const std::vector<ChannelSample>& samples);
  CoupledStats stats();
  ActivityTotals totals();

 private:
  void work();
  // Stops the worker after `error`; `report`: tell the sink (not when the sink itself failed).
  void stop_on(std::exception_ptr error, bool report);
  bool has_work() const;

  CoupledIntegrator& integrator_;
  OutputSink& sink_;
  std::size_t steps_per_batch_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<int> waiting_{0};  // provide() calls waiting for the lock: the worker yields
  bool stopping_ = false;
  bool failed_ = false;
  std::thread worker_;
};

}  // namespace kausal

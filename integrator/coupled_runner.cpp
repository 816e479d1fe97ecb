#include "integrator/coupled_runner.hpp"

namespace kausal {

CoupledRunner::CoupledRunner(CoupledIntegrator& integrator, OutputSink& sink,
                             std::size_t steps_per_batch)
    : integrator_(integrator),
      sink_(sink),
      steps_per_batch_(std::max<std::size_t>(1, steps_per_batch)) {
  worker_ = std::thread([this] { work(); });
}

CoupledRunner::~CoupledRunner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

bool CoupledRunner::has_work() const {
  return !failed_ && (integrator_.can_step() || integrator_.has_final());
}

// Nothing escapes the thread: whatever a step or a delivery throws (a kausal::Error, an
// allocation that failed, anything) stops the worker and is reported as the partition's
// failure; the monitor's heartbeat notices a worker that cannot even report.
void CoupledRunner::work() {
  for (;;) {
    OutputBatch batch;
    try {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || (waiting_.load() == 0 && has_work()); });
      if (stopping_) return;
      for (std::size_t k = 0; k < steps_per_batch_ && waiting_.load() == 0 &&
                              !integrator_.has_final_sample_point() && integrator_.can_step();
           ++k)
        integrator_.step_once();
      batch = integrator_.take_final();
    } catch (...) {
      stop_on(std::current_exception(), true);
      continue;
    }
    if (batch.count() == 0) continue;
    try {
      sink_.deliver(batch);
    } catch (...) {
      // Steps nobody receives are wasted work; the monitor notices by its heartbeat.
      stop_on(std::current_exception(), false);
      return;
    }
  }
}

void CoupledRunner::stop_on(std::exception_ptr error, bool report) {
  try {
    {
      std::lock_guard lock(mutex_);
      failed_ = true;
    }
    if (report) sink_.fail(error);
  } catch (...) {
    // Nobody left to tell.
  }
}

void CoupledRunner::provide(const std::vector<ChannelSample>& samples) {
  waiting_.fetch_add(1);
  {
    std::lock_guard lock(mutex_);
    waiting_.fetch_sub(1);
    for (const auto& s : samples) integrator_.provide(s);
  }
  cv_.notify_all();
}

CoupledStats CoupledRunner::stats() {
  std::lock_guard lock(mutex_);
  return integrator_.stats();
}

ActivityTotals CoupledRunner::totals() {
  std::lock_guard lock(mutex_);
  return integrator_.totals();
}

}  // namespace kausal

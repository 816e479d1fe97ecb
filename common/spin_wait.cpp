#include "common/spin_wait.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <atomic>

namespace kausal {
namespace {

using Clock = std::chrono::steady_clock;
using Ticks = Clock::rep;

constexpr Ticks ticks(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<Clock::duration>(d).count();
}
// How often a waiting thread asks how long it waited for a CPU (a system call), the share of
// that time and of failed spins above which the CPUs count as shared (spin_wait.hpp).
constexpr Ticks kSampleEvery = ticks(std::chrono::milliseconds(10));
constexpr double kSharedAbove = 0.10;
constexpr Ticks kFirstPause = ticks(std::chrono::milliseconds(20));
constexpr Ticks kLongestPause = ticks(std::chrono::milliseconds(1280));

// Process-wide: waits sleep at once until `sleep_until`; `pause` is the last pause's length.
std::atomic<Ticks> sleep_until{0};
std::atomic<Ticks> pause{kFirstPause};

// The calling thread's time spent runnable but not running (Linux's schedstat, in ns): -1
// if the system does not say.
class RunQueueWait {
 public:
  RunQueueWait() : fd_(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}
  ~RunQueueWait() {
    if (fd_ >= 0) ::close(fd_);
  }
  RunQueueWait(const RunQueueWait&) = delete;
  RunQueueWait& operator=(const RunQueueWait&) = delete;

  long long nanoseconds() const {
    if (fd_ < 0) return -1;
    char text[96];
    const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
    if (n <= 0) return -1;
    text[n] = '\0';
    long long on_cpu = 0, waiting = 0;  // "<on cpu> <waiting> <time slices>"
    return std::sscanf(text, "%lld %lld", &on_cpu, &waiting) == 2 ? waiting : -1;
  }

 private:
  int fd_;
};

struct Sample {
  RunQueueWait source;
  Ticks at = 0;                    // the last sample's time
  long long waiting = -1;          // the run-queue time then (-1: none yet)
  unsigned spins = 0, failed = 0;  // since then
};
thread_local Sample sample;

// The CPUs were found shared at `now`: a pause, twice as long as the last if that one had
// ended less than its own length ago (they still are), else the first length again. Threads
// racing here may both set a pause; either is right.
void shared(Ticks now) {
  const Ticks until = sleep_until.load(std::memory_order_relaxed);
  if (now < until) return;  // already pausing
  Ticks length = pause.load(std::memory_order_relaxed);
  length = now - until < length ? std::min(2 * length, kLongestPause) : kFirstPause;
  pause.store(length, std::memory_order_relaxed);
  sleep_until.store(now + length, std::memory_order_relaxed);
}

}  // namespace

bool spinning_pays() {
  const Ticks now = Clock::now().time_since_epoch().count();
  if (now - sample.at >= kSampleEvery) {
    const long long waiting = sample.source.nanoseconds();
    const auto elapsed = std::chrono::duration<double, std::nano>(Clock::duration(now - sample.at));
    const bool crowded =
        sample.waiting >= 0 && waiting >= 0 &&
        static_cast<double>(waiting - sample.waiting) > kSharedAbove * elapsed.count();
    if (crowded && 4 * sample.failed > sample.spins) shared(now);
    sample.at = now;
    sample.waiting = waiting;
    sample.spins = sample.failed = 0;
  }
  return now >= sleep_until.load(std::memory_order_relaxed);
}

void spin_ended(bool done) {
  ++sample.spins;
  if (!done) ++sample.failed;
}

}  // namespace kausal

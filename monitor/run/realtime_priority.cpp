#include "monitor/run/realtime_priority.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/errors.hpp"

namespace kausal {
namespace {

// Sets every thread of this process (/proc/self/task) to `policy`; the first error's errno
// (0: none). A thread that ends meanwhile (ESRCH) is no error.
int schedule_every_thread(int policy, int priority) {
  sched_param param{};
  param.sched_priority = priority;
  std::error_code listed;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", listed)) {
    const pid_t tid = std::stoi(task.path().filename().string());
    if (sched_setscheduler(tid, policy, &param) != 0 && errno != ESRCH) return errno;
  }
  return listed ? listed.value() : 0;
}

}  // namespace

RealtimePriority::RealtimePriority(int priority) {
  if (priority < lowest || priority > highest)
    throw InputError("--rt-priority " + std::to_string(priority) + ": must be between " +
                     std::to_string(lowest) + " and " + std::to_string(highest));
  if (const int error = schedule_every_thread(SCHED_FIFO, priority)) {
    schedule_every_thread(SCHED_OTHER, 0);  // none half-way
    throw InputError("--rt-priority " + std::to_string(priority) +
                     ": cannot run under SCHED_FIFO: " + std::strerror(error) +
                     (error == EPERM ? " (it needs root or CAP_SYS_NICE)" : ""));
  }
}

RealtimePriority::~RealtimePriority() {
  schedule_every_thread(SCHED_OTHER, 0);
}

}  // namespace kausal

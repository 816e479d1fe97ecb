#include "common/cpus.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

namespace kausal {

std::vector<int> available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

unsigned available_cpu_count() {
  return std::max<unsigned>(1, static_cast<unsigned>(available_cpus().size()));
}

namespace {

bool pin(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

}  // namespace

bool pin_current_thread(int cpu) {
  return pin(pthread_self(), cpu);
}

bool pin_thread(std::thread& thread, int cpu) {
  return pin(thread.native_handle(), cpu);
}

}  // namespace kausal

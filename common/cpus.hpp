#pragma once
// The CPUs this process may use, and pinning a thread to one of them.
#include <thread>
#include <vector>

namespace kausal {

// The CPUs this process may run on (its affinity mask: honours taskset and cpusets); empty if
// the system does not say.
std::vector<int> available_cpus();
// How many CPUs this process may run on: at least 1. Code that spins while it waits for
// another thread does so only when each such thread can have a CPU of its own.
unsigned available_cpu_count();
// Pins the calling thread, or `thread`, to one CPU; false if the system refuses.
bool pin_current_thread(int cpu);
bool pin_thread(std::thread& thread, int cpu);

}  // namespace kausal

#pragma once
// --rt-priority (docs/realtime.md): a paced run's monitor under SCHED_FIFO for as long as the
// run lasts. Every thread of this process is moved to SCHED_FIFO at the given priority;
// threads it starts meanwhile, and component processes it forks, inherit it. Remote
// processes (started by node agents) keep their scheduler. Linux only; needs root or
// CAP_SYS_NICE.
namespace kausal {

class RealtimePriority {
 public:
  static constexpr int lowest = 1;
  static constexpr int highest = 99;

  // InputError naming the reason if the scheduler refuses (no permission) or the priority is
  // out of range.
  explicit RealtimePriority(int priority);
  // Back to the default scheduler (SCHED_OTHER) for every thread.
  ~RealtimePriority();
  RealtimePriority(const RealtimePriority&) = delete;
  RealtimePriority& operator=(const RealtimePriority&) = delete;
};

}  // namespace kausal

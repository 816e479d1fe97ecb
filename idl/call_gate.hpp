#pragma once
// Calls into a servant whose target (a run's clock, its operator) lives shorter than the
// servant's activation. Deactivating an object does not end the calls already in it: the POA
// lets them finish. The owner of the target closes the gate before the target goes: calls
// in progress finish first, later ones are told the object is gone.
#include <condition_variable>
#include <mutex>

#include <omniORB4/CORBA.h>

namespace kausal {

class CallGate {
 public:
  // Runs `call` unless the gate is closed (then OBJECT_NOT_EXIST, what a caller of a
  // deactivated object hears).
  template <typename F>
  decltype(auto) pass(F&& call) {
    enter();
    const Leave leave{*this};
    return call();
  }
  // Refuses later calls and waits for the ones in progress to return.
  void close() {
    std::unique_lock lock(mutex_);
    closed_ = true;
    left_.wait(lock, [this] { return inside_ == 0; });
  }

 private:
  struct Leave {
    CallGate& gate;
    ~Leave() {
      std::lock_guard lock(gate.mutex_);
      if (--gate.inside_ == 0) gate.left_.notify_all();
    }
  };
  void enter() {
    std::lock_guard lock(mutex_);
    if (closed_) throw CORBA::OBJECT_NOT_EXIST(0, CORBA::COMPLETED_NO);
    ++inside_;
  }

  std::mutex mutex_;
  std::condition_variable left_;
  unsigned inside_ = 0;
  bool closed_ = false;
};

}  // namespace kausal

#pragma once
// Liveness of a run's components, judged by heartbeats rather than by how long their work
// takes (docs/architecture.md, "Liveness: slow is not dead"). A thread pings every
// component every `period`, each ping bounded by the components' call timeout. omniORB
// serves every connection on a thread of its own, so a component busy with a long grant, a
// batch or a partition's steps still answers at once; one that is stopped, hung or gone
// does not. The first component that misses its heartbeat is the run's failure (a PeerError
// naming it): it is kept as the verdict, reported through `on_failure`, and the process of
// a local child is ended at once, so that every call to it — in flight or later — returns
// instead of waiting for its own timeout. Then the heartbeat ends.
#include <sys/types.h>

#include <omniORB4/CORBA.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/periodic_thread.hpp"
#include "idl/kausal.hh"
#include "idl/wire_errors.hpp"

namespace kausal {

class ComponentSet;
struct LaunchOptions;

class Heartbeat {
 public:
  struct Component {
    std::string name;
    CORBA::Object_var ref;    // a Participant
    std::string hosted_with;  // for the message: its process and the components it hosts
    pid_t local_pid = 0;      // a child of this process, ended when it misses its heartbeat
  };
  static constexpr std::chrono::milliseconds period{500};

  // Starts at once. `timeout`: how long one ping may take (the components' call timeout).
  // Destroying it stops it (within one ping at most).
  Heartbeat(std::vector<Component> components, std::chrono::milliseconds timeout,
            std::function<void(std::exception_ptr)> on_failure);

  // The failure found, if any.
  std::exception_ptr verdict() const;

  // call_peer() for a call to a watched component: a PeerError while the heartbeat (may be
  // null) has found a component that stopped answering is that component's doing (the
  // Integrator waited for its stopped System, the process was ended), and the verdict is
  // thrown instead.
  template <typename F>
  static auto call(const Heartbeat* heartbeat, const std::string& component, F&& f)
      -> decltype(f()) {
    try {
      return call_peer(component, f);
    } catch (const PeerError&) {
      if (heartbeat)
        if (std::exception_ptr found = heartbeat->verdict()) std::rethrow_exception(found);
      throw;
    }
  }

 private:
  // Pings every component once; false (done) after the first that misses it.
  bool beat();
  void fail(std::size_t component, const CORBA::Exception& error);

  std::vector<Component> components_;
  std::vector<idl::Participant_var> participants_;  // the same, narrowed
  std::chrono::milliseconds timeout_;
  std::function<void(std::exception_ptr)> on_failure_;
  mutable std::mutex mutex_;
  std::exception_ptr verdict_;
  PeriodicThread thread_;  // last: it uses the members above
};

// A heartbeat over every component of `set` (Systems and Integrators, blocks, event groups:
// one liveness rule for every kind), pinging with the call timeout of `options`; none in the
// single layout (its servants live and die with the monitor). `on_failure` (may be empty):
// who wants the verdict beyond the calls that Heartbeat::call answers with it.
std::unique_ptr<Heartbeat> watch_components(
    ComponentSet& set, const LaunchOptions& options,
    std::function<void(std::exception_ptr)> on_failure = {});

}  // namespace kausal

#include "monitor/deploy/heartbeat.hpp"

#include <omniORB4/omniORB.h>
#include <signal.h>

#include "idl/kausal.hh"
#include "monitor/deploy/component_set.hpp"

namespace kausal {

Heartbeat::Heartbeat(std::vector<Component> components, std::chrono::milliseconds timeout,
                     std::function<void(std::exception_ptr)> on_failure)
    : components_(std::move(components)),
      timeout_(timeout),
      on_failure_(std::move(on_failure)),
      thread_(period, [this] { return beat(); }) {}

std::exception_ptr Heartbeat::verdict() const {
  std::lock_guard lock(mutex_);
  return verdict_;
}

bool Heartbeat::beat() {
  // The timeout of this thread's calls only (omniORB keeps it per omni_thread, and this
  // thread has one only while `self` lives): the monitor's other calls keep theirs.
  omni_thread::ensure_self self;
  std::size_t k = 0;
  try {
    omniORB::setClientThreadCallTimeout(static_cast<CORBA::ULong>(timeout_.count()));
    for (k = participants_.size(); k < components_.size(); ++k)
      participants_.push_back(idl::Participant::_narrow(components_[k].ref));
    for (k = 0; k < participants_.size(); ++k) participants_[k]->ping();
    return true;
  } catch (const CORBA::Exception& e) {
    fail(k, e);
  } catch (...) {
    fail(k, CORBA::UNKNOWN());  // nothing else is thrown here; should it be, it is a failure
  }
  return false;
}

void Heartbeat::fail(std::size_t k, const CORBA::Exception& error) {
  const Component& c = components_.at(k);
  std::string why;
  try {
    throw_from_wire(c.name, error);
  } catch (const ComponentError& e) {
    why = e.reason();
  }
  // A process that is there but does not answer is ended: it would hold every call to it
  // up to its timeout. (Only then: one that is gone may have been reaped, its pid reused.)
  const bool end_it = c.local_pid > 0 && timed_out(error);
  std::string reason = "missed its heartbeat: " + why + c.hosted_with;
  if (end_it) reason += "; the monitor ended its process";
  const auto found = std::make_exception_ptr(PeerError(c.name, reason));
  if (thread_.stopping()) return;  // components that end with the run are no failure
  {
    std::lock_guard lock(mutex_);
    verdict_ = found;
  }
  try {
    if (on_failure_) on_failure_(found);
  } catch (...) {
    // Whoever wanted to know is gone: the run is ending anyway.
  }
  // After the verdict and its report: whatever fails because of this is seen as its doing.
  if (end_it) ::kill(c.local_pid, SIGKILL);
}

std::unique_ptr<Heartbeat> watch_components(ComponentSet& set, const LaunchOptions& options,
                                            std::function<void(std::exception_ptr)> on_failure) {
  if (options.layout == Layout::single) return nullptr;
  std::vector<Heartbeat::Component> components;
  for (std::size_t i = 0; i < set.size(); ++i) {
    LaunchedComponent& c = set.component(i);
    // One process may host several (the pendulum layout: a System and its Integrator), and
    // any of them may be the first to miss its heartbeat.
    std::string together;
    for (std::size_t j = 0; j < set.size(); ++j)
      if (j != i && c.process && set.component(j).process == c.process)
        together += (together.empty() ? "" : " and ") + set.component(j).name;
    if (!together.empty())
      together = "; its process " + c.process->name() + " hosts " + c.name + " and " + together;
    // Only children of this process are ended here; a node's are ended by their node.
    const pid_t pid = c.node.empty() ? static_cast<pid_t>(c.pid) : 0;
    components.push_back({c.name, CORBA::Object::_duplicate(c.ref), together, pid});
  }
  return std::make_unique<Heartbeat>(std::move(components),
                                     std::chrono::milliseconds(options.call_timeout_ms),
                                     std::move(on_failure));
}

}  // namespace kausal

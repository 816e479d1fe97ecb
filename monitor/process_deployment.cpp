#include "monitor/process_deployment.hpp"

#include <omniORB4/omniORB.h>
#include <stdlib.h>

#include <future>
#include <set>
#include <sstream>
#include <thread>

#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"
#include "integrator/integrator_servant.hpp"
#include "monitor/local_deployment.hpp"
#include "monitor/state_sink_servant.hpp"
#include "system/system_servant.hpp"

namespace kausal {

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::process:
      return "process";
    case Layout::pendulum:
      return "pendulum";
    case Layout::single:
      return "single";
  }
  return "?";
}

Layout parse_layout(const std::string& name) {
  for (Layout l : {Layout::process, Layout::pendulum, Layout::single})
    if (name == layout_name(l)) return l;
  throw InputError("unknown layout '" + name + "' (process, pendulum or single)");
}

struct ProcessDeployment::Component {
  std::string name;
  std::string role;
  std::shared_ptr<ChildProcess> process;  // shared in the pendulum layout; null in single
  CORBA::Object_var ref;
  std::string host = "?";
  long pid = 0;
  int cpu = -1;
};

namespace {

class CorbaIntegratorPort final : public IntegratorPort {
 public:
  CorbaIntegratorPort(std::string name, idl::Integrator_ptr ref, idl::StateSink_ptr sink)
      : name_(std::move(name)),
        ref_(idl::Integrator::_duplicate(ref)),
        sink_(idl::StateSink::_duplicate(sink)) {}
  const std::string& name() const override { return name_; }
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    idl::StateBatch_var b = call_peer(name_, [&] { return ref_->advance(guarantee, gvt); });
    return from_idl(b.in());
  }
  std::vector<double> apply_event(const Event& event) override {
    const idl::Event e = to_idl(event);
    idl::DoubleSeq_var x = call_peer(name_, [&] { return ref_->apply_event(e); });
    return to_vector(x.in());
  }
  void run_ahead(std::size_t batch_size, std::uint64_t window, std::uint64_t last_step) override {
    call_peer(name_, [&] {
      ref_->run_ahead(sink_, static_cast<CORBA::ULong>(batch_size), window, last_step);
    });
  }
  RollbackResult rollback(std::uint64_t step) override {
    const idl::DoubleSeq keep;  // empty: restore the state stepping produced at `step`
    const idl::RollbackResult r = call_peer(name_, [&] { return ref_->rollback(step, keep); });
    return {r.epoch, r.discarded_steps};
  }
  void commit(std::uint64_t gvt) override {
    call_peer(name_, [&] { ref_->commit(gvt); });
  }
  void ping() override {
    call_peer(name_, [&] { ref_->ping(); });
  }

 private:
  std::string name_;
  idl::Integrator_var ref_;
  idl::StateSink_var sink_;
};

// What is left of a shared deadline (at least `floor`), for waits that share one budget.
std::chrono::milliseconds time_left(std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds floor) {
  return std::max(floor, std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now()));
}

template <typename T>
typename T::_ptr_type narrow(const std::string& name, CORBA::Object_ptr obj) {
  auto ref = call_peer(name, [&] { return T::_narrow(obj); });
  if (CORBA::is_nil(ref))
    throw PeerError(name, "its object reference is not a " + std::string(T::_PD_repoId));
  return ref;
}

}  // namespace

ProcessDeployment::ProcessDeployment(const Scenario& scenario, OrbRuntime& orb,
                                     const LaunchOptions& options)
    : orb_(orb), layout_(options.layout) {
  // Unix-socket paths must stay short (108 bytes): a private directory under /tmp.
  char dir[] = "/tmp/kausal-XXXXXX";
  if (!mkdtemp(dir)) throw PeerError("launcher", "cannot create a socket directory in /tmp");
  socket_dir_ = dir;
  try {
    start(scenario, options);
    set_up(scenario, options);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

ProcessDeployment::~ProcessDeployment() {
  release();
}

void ProcessDeployment::release() {
  components_.clear();
  children_.clear();  // ends and reaps every child by PID
  // Hosted servants: the POA first (no new calls; it drops its references), then the
  // Integrators (deleting one joins its run-ahead worker, which may still call its System
  // or the sink), then the Systems, then the sink.
  adapter_.reset();
  for (std::size_t k = 1; k < hosted_.size(); k += 2) hosted_[k]->_remove_ref();
  for (std::size_t k = 0; k < hosted_.size(); k += 2) hosted_[k]->_remove_ref();
  hosted_.clear();
  if (sink_servant_) orb_.deactivate(sink_servant_);
  sink_servant_ = nullptr;
  std::error_code ignored;
  std::filesystem::remove_all(socket_dir_, ignored);
}

void ProcessDeployment::start(const Scenario& scenario, const LaunchOptions& options) {
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    for (const std::string role : {"system", "integrator"}) {
      auto c = std::make_unique<Component>();
      c->role = role;
      c->name = role == "system" ? system_name(i) : integrator_name(i);
      components_.push_back(std::move(c));
    }
  }
  if (layout_ == Layout::single)
    host_here(scenario);
  else
    start_children(scenario, options);
}

void ProcessDeployment::start_children(const Scenario& scenario, const LaunchOptions& options) {
  std::filesystem::create_directories(options.log_dir);
  // The components each child hosts, in the order it prints their references.
  std::vector<std::pair<std::shared_ptr<ChildProcess>, std::vector<Component*>>> started;
  auto launch = [&](const std::string& executable, const std::string& process_name,
                    std::vector<Component*> hosted, int cpu) {
    std::vector<std::string> args;
    for (Component* c : hosted) args.insert(args.end(), {"--name", c->name});
    args.insert(args.end(),
                {"--host", "127.0.0.1", "--unix-socket", (socket_dir_ / process_name).string(),
                 "--call-timeout-ms", std::to_string(options.call_timeout_ms)});
    auto process = std::make_shared<ChildProcess>(process_name, options.bin_dir / executable, args,
                                                  options.log_dir / (process_name + ".log"), cpu);
    for (Component* c : hosted) {
      c->process = process;
      c->cpu = cpu;
    }
    children_.push_back(process);
    started.emplace_back(process, std::move(hosted));
  };
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    const int cpu = options.cpus.empty() ? -1 : options.cpus[i % options.cpus.size()];
    Component* sys = components_[2 * i].get();
    Component* integ = components_[2 * i + 1].get();
    if (layout_ == Layout::pendulum) {
      launch("kausal-pendulum", "pendulum-" + std::to_string(i + 1), {sys, integ}, cpu);
    } else {
      launch("kausal-system", sys->name, {sys}, cpu);
      launch("kausal-integrator", integ->name, {integ}, cpu);
    }
  }
  // All children start in parallel; collect their references.
  const auto deadline = std::chrono::steady_clock::now() + options.startup_timeout;
  for (auto& [process, hosted] : started) {
    for (Component* c : hosted) {
      const auto ior = process->read_line(time_left(deadline, std::chrono::milliseconds(1)));
      if (!ior || ior->rfind("IOR:", 0) != 0)
        throw PeerError(c->name, "did not start (" + process->status() + "); see " +
                                     process->log_file().string());
      c->ref = orb_.resolve(*ior);
      c->pid = process->pid();
    }
  }
}

void ProcessDeployment::host_here(const Scenario& scenario) {
  adapter_ = std::make_unique<CollocatedAdapter>(orb_, collocated_shortcut_enabled());
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    for (auto& c : {components_[2 * i].get(), components_[2 * i + 1].get()}) {
      PortableServer::ServantBase* servant =
          c->role == "system"
              ? static_cast<PortableServer::ServantBase*>(new SystemServant(c->name, orb_))
              : new IntegratorServant(c->name, orb_);
      hosted_.push_back(servant);  // our reference: released in release()
      c->ref = orb_.resolve(adapter_->activate(servant));
      c->pid = static_cast<long>(getpid());
    }
  }
}

void ProcessDeployment::set_up(const Scenario& scenario, const LaunchOptions& options) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) index_of[integrator_name(i)] = i;
  auto* sink = new StateSinkServant(inbox_, std::move(index_of));
  const std::string sink_ior = orb_.activate(sink);
  sink->_remove_ref();  // the POA owns it now
  sink_servant_ = sink;
  CORBA::Object_var sink_obj = orb_.resolve(sink_ior);
  sink_ = idl::StateSink::_narrow(sink_obj);

  for (auto& c : components_) {
    auto component = narrow<idl::Participant>(c->name, c->ref);
    idl::ComponentInfo_var info = call_peer(c->name, [&] { return component->info(); });
    CORBA::release(component);
    if (info->interface_version != idl::INTERFACE_VERSION)
      throw VersionMismatch(c->name, info->interface_version, idl::INTERFACE_VERSION);
    c->host = info->host.in();
  }
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    Component& sys = *components_[2 * i];
    Component& integ = *components_[2 * i + 1];
    idl::System_var system = narrow<idl::System>(sys.name, sys.ref);
    const idl::ParameterSeq params = to_idl(to_parameters(scenario.chain.pendulums[i]));
    call_peer(sys.name, [&] { return system->configure("pendulum", params); });

    idl::Integrator_var integrator = narrow<idl::Integrator>(integ.name, integ.ref);
    idl::IntegratorSetup setup;
    setup.sys = idl::System::_duplicate(system.in());
    setup.method = std::string(method_name(scenario.method)).c_str();
    setup.t0 = scenario.t0();
    setup.h = scenario.h;
    setup.x0 = to_seq(scenario.initial[i]);
    setup.rollback_check = options.rollback_check;
    call_peer(integ.name, [&] { integrator->initialise(setup); });
    ports_.push_back(
        std::make_unique<CorbaIntegratorPort>(integ.name, integrator.in(), sink_.in()));
  }
}

namespace {

// Pages through a component's activity trace. Spans that make no sense (an unknown kind, an
// end before the begin) are counted as dropped: a report is never fatal.
void fetch_trace(idl::Participant_ptr component, ComponentReport& r) {
  for (std::uint64_t first = 0;;) {
    idl::ActivityTrace_var page = component->trace(first);
    for (const ActivitySpan& span : from_idl(page->spans)) {
      const bool valid = (span.kind == ActivityKind::busy || span.kind == ActivityKind::rollback) &&
                         span.begin_ns <= span.end_ns;
      if (valid)
        r.spans.push_back(span);
      else
        ++r.dropped_spans;
    }
    r.dropped_spans += first == 0 ? page->dropped : 0;
    first += page->spans.length();
    if (page->spans.length() == 0 || first >= page->recorded) return;
  }
}

}  // namespace

std::vector<ComponentReport> ProcessDeployment::reports() {
  // After a failure some peers may hang: ask all at once and briefly (1 s), never for a
  // whole call timeout each.
  // A child hosting two components is asked whether it runs once, not from two threads.
  std::set<ChildProcess*> gone;
  for (auto& p : children_)
    if (!p->running()) gone.insert(p.get());
  std::vector<std::future<ComponentReport>> asked;
  for (auto& c : components_) {
    const bool alive = !gone.count(c->process.get());
    asked.push_back(std::async(std::launch::async, [&c, alive] {
      ComponentReport r{c->name, c->role, c->host, c->pid, false, {}, c->cpu, {}, 0};
      if (!alive) return r;
      try {
        idl::Participant_var component = idl::Participant::_narrow(c->ref);
        omniORB::setClientCallTimeout(component, 1000);
        r.totals = from_idl(component->timing());
        r.reachable = true;
        fetch_trace(component, r);
      } catch (const CORBA::Exception&) {
        // Timing not read: unreachable. Trace cut short: what arrived is kept.
      }
      return r;
    }));
  }
  std::vector<ComponentReport> out;
  for (auto& a : asked) out.push_back(a.get());
  return out;
}

void ProcessDeployment::observe(idl::Animation_ptr view) {
  for (auto& c : components_) {
    try {
      idl::Participant_var component = idl::Participant::_narrow(c->ref);
      component->observe(view);
    } catch (const CORBA::Exception&) {
      // A component that cannot be told has no live strip; the run itself will notice it.
    }
  }
}

std::vector<std::string> ProcessDeployment::component_names() const {
  std::vector<std::string> names;
  for (const auto& c : components_) names.push_back(c->name);
  return names;
}

void ProcessDeployment::shutdown() {
  // Only children, each once: a hosted servant's shutdown() would end the monitor's own ORB.
  std::set<ChildProcess*> asked;
  for (auto& c : components_) {
    if (!c->process || !asked.insert(c->process.get()).second || !c->process->running()) continue;
    try {
      auto component = idl::Participant::_narrow(c->ref);
      component->shutdown();
      CORBA::release(component);
    } catch (const CORBA::Exception&) {
      // It will be ended by signal below.
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (auto& p : children_) {
    if (!p->wait_for_exit(time_left(deadline, std::chrono::milliseconds(0))))
      p->stop(std::chrono::milliseconds(0));
  }
}

std::string ProcessDeployment::post_mortem() {
  if (children_.empty()) return "";
  // A child killed a moment ago may have closed its connections (what the monitor noticed)
  // without being a zombie yet: give it a moment to be reaped.
  std::vector<ChildProcess*> gone;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  for (;;) {
    gone.clear();
    for (auto& p : children_)
      if (!p->running()) gone.push_back(p.get());
    if (!gone.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ostringstream o;
  for (ChildProcess* p : gone) {
    std::vector<std::string> names;
    for (auto& c : components_)
      if (c->process.get() == p) names.push_back(c->name);
    o << "\n  ";
    if (names.size() == 1) {
      o << names.front() << " (pid " << p->pid() << ")";
    } else {
      o << p->name() << " (pid " << p->pid() << ", hosting";
      for (std::size_t k = 0; k < names.size(); ++k) o << (k ? " and " : " ") << names[k];
      o << ")";
    }
    o << " " << p->status() << "; log " << p->log_file().string();
  }
  return o.str();
}

}  // namespace kausal

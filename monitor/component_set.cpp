#include "monitor/component_set.hpp"

#include <omniORB4/omniORB.h>
#include <stdlib.h>
#include <unistd.h>

#include <future>
#include <set>
#include <sstream>
#include <thread>

#include "idl/convert.hpp"
#include "integrator/integrator_servant.hpp"
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
  // A System and its Integrator in one process is a pair, whatever they compute.
  if (name == "pair") return Layout::pendulum;
  throw InputError("unknown layout '" + name + "' (process, pendulum or single)");
}

OrbSettings child_orb_settings(const LaunchOptions& options) {
  OrbSettings s;
  s.call_timeout_ms = options.call_timeout_ms;
  s.link_delay_us = options.link_delay_us;
  s.tls = options.tls;
  return s;
}

std::chrono::milliseconds time_left(std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds floor) {
  return std::max(floor, std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now()));
}

ComponentSet::ComponentSet(OrbRuntime& orb, Layout layout) : orb_(orb), layout_(layout) {
  // Unix-socket paths must stay short (108 bytes): a private directory under /tmp.
  char dir[] = "/tmp/kausal-XXXXXX";
  if (!mkdtemp(dir)) throw PeerError("launcher", "cannot create a socket directory in /tmp");
  socket_dir_ = dir;
}

ComponentSet::~ComponentSet() {
  release();
}

void ComponentSet::release() {
  components_.clear();
  children_.clear();  // ends and reaps every child by PID
  // Hosted servants: the POA first (no new calls; it drops its references), then the
  // Integrators (deleting one joins its worker, which may still call its System or the
  // monitor's sink), then the Systems.
  adapter_.reset();
  for (std::size_t k = 1; k < hosted_.size(); k += 2) hosted_[k]->_remove_ref();
  for (std::size_t k = 0; k < hosted_.size(); k += 2) hosted_[k]->_remove_ref();
  hosted_.clear();
  std::error_code ignored;
  if (!socket_dir_.empty()) std::filesystem::remove_all(socket_dir_, ignored);
}

void ComponentSet::start(const std::vector<ComponentPair>& pairs, const LaunchOptions& options) {
  for (const auto& pair : pairs) {
    for (const std::string role : {"system", "integrator"}) {
      auto c = std::make_unique<LaunchedComponent>();
      c->role = role;
      c->name = role == "system" ? pair.system : pair.integrator;
      c->cpu = pair.cpu;
      components_.push_back(std::move(c));
    }
  }
  if (layout_ == Layout::single)
    host_here();
  else
    start_children(pairs, options);
  check_versions();
}

void ComponentSet::start_children(const std::vector<ComponentPair>& pairs,
                                  const LaunchOptions& options) {
  std::filesystem::create_directories(options.log_dir);
  // The components each child hosts, in the order it prints their references.
  std::vector<std::pair<std::shared_ptr<ChildProcess>, std::vector<LaunchedComponent*>>> started;
  auto launch = [&](const std::string& executable, const std::string& process_name,
                    std::vector<LaunchedComponent*> hosted, int cpu) {
    std::vector<std::string> args;
    for (LaunchedComponent* c : hosted) args.insert(args.end(), {"--name", c->name});
    for (const auto& a : orb_arguments(child_orb_settings(options))) args.push_back(a);
    if (unix_sockets_allowed(child_orb_settings(options)))
      args.insert(args.end(), {"--unix-socket", (socket_dir_ / process_name).string()});
    auto process = std::make_shared<ChildProcess>(process_name, options.bin_dir / executable, args,
                                                  options.log_dir / (process_name + ".log"), cpu);
    for (LaunchedComponent* c : hosted) c->process = process;
    children_.push_back(process);
    started.emplace_back(process, std::move(hosted));
  };
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    LaunchedComponent* sys = &system(i);
    LaunchedComponent* integ = &integrator(i);
    if (layout_ == Layout::pendulum) {
      launch("kausal-pendulum", pairs[i].process, {sys, integ}, pairs[i].cpu);
    } else {
      launch("kausal-system", sys->name, {sys}, pairs[i].cpu);
      launch("kausal-integrator", integ->name, {integ}, pairs[i].cpu);
    }
  }
  // All children start in parallel; collect their references.
  const auto deadline = std::chrono::steady_clock::now() + options.startup_timeout;
  for (auto& [process, hosted] : started) {
    for (LaunchedComponent* c : hosted) {
      const auto ior = process->read_line(time_left(deadline, std::chrono::milliseconds(1)));
      if (!ior || ior->rfind("IOR:", 0) != 0)
        throw PeerError(c->name, "did not start (" + process->status() + "); see " +
                                     process->log_file().string());
      c->ref = orb_.resolve(*ior);
      c->pid = process->pid();
    }
  }
}

void ComponentSet::host_here() {
  adapter_ = std::make_unique<CollocatedAdapter>(orb_, collocated_shortcut_enabled());
  for (auto& c : components_) {
    PortableServer::ServantBase* servant =
        c->role == "system"
            ? static_cast<PortableServer::ServantBase*>(new SystemServant(c->name, orb_))
            : new IntegratorServant(c->name, orb_);
    hosted_.push_back(servant);  // our reference: released in release()
    c->ref = orb_.resolve(adapter_->activate(servant));
    c->pid = static_cast<long>(getpid());
    c->cpu = -1;  // nothing pinned: the monitor's own process
  }
}

void ComponentSet::check_versions() {
  for (auto& c : components_) {
    auto component = narrow<idl::Participant>(c->name, c->ref);
    idl::ComponentInfo_var info = call_peer(c->name, [&] { return component->info(); });
    CORBA::release(component);
    if (info->interface_version != idl::INTERFACE_VERSION)
      throw VersionMismatch(c->name, info->interface_version, idl::INTERFACE_VERSION);
    c->host = info->host.in();
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

std::vector<ComponentReport> ComponentSet::reports() {
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

void ComponentSet::observe(idl::Animation_ptr view) {
  for (auto& c : components_) {
    try {
      idl::Participant_var component = idl::Participant::_narrow(c->ref);
      component->observe(view);
    } catch (const CORBA::Exception&) {
      // A component that cannot be told has no live strip; the run itself will notice it.
    }
  }
}

std::vector<std::string> ComponentSet::names() const {
  std::vector<std::string> names;
  for (const auto& c : components_) names.push_back(c->name);
  return names;
}

void ComponentSet::shutdown() {
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

std::string ComponentSet::post_mortem() {
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

#include "monitor/deploy/component_set.hpp"

#include <omniORB4/omniORB.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "idl/convert.hpp"
#include "integrator/integrator_servant.hpp"
#include "monitor/deploy/lease_servant.hpp"
#include "system/system_servant.hpp"

namespace kausal {

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

namespace {

std::size_t open_descriptors() {
  std::error_code ec;
  std::size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return n;
}

}  // namespace

namespace {

// `processes` processes hosting `components` components are within the limits: see
// check_process_budget. `what` says which; `other` and `fewer` how to start fewer.
void check_budget(std::size_t processes, std::size_t components, const std::string& what,
                  const std::string& other, const std::string& fewer,
                  const LaunchOptions& options) {
  if (processes > options.max_processes)
    throw InputError("command line: this run would start " + std::to_string(processes) +
                     " processes (" + what + "), more than the limit of " +
                     std::to_string(options.max_processes) + ": give --max-processes " +
                     std::to_string(processes) + " to allow them" + other);
  // Measured: about 1 per local child (its stdout pipe) and 2 per component (calls to it,
  // and an optimistic Integrator's calls back); 3 per component leaves room for a second
  // connection where calls overlap, plus what is open now and some for the ORB and files.
  const rlim_t needed = open_descriptors() + 64 + (options.remote ? 0 : processes) + 3 * components;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= needed) {
    // Children inherit the raised limit; they need far fewer each.
    limit.rlim_cur =
        limit.rlim_max == RLIM_INFINITY ? 2 * needed : std::min<rlim_t>(limit.rlim_max, 2 * needed);
    if (setrlimit(RLIMIT_NOFILE, &limit) == 0) return;
  }
  throw InputError("command line: this run needs about " + std::to_string(needed) +
                   " file descriptors (" + std::to_string(processes) + " processes, " + what +
                   "), more than the limit of " + std::to_string(limit.rlim_max) +
                   " here (ulimit -Hn): raise it (ulimit -n " + std::to_string(needed) +
                   " in a shell allowed to, LimitNOFILE= for a service), or start fewer " +
                   "processes" + fewer);
}

}  // namespace

void check_process_budget(std::size_t pairs, const LaunchOptions& options) {
  if (options.layout == Layout::single) return;  // no process, no connection
  const std::size_t processes = options.layout == Layout::pendulum ? pairs : 2 * pairs;
  const std::string what =
      std::to_string(pairs) + " System + Integrator pairs, layout " + to_string(options.layout);
  const bool process = options.layout == Layout::process;
  check_budget(processes, 2 * pairs, what, process ? ", or --layout pendulum (half as many)" : "",
               std::string(" (fewer pendulums or partitions") +
                   (process ? ", --layout pendulum" : "") + ", --layout single)",
               options);
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
  collect_remote();
  components_.clear();
  remote_children_.clear();
  children_.clear();  // ends and reaps every child by PID
  // Hosted servants: the POA first (no new calls; it drops its references), then the
  // Integrators (deleting one joins its worker, which may still call its System or the
  // monitor's sink), then the Systems.
  adapter_.reset();
  hosted_integrators_.clear();
  hosted_systems_.clear();
  std::error_code ignored;
  if (!socket_dir_.empty()) std::filesystem::remove_all(socket_dir_, ignored);
}

LaunchedComponent* ComponentSet::add(ComponentRole role, const std::string& name, int cpu) {
  auto c = std::make_unique<LaunchedComponent>();
  c->role = role;
  c->name = name;
  c->cpu = cpu;
  components_.push_back(std::move(c));
  return components_.back().get();
}

LaunchedComponent& ComponentSet::named(const std::string& name) {
  for (auto& c : components_)
    if (c->name == name) return *c;
  throw ProtocolError("launcher", "no component named " + name + " was started");
}

void ComponentSet::start(const std::vector<ComponentPair>& pairs, const LaunchOptions& options) {
  std::vector<Launch> launches;
  for (const ComponentPair& pair : pairs) {
    LaunchedComponent* sys = add(ComponentRole::system, pair.system, pair.cpu);
    LaunchedComponent* integ = add(ComponentRole::integrator, pair.integrator, pair.cpu);
    if (layout_ == Layout::pendulum) {
      launches.push_back({"kausal-pendulum", pair.process, {sys, integ}, pair.cpu});
    } else {
      launches.push_back({"kausal-system", sys->name, {sys}, pair.cpu});
      launches.push_back({"kausal-integrator", integ->name, {integ}, pair.cpu});
    }
  }
  check_process_budget(pairs.size(), options);
  if (layout_ == Layout::single)
    host_here();
  else
    launch(launches, options);
  check_versions();
}

void ComponentSet::start_each(ComponentRole role, const std::string& executable,
                              const std::vector<std::string>& names, const LaunchOptions& options,
                              const FewerProcesses& fewer) {
  check_budget(names.size(), names.size(),
               std::to_string(names.size()) + " " + std::string(name_of(role)) + " processes",
               ", or fewer " + fewer.count, " (fewer " + fewer.count + ", " + fewer.instead + ")",
               options);
  std::vector<Launch> launches;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int cpu = options.cpus.empty() ? -1 : options.cpus[i % options.cpus.size()];
    LaunchedComponent* c = add(role, names[i], cpu);
    launches.push_back({executable, c->name, {c}, cpu});
  }
  launch(launches, options);
  check_versions();
}

void ComponentSet::launch(const std::vector<Launch>& launches, const LaunchOptions& options) {
  std::filesystem::create_directories(options.log_dir);
  log_dir_ = options.log_dir;
  remote_ = options.remote;
  if (remote_)
    start_remote(launches, options);
  else
    start_local(launches, options);
}

void ComponentSet::start_local(const std::vector<Launch>& launches, const LaunchOptions& options) {
  const OrbSettings child = child_orb_settings(options);
  std::vector<std::shared_ptr<ChildProcess>> started;
  for (const Launch& l : launches) {
    std::vector<std::string> args;
    for (const auto& name : l.names()) args.insert(args.end(), {"--name", name});
    for (const auto& a : orb_arguments(child)) args.push_back(a);
    if (unix_sockets_allowed(child))
      args.insert(args.end(), {"--unix-socket", (socket_dir_ / l.process).string()});
    std::shared_ptr<ChildProcess> process;
    try {
      process = std::make_shared<ChildProcess>(l.process, options.bin_dir / l.executable, args,
                                               options.log_dir / (l.process + ".log"), l.cpu);
    } catch (const std::system_error& e) {
      throw PeerError(l.process, std::string("cannot be started: ") + e.what());
    }
    for (LaunchedComponent* c : l.hosted) c->process = process;
    children_.push_back(process);
    started.push_back(process);
  }
  // All children start in parallel; collect their references.
  const auto deadline = std::chrono::steady_clock::now() + options.startup_timeout;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    ChildProcess& process = *started[k];
    for (LaunchedComponent* c : launches[k].hosted) {
      const auto ior = process.read_line(time_left(deadline, std::chrono::milliseconds(1)));
      if (!ior || ior->rfind("IOR:", 0) != 0)
        throw PeerError(c->name, "did not start (" + process.status() + "); see " +
                                     process.log_file().string());
      c->ref = orb_.resolve(*ior);
      c->pid = process.pid();
    }
  }
}

namespace {

// Asks `node` to start one process and waits (up to the startup timeout) for the references.
std::vector<std::string> start_on_node(RemoteNode& node, idl::Lease_ptr lease,
                                       const std::string& run, const std::string& executable,
                                       const std::string& process,
                                       const std::vector<std::string>& names, int cpu,
                                       const LaunchOptions& options) {
  idl::ProcessRequest r;
  r.run = run.c_str();
  r.process = process.c_str();
  r.executable = executable.c_str();
  r.names.length(static_cast<CORBA::ULong>(names.size()));
  for (CORBA::ULong k = 0; k < r.names.length(); ++k) r.names[k] = names[k].c_str();
  r.cpu = cpu;
  r.call_timeout_ms = options.call_timeout_ms;
  r.link_delay_us = options.link_delay_us;
  r.startup_timeout_ms = static_cast<CORBA::ULong>(options.startup_timeout.count());
  r.owner = idl::Lease::_duplicate(lease);  // the member owns what it is given
  // This thread's calls only (omniORB keeps the timeout per omni_thread, so this thread
  // needs one): the node answers once the process has started.
  omni_thread::ensure_self self;
  idl::StringSeq_var iors = call_peer("node " + node.name, [&] {
    omniORB::setClientThreadCallTimeout(
        static_cast<CORBA::ULong>(options.startup_timeout.count() + options.call_timeout_ms));
    return node.ref->start(r);
  });
  std::vector<std::string> out;
  for (CORBA::ULong k = 0; k < iors->length(); ++k) out.push_back(iors[k].in());
  return out;
}

}  // namespace

void ComponentSet::start_remote(const std::vector<Launch>& launches, const LaunchOptions& options) {
  const RemotePlacement& placement = *options.remote;
  // Resolve every node first: a deployment that names an unknown node starts nothing.
  std::vector<std::shared_ptr<RemoteNode>> nodes;
  for (const Launch& l : launches) {
    const NodeRule& rule = placement.deploy.node_for(l.process, l.names());
    nodes.push_back(
        placement.nodes->node(rule.node, placement.deploy.file + ":" + std::to_string(rule.line)));
  }
  lease_ = new LeaseServant;
  lease_ref_ = orb_.resolve(orb_.activate(lease_));
  idl::Lease_var lease = idl::Lease::_narrow(lease_ref_);
  std::vector<std::future<std::vector<std::string>>> asked;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const Launch& l = launches[k];
    asked.push_back(std::async(std::launch::async, start_on_node, std::ref(*nodes[k]), lease.in(),
                               placement.run_id, l.executable, l.process, l.names(), l.cpu,
                               std::cref(options)));
  }
  std::exception_ptr first_failure;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const Launch& l = launches[k];
    try {
      const auto iors = asked[k].get();
      auto process = std::make_shared<RemoteProcess>(nodes[k], placement.run_id, l.process);
      children_.push_back(process);
      remote_children_.push_back(process);
      for (std::size_t j = 0; j < l.hosted.size(); ++j) {
        LaunchedComponent* c = l.hosted[j];
        c->process = process;
        c->node = nodes[k]->name;
        c->clock_offset_ns = nodes[k]->clock_offset_ns;
        c->ref = orb_.resolve(iors.at(j));
      }
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
}

void ComponentSet::host_here() {
  adapter_ = std::make_unique<CollocatedAdapter>(orb_, collocated_shortcut_enabled());
  for (auto& c : components_) {
    const bool system = c->role == ComponentRole::system;
    auto& hosted = system ? hosted_systems_ : hosted_integrators_;
    hosted.push_back(
        system ? static_cast<PortableServer::ServantBase*>(new SystemServant(c->name, orb_))
               : new IntegratorServant(c->name, orb_));
    c->ref = orb_.resolve(adapter_->activate(hosted.back()));
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
    if (!c->node.empty()) c->pid = static_cast<long>(info->pid);
  }
}

void ComponentSet::collect_remote() {
  if (!remote_) return;
  std::map<std::string, std::shared_ptr<RemoteNode>> nodes;
  for (const auto& remote : remote_children_) {
    nodes[remote->node()] = remote->remote_node();
    const std::filesystem::path copy = log_dir_ / (remote->name() + ".log");
    std::ofstream(copy) << "# log of " << remote->name() << ", " << remote->log_location()
                        << " (its last 64 KiB)\n"
                        << remote->log_tail(64 * 1024);
  }
  for (const auto& [name, node] : nodes) {
    if (node->lost) continue;  // asked nothing more: its processes were told to end directly
    try {
      node->ref->finish(remote_->run_id.c_str(), 500);
    } catch (const CORBA::Exception&) {
      node->lost = true;
    }
  }
  remote_.reset();
  release_lease();
}

void ComponentSet::release_lease() {
  if (!lease_.in()) return;
  try {
    orb_.deactivate(lease_);
  } catch (const CORBA::Exception&) {
    // The ORB is going down: the lease goes with it.
  }
  lease_ = nullptr;
  lease_ref_ = CORBA::Object::_nil();
}

std::vector<ComponentReport> ComponentSet::reports() {
  // After a failure some peers may hang: ask all at once and briefly (1 s), never for a
  // whole call timeout each.
  // A child hosting two components is asked whether it runs once, not from two threads. A
  // remote one is asked directly: its node may be lost while it runs on.
  std::set<ProcessHandle*> gone;
  for (auto& p : children_)
    if (p->node().empty() && !p->running()) gone.insert(p.get());
  std::vector<std::future<ComponentReport>> asked;
  for (auto& c : components_) {
    const bool alive = !gone.count(c->process.get());
    asked.push_back(std::async(std::launch::async, [&c, alive] {
      ComponentReport r{c->name, c->role, c->host, c->pid, false, {}, c->cpu, {}, 0, c->node};
      if (!alive) return r;
      try {
        idl::Participant_var component = idl::Participant::_narrow(c->ref);
        omniORB::setClientCallTimeout(component, 1000);
        r.totals = from_idl(component->timing());
        r.reachable = true;
      } catch (const CORBA::Exception&) {
        // Timing not read: unreachable.
      }
      return r;
    }));
  }
  std::vector<ComponentReport> out;
  for (auto& a : asked) out.push_back(a.get());
  return out;
}

std::vector<TraceSource> ComponentSet::trace_sources() {
  std::vector<TraceSource> out;
  for (auto& c : components_) {
    idl::Participant_var component;
    try {
      component = idl::Participant::_narrow(c->ref);
      // A hung component must not hold the trace up for a whole call timeout.
      omniORB::setClientCallTimeout(component, 1000);
    } catch (const CORBA::Exception&) {
      continue;  // cannot be asked: no trace
    }
    auto read = [component](std::uint64_t first, bool unsettled) -> std::optional<TracePage> {
      try {
        idl::ActivityTrace_var page = component->trace(first, unsettled);
        return TracePage{page->first, from_idl(page->spans)};
      } catch (const CORBA::Exception&) {
        return std::nullopt;  // gone or hung: what arrived is kept
      }
    };
    out.push_back({c->name, c->role, c->host, c->pid, c->clock_offset_ns, read});
  }
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
  // A remote process is told also when its node is lost (a stopped node agent cannot end
  // it), within a short timeout of its own.
  std::set<ProcessHandle*> asked;
  for (auto& c : components_) {
    if (!c->process || !asked.insert(c->process.get()).second) continue;
    if (c->process->node().empty() && !c->process->running()) continue;
    try {
      auto component = idl::Participant::_narrow(c->ref);
      omniORB::setClientCallTimeout(component, 1000);
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
  std::vector<ProcessHandle*> gone;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  for (;;) {
    gone.clear();
    for (auto& p : children_)
      if (!p->running()) gone.push_back(p.get());
    if (!gone.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ostringstream o;
  for (ProcessHandle* p : gone) {
    std::vector<std::string> names;
    for (auto& c : components_)
      if (c->process.get() == p) names.push_back(c->name);
    o << "\n  ";
    if (names.size() == 1) {
      o << names.front() << " (pid " << p->process_id() << ")";
    } else {
      o << p->name() << " (pid " << p->process_id() << ", hosting";
      for (std::size_t k = 0; k < names.size(); ++k) o << (k ? " and " : " ") << names[k];
      o << ")";
    }
    if (!p->node().empty()) o << " on node " << p->node();
    o << " " << p->status() << "; log " << p->log_location();
  }
  return o.str();
}

}  // namespace kausal

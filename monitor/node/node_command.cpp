#include "monitor/node/node_command.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>

#include "idl/naming.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/node/node_servant.hpp"
#include "monitor/scenario/deploy_file.hpp"

namespace kausal {

namespace fs = std::filesystem;

void add_node_options(CLI::App& cmd, NodeOptions& o) {
  cmd.add_option("--name", o.name,
                 "the node's name in deployment files; registered as kausal/NAME (kind node) "
                 "in the naming service")
      ->required();
  cmd.add_option("--naming", o.naming,
                 "the naming service to register in: corbaloc::HOST:PORT/NameService "
                 "(omniNames, docs/multi-host.md)")
      ->required();
  cmd.add_option("--work-dir", o.work_dir,
                 "where the logs and sockets of the processes it starts go, one directory per "
                 "run (default: a fresh /tmp/kausal-node-*)");
  add_orb_options(cmd, o.orb);
}

namespace {

fs::path executable_dir() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

fs::path make_work_dir(const std::string& given) {
  if (!given.empty()) {
    std::error_code ec;
    fs::create_directories(given, ec);
    if (ec) throw InputError("--work-dir: cannot create " + given + ": " + ec.message());
    return given;
  }
  char dir[] = "/tmp/kausal-node-XXXXXX";
  if (!mkdtemp(dir)) throw InputError("cannot create a work directory in /tmp");
  return dir;
}

// The default work directory is the node's own: removed when it stops (the monitor has
// fetched the logs it wanted). A --work-dir given by the user stays.
class TemporaryWorkDir {
 public:
  explicit TemporaryWorkDir(fs::path dir) : dir_(std::move(dir)) {}
  ~TemporaryWorkDir() {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  TemporaryWorkDir(const TemporaryWorkDir&) = delete;
  TemporaryWorkDir& operator=(const TemporaryWorkDir&) = delete;

 private:
  fs::path dir_;
};

// A name already registered by a node that still answers is taken; a stale entry (its node
// gone) is replaced.
void check_name_free(NamingService& naming, const std::string& name) {
  CORBA::Object_var old = naming.resolve_node(name);
  if (CORBA::is_nil(old)) return;
  try {
    idl::Node_var node = idl::Node::_narrow(old);
    omniORB::setClientCallTimeout(node, 1000);
    idl::NodeInfo_var info = node->info();
    throw InputError("--name: node '" + name + "' is already registered in " + naming.reference() +
                     " by a running node (host " + info->host.in() + ", pid " +
                     std::to_string(info->pid) + ")");
  } catch (const CORBA::Exception&) {
    // Stale: rebinding replaces it.
  }
}

// SIGINT/SIGTERM end the node cleanly: they are blocked in every thread (the ORB's inherit
// the mask) and taken here, where shutting the ORB down is allowed.
class SignalWatch {
 public:
  explicit SignalWatch(std::function<void()> leave) {
    thread_ = std::thread([this, leave] {
      sigset_t set = signals();
      const timespec tick{0, 200'000'000};
      while (!done_) {
        if (sigtimedwait(&set, nullptr, &tick) > 0) {
          leave();
          return;
        }
      }
    });
  }
  ~SignalWatch() {
    done_ = true;
    thread_.join();
  }
  static sigset_t signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int node_command(const NodeOptions& o) {
  if (!plain_name(o.name))
    throw InputError("--name: '" + o.name + "' is not a plain name (1-64 of A-Z a-z 0-9 . _ -)");
  const sigset_t set = SignalWatch::signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  OrbSettings settings = o.orb;
  settings.plain_tcp_peer = naming_address(o.naming);
  OrbRuntime orb(settings);
  NamingService naming(orb, o.naming);
  check_name_free(naming, o.name);
  const fs::path work = make_work_dir(o.work_dir);
  // Declared before the agent, so that it is removed after the agent has ended its children.
  TemporaryWorkDir own_work(o.work_dir.empty() ? work : fs::path());
  NodeAgent agent(o.name, executable_dir(), work, o.orb);
  // Unregister while the ORB can still call the naming service, then stop serving.
  std::once_flag left;
  auto leave = [&] {
    std::call_once(left, [&] {
      naming.unbind_node(o.name);
      orb.shutdown();
    });
  };
  LeaseWatch leases(agent);
  // The POA holds the servant once it is active; this reference goes at the end of the scope.
  const PortableServer::Servant_var<NodeServant> servant = new NodeServant(agent, leases, leave);
  CORBA::Object_var ref = orb.resolve(orb.activate(servant));
  naming.bind_node(o.name, ref);
  std::cout << "kausal node " << o.name << ": registered as kausal/" << o.name << " in " << o.naming
            << "; serving on " << o.orb.host << " (pid " << getpid() << "); work directory "
            << work.string() << std::endl;
  {
    SignalWatch watch(leave);
    orb.run();
  }
  std::cout << "kausal node " << o.name << ": stopped" << std::endl;
  return 0;  // the agent ends what it started; a work directory of its own goes with it
}

}  // namespace kausal

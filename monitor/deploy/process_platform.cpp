#include "monitor/deploy/process_platform.hpp"

#include <stdlib.h>

#include "common/errors.hpp"
#include "monitor/deploy/clock_servant.hpp"
#include "monitor/deploy/operator_servant.hpp"
#include "monitor/deploy/process_deployment.hpp"
#include "monitor/deploy/served_reference.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

bool is_loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "localhost" || address == "::1";
}

}  // namespace

ProcessPlatform::ProcessPlatform(PlatformOptions options) : options_(std::move(options)) {}

ProcessPlatform::~ProcessPlatform() {
  nodes_.reset();
  orb_.reset();
  std::error_code ignored;
  if (!socket_dir_.empty()) fs::remove_all(socket_dir_, ignored);
}

OrbRuntime& ProcessPlatform::orb() {
  if (!orb_) {
    char dir[] = "/tmp/kausal-monitor-XXXXXX";
    if (!mkdtemp(dir)) throw PeerError("monitor", "cannot create a socket directory in /tmp");
    socket_dir_ = dir;
    OrbSettings s = options_.transport;
    // The monitor waits a second longer than its components do, so that a hung System is
    // reported by its Integrator (naming the System) before the monitor gives up.
    s.call_timeout_ms = options_.call_timeout_ms + 1000;
    if (unix_sockets_allowed(s)) s.unix_socket = (socket_dir_ / "monitor").string();
    orb_ = std::make_unique<OrbRuntime>(s);
  }
  return *orb_;
}

std::shared_ptr<void> ProcessPlatform::serve_clock(StepClock& clock, const fs::path& out_dir) {
  return serve_with_reference<ClockServant>(orb(), clock, out_dir / "clock.ior", "clock");
}

std::shared_ptr<void> ProcessPlatform::serve_operator(Operator& op, const fs::path& out_dir) {
  return serve_with_reference<OperatorServant>(orb(), op, out_dir / "operator.ior", "operator");
}

std::shared_ptr<const RemotePlacement> ProcessPlatform::remote_placement() {
  const auto& file = options_.deploy_file;
  if (!file) return nullptr;
  if (!nodes_) {
    nodes_ = std::make_shared<NodeDirectory>(orb(), options_.naming);
    const std::string& monitor_host = options_.transport.host;
    for (const auto& rule : file->nodes) {
      const auto node = nodes_->node(rule.node, file->file + ":" + std::to_string(rule.line));
      if (is_loopback(monitor_host) && !is_loopback(node->address))
        throw InputError("command line: the monitor serves on " + monitor_host + ", which node " +
                         node->name + " (" + node->address +
                         ") cannot reach: give --host ADDRESS (or monitor_host in " + file->file +
                         ")");
    }
  }
  return std::make_shared<RemotePlacement>(RemotePlacement{*file, nodes_, new_run_id()});
}

LaunchOptions ProcessPlatform::launch_options(const Placing& placing) {
  LaunchOptions launch;
  launch.bin_dir = options_.bin_dir;
  launch.log_dir = placing.log_dir;
  launch.call_timeout_ms = options_.call_timeout_ms;
  launch.startup_timeout = options_.startup_timeout;
  launch.cpus = placing.cpus;
  launch.layout = placing.layout;
  launch.link_delay_us = options_.transport.link_delay_us;
  launch.tls = options_.transport.tls;
  launch.remote = remote_placement();
  launch.max_processes = options_.max_processes;
  return launch;
}

std::unique_ptr<Deployment> ProcessPlatform::place(const ComponentPlan& plan,
                                                   const Placing& placing) {
  return std::make_unique<ProcessDeployment>(plan, orb(), launch_options(placing));
}

std::unique_ptr<LiveFeed> ProcessPlatform::show(const ViewLayout& layout, const std::string& label,
                                                const std::vector<std::string>& strips,
                                                Deployment* deployment, const StepClock* clock) {
  if (!animation_) return nullptr;
  auto feed = animation_->begin_run(layout, label, strips, monotonic_ns(), clock);
  if (deployment) deployment->show_activity_in(animation_->reference());
  return feed;
}

}  // namespace kausal

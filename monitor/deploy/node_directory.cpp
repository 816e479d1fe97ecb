#include "monitor/deploy/node_directory.hpp"

#include <unistd.h>

#include <atomic>
#include <thread>

#include "common/activity_trace.hpp"
#include "common/listed.hpp"
#include "idl/component_servant.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

namespace {

// Three round trips; the offset of the quickest is the best estimate (its answer was
// taken closest to the middle of the round trip).
std::int64_t clock_offset(idl::Node_ptr node) {
  std::int64_t best_offset = 0;
  std::uint64_t best_rtt = UINT64_MAX;
  for (int k = 0; k < 3; ++k) {
    const std::uint64_t sent = monotonic_ns();
    idl::NodeInfo_var info = node->info();
    const std::uint64_t back = monotonic_ns();
    if (back - sent < best_rtt) {
      best_rtt = back - sent;
      best_offset = static_cast<std::int64_t>(info->monotonic_ns) -
                    static_cast<std::int64_t>(sent + (back - sent) / 2);
    }
  }
  return best_offset;
}

}  // namespace

NodeDirectory::NodeDirectory(OrbRuntime& orb, const std::string& naming) : naming_(orb, naming) {}

std::shared_ptr<RemoteNode> NodeDirectory::node(const std::string& name,
                                                const std::string& wanted_by) {
  std::lock_guard lock(mutex_);
  if (auto it = nodes_.find(name); it != nodes_.end() && !it->second->lost) return it->second;
  CORBA::Object_var obj = naming_.resolve_node(name);
  if (CORBA::is_nil(obj))
    throw InputError(wanted_by + ": node '" + name + "' is not registered in " +
                     naming_.reference() + " (registered: " + listed(naming_.nodes()) +
                     "; start it with kausal node --name " + name + ")");
  auto node = std::make_shared<RemoteNode>();
  node->name = name;
  const std::string who = "node " + name;
  node->ref = call_peer(who, [&] { return idl::Node::_narrow(obj); });
  if (CORBA::is_nil(node->ref)) throw PeerError(who, "its registration is not a kausal node");
  idl::NodeInfo_var info;
  try {
    info = node->ref->info();
  } catch (const CORBA::Exception& e) {
    throw PeerError(
        who, std::string("is registered in ") + naming_.reference() + " but does not answer (" +
                 e._name() +
                 "; a node that has gone leaves a stale entry, and a TLS node answers only "
                 "TLS peers with a certificate from its CA)");
  }
  if (info->interface_version != idl::INTERFACE_VERSION)
    throw VersionMismatch(who, info->interface_version, idl::INTERFACE_VERSION);
  node->host = info->host.in();
  node->address = info->address.in();
  node->clock_offset_ns = call_peer(who, [&] { return clock_offset(node->ref); });
  nodes_[name] = node;
  return node;
}

std::string new_run_id() {
  static std::atomic<unsigned> count{0};
  std::string host = local_host_name();
  for (char& c : host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) c = '-';
  return host.substr(0, 32) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(count.fetch_add(1) + 1);
}

RemoteProcess::RemoteProcess(std::shared_ptr<RemoteNode> node, std::string run, std::string process)
    : node_(std::move(node)), run_(std::move(run)), process_(std::move(process)) {
  refresh();
}

void RemoteProcess::refresh() {
  if (!running_) return;
  if (node_->lost) {
    running_ = false;
    status_ = "lost with node " + node_->name + " on " + node_->host + " (it stopped answering)";
    return;
  }
  try {
    idl::ProcessStatusSeq_var all = node_->ref->processes(run_.c_str());
    for (CORBA::ULong k = 0; k < all->length(); ++k) {
      if (process_ != all[k].process.in()) continue;
      running_ = all[k].running;
      status_ = all[k].status.in();
      pid_ = static_cast<long>(all[k].pid);
      log_file_ = all[k].log_file.in();
      return;
    }
    running_ = false;
    status_ = "no longer known to node " + node_->name;
  } catch (const CORBA::Exception& e) {
    node_->lost = true;
    running_ = false;
    status_ = "lost with node " + node_->name + " on " + node_->host + " (" + e._name() + ")";
  }
}

bool RemoteProcess::running() {
  refresh();
  return running_;
}

std::string RemoteProcess::status() {
  refresh();
  return status_;
}

void RemoteProcess::stop(std::chrono::milliseconds grace) {
  if (!running_ || node_->lost) return;
  try {
    node_->ref->stop(run_.c_str(), process_.c_str(), static_cast<CORBA::ULong>(grace.count()));
  } catch (const CORBA::Exception&) {
    // Gone, stopped or hung: its processes are ended directly or die with it.
    node_->lost = true;
  }
  refresh();
}

std::string RemoteProcess::log_tail(std::size_t max_bytes) {
  if (node_->lost) return {};
  try {
    CORBA::String_var text =
        node_->ref->log(run_.c_str(), process_.c_str(), static_cast<CORBA::ULong>(max_bytes));
    return text.in();
  } catch (const idl::ProtocolViolation&) {
    return {};
  } catch (const CORBA::Exception&) {
    node_->lost = true;
    return {};
  }
}

}  // namespace kausal

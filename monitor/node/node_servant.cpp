#include "monitor/node/node_servant.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "common/activity_trace.hpp"
#include "idl/component_servant.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

LeaseWatch::LeaseWatch(NodeAgent& agent) : agent_(agent) {
  thread_ = std::thread([this] { loop(); });
}

LeaseWatch::~LeaseWatch() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void LeaseWatch::watch(const std::string& run, idl::Lease_ptr lease) {
  if (CORBA::is_nil(lease)) return;
  std::lock_guard lock(mutex_);
  if (runs_.count(run)) return;
  Watched& w = runs_[run];
  w.lease = idl::Lease::_duplicate(lease);
  omniORB::setClientCallTimeout(w.lease, 2000);
}

void LeaseWatch::forget(const std::string& run) {
  std::lock_guard lock(mutex_);
  runs_.erase(run);
}

bool LeaseWatch::alive(Watched& w) {
  try {
    w.lease->ping();
    w.misses = 0;
    return true;
  } catch (const CORBA::OBJECT_NOT_EXIST&) {
    return false;  // released: the run is over
  } catch (const CORBA::Exception&) {
    return ++w.misses < 3;
  }
}

void LeaseWatch::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
    std::map<std::string, Watched> now;
    for (auto& [run, w] : runs_) now[run] = {idl::Lease::_duplicate(w.lease), w.misses};
    lock.unlock();  // pings may take a call timeout
    std::vector<std::string> ended;
    for (auto& [run, w] : now)
      if (!alive(w)) ended.push_back(run);
    for (const auto& run : ended) {
      std::cout << "kausal node " << agent_.name() << ": the monitor of run " << run
                << " is gone; ending its processes" << std::endl;
      agent_.finish(run, std::chrono::milliseconds(500));
    }
    lock.lock();
    for (auto& [run, w] : now) {
      auto it = runs_.find(run);
      if (it == runs_.end()) continue;
      if (std::find(ended.begin(), ended.end(), run) != ended.end())
        runs_.erase(it);
      else
        it->second.misses = w.misses;
    }
  }
}

idl::NodeInfo* NodeServant::info() {
  auto* out = new idl::NodeInfo;
  out->name = agent_.name().c_str();
  out->host = local_host_name().c_str();
  out->address = agent_.transport().host.c_str();
  out->pid = static_cast<CORBA::ULong>(getpid());
  out->interface_version = reported_interface_version();
  out->monotonic_ns = monotonic_ns();
  out->cpus = agent_.cpus();
  return out;
}

idl::StringSeq* NodeServant::start(const idl::ProcessRequest& r) {
  return serve(who(), [&] {
    StartRequest request;
    request.run = r.run.in();
    request.process = r.process.in();
    request.executable = r.executable.in();
    for (CORBA::ULong k = 0; k < r.names.length(); ++k) request.names.push_back(r.names[k].in());
    request.cpu = r.cpu;
    request.call_timeout_ms = r.call_timeout_ms;
    request.link_delay_us = r.link_delay_us;
    request.startup_timeout = std::chrono::milliseconds(r.startup_timeout_ms);
    const auto iors = agent_.start(request);
    leases_.watch(request.run, r.owner);
    auto* out = new idl::StringSeq;
    out->length(static_cast<CORBA::ULong>(iors.size()));
    for (CORBA::ULong k = 0; k < out->length(); ++k) (*out)[k] = iors[k].c_str();
    return out;
  });
}

idl::ProcessStatusSeq* NodeServant::processes(const char* run) {
  return serve(who(), [&] {
    const auto states = agent_.processes(run);
    auto* out = new idl::ProcessStatusSeq;
    out->length(static_cast<CORBA::ULong>(states.size()));
    for (CORBA::ULong k = 0; k < out->length(); ++k) {
      const ProcessState& s = states[k];
      (*out)[k].process = s.process.c_str();
      (*out)[k].pid = static_cast<CORBA::ULong>(s.pid);
      (*out)[k].running = s.running;
      (*out)[k].status = s.status.c_str();
      (*out)[k].log_file = s.log_file.c_str();
    }
    return out;
  });
}

char* NodeServant::log(const char* run, const char* process, CORBA::ULong max_bytes) {
  return serve(who(),
               [&] { return CORBA::string_dup(agent_.log_tail(run, process, max_bytes).c_str()); });
}

void NodeServant::stop(const char* run, const char* process, CORBA::ULong grace_ms) {
  serve(who(), [&] { agent_.stop(run, process, std::chrono::milliseconds(grace_ms)); });
}

void NodeServant::finish(const char* run, CORBA::ULong grace_ms) {
  serve(who(), [&] {
    leases_.forget(run);
    agent_.finish(run, std::chrono::milliseconds(grace_ms));
  });
}

}  // namespace kausal

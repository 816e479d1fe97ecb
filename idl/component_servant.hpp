#pragma once
// What every servant offers (idl::Participant): identity, timing, ping, shutdown.
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "idl/activity_feed.hpp"

#include "idl/convert.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"

namespace kausal {

// The interface version this process reports. KAUSAL_TEST_INTERFACE_VERSION overrides it:
// a test hook that lets the version check be exercised without building an old binary.
unsigned reported_interface_version();

template <typename Skeleton>
class ComponentServant : public Skeleton {
 public:
  ComponentServant(std::string name, std::string role, OrbRuntime& orb)
      : name_(std::move(name)), role_(std::move(role)), orb_(orb) {}

  idl::ComponentInfo* info() override {
    auto* out = new idl::ComponentInfo;
    out->name = name_.c_str();
    out->role = role_.c_str();
    out->host = local_host_name().c_str();
    out->pid = static_cast<CORBA::ULong>(getpid());
    out->interface_version = reported_interface_version();
    return out;
  }
  idl::ComponentTiming timing() override { return to_idl(totals()); }
  idl::ActivityTrace* trace(CORBA::ULongLong first, CORBA::Boolean unsettled) override {
    const ActivityTrace& t = activity_trace();
    auto* out = new idl::ActivityTrace;
    out->recorded = t.recorded();
    TracePage page = t.read(first, max_trace_page, unsettled);
    out->first = page.first;
    out->spans = to_idl(page.spans);
    out->dropped = t.dropped();
    out->now_ns = monotonic_ns();
    return out;
  }
  void observe(idl::Animation_ptr view) override {
    std::lock_guard lock(feed_mutex_);
    feed_.reset();
    if (!CORBA::is_nil(view)) feed_ = std::make_unique<ActivityFeed>(name_, activity_trace(), view);
  }
  void ping() override {}
  void shutdown() override { orb_.shutdown(); }

 protected:
  static constexpr std::size_t max_trace_page = 65536;

  virtual ActivityTotals totals() = 0;
  virtual const ActivityTrace& activity_trace() = 0;
  // Stops the activity feed; servants call it before what activity_trace() refers to goes.
  void stop_feed() {
    std::lock_guard lock(feed_mutex_);
    feed_.reset();
  }
  const std::string& name() const { return name_; }
  OrbRuntime& orb() { return orb_; }

 private:
  std::string name_;
  std::string role_;
  OrbRuntime& orb_;
  std::mutex feed_mutex_;
  std::unique_ptr<ActivityFeed> feed_;
};

}  // namespace kausal

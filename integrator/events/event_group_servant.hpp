#pragma once
// The EventGroup servant (kausal-event-group, docs/events.md "Process layout"): one event
// group on a thread of its own, sending events to its peers over CORBA through a
// PeerExchange, watched and collected by the monitor.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "idl/component_servant.hpp"
#include "idl/wire_errors.hpp"
#include "integrator/events/event_group.hpp"
#include "integrator/events/event_recorder.hpp"
#include "integrator/events/group_setup.hpp"
#include "integrator/events/peer_exchange.hpp"

namespace kausal {

class EventGroupServant final : public ComponentServant<POA_kausal::idl::EventGroup> {
 public:
  EventGroupServant(const std::string& name, OrbRuntime& orb);
  // Stops the group's thread (a stop message) and joins it.
  ~EventGroupServant() override;

  void set_up(const idl::EventGroupSetup& setup) override;
  void connect(const idl::EventGroupSeq& groups) override;
  void start() override;
  void deliver(const idl::GroupMessageSeq& batch) override;
  idl::EventGroupStatus* status() override;
  void permit(const idl::EventKey& key) override;
  idl::EventGroupResult* result() override;

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return *trace_.load(); }

 private:
  void run_group();
  void send_out(des::GroupId to, std::vector<des::GroupMessage>& batch);
  void stop_thread();
  // ProtocolError unless set up (and, with `connected`, connected) and not yet started.
  void require(bool connected, const char* what) const;

  std::mutex mutex_;  // set-up, connection, start and result
  std::optional<des::GroupSetup> setup_;
  std::unique_ptr<des::EventModel> model_;
  std::unique_ptr<EventRecorder> recorder_;
  std::unique_ptr<des::PeerExchange> exchange_;
  std::unique_ptr<des::EventGroup> group_;
  std::vector<idl::EventGroup_var> peers_;  // by group; nil for this one
  bool connected_ = false;
  std::thread thread_;
  // Set once set_up has built everything below: the calls that do not take mutex_
  // (deliver, status, permit) look at nothing before.
  std::atomic<bool> ready_{false};
  std::atomic<bool> started_{false};
  std::atomic<bool> running_{false};
  std::atomic<double> horizon_{0.0};  // set by the group's thread after every batch
  std::optional<ReportedFailure> failure_;  // written by the thread before running_ clears
  double wall_s_ = 0;
  ActivityTrace no_trace_;  // before set_up()
  std::atomic<const ActivityTrace*> trace_{&no_trace_};
};

}  // namespace kausal

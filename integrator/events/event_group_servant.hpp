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
  // One stretch of the group (set_up to result): everything the calls that do not take
  // mutex_ (deliver, status, permit) may look at, replaced as a whole by the next set_up.
  struct Session {
    des::GroupSetup setup;
    std::unique_ptr<des::EventModel> model;
    std::unique_ptr<EventRecorder> recorder;
    std::unique_ptr<des::PeerExchange> exchange;
    std::unique_ptr<des::EventGroup> group;
    std::vector<idl::EventGroup_var> peers;  // by group; nil for this one
    bool connected = false;
    bool collected = false;  // result() has been given: a new set_up may follow
    std::atomic<bool> started{false};
    std::atomic<bool> running{false};
    std::atomic<double> horizon{0.0};        // set by the group's thread after every batch
    std::optional<ReportedFailure> failure;  // written by the thread before running clears
    double wall_s = 0;
    std::thread thread;
  };

  std::shared_ptr<Session> build(des::GroupSetup s);
  void run_group(Session& session);
  void send_out(Session& session, des::GroupId to, std::vector<des::GroupMessage>& batch);
  void stop_thread(Session& session);
  std::shared_ptr<Session> current(const char* what) const;
  // ProtocolError unless set up (and, with `connected`, connected) and not yet started.
  void require(const Session* session, bool connected, const char* what) const;
  static idl::EventGroupResult* outcome_of(Session& session);

  std::mutex mutex_;  // set-up, connection, start and result
  std::atomic<std::shared_ptr<Session>> session_;
  // The stretch before: its trace may still be read by a trace() call under way.
  std::shared_ptr<Session> previous_;
  ActivityTrace no_trace_;  // before set_up()
  std::atomic<const ActivityTrace*> trace_{&no_trace_};
  ActivityTotals totals_;  // of the stretches before this one
};

}  // namespace kausal

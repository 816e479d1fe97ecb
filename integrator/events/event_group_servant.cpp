#include "integrator/events/event_group_servant.hpp"

#include <chrono>
#include <cmath>
#include <thread>

#include "idl/event_convert.hpp"

namespace kausal {

EventGroupServant::EventGroupServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "event-group", orb) {}

EventGroupServant::~EventGroupServant() {
  stop_feed();
  if (const auto session = session_.load()) stop_thread(*session);
}

void EventGroupServant::stop_thread(Session& session) {
  if (!session.thread.joinable()) return;
  std::vector<des::GroupMessage> stop(1);
  stop[0].kind = des::MessageKind::stop;
  session.exchange->deliver(stop);
  session.thread.join();
}

std::shared_ptr<EventGroupServant::Session> EventGroupServant::current(const char* what) const {
  auto session = session_.load();
  if (!session) throw ProtocolError(name(), std::string(what) + " before set_up");
  return session;
}

void EventGroupServant::require(const Session* session, bool connected, const char* what) const {
  if (!session) throw ProtocolError(name(), std::string(what) + " before set_up");
  if (connected && !session->connected)
    throw ProtocolError(name(), std::string(what) + " before connect");
  if (session->started) throw ProtocolError(name(), std::string(what) + " after start");
}

std::shared_ptr<EventGroupServant::Session> EventGroupServant::build(des::GroupSetup s) {
  auto session = std::make_shared<Session>();
  session->model = des::build_model(s, name());
  const des::EventModel& model = *session->model;
  const des::GroupId groups = des::check_setup(s, model, name());
  const auto spin = des::Mailbox::spin_for(groups);
  Session* raw = session.get();
  session->exchange = std::make_unique<des::PeerExchange>(
      s.group,
      [this, raw](des::GroupId to, std::vector<des::GroupMessage>& batch) {
        send_out(*raw, to, batch);
      },
      spin);
  session->recorder = std::make_unique<EventRecorder>(model.components());
  session->group = std::make_unique<des::EventGroup>(
      model, s.group, s.owner, s.settings, session->exchange.get(), *session->recorder,
      [raw](double horizon) {
        raw->horizon.store(horizon, std::memory_order_relaxed);
        return true;
      });
  des::continue_setup(*session->group, *session->recorder, s, model, name());
  session->peers.resize(groups);
  session->horizon = s.settings.start;
  session->setup = std::move(s);
  return session;
}

void EventGroupServant::set_up(const idl::EventGroupSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const auto before = session_.load();
    if (before && !before->collected)
      throw ProtocolError(name(), "set_up twice (a new stretch follows result)");
    des::GroupSetup s = from_idl(setup);
    auto session = build(std::move(s));
    trace_.store(&session->group->activity());
    previous_ = before;
    session_.store(std::move(session));  // deliver, status, permit see the new stretch now
  });
}

void EventGroupServant::connect(const idl::EventGroupSeq& groups) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const auto session = session_.load();
    require(session.get(), false, "connect");
    if (groups.length() != session->peers.size())
      throw ProtocolError(name(), "connect: " + std::to_string(groups.length()) +
                                      " groups given, the placement has " +
                                      std::to_string(session->peers.size()));
    for (CORBA::ULong g = 0; g < groups.length(); ++g) {
      if (g == session->setup.group) continue;
      if (CORBA::is_nil(groups[g]))
        throw ProtocolError(name(), "connect: group " + std::to_string(g) + " is nil");
      session->peers[g] = idl::EventGroup::_duplicate(groups[g]);
    }
    session->connected = true;
  });
}

void EventGroupServant::start() {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const auto session = session_.load();
    require(session.get(), true, "start");
    session->started = true;
    session->running = true;
    session->thread = std::thread([this, raw = session.get()] { run_group(*raw); });
  });
}

void EventGroupServant::run_group(Session& session) {
  const auto begin = std::chrono::steady_clock::now();
  try {
    session.group->run();
  } catch (...) {
    session.failure = describe_failure(name(), std::current_exception());
  }
  session.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  session.running.store(false);
}

void EventGroupServant::send_out(Session& session, des::GroupId to,
                                 std::vector<des::GroupMessage>& batch) {
  const idl::GroupMessageSeq wire = to_idl(batch);
  const std::string peer = "event-group-" + std::to_string(to);  // its process name
  call_peer(peer, [&] { session.peers.at(to)->deliver(wire); });
}

void EventGroupServant::deliver(const idl::GroupMessageSeq& batch) {
  serve(name(), [&] {
    const auto session = current("deliver");
    const auto groups = static_cast<des::GroupId>(session->peers.size());
    std::vector<des::GroupMessage> messages;
    messages.reserve(batch.length());
    for (CORBA::ULong k = 0; k < batch.length(); ++k)
      messages.push_back(
          from_idl(batch[k], session->setup.owner, groups, session->setup.group, name()));
    session->exchange->deliver(messages);
  });
}

idl::EventGroupStatus* EventGroupServant::status() {
  auto* out = new idl::EventGroupStatus{};
  const auto session = session_.load();
  if (!session) return out;
  out->started = session->started.load();
  out->running = session->running.load();
  const des::PeerStatus s = session->exchange->status();
  out->finished = s.finished;
  out->idle_blocked = s.idle_blocked;
  out->has_next = s.state.next.has_value();
  if (s.state.next) out->next = to_idl(*s.state.next);
  out->safe = s.state.safe;
  out->waits_for = s.state.waits_for;
  out->sent = s.sent;
  out->taken = s.taken;
  out->committed_horizon = session->horizon.load(std::memory_order_relaxed);
  out->progress = to_idl(session->group->progress());
  if (session->started && !session->running && session->failure) {
    out->failure_kind = session->failure->kind.c_str();
    out->failure_component = session->failure->component.c_str();
    out->failure_reason = session->failure->reason.c_str();
  }
  return out;
}

void EventGroupServant::permit(const idl::EventKey& key) {
  serve(name(), [&] {
    const auto session = current("permit");
    // The key of an event this run could have (as deliver checks every event's).
    if (!std::isfinite(key.time) || key.time < 0)
      throw ProtocolError(name(), "a permit for an event at t = " + std::to_string(key.time));
    session->exchange->permit(from_idl(key));
  });
}

idl::EventGroupResult* EventGroupServant::outcome_of(Session& session) {
  des::GroupOutcome outcome;
  for (const des::LogicalProcess& lp : session.group->components())
    outcome.components.push_back(
        {lp.id(), session.recorder->component_digest(lp.id()), lp.figures()});
  outcome.figures = session.group->figures();
  outcome.figures.wall_seconds = session.wall_s;
  outcome.committed_horizon = session.group->committed_horizon();
  if (!session.failure && outcome.committed_horizon >= session.setup.settings.end) {
    // Its part of the cut at its end, with what other groups sent it after it stopped.
    des::EventCut cut;
    cut.time = session.setup.settings.end;
    cut.states.resize(session.model->components());
    session.group->add_to_cut(cut);
    const std::vector<Sha256::Midstate> digests = session.recorder->midstates();
    for (const des::LogicalProcess& lp : session.group->components())
      outcome.cut.push_back({lp.id(), cut.states[lp.id()], digests[lp.id()]});
    outcome.pending = std::move(cut.pending);
  }
  return new idl::EventGroupResult(to_idl(outcome));
}

idl::EventGroupResult* EventGroupServant::result() {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const auto session = current("result");
    if (!session->started || session->running)
      throw ProtocolError(name(), "result before the group has ended");
    if (session->thread.joinable()) session->thread.join();
    auto* out = outcome_of(*session);
    if (!session->collected) {
      totals_.idle_s += session->group->figures().blocked_seconds;
      totals_.busy_s += std::max(0.0, session->wall_s - session->group->figures().blocked_seconds);
    }
    session->collected = true;
    return out;
  });
}

ActivityTotals EventGroupServant::totals() {
  std::lock_guard lock(mutex_);
  return totals_;
}

}  // namespace kausal

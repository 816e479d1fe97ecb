#include "integrator/events/event_group_servant.hpp"

#include <chrono>
#include <cmath>
#include <thread>

#include "idl/event_convert.hpp"
#include "system/events/event_model_registry.hpp"

namespace kausal {

using namespace des;

namespace {

// The checks a setup from the wire needs before a group is built from it; returns the
// number of groups of the run.
GroupId check_setup(const GroupSetup& s, const EventModel& model, const std::string& who) {
  const auto refuse = [&](const std::string& why) { throw ProtocolError(who, "set_up: " + why); };
  if (s.owner.size() != model.components())
    refuse("the placement names " + std::to_string(s.owner.size()) + " components, model " +
           s.model + " has " + std::to_string(model.components()));
  GroupId groups = 0;
  for (const GroupId g : s.owner) groups = std::max(groups, g + 1);
  if (s.group >= groups) refuse("group " + std::to_string(s.group) + " runs no component");
  const GroupSettings& g = s.settings;
  if (!(std::isfinite(g.end) && g.end > 0)) refuse("end must be a positive, finite time");
  if (!(g.window > 0)) refuse("the window must be positive");
  if (g.batch < 1 || g.gvt_interval < 1) refuse("batch and gvt_interval must be at least 1");
  return groups;
}

}  // namespace

EventGroupServant::EventGroupServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "event-group", orb) {}

EventGroupServant::~EventGroupServant() {
  stop_feed();
  stop_thread();
}

void EventGroupServant::stop_thread() {
  if (!thread_.joinable()) return;
  std::vector<GroupMessage> stop(1);
  stop[0].kind = MessageKind::stop;
  exchange_->deliver(stop);
  thread_.join();
}

void EventGroupServant::require(bool connected, const char* what) const {
  if (!setup_) throw ProtocolError(name(), std::string(what) + " before set_up");
  if (connected && !connected_) throw ProtocolError(name(), std::string(what) + " before connect");
  if (started_) throw ProtocolError(name(), std::string(what) + " after start");
}

void EventGroupServant::set_up(const idl::EventGroupSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    if (setup_) throw ProtocolError(name(), "set_up twice");
    GroupSetup s = from_idl(setup);
    const EventModelType* type = event_model_type(s.model);
    if (!type) throw ProtocolError(name(), "set_up: no discrete-event model is called '" + s.model + "'");
    std::map<std::string, double> values;
    for (const EventParameter& p : type->parameters) {
      const auto given = s.parameters.find(p.name);
      values[p.name] = given == s.parameters.end() ? p.default_value : given->second;
      if (const std::string problem = parameter_problem(p, values[p.name]); !problem.empty())
        throw ModelError(name(), "set_up: parameter " + p.name + " " + problem);
    }
    for (const auto& [given, value] : s.parameters)
      if (!values.count(given))
        throw ProtocolError(name(), "set_up: model " + s.model + " has no parameter " + given);
    try {
      model_ = type->make(values);
    } catch (const InputError& e) {
      throw ModelError(name(), e.what());
    }
    const GroupId groups = check_setup(s, *model_, name());
    const int spins = groups <= std::max(1u, std::thread::hardware_concurrency()) ? 4000 : 0;
    exchange_ = std::make_unique<PeerExchange>(
        s.group, [this](GroupId to, std::vector<GroupMessage>& batch) { send_out(to, batch); },
        spins);
    recorder_ = std::make_unique<EventRecorder>(model_->components());
    group_ = std::make_unique<des::EventGroup>(*model_, s.group, s.owner, s.settings, exchange_.get(),
                                          *recorder_, [this](double horizon) {
                                            horizon_.store(horizon, std::memory_order_relaxed);
                                            return true;
                                          });
    trace_.store(&group_->activity());
    peers_.resize(groups);
    setup_ = std::move(s);
    ready_.store(true, std::memory_order_release);  // deliver, status, permit may look now
  });
}

void EventGroupServant::connect(const idl::EventGroupSeq& groups) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    require(false, "connect");
    if (groups.length() != peers_.size())
      throw ProtocolError(name(), "connect: " + std::to_string(groups.length()) +
                                      " groups given, the placement has " +
                                      std::to_string(peers_.size()));
    for (CORBA::ULong g = 0; g < groups.length(); ++g) {
      if (g == setup_->group) continue;
      if (CORBA::is_nil(groups[g]))
        throw ProtocolError(name(), "connect: group " + std::to_string(g) + " is nil");
      peers_[g] = idl::EventGroup::_duplicate(groups[g]);
    }
    connected_ = true;
  });
}

void EventGroupServant::start() {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    require(true, "start");
    started_ = true;
    running_ = true;
    thread_ = std::thread([this] { run_group(); });
  });
}

void EventGroupServant::run_group() {
  const auto begin = std::chrono::steady_clock::now();
  try {
    group_->run();
  } catch (...) {
    failure_ = describe_failure(name(), std::current_exception());
  }
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  running_.store(false);
}

void EventGroupServant::send_out(GroupId to, std::vector<GroupMessage>& batch) {
  const idl::GroupMessageSeq wire = to_idl(batch);
  const std::string peer = "event-group-" + std::to_string(to);  // its process name
  call_peer(peer, [&] { peers_.at(to)->deliver(wire); });
}

void EventGroupServant::deliver(const idl::GroupMessageSeq& batch) {
  serve(name(), [&] {
    if (!ready_.load(std::memory_order_acquire))
      throw ProtocolError(name(), "deliver before set_up");
    const auto groups = static_cast<GroupId>(peers_.size());
    std::vector<GroupMessage> messages;
    messages.reserve(batch.length());
    for (CORBA::ULong k = 0; k < batch.length(); ++k)
      messages.push_back(from_idl(batch[k], setup_->owner, groups, setup_->group, name()));
    exchange_->deliver(messages);
  });
}

idl::EventGroupStatus* EventGroupServant::status() {
  auto* out = new idl::EventGroupStatus{};
  out->started = started_.load();
  out->running = running_.load();
  if (ready_.load(std::memory_order_acquire)) {
    const PeerStatus s = exchange_->status();
    out->finished = s.finished;
    out->idle_blocked = s.idle_blocked;
    out->has_next = s.state.next.has_value();
    if (s.state.next) out->next = to_idl(*s.state.next);
    out->safe = s.state.safe;
    out->waits_for = s.state.waits_for;
    out->sent = s.sent;
    out->taken = s.taken;
  }
  out->committed_horizon = horizon_.load(std::memory_order_relaxed);
  if (started_ && !running_ && failure_) {
    out->failure_kind = failure_->kind.c_str();
    out->failure_component = failure_->component.c_str();
    out->failure_reason = failure_->reason.c_str();
  }
  return out;
}

void EventGroupServant::permit(const idl::EventKey& key) {
  serve(name(), [&] {
    if (!ready_.load(std::memory_order_acquire))
      throw ProtocolError(name(), "permit before set_up");
    exchange_->permit(from_idl(key));
  });
}

idl::EventGroupResult* EventGroupServant::result() {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    if (!started_ || running_) throw ProtocolError(name(), "result before the group has ended");
    if (thread_.joinable()) thread_.join();
    GroupOutcome outcome;
    for (const LogicalProcess& lp : group_->components())
      outcome.components.push_back({lp.id(), recorder_->component_digest(lp.id()), lp.figures()});
    outcome.figures = group_->figures();
    outcome.figures.wall_seconds = wall_s_;
    outcome.committed_horizon = group_->committed_horizon();
    auto* out = new idl::EventGroupResult(to_idl(outcome));
    return out;
  });
}

ActivityTotals EventGroupServant::totals() {
  ActivityTotals t;
  if (started_ && !running_ && group_) {
    t.idle_s = group_->figures().blocked_seconds;
    t.busy_s = std::max(0.0, wall_s_ - t.idle_s);
  }
  return t;
}

}  // namespace kausal

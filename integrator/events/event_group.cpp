#include "integrator/events/event_group.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>

#include "common/errors.hpp"

namespace kausal::des {

namespace {
constexpr double infinity = std::numeric_limits<double>::infinity();

std::string describe(const EventModel& model, const Event& event) {
  std::ostringstream text;
  text << model.kind_name(event.kind) << " from " << model.component_name(event.key.source)
       << " at t = " << event.key.time;
  return text.str();
}
}  // namespace

EventGroup::EventGroup(const EventModel& model, GroupId self, std::vector<GroupId> owner,
                       const GroupSettings& settings, GroupTransport* transport, CommitSink& sink,
                       std::function<bool(double)> watch)
    : model_(model),
      self_(self),
      owner_(std::move(owner)),
      settings_(settings),
      transport_(transport),
      sink_(sink),
      watch_(std::move(watch)),
      name_("event group " + std::to_string(self)) {
  if (owner_.size() != model_.components())
    throw ProtocolError(name_, "the placement names " + std::to_string(owner_.size()) +
                                   " components, the model has " +
                                   std::to_string(model_.components()));
  for (const GroupId g : owner_) groups_ = std::max(groups_, g + 1);
  if (groups_ > 1 && !transport_) throw ProtocolError(name_, "several groups need a transport");
  local_index_.assign(owner_.size(), 0);
  std::vector<ComponentId> mine;
  std::vector<std::vector<ComponentId>> members(groups_);
  for (ComponentId c = 0; c < owner_.size(); ++c) {
    members[owner_[c]].push_back(c);
    if (owner_[c] != self_) continue;
    local_index_[c] = static_cast<std::uint32_t>(lps_.size());
    lps_.emplace_back(c, model_.initial_state(c), settings_.saving);
    mine.push_back(c);
  }
  clock_ = settings_.start;
  published_.clock = published_.committed_to = settings_.start;
  last_processed_.assign(lps_.size(), EventKey{-infinity, 0, 0});
  errors_.resize(lps_.size());
  outgoing_.resize(groups_);
  channel_.resize(groups_);
  out_lookahead_.resize(groups_);
  sent_guarantee_.assign(groups_, -infinity);
  for (GroupId g = 0; g < groups_; ++g) {
    if (g == self_) continue;
    // Before it says anything, a group's components are at the start and can send
    // nothing earlier than their links' lookahead after it.
    channel_[g] = smallest_lookahead(model_, members[g], mine);
    if (channel_[g]) *channel_[g] += settings_.start;
    out_lookahead_[g] = smallest_lookahead(model_, mine, members[g]);
  }
  gvt_ = settings_.start;
  for (auto& counts : sent_in_colour_) counts.assign(groups_, 0);
  safe_ = infinity;
  for (const auto& c : channel_)
    if (c) safe_ = std::min(safe_, *c);
}

void EventGroup::continue_from(const EventCut& cut) {
  if (cut.time != settings_.start || cut.states.size() != owner_.size())
    throw ProtocolError(
        name_, "a cut at t = " + std::to_string(cut.time) + " of " +
                   std::to_string(cut.states.size()) + " components does not fit a run from t = " +
                   std::to_string(settings_.start) + " of " + std::to_string(owner_.size()));
  for (LogicalProcess& lp : lps_) lp.state() = cut.states[lp.id()];
  for (const Event& event : cut.pending) {
    if (event.destination >= owner_.size() || event.key.time < cut.time)
      throw ProtocolError(name_, "the cut holds " + describe(model_, event) +
                                     " for a component or time it cannot have");
    if (owner_[event.destination] == self_) add_pending(event);
  }
  continued_ = true;
}

void EventGroup::add_to_cut(EventCut& cut) {
  take_in_flight();
  for (const LogicalProcess& lp : lps_) cut.states[lp.id()] = lp.state();
  for (const Event& event : pending_) {
    if (event.key.time < cut.time)
      throw ProtocolError(name_, describe(model_, event) + " is still pending below the cut");
    cut.pending.push_back(event);
  }
}

void EventGroup::take_in_flight() {
  if (!transport_) return;
  for (;;) {
    inbox_.clear();
    transport_->receive(self_, inbox_, std::chrono::microseconds(0));
    if (inbox_.empty()) return;
    // Only events and their cancellations change the cut; guarantees and GVT messages
    // after the end say nothing new.
    for (GroupMessage& message : inbox_)
      if (message.kind == MessageKind::event)
        deliver(message.event);
      else if (message.kind == MessageKind::anti_event)
        cancel(message.event);
  }
}

void EventGroup::run() {
  if (!continued_) start_components();
  if (settings_.sync == GroupSync::conservative) send_guarantees();
  flush();
  while (!stopped_) {
    const std::size_t received = transport_ ? receive(std::chrono::microseconds(0)) : 0;
    if (stopped_) break;
    const std::uint64_t batch_begin = monotonic_ns();
    const std::size_t processed = process_batch();
    if (processed > 0)
      activity_.record(ActivityKind::busy, batch_begin, monotonic_ns(),
                       SpanTag{ActivityCall::process});
    const double gvt_before = gvt_;
    if (settings_.sync == GroupSync::conservative)
      send_guarantees();
    else
      gvt_duties(processed == 0 && received == 0);
    const bool progressed = processed > 0 || received > 0 || gvt_ != gvt_before;
    flush();
    publish_progress(false);
    if (finished()) break;
    if (watch_ && !watch_(committed_horizon())) throw Interrupted();
    if (!progressed) wait_for_messages();
  }
  publish_progress(true);
  if (settings_.sync == GroupSync::conservative && transport_ && !stopped_)
    transport_->finished(self_);
}

void EventGroup::begin() {
  if (!continued_) start_components();
  flush();
}

std::optional<EventKey> EventGroup::next_key() const {
  const auto next = next_event();
  if (next == pending_.end() || !(next->key.time < settings_.end)) return std::nullopt;
  return next->key;
}

std::size_t EventGroup::settle() {
  if (transport_) receive(std::chrono::microseconds(0));
  std::size_t processed = 0;
  for (std::size_t batch = process_batch(); batch > 0; batch = process_batch()) processed += batch;
  if (settings_.sync == GroupSync::conservative) send_guarantees();
  flush();
  publish_progress(true);
  return processed;
}

void EventGroup::publish_progress(bool now) {
  const std::uint64_t at = monotonic_ns();
  if (!now && at - published_ns_ < progress_period_ns) return;
  published_ns_ = at;
  GroupProgress p;
  p.clock = clock_;
  p.committed_to = committed_horizon();
  for (const LogicalProcess& lp : lps_) p.events += lp.figures();
  p.null_messages = figures_.null_messages;
  p.messages = figures_.messages;
  std::lock_guard lock(progress_mutex_);
  published_ = p;
}

GroupProgress EventGroup::progress() const {
  std::lock_guard lock(progress_mutex_);
  return published_;
}

void EventGroup::start_components() {
  for (LogicalProcess& lp : lps_) {
    outbox_.clear();
    EventContext context(model_, lp.id(), 0.0, lp.state(), outbox_);
    model_.start(context);
    for (const Event& event : outbox_) route(event);
  }
}

std::size_t EventGroup::process_batch() {
  std::size_t processed = 0;
  while (processed < settings_.batch) {
    // Lazy cancellation: withdraw first what can no longer be resent (it may be the next
    // event itself, or roll a component back to an earlier one).
    if (!lazy_.empty())
      if (const auto next = next_event(); next != pending_.end()) settle_lazy(next->key, false);
    const auto next = next_event();
    if (next == pending_.end() || !may_process(*next)) break;
    process_next(next);
    ++processed;
  }
  return processed;
}

EventGroup::Pending::const_iterator EventGroup::next_event() const {
  // The events of a component held by a deferred error wait until it resolves; the group's
  // other components go on.
  auto next = pending_.begin();
  if (held_ == 0) return next;
  while (next != pending_.end() && errors_[local_index_[next->destination]]) ++next;
  return next;
}

bool EventGroup::may_process(const Event& next) const {
  if (!(next.key.time < settings_.end && next.key.time < hold_)) return false;
  // Optimistic: within the window past GVT, and always the event at GVT itself (no event is
  // earlier anywhere), so that a window too small to reach the next event, 1e-300 next to
  // times near 1, slows a run down but never stops it.
  if (settings_.sync == GroupSync::optimistic)
    return next.key.time < gvt_ + settings_.window || next.key.time <= gvt_;
  return next.key.time < safe_ || (permit_ && next.key <= *permit_);
}

void EventGroup::process_next(Pending::const_iterator next) {
  const Event event = *next;
  const std::uint32_t index = local_index_[event.destination];
  LogicalProcess& lp = lps_[index];
  const bool optimistic = settings_.sync == GroupSync::optimistic;
  UndoLog* undo = optimistic ? lp.save_before(event) : nullptr;
  std::optional<ComponentState> before;
  if (settings_.rollback_check && !optimistic) before = lp.state();
  outbox_.clear();
  EventContext context(model_, lp.id(), event.key.time, lp.state(), outbox_, undo);
  try {
    model_.handle(event, context);
  } catch (const ModelError&) {
    // A conservative state is final, and so is its error. An optimistic one may belong to
    // a state a rollback will undo: only GVT can tell.
    if (!optimistic) throw;
    defer_error(lp, event, std::current_exception());
    return;
  }
  if (settings_.rollback_check) check_reexecution(lp, event, before ? &*before : nullptr);
  // Only a handled event leaves the pending list: a run that fails on one has not passed
  // it, and its committed horizon says so.
  pending_.erase(next);
  ++lp.figures().processed;
  clock_ = event.key.time;
  if (optimistic) {
    lp.close_entry();
    for (const Event& sent : outbox_) lp.record_sent(sent);
    ++events_since_round_;
    if (!lazy_.empty()) {
      // A re-execution: what it sends again unchanged was never withdrawn and stands.
      std::size_t kept = 0;
      for (const Event& sent : outbox_)
        if (!resent_unchanged(sent)) outbox_[kept++] = sent;
      outbox_.resize(kept);
    }
  } else {
    last_processed_[index] = event.key;
    if (permit_ && event.key == *permit_) {
      permit_.reset();
      ++figures_.permits;
    }
    commit(lp.id(), event);
  }
  for (const Event& sent : outbox_) route(sent);
  // Lazy cancellation: the rest of what this event sent before it was undone is withdrawn,
  // after its new events are out (a withdrawal may roll this very event back, and then its
  // new events must be where a cancellation finds them).
  if (optimistic && !lazy_.empty()) settle_lazy(event.key, true);
}

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_events(const std::vector<Event>& a, const std::vector<Event>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Event& x, const Event& y) {
    return x.key == y.key && x.destination == y.destination && x.kind == y.kind &&
           std::memcmp(&x.value, &y.value, sizeof(double)) == 0;
  });
}

}  // namespace

void EventGroup::check_reexecution(LogicalProcess& lp, const Event& event,
                                   const ComponentState* before) {
  const ComponentState after = lp.state();
  const std::vector<Event> sent = outbox_;
  UndoLog* undo = nullptr;
  if (before) {
    lp.state() = *before;
  } else {
    // As a rollback undoes it (the entry the handler closes, restored), and saved again.
    lp.close_entry();
    lp.undo_newest();
    --lp.figures().rolled_back;  // a check, not a rollback
    undo = lp.save_before(event);
  }
  outbox_.clear();
  EventContext context(model_, lp.id(), event.key.time, lp.state(), outbox_, undo);
  model_.handle(event, context);
  const bool same_state = same_bits(lp.state().values, after.values) &&
                          lp.state().random == after.random && lp.state().sent == after.sent;
  if (same_state && same_events(outbox_, sent)) return;
  throw ModelError(model_.component_name(lp.id()),
                   "rollback check: handling " + describe(model_, event) +
                       " again after a restore gave " +
                       (same_state ? "other events" : "another state"));
}

void EventGroup::defer_error(LogicalProcess& lp, const Event& event, std::exception_ptr error) {
  // Undo what the handler did before it threw: the state saved before the event comes back
  // and what it sent never goes out. The attempt counts as processed and rolled back, like
  // any speculative work that was wasted.
  lp.close_entry();
  ++lp.figures().processed;
  lp.undo_newest();
  outbox_.clear();
  errors_[local_index_[lp.id()]] = DeferredError{event.key, std::move(error)};
  ++held_;
  ++figures_.deferred_errors;
  // Lazy cancellation: this execution sent nothing, so what the event sent before it was
  // undone is withdrawn, as after any re-execution.
  if (!lazy_.empty()) settle_lazy(event.key, true);
}

void EventGroup::reconsider(ComponentId component, const EventKey& key) {
  // An event at or before the failed one arrives or is cancelled (rolling the component
  // back if it had passed it): the failed event will run again, perhaps on another state.
  std::optional<DeferredError>& error = errors_[local_index_[component]];
  if (!error || error->key < key) return;
  error.reset();
  --held_;
  ++figures_.cleared_errors;
}

const EventGroup::DeferredError* EventGroup::real_error(double gvt) const {
  const DeferredError* real = nullptr;
  for (const auto& error : errors_)
    if (error && error->key.time < gvt && (!real || error->key < real->key)) real = &*error;
  return real;
}

void EventGroup::commit(ComponentId component, const Event& event) {
  sink_.committed(component, event);
  if (settings_.sync == GroupSync::conservative) ++local(component).figures().committed;
}

void EventGroup::route(const Event& event) {
  const GroupId to = owner_[event.destination];
  if (to == self_)
    deliver(event);
  else
    post(to, MessageKind::event, event);
}

void EventGroup::post(GroupId to, MessageKind kind, const Event& event) {
  GroupMessage message;
  message.kind = kind;
  message.from = self_;
  message.colour = epoch_;
  message.event = event;
  outgoing_[to].push_back(std::move(message));
  ++figures_.messages;
  if (settings_.sync == GroupSync::optimistic) {
    ++sent_in_colour_[epoch_ % 2][to];
    red_minimum_ = std::min(red_minimum_, event.key.time);
  }
}

void EventGroup::deliver(const Event& event) {
  const std::uint32_t index = local_index_[event.destination];
  LogicalProcess& lp = lps_[index];
  if (settings_.sync == GroupSync::optimistic) {
    reconsider(lp.id(), event.key);
    if (lp.processed_since(event.key)) {
      ++lp.figures().stragglers;
      rollback(lp, event.key);
    }
  } else if (event.key < last_processed_[index]) {
    throw ProtocolError(name_, "causality violation: " + describe(model_, event) + " for " +
                                   model_.component_name(lp.id()) +
                                   " arrived after a later event was processed");
  }
  add_pending(event);
}

void EventGroup::add_pending(const Event& event) {
  // Events far ahead of the group's clock wait here: a model that schedules millions at once
  // or a peer that floods it ends the run with this error, not with the memory exhausted.
  if (pending_.size() >= max_pending)
    throw ModelError(name_, "more than " + std::to_string(max_pending) +
                                " events pending (the memory budget): the model schedules "
                                "that many at once, or a peer sends events far ahead");
  // Keys are unique (sender, serial): a second event with a key already pending would be a
  // lost event, never a silent one.
  if (!pending_.insert(event).second)
    throw ProtocolError(name_, "two events with one key: " + describe(model_, event) + " for " +
                                   model_.component_name(event.destination));
}

void EventGroup::cancel(const Event& event) {
  LogicalProcess& lp = local(event.destination);
  reconsider(lp.id(), event.key);
  if (lp.processed_since(event.key)) rollback(lp, event.key);
  const auto it = pending_.find(event.key);
  if (it == pending_.end())
    throw ProtocolError(name_, "an anti-message cancels " + describe(model_, event) + ", which " +
                                   model_.component_name(lp.id()) + " never received");
  pending_.erase(it);
}

void EventGroup::rollback(LogicalProcess& lp, const EventKey& key) {
  const std::uint64_t begin = monotonic_ns();
  ++lp.figures().rollbacks;
  clock_ = std::min(clock_, key.time);
  while (lp.processed_since(key)) {
    LogicalProcess::Undone undone = lp.undo_newest();
    add_pending(undone.event);
    for (const Event& sent : undone.sent) {
      if (settings_.cancellation == Cancellation::lazy)
        hold(undone.event.key, sent);
      else
        withdraw(lp, sent);
    }
  }
  activity_.record(ActivityKind::rollback, begin, monotonic_ns(), SpanTag{ActivityCall::rollback});
}

void EventGroup::withdraw(LogicalProcess& lp, const Event& sent) {
  ++lp.figures().anti_messages;
  const GroupId to = owner_[sent.destination];
  if (to == self_)
    cancel(sent);
  else
    post(to, MessageKind::anti_event, sent);
}

void EventGroup::hold(const EventKey& parent, const Event& sent) {
  lazy_.emplace(sent.key, Held{parent, sent});
  lazy_by_parent_.emplace(parent, sent.key);
}

std::optional<Event> EventGroup::take_held(const EventKey& key) {
  const auto it = lazy_.find(key);
  if (it == lazy_.end()) return std::nullopt;
  const Held held = it->second;
  lazy_.erase(it);
  lazy_by_parent_.erase({held.parent, key});
  return held.event;
}

bool EventGroup::resent_unchanged(const Event& sent) {
  const std::optional<Event> old = take_held(sent.key);
  if (!old) return false;
  if (old->destination == sent.destination && old->kind == sent.kind && old->value == sent.value)
    return true;
  // The same key with other content: the old event goes before the new one comes, so that
  // no receiver ever holds two events with one key. (It cannot roll back the event being
  // processed: the old one is later than it.)
  withdraw(local(old->key.source), *old);
  return false;
}

void EventGroup::settle_lazy(EventKey bound, bool inclusive) {
  // The group processes in key order: an undone event below the bound can no longer be
  // re-executed before later events, so what it sent and nothing re-sent is withdrawn.
  while (!lazy_by_parent_.empty()) {
    const auto [parent, key] = *lazy_by_parent_.begin();
    if (!(parent < bound || (inclusive && parent == bound))) break;
    const Event sent = *take_held(key);
    withdraw(local(sent.key.source), sent);  // may roll back and hold more: read afresh
  }
}

void EventGroup::settle_lazy_before_next() {
  if (lazy_.empty()) return;
  // Nothing will be processed before the next GVT: withdraw everything below the next event
  // the group may process (everything, when there is none; a component held by an error
  // re-executes nothing before GVT decides it), so that GVT may pass it.
  const auto next = next_event();
  if (next == pending_.end())
    settle_lazy(EventKey{infinity, 0, 0}, true);
  else if (!may_process(*next))
    settle_lazy(next->key, false);
}

std::size_t EventGroup::receive(std::chrono::microseconds wait) {
  inbox_.clear();
  figures_.blocked_seconds += transport_->receive(self_, inbox_, wait);
  for (GroupMessage& message : inbox_) handle(message);
  return inbox_.size();
}

void EventGroup::handle(GroupMessage& message) {
  switch (message.kind) {
    case MessageKind::event:
      ++received_in_colour_[message.colour % 2];
      deliver(message.event);
      break;
    case MessageKind::anti_event:
      ++received_in_colour_[message.colour % 2];
      cancel(message.event);
      break;
    case MessageKind::guarantee:
      set_guarantee(message.from, message.time);
      break;
    case MessageKind::gvt_token:
      handle_token(std::move(message.token));
      break;
    case MessageKind::gvt:
      apply_gvt(message.time);
      break;
    case MessageKind::lower_bound:
      for (GroupId g = 0; g < groups_; ++g)
        if (channel_[g]) set_guarantee(g, message.time);
      break;
    case MessageKind::stop:
      stopped_ = true;
      break;
  }
}

void EventGroup::flush() {
  if (!transport_) return;
  for (GroupId g = 0; g < groups_; ++g)
    if (!outgoing_[g].empty()) {
      if (g != self_) ++figures_.batches;
      transport_->send(g, outgoing_[g]);
    }
}

double EventGroup::committed_horizon() const {
  const double horizon = settings_.sync == GroupSync::optimistic ? gvt_ : lower_bound();
  return std::min(horizon, settings_.end);
}

bool EventGroup::finished() const {
  if (settings_.sync == GroupSync::optimistic) return gvt_ >= settings_.end;
  return lower_bound() >= settings_.end;
}

void EventGroup::wait_for_messages() {
  constexpr auto patience = std::chrono::milliseconds(50);
  if (settings_.sync == GroupSync::optimistic) {
    // Group 0 starts the GVT rounds that end an idle spell; the others just listen.
    receive(self_ == 0 ? std::chrono::microseconds(500) : patience);
    return;
  }
  BlockedGroup state;
  if (!pending_.empty() && pending_.begin()->key.time < settings_.end)
    state.next = pending_.begin()->key;
  state.safe = safe_;
  for (GroupId g = 0; g < groups_; ++g)
    if (channel_[g] && *channel_[g] == safe_) {
      state.waits_for = g;
      break;
    }
  transport_->blocked(self_, state);
  std::size_t received = 0;
  while (!stopped_ && received == 0) {
    received = receive(patience);
    if ((permit_ = transport_->take_permit(self_))) break;
  }
  transport_->unblocked(self_);
}

// ---- conservative ----------------------------------------------------------------------

void EventGroup::set_guarantee(GroupId from, double time) {
  if (from >= groups_ || !channel_[from])
    throw ProtocolError(name_, "a guarantee from group " + std::to_string(from) +
                                   ", which has no link to this group");
  if (time <= *channel_[from]) return;  // guarantees only grow
  channel_[from] = time;
  safe_ = infinity;
  for (const auto& c : channel_)
    if (c) safe_ = std::min(safe_, *c);
}

double EventGroup::lower_bound() const {
  // The earliest event this group may still process: its next pending one below the end,
  // or one that arrives at or after its safe time.
  double bound = safe_;
  if (!pending_.empty() && pending_.begin()->key.time < settings_.end)
    bound = std::min(bound, pending_.begin()->key.time);
  return bound;
}

void EventGroup::send_guarantees() {
  if (!transport_) return;
  const double bound = lower_bound();
  for (GroupId g = 0; g < groups_; ++g) {
    if (!out_lookahead_[g]) continue;
    const double guarantee = bound + *out_lookahead_[g];
    if (!(guarantee > sent_guarantee_[g])) continue;
    sent_guarantee_[g] = guarantee;
    GroupMessage message;
    message.kind = MessageKind::guarantee;
    message.from = self_;
    message.time = guarantee;
    outgoing_[g].push_back(std::move(message));
    ++figures_.null_messages;
  }
}

// ---- optimistic: Mattern's GVT -----------------------------------------------------------
//
// Every event and anti-event carries the colour (GVT epoch) of its sender. Round 1 of the
// token turns each group to the new colour and sums what each sent in the old colour, per
// receiver. Round 2 waits at each group until everything of the old colour sent to it has
// arrived, then takes the minimum of its pending events and of everything it sent in the
// new colour. No event below that minimum can be in transit or pending anywhere: it is GVT.

void EventGroup::gvt_duties(bool idle) {
  settle_lazy_before_next();
  if (held_token_) try_release_token();
  if (self_ == 0 && !round_running_ && (idle || events_since_round_ >= settings_.gvt_interval))
    start_gvt_round();
  figures_.peak_uncommitted = std::max(figures_.peak_uncommitted, [&] {
    std::size_t total = 0;
    for (const LogicalProcess& lp : lps_) total += lp.uncommitted();
    return total;
  }());
}

void EventGroup::start_gvt_round() {
  round_running_ = true;
  events_since_round_ = 0;
  GvtToken token;
  token.epoch = epoch_ + 1;
  token.in_transit.assign(groups_, 0);
  token.minimum = infinity;
  cut_one(token);
  forward_token(std::move(token));
}

void EventGroup::cut_one(GvtToken& token) {
  const std::uint64_t old = epoch_;
  epoch_ = token.epoch;
  for (GroupId g = 0; g < groups_; ++g) {
    token.in_transit[g] += sent_in_colour_[old % 2][g];
    sent_in_colour_[old % 2][g] = 0;
  }
  red_minimum_ = infinity;
}

void EventGroup::handle_token(GvtToken token) {
  if (token.round == 1 && self_ != 0) {
    cut_one(token);
    forward_token(std::move(token));
    return;
  }
  if (token.round == 2 && self_ == 0) {
    round_running_ = false;
    ++figures_.gvt_rounds;
    apply_gvt(token.minimum);
    for (GroupId g = 1; g < groups_; ++g) {
      GroupMessage message;
      message.kind = MessageKind::gvt;
      message.from = self_;
      message.time = token.minimum;
      outgoing_[g].push_back(std::move(message));
    }
    return;
  }
  token.round = 2;  // round 1 came back to group 0, or round 2 reached another group
  held_token_ = std::move(token);
  try_release_token();
}

void EventGroup::try_release_token() {
  GvtToken& token = *held_token_;
  const std::uint64_t old = token.epoch - 1;
  if (received_in_colour_[old % 2] < token.in_transit[self_]) return;
  if (received_in_colour_[old % 2] > token.in_transit[self_])
    throw ProtocolError(name_, "received more events of an old colour than were sent");
  received_in_colour_[old % 2] = 0;
  settle_lazy_before_next();
  token.minimum = std::min({token.minimum, local_minimum(), red_minimum_});
  GvtToken released = std::move(token);
  held_token_.reset();
  forward_token(std::move(released));
}

void EventGroup::forward_token(GvtToken token) {
  const GroupId next = (self_ + 1) % groups_;
  if (next == self_) {  // alone: the token comes straight back
    handle_token(std::move(token));
    return;
  }
  GroupMessage message;
  message.kind = MessageKind::gvt_token;
  message.from = self_;
  message.token = std::move(token);
  outgoing_[next].push_back(std::move(message));
}

double EventGroup::local_minimum() const {
  double minimum = infinity;
  for (const Event& event : pending_) {
    if (!(event.key.time < minimum)) break;
    const std::optional<DeferredError>& error = errors_[local_index_[event.destination]];
    if (!error) {
      minimum = event.key.time;
      break;
    }
    // A held component's events count just above its error's time: nothing can clear the
    // error without an event at or before that time, so a GVT beyond it proves the error
    // real (apply_gvt), and counting them at it would hold GVT there for ever.
    const double above = std::nextafter(error->key.time, infinity);
    minimum = std::min(minimum, std::max(event.key.time, above));
  }
  // Lazy cancellation: an event not yet withdrawn may still roll its receiver back to it.
  if (!lazy_by_parent_.empty()) minimum = std::min(minimum, lazy_by_parent_.begin()->first.time);
  return minimum;
}

void EventGroup::apply_gvt(double gvt) {
  if (gvt <= gvt_) return;
  // An error standing below GVT is real: nothing can arrive any more to undo it. What came
  // before its event is committed, then the run fails as a sequential run would.
  const DeferredError* real = real_error(gvt);
  const double horizon = real ? real->key.time : gvt;
  if (horizon > gvt_) {
    const std::uint64_t begin = monotonic_ns();
    gvt_ = horizon;
    for (LogicalProcess& lp : lps_)
      lp.fossil_collect(horizon, [&](const Event& event) { sink_.committed(lp.id(), event); });
    activity_.record(ActivityKind::busy, begin, monotonic_ns(), SpanTag{ActivityCall::commit});
  }
  if (real) std::rethrow_exception(real->error);
}

}  // namespace kausal::des

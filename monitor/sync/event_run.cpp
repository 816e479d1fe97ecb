#include "monitor/sync/event_run.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <thread>

#include "common/errors.hpp"
#include "integrator/events/event_recorder.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/injections.hpp"

namespace kausal {

void check_event_run(const des::EventModel& model, const EventRunSpec& spec) {
  if (model.components() == 0) throw InputError(model.name() + ": the model has no components");
  if (!(std::isfinite(spec.end) && spec.end > 0))
    throw InputError("end: must be a positive, finite time");
  if (spec.method != SyncMethod::sequential &&
      (spec.groups < 1 || spec.groups > model.components()))
    throw InputError("groups: must be between 1 and the number of components (" +
                     std::to_string(model.components()) + ")");
  if (spec.window && !(*spec.window > 0)) throw InputError("window: must be positive");
  if (spec.batch < 1) throw InputError("batch: must be at least 1");
  if (spec.gvt_interval < 1) throw InputError("gvt_interval: must be at least 1");
}

des::GroupSettings group_settings(const des::EventModel& model, const EventRunSpec& spec) {
  des::GroupSettings settings;
  settings.sync = spec.method == SyncMethod::optimistic ? des::GroupSync::optimistic
                                                        : des::GroupSync::conservative;
  settings.end = spec.end;
  settings.window = spec.window ? *spec.window : default_window(model);
  settings.saving = spec.saving;
  settings.cancellation = spec.cancellation;
  settings.batch = spec.batch;
  settings.gvt_interval = spec.gvt_interval;
  settings.rollback_check = spec.rollback_check;
  return settings;
}

std::string group_name(const des::EventModel& model, const std::vector<des::GroupId>& owner,
                       des::GroupId g) {
  std::vector<des::ComponentId> members;
  for (des::ComponentId c = 0; c < owner.size(); ++c)
    if (owner[c] == g) members.push_back(c);
  if (members.empty()) return "group-" + std::to_string(g);
  if (members.size() == 1) return model.component_name(members.front());
  return "group-" + std::to_string(g) + " (" + model.component_name(members.front()) + " … " +
         model.component_name(members.back()) + ")";
}

std::vector<des::GroupId> contiguous_groups(std::size_t components, std::uint32_t groups) {
  std::vector<des::GroupId> owner(components);
  const std::size_t base = components / groups, larger = components % groups;
  std::size_t c = 0;
  for (des::GroupId g = 0; g < groups; ++g)
    for (std::size_t n = 0; n < base + (g < larger ? 1 : 0); ++n) owner[c++] = g;
  return owner;
}

double default_window(const des::EventModel& model) {
  double smallest = std::numeric_limits<double>::infinity();
  const auto n = static_cast<des::ComponentId>(model.components());
  for (des::ComponentId i = 0; i < n; ++i)
    for (des::ComponentId j = 0; j < n; ++j)
      if (const auto l = model.lookahead(i, j); l && *l > 0) smallest = std::min(smallest, *l);
  return 4 * smallest;
}

des::ComponentFigures EventRunResult::total() const {
  des::ComponentFigures sum;
  for (const auto& c : components) sum += c;
  return sum;
}

double EventRunResult::committed_per_second() const {
  return wall_seconds > 0 ? static_cast<double>(total().committed) / wall_seconds : 0.0;
}

double EventRunResult::efficiency() const {
  const auto sum = total();
  return sum.processed ? static_cast<double>(sum.committed) / static_cast<double>(sum.processed)
                       : 1.0;
}

namespace {

// Adds one stretch's figures to the run's.
void add_stretch(EventRunResult& total, const EventRunResult& stretch) {
  if (total.groups.empty()) {
    total.groups.resize(stretch.groups.size());
    total.activity.resize(stretch.groups.size());
    total.dropped_spans.assign(stretch.groups.size(), 0);
  }
  for (std::size_t c = 0; c < stretch.components.size(); ++c)
    total.components[c] += stretch.components[c];
  for (std::size_t g = 0; g < stretch.groups.size(); ++g) {
    const des::GroupFigures& f = stretch.groups[g];
    des::GroupFigures& sum = total.groups[g];
    sum.messages += f.messages;
    sum.null_messages += f.null_messages;
    sum.batches += f.batches;
    sum.gvt_rounds += f.gvt_rounds;
    sum.permits += f.permits;
    sum.blocked_seconds += f.blocked_seconds;
    sum.wall_seconds += f.wall_seconds;
    sum.peak_uncommitted = std::max(sum.peak_uncommitted, f.peak_uncommitted);
    sum.deferred_errors += f.deferred_errors;
    sum.cleared_errors += f.cleared_errors;
    // The trace keeps the first spans of the run, as one group's trace does.
    auto& spans = total.activity[g];
    const auto& page = stretch.activity[g];
    const std::size_t room =
        ActivityTrace::default_capacity - std::min(spans.size(), ActivityTrace::default_capacity);
    const std::size_t kept = std::min(room, page.size());
    spans.insert(spans.end(), page.begin(), page.begin() + static_cast<std::ptrdiff_t>(kept));
    total.dropped_spans[g] += stretch.dropped_spans[g] + (page.size() - kept);
  }
  total.deadlocks += stretch.deadlocks;
  total.places = stretch.places;
}

// What a finished stretch did, per group (its groups hold contiguous blocks).
std::vector<des::GroupProgress> progress_of(const EventRunResult& stretch, double reached) {
  std::vector<des::GroupProgress> groups(stretch.groups.size());
  if (groups.empty()) return groups;  // a stretch that failed before it had figures
  const auto owner = contiguous_groups(stretch.components.size(),
                                       static_cast<std::uint32_t>(stretch.groups.size()));
  for (des::ComponentId c = 0; c < stretch.components.size(); ++c)
    groups[owner[c]].events += stretch.components[c];
  for (des::GroupId g = 0; g < groups.size(); ++g) {
    groups[g].clock = groups[g].committed_to = reached;
    groups[g].null_messages = stretch.groups[g].null_messages;
    groups[g].messages = stretch.groups[g].messages;
  }
  return groups;
}

// The first group's watch over the whole stretch: every progress_period, the progress
// every group has published.
std::function<bool(double)> watch_members(
    const std::vector<std::unique_ptr<des::EventGroup>>& members, const EventWatch& watch) {
  if (!watch) return {};
  constexpr auto period =
      std::chrono::duration_cast<std::chrono::nanoseconds>(progress_period).count();
  return [&members, &watch, last = std::uint64_t{0}](double) mutable {
    const std::uint64_t now = monotonic_ns();
    if (now - last < static_cast<std::uint64_t>(period)) return true;
    last = now;
    EventProgress p;
    p.committed_to = std::numeric_limits<double>::infinity();
    for (const auto& member : members) {
      p.groups.push_back(member->progress());
      p.committed_to = std::min(p.committed_to, p.groups.back().committed_to);
    }
    return watch(p);
  };
}

// The groups of one stretch on threads of this process, exchanging through mailboxes.
Stretch run_stretch_here(const des::EventModel& model, const EventRunSpec& spec,
                         const std::vector<des::GroupId>& owner, const des::GroupSettings& settings,
                         const EventResumePoint* from, const EventWatch& watch) {
  const auto groups = static_cast<std::uint32_t>(*std::max_element(owner.begin(), owner.end()) + 1);
  EventRecorder recorder(model.components());
  if (from) recorder.restore(from->digests);
  des::MailboxExchange exchange(groups, spec.deadlock,
                                [&](des::GroupId g) { return group_name(model, owner, g); });
  des::GroupTransport* transport =
      groups > 1 || settings.sync == des::GroupSync::optimistic ? &exchange : nullptr;
  std::vector<std::unique_ptr<des::EventGroup>> members;
  for (des::GroupId g = 0; g < groups; ++g) {
    members.push_back(std::make_unique<des::EventGroup>(
        model, g, owner, settings, transport, recorder,
        g == 0 ? watch_members(members, watch) : std::function<bool(double)>{}));
    if (from) members.back()->continue_from(from->cut);
  }
  std::vector<std::exception_ptr> errors(groups);
  std::vector<double> wall(groups, 0.0);
  const auto run_group = [&](des::GroupId g) {
    const auto begin = std::chrono::steady_clock::now();
    try {
      members[g]->run();
    } catch (const std::exception& e) {
      errors[g] = std::current_exception();
      exchange.stop_all(e.what());
    }
    wall[g] = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  if (groups == 1) {
    run_group(0);
  } else {
    std::vector<std::jthread> threads;
    for (des::GroupId g = 0; g < groups; ++g) threads.emplace_back(run_group, g);
  }
  Stretch out;
  EventRunResult& f = out.figures;
  f.components.resize(model.components());
  for (des::GroupId g = 0; g < groups; ++g) {
    f.groups.push_back(members[g]->figures());
    f.groups.back().wall_seconds = wall[g];
    const ActivityTrace& activity = members[g]->activity();
    f.activity.push_back(activity.page(0, ActivityTrace::default_capacity));
    f.dropped_spans.push_back(activity.dropped());
    for (const des::LogicalProcess& lp : members[g]->components())
      f.components[lp.id()] = lp.figures();
  }
  f.deadlocks = exchange.deadlocks();
  for (const auto& error : errors)
    if (error && !f.failure) f.failure = error;
  if (const auto failure = exchange.failure(); failure && !f.failure)
    f.failure = std::make_exception_ptr(SimulationError(*failure));
  des::EventCut cut;
  cut.time = settings.end;
  cut.states.resize(model.components());
  if (!f.failure) {
    try {
      for (const auto& member : members) member->add_to_cut(cut);
    } catch (const std::exception&) {
      f.failure = std::current_exception();
    }
  }
  f.committed_to = settings.end;
  f.digest = recorder.digest();
  if (f.failure) {
    for (const auto& member : members)
      f.committed_to = std::min(f.committed_to, member->committed_horizon());
    return out;
  }
  std::sort(cut.pending.begin(), cut.pending.end(),
            [](const des::Event& a, const des::Event& b) { return a.key < b.key; });
  for (des::ComponentId c = 0; c < model.components(); ++c)
    cut.committed.push_back(f.components[c].committed);
  out.cut = EventResumePoint{std::move(cut), recorder.midstates()};
  return out;
}

// How far the next stretch goes: cuts about `target` seconds of wall time apart. A stretch
// is at most 64 times longer (a short run is done in three stretches) or four times shorter
// than the last, and none is shorter than `floor`.
double next_length(double length, double wall, double target, double floor) {
  const double scale = wall > 0 ? std::clamp(target / wall, 0.25, 64.0) : 64.0;
  return std::max(length * scale, floor);
}

}  // namespace

std::string event_run_digest(const std::vector<Sha256::Midstate>& digests) {
  std::vector<std::string> components;
  for (const Sha256::Midstate& m : digests) {
    Sha256 sha;
    sha.restore(m);
    components.push_back(sha.hex());
  }
  return combine_component_digests(components);
}

namespace {

// Ends the run with `failure`: as it is when it is a kausal::Error, else as a SimulationError
// with its words (a component's own exception).
[[noreturn]] void end_with(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw SimulationError(e.what());
  }
}

class GroupsHere final : public PlacedEventGroups {
 public:
  GroupsHere(const des::EventModel& model, const EventRunSpec& spec)
      : model_(model),
        spec_(spec),
        owner_(contiguous_groups(model.components(),
                                 spec.method == SyncMethod::sequential ? 1 : spec.groups)) {}
  Stretch stretch(const des::GroupSettings& settings, const EventResumePoint* from,
                  const EventWatch& watch) override {
    return run_stretch_here(model_, spec_, owner_, settings, from, watch);
  }

 private:
  const des::EventModel& model_;
  const EventRunSpec spec_;
  const std::vector<des::GroupId> owner_;
};

}  // namespace

std::unique_ptr<PlacedEventGroups> event_groups_here(const des::EventModel& model,
                                                     const EventRunSpec& spec) {
  check_event_run(model, spec);
  return std::make_unique<GroupsHere>(model, spec);
}

EventStretches::EventStretches(const des::EventModel& model, const EventRunSpec& spec,
                               PlacedEventGroups& groups, const EventWatch& watch,
                               const EventCutSink& cuts)
    : model_(model),
      spec_(spec),
      groups_(groups),
      watch_(watch),
      cuts_(cuts),
      settings_(group_settings(model, spec)) {
  result_.components.resize(model.components());
  if (spec.from) at_ = *spec.from;
  const double start = at_ ? at_->cut.time : 0.0;
  // At most about a thousand cuts, however fast the stretches go. The first stretch is the
  // shortest, to measure how fast the run goes. A stretch that runs four times longer than a
  // cut's worth of wall time is stopped and run again shorter (see too_long_): with an end
  // far beyond what the run reaches, even the first stretch (a thousandth of the run) once
  // went on for ever without a cut.
  floor_ = (spec.end - start) / 1000;
  length_ = spec.cut_seconds > 0 ? floor_ : spec.end - start;
  result_.committed_to = start;
  if (at_) result_.digest = event_run_digest(at_->digests);
}

void EventStretches::apply(const Injection& injection) {
  if (injection.kind != InjectionKind::send) return;
  const EventAddress to = event_address(model_, injection.target);
  const double time = time_of(injection.step, spec_.end);
  // The loop applies an injection once the run is committed to its position and holds
  // everyone there: the last cut is at its time.
  if (!at_ || at_->cut.time != time)
    throw SimulationError("an event sent at position " + std::to_string(injection.step) +
                          " found the run committed elsewhere");
  injected_ = injection.step == injected_at_ ? injected_ + 1 : 0;
  injected_at_ = injection.step;
  des::Event event;
  event.key = {time, to.component,
               (std::uint64_t{1} << 63) + injection.step * Injections::kMaxPerStep + injected_};
  event.destination = to.component;
  event.kind = to.kind;
  event.value = injection.value;
  auto& pending = at_->cut.pending;
  const auto place =
      std::upper_bound(pending.begin(), pending.end(), event,
                       [](const des::Event& a, const des::Event& b) { return a.key < b.key; });
  pending.insert(place, event);
}

EventAddress event_address(const des::EventModel& model, const std::string& target) {
  // Names are short: a longer target is refused before it is echoed in a message.
  constexpr std::size_t kLongestTarget = 256;
  if (target.size() > kLongestTarget)
    throw InputError("send: a target of " + std::to_string(target.size()) +
                     " characters (at most " + std::to_string(kLongestTarget) + ")");
  const std::size_t dot = target.find('.');
  const std::string component = target.substr(0, dot);
  EventAddress to;
  bool found = false;
  for (des::ComponentId c = 0; c < model.components() && !found; ++c)
    if (model.component_name(c) == component) to.component = c, found = true;
  if (!found)
    throw InputError("send: no component '" + component + "' in model " + model.name() +
                     " (it has " + model.component_name(0) + " … " +
                     model.component_name(static_cast<des::ComponentId>(model.components() - 1)) +
                     ")");
  if (dot == std::string::npos) return to;
  const std::string kind = target.substr(dot + 1);
  // The kinds a model names are small numbers: looked for among the first 64.
  constexpr std::uint32_t kKindsLookedAt = 64;
  std::uint32_t number = 0;
  const auto parsed = std::from_chars(kind.data(), kind.data() + kind.size(), number);
  if (parsed.ec == std::errc() && parsed.ptr == kind.data() + kind.size()) {
    to.kind = number;
    return to;
  }
  std::string known;
  for (std::uint32_t k = 0; k < kKindsLookedAt; ++k) {
    const std::string name = model.kind_name(k);
    if (name == kind) {
      to.kind = k;
      return to;
    }
    if (name != "event " + std::to_string(k)) known += (known.empty() ? "" : ", ") + name;
  }
  throw InputError("send: model " + model.name() + " has no event kind '" + kind + "' (" +
                   (known.empty() ? std::string("its kinds are numbers") : "it has " + known) +
                   ")");
}

double EventStretches::time_of(std::uint64_t position, double end) {
  if (position >= kPositions) return end;
  return end * static_cast<double>(position) / static_cast<double>(kPositions);
}

std::uint64_t EventStretches::position_of(double committed_to, double end) {
  // Counted with time_of itself: a stretch that ends at a position's time has committed
  // that position, whatever the rounding.
  const double share = committed_to / end * static_cast<double>(kPositions);
  auto p = static_cast<std::uint64_t>(std::clamp(share, 0.0, static_cast<double>(kPositions)));
  while (p < kPositions && time_of(p + 1, end) <= committed_to) ++p;
  while (p > 0 && time_of(p, end) > committed_to) --p;
  return p;
}

std::uint64_t EventStretches::committed() const {
  return position_of(result_.committed_to, spec_.end);
}

bool EventStretches::stretch_watch(const EventProgress& stretch_progress) {
  const auto too_long_after = std::chrono::duration<double>(4 * spec_.cut_seconds);
  if (spec_.cut_seconds > 0 && std::chrono::steady_clock::now() - stretch_begin_ > too_long_after) {
    too_long_ = stretch_progress.committed_to;
    return false;
  }
  if (!watch_) return true;
  EventProgress p = stretch_progress;
  for (std::size_t g = 0; g < std::min(p.groups.size(), done_before_.size()); ++g) {
    des::GroupProgress sum = done_before_[g];
    sum += p.groups[g];
    p.groups[g] = sum;
  }
  return publish(std::move(p));
}

namespace {

des::ComponentFigures at_least(des::ComponentFigures now, const des::ComponentFigures& shown) {
  now.processed = std::max(now.processed, shown.processed);
  now.committed = std::max(now.committed, shown.committed);
  now.rolled_back = std::max(now.rolled_back, shown.rolled_back);
  now.rollbacks = std::max(now.rollbacks, shown.rollbacks);
  now.stragglers = std::max(now.stragglers, shown.stragglers);
  now.anti_messages = std::max(now.anti_messages, shown.anti_messages);
  return now;
}

}  // namespace

// A dropped stretch's commitments are gone (the next stretch makes them again) and its
// counts are folded in below, so what a stretch showed can exceed the figures after it by
// its committed time and committed events; those stay shown until the run passes them.
bool EventStretches::publish(EventProgress progress) {
  if (progress.groups.size() == shown_.groups.size()) {
    progress.committed_to = std::max(progress.committed_to, shown_.committed_to);
    for (std::size_t g = 0; g < progress.groups.size(); ++g) {
      des::GroupProgress& now = progress.groups[g];
      const des::GroupProgress& before = shown_.groups[g];
      now.clock = std::max(now.clock, before.clock);
      now.committed_to = std::max(now.committed_to, before.committed_to);
      now.events = at_least(now.events, before.events);
      now.null_messages = std::max(now.null_messages, before.null_messages);
      now.messages = std::max(now.messages, before.messages);
    }
  }
  shown_ = progress;
  return watch_(progress);
}

// The work of a stretch stopped for running too long counts as done and undone: every event
// it processed is rolled back (the next stretch processes it again), none is committed.
void EventStretches::add_dropped(const EventRunResult& dropped) {
  EventRunResult undone = dropped;
  for (des::ComponentFigures& f : undone.components) {
    f.committed = 0;
    f.rolled_back = f.processed;
  }
  add_stretch(result_, undone);
  const auto counts = progress_of(undone, result_.committed_to);
  if (done_before_.empty()) done_before_.resize(counts.size());
  for (std::size_t g = 0; g < std::min(counts.size(), done_before_.size()); ++g)
    done_before_[g] += counts[g];
}

bool EventStretches::advance(std::uint64_t released) {
  try {
    return next_stretch(released == unpaced ? spec_.end : time_of(released, spec_.end));
  } catch (...) {
    // What ended the run, as it was thrown (a cut refused, a layout that fails), for the
    // callers of result().
    if (!result_.failure) result_.failure = std::current_exception();
    throw;
  }
}

bool EventStretches::next_stretch(double released) {
  if (result_.committed_to >= released) return false;  // paced: until the next release
  settings_.start = result_.committed_to;
  settings_.end = std::min(spec_.end, settings_.start + length_);
  // The last stretch ends exactly at the end, never a rounding short of it; and every
  // stretch ends after its start (an end whose thousandth underflows to 0, or a start so
  // large that adding the length rounds back to it, once gave stretches [t, t] forever).
  if (spec_.end - settings_.end < floor_ || !(settings_.end > settings_.start))
    settings_.end = spec_.end;
  // Paced: no event at or after the released time is processed yet.
  settings_.end = std::min(settings_.end, released);
  stretch_begin_ = std::chrono::steady_clock::now();
  too_long_.reset();
  const EventWatch watch =
      watch_ || spec_.cut_seconds > 0
          ? EventWatch([this](const EventProgress& p) { return stretch_watch(p); })
          : EventWatch{};
  Stretch done = groups_.stretch(settings_, at_ ? &*at_ : nullptr, watch);
  // The groups' time alone sizes the next stretch: what the watch and the cut's sink take
  // after it (a live view, a checkpoint written) is not the stretch's.
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stretch_begin_).count();
  if (too_long_ && !done.cut) {
    // Its work is dropped; the next try ends about a quarter of the way it got (a 64th of
    // its length when it got nowhere), so that it ends within about a cut's time.
    const double reached = std::clamp(*too_long_, settings_.start, settings_.end) - settings_.start;
    length_ = reached > 0 ? reached / 4 : (settings_.end - settings_.start) / 64;
    floor_ = std::min(floor_, length_);
    add_dropped(done.figures);
    return true;
  }
  add_stretch(result_, done.figures);
  const auto finished =
      progress_of(done.figures, done.cut ? settings_.end : done.figures.committed_to);
  if (done_before_.empty()) done_before_.resize(finished.size());
  for (std::size_t g = 0; g < std::min(finished.size(), done_before_.size()); ++g)
    done_before_[g] += finished[g];
  if (!done.cut) {
    result_.failure = done.figures.failure;
    result_.committed_to = std::max(result_.committed_to, done.figures.committed_to);
    result_.digest = done.figures.digest;
    end_with(result_.failure);
  }
  if (at_)
    for (des::ComponentId c = 0; c < model_.components(); ++c)
      done.cut->cut.committed[c] += at_->cut.committed[c];
  at_.emplace(std::move(*done.cut));
  result_.committed_to = at_->cut.time;
  // Exact figures at every cut (the run's last progress among them); a stop is seen by the
  // next stretch's watch.
  if (watch_) publish(EventProgress{result_.committed_to, done_before_});
  result_.digest = event_run_digest(at_->digests);
  if (cuts_) {
    try {
      cuts_(*at_);
    } catch (const std::exception&) {
      result_.failure = std::current_exception();
      end_with(result_.failure);
    }
  }
  if (spec_.cut_seconds > 0) length_ = next_length(length_, wall, spec_.cut_seconds, floor_);
  return true;
}

void EventStretches::finish(RunResult& r) {
  result_.wall_seconds = r.wall_s;
}

EventRunResult run_events(const des::EventModel& model, const EventRunSpec& spec,
                          const EventWatch& watch, const EventCutSink& cuts) {
  const auto groups = event_groups_here(model, spec);
  EventStretches stretches(model, spec, *groups, watch, cuts);
  RunControl unstopped;  // a stop comes through the watch
  execute(stretches, {}, unstopped);
  return stretches.result();
}

}  // namespace kausal

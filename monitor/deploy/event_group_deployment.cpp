#include "monitor/deploy/event_group_deployment.hpp"

#include <omniORB4/omniORB.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "idl/convert.hpp"
#include "idl/event_convert.hpp"
#include "idl/wire_errors.hpp"
#include "integrator/events/deadlock_watch.hpp"
#include "integrator/events/event_recorder.hpp"
#include "monitor/deploy/heartbeat.hpp"

namespace kausal {

namespace {

using Clock = std::chrono::steady_clock;

// How often the monitor looks at the groups: often enough that a deadlock (two quiet
// looks) or a dead process is found within a few milliseconds, rarely enough that the
// looks cost the groups little (a status call is about 30 µs).
constexpr auto kPoll = std::chrono::milliseconds(5);

// The run's groups as the monitor drives them.
class GroupProcesses final : public PlacedEventGroups {
 public:
  GroupProcesses(const EventModelSource& model, const EventRunSpec& spec, OrbRuntime& orb,
                 const LaunchOptions& options)
      : model_(model),
        spec_(spec),
        set_(orb, Layout::process),
        owner_(contiguous_groups(model.built.components(), spec.groups)),
        call_timeout_(options.call_timeout_ms + 1000),
        lost_(spec.groups, false) {
    std::vector<std::string> processes;
    for (des::GroupId g = 0; g < spec.groups; ++g) processes.push_back(event_group_process(g));
    set_.start_each(ComponentRole::event_group, "kausal-event-group", processes, options,
                    {"--groups", "--layout single"});
    for (des::GroupId g = 0; g < spec.groups; ++g)
      refs_.push_back(narrow<idl::EventGroup>(processes[g], set_.component(g).ref));
    // A stopped group is found by its heartbeat and its process ended, so that the call
    // waiting for it returns at once (the supervisor's polls then report it lost).
    heartbeat_ = watch_components(set_, options);
  }
  ~GroupProcesses() {
    heartbeat_.reset();  // groups about to exit are no failure
    set_.shutdown();
  }

  // Each stretch (from cut to cut) sets the groups up again (from the last cut), starts,
  // watches and collects them, in the same processes.
  Stretch stretch(const des::GroupSettings& settings, const EventResumePoint* from,
                  const EventWatch& watch) override {
    failure_ = nullptr;
    deadlocks_ = 0;
    deadlock_watch_ = des::PolledDeadlockWatch();
    pause_ = kPoll;
    end_ = settings.end;
    const auto begin = Clock::now();
    try {
      set_up(settings, from);
      for (des::GroupId g = 0; g < refs_.size(); ++g) call(g, [&] { refs_[g]->start(); });
    } catch (const Error&) {
      // A group that fails its set-up or start: the run fails with it, the others stop.
      failure_ = std::current_exception();
      stop_all();
      Stretch out;
      out.figures = collect(settings).figures;
      return out;
    }
    supervise(watch);
    Stretch out = collect(settings);
    out.figures.wall_seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    return out;
  }

 private:
  template <typename F>
  auto call(des::GroupId g, F&& f) -> decltype(f()) {
    return Heartbeat::call(heartbeat_.get(), set_.component(g).name, std::forward<F>(f));
  }

  std::string name(des::GroupId g) const { return group_name(model_.built, owner_, g); }

  void set_up(const des::GroupSettings& settings, const EventResumePoint* from) {
    des::GroupSetup setup{model_.name, model_.parameters, 0, owner_, settings, {}, {}};
    idl::EventGroupSeq peers;
    peers.length(static_cast<CORBA::ULong>(refs_.size()));
    for (des::GroupId g = 0; g < refs_.size(); ++g) {
      setup.group = g;
      setup.from.clear();
      setup.pending.clear();
      if (from) {
        for (des::ComponentId c = 0; c < owner_.size(); ++c)
          if (owner_[c] == g) setup.from.push_back({c, from->cut.states[c], from->digests[c]});
        for (const des::Event& e : from->cut.pending)
          if (owner_[e.destination] == g) setup.pending.push_back(e);
      }
      const idl::EventGroupSetup wire = to_idl(setup);
      call(g, [&] { refs_[g]->set_up(wire); });
      peers[g] = idl::EventGroup::_duplicate(refs_[g]);
    }
    for (des::GroupId g = 0; g < refs_.size(); ++g) call(g, [&] { refs_[g]->connect(peers); });
  }

  // Polls the groups until every one has ended, stopping them all on the first failure.
  void supervise(const EventWatch& watch) {
    for (;;) {
      // A quiet look is confirmed by a second one at once, and after a permit the next
      // look comes soon: a run that deadlocks often (recovering each time) waits a few
      // status calls per deadlock, not two polls.
      if (!deadlock_watch_.confirming()) {
        std::this_thread::sleep_for(pause_);
        pause_ = std::min<std::chrono::microseconds>(2 * pause_, kPoll);
      }
      std::vector<idl::EventGroupStatus_var> now;
      if (!look(now)) return stop_all();
      bool ended = true;
      EventProgress progress;
      progress.committed_to = end_;
      for (des::GroupId g = 0; g < now.size(); ++g) {
        ended = ended && !now[g]->running;
        progress.committed_to = std::min(progress.committed_to, now[g]->committed_horizon);
        progress.groups.push_back(from_idl(now[g]->progress));
        if (!failure_ && now[g]->failure_kind.in()[0] != '\0')
          failure_ = failure_from_report({now[g]->failure_kind.in(), now[g]->failure_component.in(),
                                          now[g]->failure_reason.in()});
      }
      if (failure_) return stop_all();
      if (ended) return;
      if (watch && !watch(progress)) {
        failure_ = std::make_exception_ptr(Interrupted());
        return stop_all();
      }
      if (spec_.method == SyncMethod::conservative) watch_deadlock(now);
    }
  }

  // Every group's status; false (failure_ set) when one does not answer.
  bool look(std::vector<idl::EventGroupStatus_var>& now) {
    for (des::GroupId g = 0; g < refs_.size(); ++g) {
      try {
        now.push_back(call(g, [&] { return refs_[g]->status(); }));
      } catch (const PeerError& e) {
        lose(g, e);
        return false;
      }
    }
    return true;
  }

  // Group g does not answer: the run fails naming it, and nobody waits for it again.
  void lose(des::GroupId g, const PeerError& e) {
    lost_[g] = true;
    if (!failure_)
      failure_ = std::make_exception_ptr(PeerError(e.component(), dead_reason(g, e.reason())));
  }

  std::string dead_reason(des::GroupId g, const std::string& reason) {
    const LaunchedComponent& c = set_.component(g);
    std::string why = name(g) + " does not answer (" + reason + ")";
    if (c.process && !c.process->running()) why += "; its process " + c.process->status();
    return why + "; its log: " + (c.node.empty() ? "" : "node " + c.node + ", ") +
           event_group_process(g) + ".log";
  }

  // Deadlock (conservative): PolledDeadlockWatch over the groups' status.
  void watch_deadlock(const std::vector<idl::EventGroupStatus_var>& now) {
    std::vector<des::PeerStatus> seen(now.size());
    for (des::GroupId g = 0; g < now.size(); ++g) {
      const idl::EventGroupStatus& s = now[g];
      seen[g].finished = s.finished || !s.running;
      seen[g].idle_blocked = s.idle_blocked;
      if (s.has_next) seen[g].state.next = from_idl(s.next);
      seen[g].state.safe = s.safe;
      seen[g].state.waits_for = s.waits_for;
      seen[g].sent = s.sent;
      seen[g].taken = s.taken;
    }
    std::vector<des::WatchedGroup> groups;
    const des::DeadlockVerdict verdict = deadlock_watch_.look(seen, groups);
    if (verdict.kind == des::DeadlockVerdict::Kind::all_done) {
      des::GroupMessage end;
      end.kind = des::MessageKind::lower_bound;
      end.time = std::numeric_limits<double>::infinity();
      for (des::GroupId g = 0; g < groups.size(); ++g)
        if (!groups[g].finished) send(g, end);
      return;
    }
    if (verdict.kind != des::DeadlockVerdict::Kind::deadlock) return;
    ++deadlocks_;
    const des::GroupId first = verdict.first;
    if (spec_.deadlock == des::DeadlockPolicy::recover) {
      const idl::EventKey key = to_idl(*groups[first].state.next);
      try {
        call(first, [&] { refs_[first]->permit(key); });
        pause_ = std::chrono::microseconds(50);
      } catch (const PeerError& e) {
        lose(first, e);
        stop_all();
      }
      return;
    }
    failure_ = std::make_exception_ptr(
        SimulationError(describe_deadlock(groups, first, [&](des::GroupId g) { return name(g); })));
    stop_all();
  }

  void send(des::GroupId g, const des::GroupMessage& message) {
    if (lost_[g]) return;
    idl::GroupMessageSeq batch;
    batch.length(1);
    batch[0] = to_idl(message);
    try {
      refs_[g]->deliver(batch);
    } catch (const CORBA::Exception&) {
      // Gone: the next look reports it.
    }
  }

  // Tells every group to stop and waits (up to a call timeout) for their threads to end.
  void stop_all() {
    des::GroupMessage stop;
    stop.kind = des::MessageKind::stop;
    for (des::GroupId g = 0; g < refs_.size(); ++g) send(g, stop);
    const auto deadline = Clock::now() + call_timeout_;
    while (Clock::now() < deadline) {
      bool ended = true;
      for (des::GroupId g = 0; g < refs_.size(); ++g) {
        if (lost_[g]) continue;
        try {
          idl::EventGroupStatus_var s = call(g, [&] { return refs_[g]->status(); });
          ended = ended && !s->running;
        } catch (const PeerError& e) {
          lose(g, e);
        }
      }
      if (ended) return;
      std::this_thread::sleep_for(kPoll);
    }
  }

  // What every group committed in the stretch, and the cut at its end when every group
  // reached it. A group that cannot answer any more (dead, hung) leaves its components out:
  // the run is failed already, and committed_to covers only what is known.
  Stretch collect(const des::GroupSettings& settings) {
    Stretch out;
    EventRunResult& result = out.figures;
    result.failure = failure_;
    result.deadlocks = deadlocks_;
    result.committed_to = settings.end;
    const std::size_t n = model_.built.components();
    std::vector<std::string> digests(n);
    result.components.assign(n, des::ComponentFigures{});
    EventResumePoint cut;
    cut.cut.time = settings.end;
    cut.cut.states.resize(n);
    cut.digests.resize(n);
    std::size_t parts = 0;
    bool complete = true;
    for (des::GroupId g = 0; g < refs_.size(); ++g) {
      const LaunchedComponent& c = set_.component(g);
      result.places.push_back({c.host, c.pid, c.node});
      try {
        if (lost_[g]) throw PeerError(set_.component(g).name, "lost");
        idl::EventGroupResult_var wire = call(g, [&] { return refs_[g]->result(); });
        const std::string& who = set_.component(g).name;
        const des::GroupOutcome outcome = from_idl(wire.in(), n, who);
        for (const des::ComponentOutcome& part : outcome.components) {
          if (part.component >= n || owner_[part.component] != g)
            throw ProtocolError(who, "a result for component " + std::to_string(part.component));
          digests[part.component] = part.digest;
          result.components[part.component] = part.figures;
        }
        for (const des::ComponentCutPart& part : outcome.cut) {
          if (owner_[part.component] != g)
            throw ProtocolError(who, "a cut of component " + std::to_string(part.component));
          cut.cut.states[part.component] = part.state;
          cut.digests[part.component] = part.digest;
          ++parts;
        }
        for (const des::Event& e : outcome.pending) {
          if (owner_[e.destination] != g || e.key.time < settings.end)
            throw ProtocolError(who, "a pending event of the cut it cannot have");
          cut.cut.pending.push_back(e);
        }
        result.groups.push_back(outcome.figures);
        result.committed_to = std::min(result.committed_to, outcome.committed_horizon);
        idl::ActivityTrace_var trace = call(g, [&] { return refs_[g]->trace(0, true); });
        // On the monitor's clock: a group on another host counts from its own.
        std::vector<ActivitySpan> spans = from_idl(trace->spans);
        const std::int64_t offset = set_.component(g).clock_offset_ns;
        for (ActivitySpan& s : spans) {
          s.begin_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(s.begin_ns) - offset);
          s.end_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(s.end_ns) - offset);
        }
        result.activity.push_back(std::move(spans));
        result.dropped_spans.push_back(trace->dropped);
      } catch (const Error& e) {
        if (!result.failure) result.failure = std::current_exception();
        complete = false;
        result.groups.emplace_back();
        result.activity.emplace_back();
        result.dropped_spans.push_back(0);
      }
    }
    // A lost group's components are unknown: nothing committed beyond where the stretch
    // started is known, and there is no digest to show.
    if (!complete) result.committed_to = settings.start;
    if (complete) result.digest = combine_component_digests(digests);
    if (!complete || result.failure || parts != n) return out;
    std::sort(cut.cut.pending.begin(), cut.cut.pending.end(),
              [](const des::Event& a, const des::Event& b) { return a.key < b.key; });
    for (des::ComponentId c = 0; c < n; ++c)
      cut.cut.committed.push_back(result.components[c].committed);
    out.cut = std::move(cut);
    return out;
  }

  const EventModelSource model_;
  const EventRunSpec spec_;
  ComponentSet set_;
  std::unique_ptr<Heartbeat> heartbeat_;
  std::vector<des::GroupId> owner_;
  std::chrono::milliseconds call_timeout_;
  std::vector<bool> lost_;  // by group: did not answer once, never asked again
  std::vector<idl::EventGroup_var> refs_;
  std::exception_ptr failure_;
  std::uint64_t deadlocks_ = 0;
  des::PolledDeadlockWatch deadlock_watch_;
  std::chrono::microseconds pause_ = kPoll;
  double end_ = 0;  // of the stretch under way
};

}  // namespace

std::string event_group_process(des::GroupId g) {
  return "event-group-" + std::to_string(g);
}

std::unique_ptr<PlacedEventGroups> place_event_group_processes(const EventGroupsPlan& plan,
                                                               OrbRuntime& orb,
                                                               const LaunchOptions& options) {
  check_event_run(plan.model.built, plan.spec);
  if (plan.spec.method == SyncMethod::sequential)
    throw InputError("a sequential discrete-event run starts no group processes");
  return std::make_unique<GroupProcesses>(plan.model, plan.spec, orb, options);
}

}  // namespace kausal

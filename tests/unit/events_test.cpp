// Discrete-event components (docs/events.md): the sequential engine, conservative groups
// with guarantees and the deadlock watch, optimistic groups with Time Warp, all in one
// process, against one committed digest.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "common/errors.hpp"
#include "event_runs.hpp"
#include "monitor/sync/event_run.hpp"
#include "system/events/phold.hpp"
#include "system/events/queueing_network.hpp"

namespace kausal {
namespace {

using des::Phold;
using des::PholdParameters;

PholdParameters phold(double remote, double mean, double lookahead = 1.0) {
  PholdParameters p;
  p.components = 16;
  p.population = 2;
  p.remote = remote;
  p.mean = mean;
  p.lookahead = lookahead;
  p.seed = 7;
  return p;
}

constexpr auto& spec = testing::event_spec;

TEST(EventRun, SequentialCommitsEveryEventBelowTheEndOnce) {
  const Phold model(phold(0.5, 2.0));
  const EventRunResult result = run_events(model, spec(SyncMethod::sequential, 1, 50));
  const auto total = result.total();
  EXPECT_EQ(total.processed, total.committed);
  // 32 events in flight, each delay 2 on average: about 32 * 50 / 2 = 800 events.
  EXPECT_GT(total.committed, 600u);
  EXPECT_LT(total.committed, 1000u);
  EXPECT_EQ(result.digest.size(), 64u);
  // The same run again gives the same bits; another seed does not.
  EXPECT_EQ(run_events(model, spec(SyncMethod::sequential, 1, 50)).digest, result.digest);
  auto other = phold(0.5, 2.0);
  other.seed = 8;
  EXPECT_NE(run_events(Phold(other), spec(SyncMethod::sequential, 1, 50)).digest, result.digest);
}

TEST(EventRun, EveryMethodAndGroupCountCommitsTheSequentialDigest) {
  for (const double remote : {0.1, 0.5, 1.0})
    for (const double mean : {1.0, 2.0}) {
      const Phold model(phold(remote, mean));
      const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 40));
      for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic})
        for (const std::uint32_t groups : {1u, 2u, 3u, 16u}) {
          SCOPED_TRACE(std::string(name_of(method)) + " in " + std::to_string(groups) +
                       " groups, remote " + std::to_string(remote) + ", mean " +
                       std::to_string(mean));
          const EventRunResult run = run_events(model, spec(method, groups, 40));
          EXPECT_EQ(run.digest, reference.digest);
          EXPECT_EQ(run.total().committed, reference.total().committed);
        }
    }
}

// An end whose thousandth underflows (5e-324) once made every stretch [0, 0]: the run never
// ended. Every stretch now ends after its start.
TEST(EventRun, AnEndWhoseThousandthUnderflowsIsReached) {
  const Phold model(phold(0.5, 2.0));
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
    auto s = spec(method, 2, 5e-324);
    s.cut_seconds = 0.1;  // in stretches, as `kausal run` does
    const EventRunResult run = run_events(model, s);
    EXPECT_FALSE(run.failure) << name_of(method);
    EXPECT_EQ(run.committed_to, 5e-324) << name_of(method);
  }
}

// A lookahead of 1e-300 next to events about 1 apart gave an optimistic window that never
// reached the next event: no event was committed in 65 s. The event at GVT is always
// processed now, so the run ends, with the sequential digest.
TEST(EventRun, OptimisticWithAWindowFarBelowTheEventSpacingStillEnds) {
  for (const double lookahead : {1e-300, 5e-324}) {
    const Phold model(phold(0.5, 1.0, lookahead));
    const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 20));
    const EventRunResult run = run_events(model, spec(SyncMethod::optimistic, 4, 20));
    EXPECT_FALSE(run.failure);
    EXPECT_EQ(run.digest, reference.digest) << lookahead;
    EXPECT_EQ(run.total().committed, reference.total().committed) << lookahead;
  }
}

TEST(EventRun, OptimisticGroupsRollBackAndCancelYetCommitTheSameEvents) {
  const Phold model(phold(0.5, 1.5, 0.1));
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 60));
  auto s = spec(SyncMethod::optimistic, 4, 60);
  s.batch = 16;
  s.gvt_interval = 64;
  const EventRunResult run = run_events(model, s);
  EXPECT_EQ(run.digest, reference.digest);
  const auto total = run.total();
  EXPECT_GE(total.processed, total.committed);
  EXPECT_EQ(total.processed - total.committed, total.rolled_back);
  EXPECT_GT(run.groups[0].gvt_rounds, 0u);
}

TEST(EventRun, ConservativeGroupsSendNullMessagesAndNeverRollBack) {
  const Phold model(phold(0.1, 1.0));
  const EventRunResult run = run_events(model, spec(SyncMethod::conservative, 2, 40));
  const auto total = run.total();
  EXPECT_EQ(total.processed, total.committed);
  EXPECT_EQ(total.rollbacks, 0u);
  EXPECT_GT(run.groups[0].null_messages + run.groups[1].null_messages, 0u);
}

TEST(EventRun, ZeroLookaheadDeadlocksAndTheWatchNamesTheCycle) {
  const Phold model(phold(0.5, 1.0, 0.0));
  const EventRunResult run = run_events(model, spec(SyncMethod::conservative, 2, 20));
  ASSERT_TRUE(run.failure);
  try {
    std::rethrow_exception(run.failure);
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock at t = "), std::string::npos) << what;
    EXPECT_NE(what.find("group-0 (component-0"), std::string::npos) << what;
    EXPECT_NE(what.find("group-1 (component-8"), std::string::npos) << what;
    EXPECT_NE(what.find("recover"), std::string::npos) << what;
  }
}

TEST(EventRun, ZeroLookaheadRecoversWithTheWatchsPermitsAndTheSameDigest) {
  const Phold model(phold(0.5, 1.0, 0.0));
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 20));
  auto s = spec(SyncMethod::conservative, 2, 20);
  s.deadlock = des::DeadlockPolicy::recover;
  const EventRunResult run = run_events(model, s);
  EXPECT_EQ(run.digest, reference.digest);
  EXPECT_GT(run.deadlocks, 0u);
  EXPECT_EQ(run.groups[0].permits + run.groups[1].permits, run.deadlocks);
}

TEST(EventRun, AWindowBoundsTheStateLists) {
  const Phold model(phold(0.5, 1.0, 0.5));
  auto wide = spec(SyncMethod::optimistic, 2, 200);
  auto narrow = wide;
  narrow.window = 1.0;
  const EventRunResult a = run_events(model, wide);
  const EventRunResult b = run_events(model, narrow);
  EXPECT_EQ(a.digest, b.digest);
  // 32 events, at least 0.5 apart on each chain: a window of 1 holds at most ~3 per chain.
  for (const auto& g : b.groups) EXPECT_LE(g.peak_uncommitted, 32u * 3u);
}

TEST(EventRun, BadSpecsNameTheField) {
  const Phold model(phold(0.1, 1.0));
  EXPECT_THROW(run_events(model, spec(SyncMethod::conservative, 0, 10)), InputError);
  EXPECT_THROW(run_events(model, spec(SyncMethod::conservative, 17, 10)), InputError);
  EXPECT_THROW(run_events(model, spec(SyncMethod::sequential, 1, NAN)), InputError);
  EXPECT_THROW(Phold(phold(1.5, 1.0)), InputError);
  EXPECT_THROW(Phold(phold(0.1, 0.5, 1.0)), InputError);
}

// The live view and trace.json read the progress a run reports while it goes: it must
// only grow, and its last report must be what the run returns, over stretches and groups.
// With `stalls`, the watch sleeps on a few of its calls: a stretch that runs four cuts'
// worth of wall time is dropped and run again shorter (as on a loaded machine), which must
// change neither the digest nor the committed events, nor make the progress go back.
void check_progress(SyncMethod method, bool stalls) {
  const Phold model(phold(0.5, 1.0));
  EventRunSpec s = spec(method, 3, 1000);
  // Several stretches (the first is a thousandth of the run, the next at most 64 times
  // longer): their counts add up.
  s.cut_seconds = 0.02;
  std::vector<EventProgress> seen;
  std::size_t cuts = 0, stalled = 0;
  const auto rolled_back = [](const EventProgress& p) {
    std::uint64_t n = 0;
    for (const des::GroupProgress& g : p.groups) n += g.events.rolled_back;
    return n;
  };
  const EventRunResult run = run_events(
      model, s,
      [&](const EventProgress& p) {
        seen.push_back(p);
        // Calls come from inside a stretch (every progress period) and from each cut. Each
        // call sleeps until the next call inside the same stretch has found it too long and
        // dropped it, whose work then shows as rolled back (the sequential and conservative
        // runs roll back nothing else), at most 30 times. Which calls come from inside a
        // stretch depends on the machine's speed: under ThreadSanitizer the first dozen
        // calls of the sequential run were all at cuts, which drop nothing.
        if (stalls && stalled < 30 && rolled_back(p) == 0) {
          ++stalled;
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return true;
      },
      [&](const EventResumePoint&) { ++cuts; });
  ASSERT_FALSE(run.failure) << name_of(method);
  ASSERT_GE(seen.size(), 2u) << name_of(method);
  EXPECT_GE(cuts, 2u) << name_of(method);
  const std::size_t groups = method == SyncMethod::sequential ? 1 : 3;
  for (std::size_t i = 1; i < seen.size(); ++i) {
    ASSERT_EQ(seen[i].groups.size(), groups);
    EXPECT_GE(seen[i].committed_to, seen[i - 1].committed_to) << name_of(method) << " " << i;
    for (std::size_t g = 0; g < groups; ++g) {
      const des::GroupProgress &now = seen[i].groups[g], &before = seen[i - 1].groups[g];
      EXPECT_GE(now.events.processed, before.events.processed) << name_of(method) << " " << i;
      EXPECT_GE(now.events.committed, before.events.committed) << name_of(method) << " " << i;
      EXPECT_GE(now.events.rollbacks, before.events.rollbacks) << name_of(method) << " " << i;
      EXPECT_GE(now.null_messages, before.null_messages) << name_of(method) << " " << i;
    }
  }
  const EventProgress& last = seen.back();
  EXPECT_EQ(last.committed_to, 1000.0);
  des::ComponentFigures total;
  std::uint64_t nulls = 0;
  for (const des::GroupProgress& g : last.groups) {
    total += g.events;
    nulls += g.null_messages;
    EXPECT_EQ(g.committed_to, 1000.0);
  }
  EXPECT_EQ(total.processed, run.total().processed) << name_of(method);
  EXPECT_EQ(total.committed, run.total().committed) << name_of(method);
  EXPECT_EQ(total.rolled_back, run.total().rolled_back) << name_of(method);
  EXPECT_EQ(total.rollbacks, run.total().rollbacks) << name_of(method);
  EXPECT_EQ(total.anti_messages, run.total().anti_messages) << name_of(method);
  std::uint64_t run_nulls = 0;
  for (const des::GroupFigures& g : run.groups) run_nulls += g.null_messages;
  EXPECT_EQ(nulls, run_nulls) << name_of(method);
  if (method == SyncMethod::conservative) {
    EXPECT_GT(nulls, 0u);
  }
  if (!stalls) return;
  const EventRunResult calm = run_events(model, spec(method, 3, 1000));
  EXPECT_EQ(run.digest, calm.digest) << name_of(method);
  EXPECT_EQ(run.total().committed, calm.total().committed) << name_of(method);
  // A sequential run rolls nothing back but a dropped stretch's work.
  if (method == SyncMethod::sequential) {
    EXPECT_GT(run.total().rolled_back, 0u);
    EXPECT_EQ(run.total().processed, run.total().committed + run.total().rolled_back);
  }
}

TEST(EventRun, ProgressGrowsAndEndsWithTheRunsFigures) {
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic})
    check_progress(method, false);
}

TEST(EventRun, AStretchDroppedForRunningTooLongIsCountedAsUndoneAndProgressStillGrows) {
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic})
    check_progress(method, true);
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// Twelve servers, three jobs each, short services: rollbacks that restore many values.
des::QueueingNetworkParameters busy_queues() {
  des::QueueingNetworkParameters p;
  p.servers = 12;
  p.jobs = 3;
  p.minimum_service = 0.2;
  return p;
}

TEST(EventRun, IncrementalStateSavingRollsBackToTheSameBitsAsFullCopies) {
  const des::QueueingNetwork model(busy_queues());
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 300));
  for (const des::StateSaving saving : {des::StateSaving::full, des::StateSaving::incremental}) {
    auto s = spec(SyncMethod::optimistic, 3, 300);
    s.saving = saving;
    s.window = 50;  // far ahead: many rollbacks, each restoring many changed values
    s.batch = 8;
    // Rollbacks depend on how the threads interleave: every run must give the sequential
    // bits, and some run must have rolled back.
    std::uint64_t rolled_back = 0;
    for (int attempt = 0; attempt < 5 && rolled_back == 0; ++attempt) {
      const EventRunResult run = run_events(model, s);
      EXPECT_FALSE(run.failure);
      EXPECT_EQ(run.digest, reference.digest);
      rolled_back += run.total().rolled_back;
    }
    EXPECT_GT(rolled_back, 0u);
  }
}

// --rollback-check: every event handled again from its restored state (optimistic: undone
// as a rollback undoes it, full copies or incremental; conservative: from a copy) gives the
// run's bits.
TEST(EventRun, TheRollbackCheckHandlesEveryEventTwiceToTheSequentialDigest) {
  const des::QueueingNetwork queues(busy_queues());
  const Phold phold_model(phold(0.5, 1.0));
  for (const des::EventModel* model : {static_cast<const des::EventModel*>(&queues),
                                       static_cast<const des::EventModel*>(&phold_model)}) {
    const EventRunResult reference = run_events(*model, spec(SyncMethod::sequential, 1, 100));
    for (const des::StateSaving saving : {des::StateSaving::full, des::StateSaving::incremental})
      for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic}) {
        SCOPED_TRACE(model->name() + " " + std::string(name_of(method)));
        auto s = spec(method, 3, 100);
        s.saving = saving;
        s.rollback_check = true;
        const EventRunResult run = run_events(*model, s);
        EXPECT_FALSE(run.failure);
        EXPECT_EQ(run.digest, reference.digest);
        EXPECT_EQ(run.total().committed, reference.total().committed);
      }
  }
}

// An operator's event is addressed by names: the component's, and the kind's (or its
// number; none: kind 0); what the model does not have is refused with what it has.
TEST(EventRun, AnOperatorsEventIsAddressedByTheModelsNames) {
  des::QueueingNetworkParameters p;
  p.servers = 4;
  const des::QueueingNetwork model(p);
  const auto arrival = event_address(model, "server-3.arrival");
  EXPECT_EQ(arrival.component, 3u);
  EXPECT_EQ(model.kind_name(arrival.kind), "arrival");
  EXPECT_EQ(event_address(model, "server-1").kind, 0u);
  EXPECT_EQ(event_address(model, "server-1.7").kind, 7u);
  const auto refusal = [&](const std::string& target) {
    try {
      event_address(model, target);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("server-4")
                .find("no component 'server-4' in model queueing-network (it "
                      "has server-0 … server-3)"),
            std::string::npos)
      << refusal("server-4");
  EXPECT_NE(refusal("server-1.landing").find("no event kind 'landing' (it has arrival, departure)"),
            std::string::npos)
      << refusal("server-1.landing");
  EXPECT_NE(refusal(std::string(1000, 'x')).find("a target of 1000 characters (at most 256)"),
            std::string::npos);
}

TEST(EventRun, AStopFromTheWatchEndsTheRunWithWhatWasCommitted) {
  const Phold model(phold(0.5, 1.0));
  // Long enough that the watch, called every progress_period, sees the run before its end.
  const EventRunResult full = run_events(model, spec(SyncMethod::sequential, 1, 4000));
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
    double seen = 0;
    const EventRunResult cut =
        run_events(model, spec(method, 2, 4000), [&](const EventProgress& p) {
          seen = p.committed_to;
          return p.committed_to < 100;
        });
    ASSERT_TRUE(cut.failure) << name_of(method);
    EXPECT_THROW(std::rethrow_exception(cut.failure), Interrupted);
    EXPECT_GE(seen, 100.0);
    EXPECT_GT(cut.total().committed, 0u);
    EXPECT_LT(cut.total().committed, full.total().committed);
    // Everything below committed_to is committed: as many events as a run that ends there.
    ASSERT_GT(cut.committed_to, 0.0);
    ASSERT_LT(cut.committed_to, 4000.0);
    const EventRunResult prefix =
        run_events(model, spec(SyncMethod::sequential, 1, cut.committed_to));
    EXPECT_GE(cut.total().committed, prefix.total().committed) << name_of(method);
  }
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

TEST(EventRun, LazyCancellationCommitsTheSameEventsAsAggressive) {
  for (const double remote : {0.3, 1.0}) {
    const Phold model(phold(remote, 1.5, 0.1));
    const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 80));
    for (const std::uint32_t groups : {1u, 2u, 4u}) {
      auto s = spec(SyncMethod::optimistic, groups, 80);
      s.cancellation = des::Cancellation::lazy;
      s.window = 3;
      s.batch = 8;
      const EventRunResult run = run_events(model, s);
      EXPECT_FALSE(run.failure);
      EXPECT_EQ(run.digest, reference.digest) << groups << " groups, remote " << remote;
      EXPECT_EQ(run.total().processed - run.total().committed, run.total().rolled_back);
    }
  }
  des::QueueingNetworkParameters p;
  p.servers = 12;
  p.jobs = 3;
  p.minimum_service = 0.2;
  const des::QueueingNetwork network(p);
  const EventRunResult reference = run_events(network, spec(SyncMethod::sequential, 1, 300));
  auto s = spec(SyncMethod::optimistic, 3, 300);
  s.cancellation = des::Cancellation::lazy;
  s.saving = des::StateSaving::incremental;
  s.window = 50;
  EXPECT_EQ(run_events(network, s).digest, reference.digest);
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// Two components, each in its own group when there are two. A (component-0) sends B
// (component-1) a pair of flips each whole time k, at k + 0.4 and k + 0.5, from two of its
// own events (k + 0.1 and, after `slowness`, k + 0.15). B ticks at k + 0.7 and fails a tick
// between the flips of a pair (an odd count of flips). In the order of keys B never does;
// an optimistic B that has the first flip of a pair but not yet the second does, and must
// not fail the run for it. With `late_pair`, that pair's second flip comes after the tick
// (k + 1.15): then the error is real, in every method.
class FlipPairs final : public des::EventModel {
 public:
  enum Kind : std::uint32_t { first, second, flip, tick };
  explicit FlipPairs(std::chrono::microseconds slowness = {}, std::optional<int> late_pair = {})
      : slowness_(slowness), late_pair_(late_pair) {}

  std::string name() const override { return "flip-pairs"; }
  std::size_t components() const override { return 2; }
  std::optional<double> lookahead(des::ComponentId from, des::ComponentId to) const override {
    if (from == 0) return to == 0 ? 0.05 : 0.3;
    if (to == 1) return 0.7;
    return std::nullopt;
  }
  des::ComponentState initial_state(des::ComponentId id) const override {
    return des::ComponentState{{0, 0}, des::RandomStream(1, id), 0};
  }
  void start(des::EventContext& context) const override {
    if (context.component() == 0)
      context.send(0, 0.1, first);
    else
      context.send(1, 0.7, tick);
  }
  void handle(const des::Event& event, des::EventContext& context) const override {
    switch (event.kind) {
      case first:
        context.send(1, 0.3, flip);
        context.send(0, 0.05, second);
        break;
      case second: {
        std::this_thread::sleep_for(slowness_);  // B runs ahead meanwhile, with one flip
        const bool late = late_pair_ && std::floor(context.now()) == *late_pair_;
        context.send(1, late ? 1.0 : 0.35, flip);
        context.send(0, 0.95, first);
        break;
      }
      case flip:
        context.set_value(0, context.value(0) + 1);
        break;
      default:
        if (std::fmod(context.value(0), 2) != 0) {
          std::ostringstream why;
          why << "a tick at t = " << context.now() << " between two flips";
          throw ModelError(component_name(1), why.str());
        }
        context.set_value(1, context.value(1) + 1);
        context.send(1, 1.0, tick);
    }
  }

 private:
  std::chrono::microseconds slowness_;
  std::optional<int> late_pair_;
};

std::uint64_t sum_deferred(const EventRunResult& run) {
  std::uint64_t sum = 0;
  for (const auto& g : run.groups) sum += g.deferred_errors;
  return sum;
}

std::uint64_t sum_cleared(const EventRunResult& run) {
  std::uint64_t sum = 0;
  for (const auto& g : run.groups) sum += g.cleared_errors;
  return sum;
}

std::string failure_text(const EventRunResult& run) {
  if (!run.failure) return "";
  try {
    std::rethrow_exception(run.failure);
  } catch (const ModelError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a ModelError: ") + e.what();
  }
}

EventRunSpec eager(des::StateSaving saving, des::Cancellation cancellation) {
  // Small batches flush the first flip of a pair before A sleeps over the second; a wide
  // window lets B run ahead of it.
  auto s = spec(SyncMethod::optimistic, 2, 10);
  s.window = 3;
  s.batch = 1;
  s.gvt_interval = 1;
  s.saving = saving;
  s.cancellation = cancellation;
  return s;
}

// A handler that remembers what its component's state does not (a counter of its own) gives
// another state when handled again: the check names the component and the event.
class HiddenCounter final : public des::EventModel {
 public:
  std::string name() const override { return "hidden-counter"; }
  std::size_t components() const override { return 1; }
  std::optional<double> lookahead(des::ComponentId, des::ComponentId) const override { return 1.0; }
  des::ComponentState initial_state(des::ComponentId) const override {
    return des::ComponentState{{0}, des::RandomStream(1, 0), 0};
  }
  void start(des::EventContext& context) const override { context.send(0, 1.0, 0); }
  void handle(const des::Event&, des::EventContext& context) const override {
    context.set_value(0, static_cast<double>(++handled_));
    context.send(0, 1.0, 0);
  }

 private:
  mutable std::atomic<std::uint64_t> handled_{0};
};

TEST(EventRun, TheRollbackCheckFindsAHandlerWithStateOfItsOwn) {
  for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic}) {
    SCOPED_TRACE(name_of(method));
    const HiddenCounter unchecked;
    EXPECT_FALSE(run_events(unchecked, spec(method, 1, 10)).failure);
    const HiddenCounter model;
    auto s = spec(method, 1, 10);
    s.rollback_check = true;
    const EventRunResult run = run_events(model, s);
    const std::string why = failure_text(run);
    EXPECT_NE(why.find("rollback check"), std::string::npos) << why;
    EXPECT_NE(why.find("another state"), std::string::npos) << why;
  }
}

TEST(EventsDeferredError, ASpeculativeModelErrorIsRolledBackAndTheRunCommitsTheSequentialDigest) {
  const FlipPairs model(std::chrono::milliseconds(3));
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 10));
  ASSERT_FALSE(reference.failure) << failure_text(reference);
  const EventRunResult conservative = run_events(model, spec(SyncMethod::conservative, 2, 10));
  ASSERT_FALSE(conservative.failure) << failure_text(conservative);
  EXPECT_EQ(conservative.digest, reference.digest);
  for (const auto saving : {des::StateSaving::full, des::StateSaving::incremental})
    for (const auto cancellation : {des::Cancellation::aggressive, des::Cancellation::lazy}) {
      SCOPED_TRACE(std::string(saving == des::StateSaving::full ? "full" : "incremental") +
                   (cancellation == des::Cancellation::lazy ? ", lazy" : ", aggressive"));
      // Ten pairs a run, each a chance for B to tick between two flips: every run must give
      // the sequential bits, and some run must have deferred (and cleared) an error.
      std::uint64_t deferred = 0;
      for (int attempt = 0; attempt < 5 && deferred == 0; ++attempt) {
        const EventRunResult run = run_events(model, eager(saving, cancellation));
        ASSERT_FALSE(run.failure) << failure_text(run);
        EXPECT_EQ(run.digest, reference.digest);
        EXPECT_EQ(run.total().committed, reference.total().committed);
        EXPECT_EQ(run.total().processed - run.total().committed, run.total().rolled_back);
        // A run that completes cleared every error it deferred.
        EXPECT_EQ(sum_cleared(run), sum_deferred(run));
        deferred += sum_deferred(run);
      }
      EXPECT_GT(deferred, 0u);
    }
}

TEST(EventsDeferredError, ARealModelErrorFailsTheOptimisticRunAsItFailsTheSequentialOne) {
  const FlipPairs model(std::chrono::milliseconds(1), 3);  // B fails its tick at t = 3.7
  const double failed_at = 0.7 + 1.0 + 1.0 + 1.0;          // as B's ticks add up
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 10));
  const std::string expected = "component-1: a tick at t = 3.7 between two flips";
  EXPECT_EQ(failure_text(reference), expected);
  EXPECT_LE(reference.committed_to, failed_at);
  const EventRunResult conservative = run_events(model, spec(SyncMethod::conservative, 2, 10));
  EXPECT_EQ(failure_text(conservative), expected);
  EXPECT_LE(conservative.committed_to, failed_at);
  for (const auto cancellation : {des::Cancellation::aggressive, des::Cancellation::lazy}) {
    auto s = eager(des::StateSaving::full, cancellation);
    const EventRunResult run = run_events(model, s);
    EXPECT_EQ(failure_text(run), expected);
    EXPECT_GT(sum_deferred(run), 0u);  // held first, thrown once GVT passed t = 3.7
    // Everything before the failed tick is committed, and nothing after it: the same
    // events as the sequential run that failed.
    EXPECT_LE(run.committed_to, failed_at);
    EXPECT_EQ(run.digest, reference.digest);
    EXPECT_EQ(run.total().committed, reference.total().committed);
  }
  // The same without the slowness (B no longer runs ahead), and with one group.
  const FlipPairs quick({}, 3);
  for (const std::uint32_t groups : {1u, 2u}) {
    auto s = spec(SyncMethod::optimistic, groups, 10);
    const EventRunResult run = run_events(quick, s);
    EXPECT_EQ(failure_text(run), expected) << groups << " groups";
    EXPECT_LE(run.committed_to, failed_at);
    EXPECT_EQ(run.digest, reference.digest) << groups << " groups";
  }
}

// PHOLD whose strict components (every `strict_every`-th) fail every event they process on a
// state the sequential run never had there: each counts its events, and a first (recording)
// sequential run notes the count each event found. Then every out-of-order execution of a
// strict component in an optimistic run raises a ModelError (after the handler has sent its
// events and changed its state), and each must be undone, never thrown. The others run
// ahead as usual, roll back and cancel what they sent, strict receivers' failed events too.
class StrictPhold final : public des::EventModel {
 public:
  StrictPhold(const PholdParameters& p, std::uint32_t strict_every)
      : inner_(p), strict_every_(strict_every) {}
  std::string name() const override { return "strict-phold"; }
  std::size_t components() const override { return inner_.components(); }
  std::optional<double> lookahead(des::ComponentId from, des::ComponentId to) const override {
    return inner_.lookahead(from, to);
  }
  des::ComponentState initial_state(des::ComponentId id) const override {
    des::ComponentState state = inner_.initial_state(id);
    state.values.assign(1, 0.0);
    return state;
  }
  void start(des::EventContext& context) const override { inner_.start(context); }
  void handle(const des::Event& event, des::EventContext& context) const override {
    const double count = context.value(0);
    inner_.handle(event, context);
    context.set_value(0, count + 1);
    const Seen seen{event.destination, event.key.time, event.key.source, event.key.serial};
    if (recording_) {
      counts_[seen] = count;  // the recording run is sequential: one thread
      return;
    }
    if (event.destination % strict_every_ != 0) return;
    const auto it = counts_.find(seen);
    if (it == counts_.end() || it->second != count)
      throw ModelError(component_name(event.destination), "a state the sequential run never had");
  }
  void stop_recording() { recording_ = false; }

 private:
  using Seen = std::tuple<des::ComponentId, double, des::ComponentId, std::uint64_t>;
  Phold inner_;
  std::uint32_t strict_every_;
  bool recording_ = true;
  mutable std::map<Seen, double> counts_;
};

TEST(EventsDeferredError, EveryOutOfOrderExecutionFailsYetTheRunCommitsTheSequentialDigest) {
  // Every component strict (failed events are all that is ever undone), and every third
  // (the others roll back and cancel events that strict receivers are held on).
  for (const std::uint32_t strict_every : {1u, 3u}) {
    StrictPhold model(phold(0.5, 1.5, 0.1), strict_every);
    const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 40));
    model.stop_recording();
    ASSERT_FALSE(run_events(model, spec(SyncMethod::sequential, 1, 40)).failure);
    ASSERT_FALSE(run_events(model, spec(SyncMethod::conservative, 4, 40)).failure);
    std::uint64_t deferred = 0;
    for (const std::uint32_t groups : {2u, 4u, 16u})
      for (const auto saving : {des::StateSaving::full, des::StateSaving::incremental})
        for (const auto cancellation : {des::Cancellation::aggressive, des::Cancellation::lazy}) {
          SCOPED_TRACE("strict every " + std::to_string(strict_every) + ", " +
                       std::to_string(groups) + " groups" +
                       (saving == des::StateSaving::full ? ", full" : ", incremental") +
                       (cancellation == des::Cancellation::lazy ? ", lazy" : ", aggressive"));
          auto s = spec(SyncMethod::optimistic, groups, 40);
          s.saving = saving;
          s.cancellation = cancellation;
          s.window = 5;
          s.batch = 8;
          s.gvt_interval = 32;
          const EventRunResult run = run_events(model, s);
          ASSERT_FALSE(run.failure) << failure_text(run);
          EXPECT_EQ(run.digest, reference.digest);
          EXPECT_EQ(run.total().processed - run.total().committed, run.total().rolled_back);
          EXPECT_EQ(sum_cleared(run), sum_deferred(run));
          deferred += sum_deferred(run);
        }
    // Twelve runs of 16 components with dozens of out-of-order executions each.
    EXPECT_GT(deferred, 0u);
  }
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// Checkpoints (docs/events.md "Checkpoints and --resume"): a run cut into stretches commits
// the same events as one that is not, and a run continued from any of its cuts — with any
// method and any number of groups — ends with the digest and the count of the uninterrupted
// run.
TEST(EventCuts, ARunContinuedFromAnyCutCommitsWhatAnUninterruptedRunCommits) {
  struct Case {
    std::string name;
    std::unique_ptr<des::EventModel> model;
    double end;
  };
  std::vector<Case> cases;
  cases.push_back({"phold", std::make_unique<Phold>(phold(0.5, 1.0)), 300});
  auto zero = phold(0.3, 1.0, 0.0);
  cases.push_back({"phold, lookahead 0", std::make_unique<Phold>(zero), 60});
  des::QueueingNetworkParameters q;
  q.servers = 12;
  q.jobs = 3;
  q.minimum_service = 0.2;
  cases.push_back({"queueing network", std::make_unique<des::QueueingNetwork>(q), 300});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const EventRunResult reference = run_events(*c.model, spec(SyncMethod::sequential, 1, c.end));
    for (const SyncMethod method :
         {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
      SCOPED_TRACE(name_of(method));
      auto s = spec(method, 3, c.end);
      s.deadlock = des::DeadlockPolicy::recover;
      // The first stretch is 1/1000 of the run and the next at most 64 times longer: at
      // least three cuts (the last at the end), however fast the machine.
      s.cut_seconds = 0.01;
      std::vector<EventResumePoint> cuts;
      const EventRunResult cut_run =
          run_events(*c.model, s, {}, [&](const EventResumePoint& p) { cuts.push_back(p); });
      ASSERT_FALSE(cut_run.failure);
      EXPECT_EQ(cut_run.digest, reference.digest);
      EXPECT_EQ(cut_run.total().committed, reference.total().committed);
      ASSERT_GE(cuts.size(), 3u);
      EXPECT_EQ(cuts.back().cut.time, c.end);
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const des::EventCut& cut = cuts[k].cut;
        EXPECT_LT(cut.time, cuts[k + 1].cut.time);
        for (const des::Event& e : cut.pending) EXPECT_GE(e.key.time, cut.time);
        if (k % (cuts.size() / 6 + 1) != 0) continue;
        // A run that ends at the cut commits exactly the events the cut counts.
        const EventRunResult prefix =
            run_events(*c.model, spec(SyncMethod::sequential, 1, cut.time));
        std::uint64_t counted = 0;
        for (const auto n : cut.committed) counted += n;
        EXPECT_EQ(counted, prefix.total().committed) << "cut at " << cut.time;
      }
      // Continue from the middle cut with another method and another number of groups.
      const EventResumePoint& middle = cuts[cuts.size() / 2];
      for (const auto& [other, groups] :
           {std::pair{SyncMethod::optimistic, 2u}, std::pair{SyncMethod::conservative, 4u},
            std::pair{SyncMethod::sequential, 1u}}) {
        auto resumed = spec(other, groups, c.end);
        resumed.deadlock = des::DeadlockPolicy::recover;
        resumed.from = &middle;
        const EventRunResult rest = run_events(*c.model, resumed);
        ASSERT_FALSE(rest.failure) << name_of(other);
        EXPECT_EQ(rest.digest, reference.digest) << "continued " << name_of(other);
        std::uint64_t before = 0;
        for (const auto n : middle.cut.committed) before += n;
        EXPECT_EQ(before + rest.total().committed, reference.total().committed);
      }
    }
  }
}

// An end far beyond what a run reaches (1e12 for PHOLD, whose events are about 1 apart) gave
// a first stretch (a thousandth of the run) that never ended: no cut, so no checkpoint for
// as long as the run went. A stretch that runs four cuts' worth of wall time is now run
// again shorter: the cuts come about every cut_seconds, each one a time the run reached.
TEST(EventCuts, AnEndFarBeyondWhatTheRunReachesStillGivesCuts) {
  const Phold model(phold(0.5, 1.0));
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
    auto s = spec(method, 2, 1e12);
    s.cut_seconds = 0.02;
    std::vector<double> cuts;
    const EventWatch until_three_cuts = [&](const EventProgress&) { return cuts.size() < 3; };
    const EventRunResult run =
        run_events(model, s, until_three_cuts,
                   [&](const EventResumePoint& at) { cuts.push_back(at.cut.time); });
    ASSERT_GE(cuts.size(), 3u) << name_of(method);
    EXPECT_TRUE(std::is_sorted(cuts.begin(), cuts.end())) << name_of(method);
    EXPECT_GT(cuts.front(), 0) << name_of(method);
    EXPECT_LT(cuts.back(), 1e9) << name_of(method) << ": a cut the run could not have reached";
    EXPECT_TRUE(run.failure) << name_of(method) << ": stopped by its watch";
    EXPECT_GE(run.committed_to, cuts.back()) << name_of(method);
  }
}

TEST(EventCuts, ACutThatDoesNotFitTheRunIsRefused) {
  const Phold model(phold(0.5, 1.0));
  std::vector<EventResumePoint> cuts;
  auto s = spec(SyncMethod::sequential, 1, 50);
  s.cut_seconds = 1.0;
  run_events(model, s, {}, [&](const EventResumePoint& p) { cuts.push_back(p); });
  ASSERT_GE(cuts.size(), 2u);
  EventResumePoint bad = cuts.front();
  bad.cut.pending.front().key.time = bad.cut.time - 1;  // an event in the committed past
  auto resumed = spec(SyncMethod::optimistic, 2, 50);
  resumed.from = &bad;
  const EventRunResult run = [&] {
    try {
      return run_events(model, resumed);
    } catch (const ProtocolError& e) {
      EventRunResult failed;
      failed.failure = std::current_exception();
      return failed;
    }
  }();
  ASSERT_TRUE(run.failure);
  EXPECT_THROW(std::rethrow_exception(run.failure), ProtocolError);
}

}  // namespace
}  // namespace kausal

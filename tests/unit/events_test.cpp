// Discrete-event components (docs/events.md): the sequential engine, conservative groups
// with guarantees and the deadlock watch, optimistic groups with Time Warp, all in one
// process, against one committed digest.
#include <gtest/gtest.h>

#include <cmath>

#include "event_runs.hpp"
#include "monitor/sync/event_run.hpp"
#include "system/errors.hpp"
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

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

TEST(EventRun, IncrementalStateSavingRollsBackToTheSameBitsAsFullCopies) {
  des::QueueingNetworkParameters p;
  p.servers = 12;
  p.jobs = 3;
  p.minimum_service = 0.2;
  const des::QueueingNetwork model(p);
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

TEST(EventRun, AStopFromTheWatchEndsTheRunWithWhatWasCommitted) {
  const Phold model(phold(0.5, 1.0));
  const EventRunResult full = run_events(model, spec(SyncMethod::sequential, 1, 400));
  for (const SyncMethod method :
       {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
    double seen = 0;
    const EventRunResult cut = run_events(model, spec(method, 2, 400), [&](double horizon) {
      seen = horizon;
      return horizon < 100;
    });
    ASSERT_TRUE(cut.failure) << name_of(method);
    EXPECT_THROW(std::rethrow_exception(cut.failure), Interrupted);
    EXPECT_GE(seen, 100.0);
    EXPECT_GT(cut.total().committed, 0u);
    EXPECT_LT(cut.total().committed, full.total().committed);
    // Everything below committed_to is committed: as many events as a run that ends there.
    ASSERT_GT(cut.committed_to, 0.0);
    ASSERT_LT(cut.committed_to, 400.0);
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

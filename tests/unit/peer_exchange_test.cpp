// The process layout's algorithm in one process (docs/events.md, "Process layout"): event
// groups on threads, each with its own PeerExchange, wired to each other directly where the
// process layout makes a CORBA call, and watched the way the monitor watches processes — by
// polling their status and confirming a quiet look with a second one (PolledDeadlockWatch).
// Every method commits the sequential digest; a zero-lookahead model deadlocks, is found and
// recovers; and the watch never sees a deadlock in a run that has none.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <memory>
#include <thread>

#include "event_runs.hpp"
#include "integrator/events/deadlock_watch.hpp"
#include "integrator/events/event_recorder.hpp"
#include "integrator/events/peer_exchange.hpp"
#include "system/events/phold.hpp"

namespace kausal {
namespace {

using namespace des;

struct PolledRun {
  std::string digest;
  std::uint64_t deadlocks = 0;
  std::uint64_t batches = 0;
};

// The groups of `spec` on threads with PeerExchanges; a watch thread polls them as the
// monitor polls processes, and permits the smallest event at each deadlock.
PolledRun run_polled(const EventModel& model, const EventRunSpec& run) {
  const std::vector<GroupId> owner = contiguous_groups(model.components(), run.groups);
  const GroupSettings settings = group_settings(model, run);
  std::vector<std::unique_ptr<PeerExchange>> exchanges;
  for (GroupId g = 0; g < run.groups; ++g)
    exchanges.push_back(std::make_unique<PeerExchange>(
        g,
        [&exchanges](GroupId to, std::vector<GroupMessage>& batch) {
          exchanges[to]->deliver(batch);
        },
        std::chrono::microseconds(0)));
  std::vector<std::unique_ptr<EventRecorder>> recorders;
  for (GroupId g = 0; g < run.groups; ++g)
    recorders.push_back(std::make_unique<EventRecorder>(model.components()));
  std::vector<std::unique_ptr<EventGroup>> groups;
  for (GroupId g = 0; g < run.groups; ++g)
    groups.push_back(
        std::make_unique<EventGroup>(model, g, owner, settings, exchanges[g].get(), *recorders[g]));
  std::atomic<std::uint32_t> running{run.groups};
  std::vector<std::jthread> threads;
  for (GroupId g = 0; g < run.groups; ++g)
    threads.emplace_back([&, g] {
      groups[g]->run();
      --running;
    });
  PolledRun out;
  PolledDeadlockWatch watch;
  while (running > 0) {
    if (!watch.confirming()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::vector<PeerStatus> seen;
    for (auto& e : exchanges) seen.push_back(e->status());
    std::vector<WatchedGroup> watched;
    const DeadlockVerdict verdict = watch.look(seen, watched);
    if (verdict.kind == DeadlockVerdict::Kind::all_done) {
      for (GroupId g = 0; g < run.groups; ++g) {
        std::vector<GroupMessage> end(1);
        end[0].kind = MessageKind::lower_bound;
        end[0].time = std::numeric_limits<double>::infinity();
        if (!watched[g].finished) exchanges[g]->deliver(end);
      }
    } else if (verdict.kind == DeadlockVerdict::Kind::deadlock) {
      ++out.deadlocks;
      exchanges[verdict.first]->permit(*watched[verdict.first].state.next);
    }
  }
  threads.clear();
  std::vector<std::string> digests(model.components());
  for (GroupId g = 0; g < run.groups; ++g) {
    for (const LogicalProcess& lp : groups[g]->components())
      digests[lp.id()] = recorders[g]->component_digest(lp.id());
    out.batches += groups[g]->figures().batches;
  }
  out.digest = combine_component_digests(digests);
  return out;
}

PholdParameters phold(double lookahead) {
  PholdParameters p;
  p.components = 12;
  p.population = 2;
  p.remote = 0.5;
  p.mean = 1.0;
  p.lookahead = lookahead;
  p.seed = 3;
  return p;
}

TEST(PeerExchange, GroupsWiredPeerToPeerCommitTheSequentialDigest) {
  const Phold model(phold(1.0));
  const std::string reference =
      run_events(model, testing::event_spec(SyncMethod::sequential, 1, 60)).digest;
  for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic})
    for (const std::uint32_t groups : {2u, 3u, 5u}) {
      const PolledRun r = run_polled(model, testing::event_spec(method, groups, 60));
      EXPECT_EQ(r.digest, reference) << name_of(method) << " in " << groups << " groups";
      EXPECT_GT(r.batches, 0u);
      // Positive lookahead everywhere: guarantees always make progress, no deadlock.
      EXPECT_EQ(r.deadlocks, 0u) << name_of(method) << " in " << groups << " groups";
    }
}

TEST(PeerExchange, ThePolledWatchFindsEveryZeroLookaheadDeadlockAndRecovers) {
  const Phold model(phold(0.0));
  const std::string reference =
      run_events(model, testing::event_spec(SyncMethod::sequential, 1, 20)).digest;
  for (const std::uint32_t groups : {2u, 3u}) {
    const PolledRun r =
        run_polled(model, testing::event_spec(SyncMethod::conservative, groups, 20));
    EXPECT_EQ(r.digest, reference) << groups << " groups";
    EXPECT_GT(r.deadlocks, 0u);
  }
}

TEST(PeerExchange, AQuietLookIsNotADeadlockUntilASecondConfirmsIt) {
  PeerStatus blocked;
  blocked.idle_blocked = true;
  blocked.state.next = EventKey{1.0, 0, 0};
  blocked.sent = 3;
  blocked.taken = 3;
  std::vector<WatchedGroup> watched;
  PolledDeadlockWatch watch;
  EXPECT_EQ(watch.look({blocked, blocked}, watched).kind, DeadlockVerdict::Kind::running);
  EXPECT_TRUE(watch.confirming());
  // A count moved in between: a message went by; look again.
  PeerStatus moved = blocked;
  moved.sent = moved.taken = 4;
  EXPECT_EQ(watch.look({moved, blocked}, watched).kind, DeadlockVerdict::Kind::running);
  EXPECT_EQ(watch.look({moved, blocked}, watched).kind, DeadlockVerdict::Kind::deadlock);
  // A message on its way (sent, not yet taken) is never quiet.
  PeerStatus sending = blocked;
  sending.sent = 5;
  EXPECT_EQ(watch.look({sending, blocked}, watched).kind, DeadlockVerdict::Kind::running);
  EXPECT_EQ(watch.look({sending, blocked}, watched).kind, DeadlockVerdict::Kind::running);
  EXPECT_FALSE(watch.confirming());
}

}  // namespace
}  // namespace kausal

namespace kausal::des {
namespace {

// After a group has finished, what peers still send it (at or after its end) is kept for
// its part of the cut, after what its mailbox held: in the order it was sent, counted once.
TEST(PeerExchange, WhatArrivesAfterTheGroupFinishedFollowsWhatItsMailboxHeld) {
  PeerExchange exchange(
      0, [](GroupId, std::vector<GroupMessage>&) {}, std::chrono::microseconds(0));
  auto message = [](MessageKind kind, std::uint64_t serial) {
    GroupMessage m;
    m.kind = kind;
    m.from = 1;
    m.event.key = {10.0, 3, serial};
    return m;
  };
  std::vector<GroupMessage> early{message(MessageKind::event, 1)};
  exchange.deliver(early);
  exchange.finished(0);
  std::vector<GroupMessage> late{message(MessageKind::anti_event, 1),
                                 message(MessageKind::guarantee, 0),
                                 message(MessageKind::event, 2)};
  exchange.deliver(late);
  std::vector<GroupMessage> into;
  exchange.receive(0, into, std::chrono::microseconds(0));
  ASSERT_EQ(into.size(), 3u);  // the guarantee says nothing after the end
  EXPECT_EQ(into[0].kind, MessageKind::event);
  EXPECT_EQ(into[0].event.key.serial, 1u);
  EXPECT_EQ(into[1].kind, MessageKind::anti_event);
  EXPECT_EQ(into[2].event.key.serial, 2u);
  const PeerStatus s = exchange.status();
  EXPECT_EQ(s.taken, 4u);  // every message from a peer, each once
  into.clear();
  exchange.receive(0, into, std::chrono::microseconds(0));
  EXPECT_TRUE(into.empty());
}

}  // namespace
}  // namespace kausal::des

// The discrete-event example models (docs/events.md): the closed queueing network and the
// three-component teaching example. Each runs sequential, conservative and optimistic to
// one committed digest; a small driver in this file runs them sequentially by hand so that
// the tests can also look at the final states and the events still in flight.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "event_runs.hpp"
#include "monitor/sync/event_run.hpp"
#include "system/events/queueing_network.hpp"
#include "system/events/three_components.hpp"

namespace kausal {
namespace {

using des::ComponentId;
using des::ComponentState;
using DesEvent = des::Event;  // (kausal::Event is the chain's: one name each in a unity batch)
using des::EventContext;
using des::EventKey;
using des::QueueingNetwork;
using des::QueueingNetworkParameters;
using des::QueueRouting;
using des::ThreeComponents;
using des::ThreeComponentsParameters;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();

constexpr auto& spec = testing::event_spec;

// A sequential run by hand: every event below `end` in EventKey order, with a look at the
// states and the pending events after each one. It is independent of EventGroup, so its
// event count checks the engine's, and its final states are what the engine's would be.
struct Driven {
  std::vector<ComponentState> states;
  std::map<EventKey, DesEvent> pending;  // in flight at the end
  std::uint64_t processed = 0;
};
using AfterEvent = std::function<void(const DesEvent&, const std::vector<ComponentState>&,
                                      const std::map<EventKey, DesEvent>&)>;

Driven drive(const des::EventModel& model, double end, const AfterEvent& after = {}) {
  Driven run;
  std::vector<DesEvent> outbox;
  const auto post = [&] {
    for (const DesEvent& e : outbox) EXPECT_TRUE(run.pending.emplace(e.key, e).second);
    outbox.clear();
  };
  for (ComponentId c = 0; c < model.components(); ++c) {
    run.states.push_back(model.initial_state(c));
    EventContext context(model, c, 0.0, run.states[c], outbox);
    model.start(context);
    post();
  }
  while (!run.pending.empty() && run.pending.begin()->first.time < end) {
    const DesEvent event = run.pending.begin()->second;
    run.pending.erase(run.pending.begin());
    EventContext context(model, event.destination, event.key.time, run.states[event.destination],
                         outbox);
    model.handle(event, context);
    post();
    ++run.processed;
    if (after) after(event, run.states, run.pending);
  }
  return run;
}

template <typename Model, typename Parameters>
void expect_input_error(const Parameters& p, const std::string& field) {
  try {
    Model model(p);
    ADD_FAILURE() << "expected an InputError naming " << field;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

// ---- closed queueing network ---------------------------------------------------------------

QueueingNetworkParameters network(QueueRouting routing = QueueRouting::random_other,
                                  double minimum = 0.5) {
  QueueingNetworkParameters p;
  p.servers = 12;
  p.jobs = 2;
  p.mean_service = 1.0;
  p.minimum_service = minimum;
  p.stay = 0.25;
  p.routing = routing;
  p.seed = 11;
  return p;
}

// Jobs moved per unit time by mean value analysis: every hop visits one of the N (equally
// loaded) servers, with service time m, then spends L in transfer. With k jobs an arriving
// job finds Q(k-1) jobs at its server, so a hop takes R(k) = m (1 + Q(k-1)) + L,
// X(k) = k / R(k), Q(k) = X(k) m (1 + Q(k-1)) / N. Exact for exponential service; with
// the less variable shifted exponential, the true throughput is a little higher.
double mva_throughput(const QueueingNetworkParameters& p) {
  double queue = 0, throughput = 0;
  const double servers = p.servers, jobs = static_cast<double>(p.servers) * p.jobs;
  for (double k = 1; k <= jobs; ++k) {
    const double at_server = p.mean_service * (1 + queue);
    throughput = k / (at_server + p.minimum_service);
    queue = throughput * at_server / servers;
  }
  return throughput;
}

TEST(QueueingNetwork, SequentialRunCommitsWhatMeanValueAnalysisPredicts) {
  const auto p = network();
  const QueueingNetwork model(p);
  const double end = 100;
  const EventRunResult result = run_events(model, spec(SyncMethod::sequential, 1, end));
  // Each hop is two events, a departure and an arrival. MVA assumes exponential service;
  // the shifted exponential varies less and moves jobs up to ~30 % faster (ring routing,
  // ten seeds: 0.99 to 1.27 times the estimate).
  const double expected = 2 * mva_throughput(p) * end;
  const auto committed = static_cast<double>(result.total().committed);
  EXPECT_GT(committed, 0.9 * expected) << "expected about " << expected;
  EXPECT_LT(committed, 1.35 * expected) << "expected about " << expected;
  // The asymptotic bound, whatever the service distribution: no more than one hop per mean
  // service time per server, nor per (mean service + transfer) per job.
  const double jobs = static_cast<double>(p.servers) * p.jobs;
  const double bound =
      std::min(p.servers / p.mean_service, jobs / (p.mean_service + p.minimum_service));
  EXPECT_LT(committed, 1.05 * 2 * bound * end);
  EXPECT_EQ(drive(model, end).processed, result.total().committed);
}

TEST(QueueingNetwork, EveryMethodAndGroupCountCommitsTheSequentialDigest) {
  for (const QueueRouting routing : {QueueRouting::random_other, QueueRouting::ring}) {
    const QueueingNetwork model(network(routing));
    const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 60));
    ASSERT_GT(reference.total().committed, 0u);
    for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic})
      for (const std::uint32_t groups : {1u, 2u, 3u}) {
        SCOPED_TRACE(std::string(name_of(method)) + " in " + std::to_string(groups) +
                     " groups, routing " + (routing == QueueRouting::ring ? "ring" : "random"));
        const EventRunResult run = run_events(model, spec(method, groups, 60));
        EXPECT_EQ(run.digest, reference.digest);
        EXPECT_EQ(run.total().committed, reference.total().committed);
      }
  }
}

TEST(QueueingNetwork, ZeroLookaheadRecoversFromDeadlocksWithTheSequentialDigest) {
  const QueueingNetwork model(network(QueueRouting::random_other, 0.0));
  const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 30));
  auto s = spec(SyncMethod::conservative, 2, 30);
  s.deadlock = des::DeadlockPolicy::recover;
  const EventRunResult run = run_events(model, s);
  EXPECT_EQ(run.digest, reference.digest);
  EXPECT_EQ(run.total().committed, reference.total().committed);
  EXPECT_GT(run.deadlocks, 0u);
}

TEST(QueueingNetwork, ConservesJobsAfterEveryEvent) {
  auto stays = network();
  stays.stay = 1.0;
  auto single = network();
  single.servers = 1;
  single.jobs = 3;
  for (const auto& p :
       {network(), network(QueueRouting::ring), network(QueueRouting::ring, 0.0), stays, single}) {
    const QueueingNetwork model(p);
    const double total = static_cast<double>(p.servers) * p.jobs;
    const auto check = [&](const DesEvent&, const std::vector<ComponentState>& states,
                           const std::map<EventKey, DesEvent>& pending) {
      double at_servers = 0, in_transit = 0, busy = 0, departures = 0;
      for (const auto& s : states) {
        const double queue = s.values[QueueingNetwork::queue_length];
        ASSERT_GE(queue, 0);
        ASSERT_EQ(s.values[QueueingNetwork::busy], queue > 0 ? 1 : 0);
        at_servers += queue;
        busy += s.values[QueueingNetwork::busy];
      }
      for (const auto& [key, e] : pending) {
        (e.kind == QueueingNetwork::arrival ? in_transit : departures) += 1;
        // A departure is always scheduled by the server for itself.
        if (e.kind == QueueingNetwork::departure) {
          ASSERT_EQ(e.key.source, e.destination);
        }
      }
      ASSERT_EQ(at_servers + in_transit, total);
      ASSERT_EQ(departures, busy);  // one service in progress per busy server
    };
    const double end = 40;
    const Driven run = drive(model, end, check);
    ASSERT_GT(run.processed, 0u);

    // The time-weighted queue lengths account for every job's time: at servers (the areas),
    // in completed transfers (L per arrival) and in transfers still going at the end.
    double area = 0, arrivals = 0, served = 0, transit = 0, in_flight = 0;
    for (const auto& s : run.states) {
      area += QueueingNetwork::mean_queue_length(s.values, end) * end;
      arrivals += s.values[QueueingNetwork::arrivals];
      served += s.values[QueueingNetwork::served];
    }
    for (const auto& [key, e] : run.pending)
      if (e.kind == QueueingNetwork::arrival) {
        transit += end - (e.key.time - p.minimum_service);
        ++in_flight;
      }
    EXPECT_EQ(served, arrivals + in_flight);
    EXPECT_NEAR(area + p.minimum_service * arrivals + transit, total * end, 1e-9 * total * end);
  }
}

TEST(QueueingNetwork, HandlersMoveOneJobAndRespectTheLookahead) {
  auto p = network(QueueRouting::ring);
  p.servers = 3;
  p.jobs = 0;
  p.stay = 0;
  const QueueingNetwork model(p);
  ComponentState state = model.initial_state(1);
  std::vector<DesEvent> outbox;
  EventContext start(model, 1, 0.0, state, outbox);
  model.start(start);
  EXPECT_TRUE(outbox.empty());  // no jobs, nothing to serve

  // An arrival at an idle server starts a service: a departure to itself.
  EventContext at_arrival(model, 1, 2.0, state, outbox);
  model.handle(DesEvent{EventKey{2.0, 0, 0}, 1, QueueingNetwork::arrival, 1}, at_arrival);
  ASSERT_EQ(outbox.size(), 1u);
  const DesEvent done = outbox[0];
  EXPECT_EQ(done.destination, 1u);
  EXPECT_EQ(done.kind, QueueingNetwork::departure);
  EXPECT_GE(done.key.time - 2.0, p.minimum_service);
  EXPECT_EQ(state.values[QueueingNetwork::queue_length], 1);
  EXPECT_EQ(state.values[QueueingNetwork::busy], 1);

  // A second arrival waits in the queue.
  outbox.clear();
  EventContext second(model, 1, 2.1, state, outbox);
  model.handle(DesEvent{EventKey{2.1, 0, 1}, 1, QueueingNetwork::arrival, 2}, second);
  EXPECT_TRUE(outbox.empty());
  EXPECT_EQ(state.values[QueueingNetwork::queue_length], 2);

  // The departure sends the job on (ring: to server 2) and starts the next service.
  EventContext at_departure(model, 1, done.key.time, state, outbox);
  model.handle(done, at_departure);
  ASSERT_EQ(outbox.size(), 2u);
  EXPECT_EQ(outbox[0].destination, 2u);
  EXPECT_EQ(outbox[0].kind, QueueingNetwork::arrival);
  EXPECT_EQ(outbox[0].key.time, done.key.time + p.minimum_service);
  EXPECT_EQ(outbox[1].destination, 1u);
  EXPECT_EQ(outbox[1].kind, QueueingNetwork::departure);
  EXPECT_EQ(state.values[QueueingNetwork::queue_length], 1);
  EXPECT_EQ(state.values[QueueingNetwork::served], 1);
  // No job over [0, 2], one over [2, 2.1], two from then on to the departure.
  EXPECT_NEAR(state.values[QueueingNetwork::queue_area], 0.1 + (done.key.time - 2.1) * 2, 1e-12);
}

TEST(QueueingNetwork, DeclaresOnlyTheLinksItUses) {
  const QueueingNetwork ring(network(QueueRouting::ring));
  EXPECT_EQ(ring.lookahead(3, 3), 0.5);
  EXPECT_EQ(ring.lookahead(3, 4), 0.5);
  EXPECT_EQ(ring.lookahead(11, 0), 0.5);
  EXPECT_FALSE(ring.lookahead(3, 5));
  EXPECT_FALSE(ring.lookahead(4, 3));
  const QueueingNetwork random(network());
  EXPECT_EQ(random.lookahead(4, 3), 0.5);
  auto p = network();
  p.stay = 1;
  const QueueingNetwork stays(p);
  EXPECT_EQ(stays.lookahead(4, 4), 0.5);
  EXPECT_FALSE(stays.lookahead(4, 3));
  EXPECT_EQ(random.name(), "queueing-network");
  EXPECT_EQ(random.component_name(7), "server-7");
  EXPECT_EQ(random.kind_name(QueueingNetwork::arrival), "arrival");
  EXPECT_EQ(random.kind_name(QueueingNetwork::departure), "departure");
}

TEST(QueueingNetwork, BadParametersNameTheField) {
  auto p = network();
  p.servers = 0;
  expect_input_error<QueueingNetwork>(p, "servers");
  for (const double bad : {0.0, -1.0, nan, infinity}) {
    p = network();
    p.mean_service = bad;
    expect_input_error<QueueingNetwork>(p, "mean_service");
  }
  for (const double bad : {-0.1, nan, 1.5}) {
    p = network();
    p.minimum_service = bad;
    expect_input_error<QueueingNetwork>(p, "minimum_service");
  }
  for (const double bad : {-0.1, 1.1, nan}) {
    p = network();
    p.stay = bad;
    expect_input_error<QueueingNetwork>(p, "stay");
  }
  p = network();
  p.routing = static_cast<QueueRouting>(7);
  expect_input_error<QueueingNetwork>(p, "routing");
  p = network();
  p.jobs = 0;  // an empty network is valid, and nothing happens in it
  EXPECT_EQ(drive(QueueingNetwork(p), 10).processed, 0u);
}

TEST(QueueingNetwork, ADifferentSeedGivesADifferentDigest) {
  const auto p = network();
  auto q = p;
  q.seed = p.seed + 1;
  const auto a = run_events(QueueingNetwork(p), spec(SyncMethod::sequential, 1, 30));
  const auto again = run_events(QueueingNetwork(p), spec(SyncMethod::sequential, 1, 30));
  const auto b = run_events(QueueingNetwork(q), spec(SyncMethod::sequential, 1, 30));
  EXPECT_EQ(a.digest, again.digest);
  EXPECT_NE(a.digest, b.digest);
}

// ---- three components ----------------------------------------------------------------------

ThreeComponentsParameters three(std::uint64_t seed = 5) {
  ThreeComponentsParameters p;
  p.seed = seed;
  return p;
}

TEST(ThreeComponents, SequentialRunCommitsPlausibleEvents) {
  const auto p = three();
  const ThreeComponents model(p);
  const double end = 200;
  const EventRunResult result = run_events(model, spec(SyncMethod::sequential, 1, end));
  const Driven run = drive(model, end);
  ASSERT_EQ(result.components.size(), 3u);
  const auto& k1 = run.states[ThreeComponents::k1].values;
  const auto& k2 = run.states[ThreeComponents::k2].values;
  const auto& k3 = run.states[ThreeComponents::k3].values;
  const double generated = k1[ThreeComponents::k1_generated];
  const double acks = k1[ThreeComponents::k1_acks];
  const double from_k2 = k3[ThreeComponents::k3_from_k2];
  const double direct = k3[ThreeComponents::k3_direct];

  // What each component committed is what its state counted.
  EXPECT_EQ(static_cast<double>(result.components[0].committed), generated + acks);
  EXPECT_EQ(static_cast<double>(result.components[1].committed), k2[ThreeComponents::k2_jobs]);
  EXPECT_EQ(static_cast<double>(result.components[2].committed), from_k2 + direct);
  EXPECT_EQ(run.processed, result.total().committed);

  // K1 generates one job per interval, and the interval stays within its bounds: between
  // end / max_interval and end / min_interval jobs, give or take the randomness.
  EXPECT_GT(generated, 0.7 * end / p.max_interval);
  EXPECT_LT(generated, 1.3 * end / p.min_interval);
  // The loop settles near K2's capacity: K2 takes one job per service_mean at most, and
  // 1 in direct_every jobs bypasses it. Feedback keeps the load below that but high
  // (ten seeds: 0.62 to 0.92 of it).
  const double capacity = end / p.service_mean * p.direct_every / (p.direct_every - 1);
  EXPECT_GT(generated, 0.5 * capacity);
  EXPECT_LT(generated, 1.15 * capacity);
  EXPECT_GE(k1[ThreeComponents::k1_interval], p.min_interval);
  EXPECT_LE(k1[ThreeComponents::k1_interval], p.max_interval);
  // K2 serves one job at a time, each for at least l_23: no more than end / l_23 leave it.
  EXPECT_LE(from_k2, end / p.lookahead_23 + 1);
  // Every 4th job is direct; only jobs still in flight at the end are missing.
  const double in_flight = static_cast<double>(run.pending.size());
  EXPECT_LE(direct, std::floor(generated / p.direct_every));
  EXPECT_GE(direct + in_flight, std::floor(generated / p.direct_every));
  EXPECT_LE(from_k2 + direct, generated);
  EXPECT_LE(acks, from_k2 + direct);
  // Every job takes at least the shorter path's lookaheads.
  const double fastest = std::min(p.lookahead_13, p.lookahead_12 + p.lookahead_23);
  EXPECT_GE(k3[ThreeComponents::k3_latency], fastest * (from_k2 + direct));
  // Per job: generate, job at K2 unless direct, job at K3, ack: three or four events, less
  // only for the jobs and acks still in flight.
  EXPECT_GE(static_cast<double>(run.processed), 3 * generated - 2 * in_flight);
  EXPECT_LE(static_cast<double>(run.processed), 4 * generated);
}

TEST(ThreeComponents, EveryMethodAndGroupCountCommitsTheSequentialDigest) {
  for (const std::uint64_t seed : {5u, 6u}) {
    const ThreeComponents model(three(seed));
    const EventRunResult reference = run_events(model, spec(SyncMethod::sequential, 1, 300));
    ASSERT_GT(reference.total().committed, 0u);
    for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic})
      for (const std::uint32_t groups : {1u, 2u, 3u}) {
        SCOPED_TRACE(std::string(name_of(method)) + " in " + std::to_string(groups) +
                     " groups, seed " + std::to_string(seed));
        const EventRunResult run = run_events(model, spec(method, groups, 300));
        EXPECT_EQ(run.digest, reference.digest);
        EXPECT_EQ(run.total().committed, reference.total().committed);
      }
  }
}

TEST(ThreeComponents, TheSourceSlowsDownWhenK2IsSlow) {
  auto fast = three();
  fast.service_mean = fast.lookahead_23;  // K2 always takes exactly l_23
  auto slow = three();
  slow.service_mean = 3.0;  // K2 can take a job only every 3 on average
  const Driven quick = drive(ThreeComponents(fast), 300);
  const Driven congested = drive(ThreeComponents(slow), 300);
  const double generated_fast = quick.states[0].values[ThreeComponents::k1_generated];
  const double generated_slow = congested.states[0].values[ThreeComponents::k1_generated];
  EXPECT_LT(generated_slow, generated_fast);
  EXPECT_GT(congested.states[0].values[ThreeComponents::k1_interval],
            quick.states[0].values[ThreeComponents::k1_interval]);
  // With gain 0 the interval never moves.
  auto fixed = three();
  fixed.gain = 0;
  EXPECT_EQ(drive(ThreeComponents(fixed), 100).states[0].values[ThreeComponents::k1_interval],
            fixed.initial_interval);
}

TEST(ThreeComponents, LinksAndNamesFollowTheThesis) {
  const auto p = three();
  const ThreeComponents model(p);
  EXPECT_EQ(model.name(), "three-components");
  EXPECT_EQ(model.components(), 3u);
  EXPECT_EQ(model.component_name(0), "K1");
  EXPECT_EQ(model.component_name(1), "K2");
  EXPECT_EQ(model.component_name(2), "K3");
  EXPECT_EQ(model.kind_name(ThreeComponents::generate), "generate");
  EXPECT_EQ(model.kind_name(ThreeComponents::job), "job");
  EXPECT_EQ(model.kind_name(ThreeComponents::ack), "ack");
  EXPECT_EQ(model.lookahead(0, 1), p.lookahead_12);
  EXPECT_EQ(model.lookahead(1, 2), p.lookahead_23);
  EXPECT_EQ(model.lookahead(2, 0), p.lookahead_31);
  EXPECT_EQ(model.lookahead(0, 2), p.lookahead_13);
  EXPECT_EQ(model.lookahead(0, 0), 0.0);
  for (const auto& [from, to] :
       std::vector<std::pair<ComponentId, ComponentId>>{{1, 0}, {2, 1}, {1, 1}, {2, 2}})
    EXPECT_FALSE(model.lookahead(from, to)) << from << " -> " << to;
  // Every event of a run goes over a declared link, at no less than its lookahead
  // (EventContext::send would throw otherwise), and to the component the link says.
  const Driven run = drive(model, 100, [&](const DesEvent& e, const auto&, const auto&) {
    const auto l = model.lookahead(e.key.source, e.destination);
    ASSERT_TRUE(l.has_value());
  });
  EXPECT_GT(run.processed, 0u);
}

TEST(ThreeComponents, BadParametersNameTheField) {
  const auto with = [](auto change) {
    auto p = three();
    change(p);
    return p;
  };
  using P = ThreeComponentsParameters;
  expect_input_error<ThreeComponents>(with([](P& p) { p.lookahead_12 = -1; }), "lookahead_12");
  expect_input_error<ThreeComponents>(with([](P& p) { p.lookahead_23 = nan; }), "lookahead_23");
  expect_input_error<ThreeComponents>(with([](P& p) { p.lookahead_31 = infinity; }),
                                      "lookahead_31");
  expect_input_error<ThreeComponents>(with([](P& p) { p.lookahead_13 = -0.5; }), "lookahead_13");
  expect_input_error<ThreeComponents>(with([](P& p) { p.min_interval = 0; }), "min_interval");
  expect_input_error<ThreeComponents>(with([](P& p) { p.max_interval = 0.1; }), "max_interval");
  expect_input_error<ThreeComponents>(with([](P& p) { p.initial_interval = 5; }),
                                      "initial_interval");
  expect_input_error<ThreeComponents>(with([](P& p) { p.service_mean = 0.9; }), "service_mean");
  expect_input_error<ThreeComponents>(with([](P& p) { p.direct_every = 0; }), "direct_every");
  expect_input_error<ThreeComponents>(with([](P& p) { p.target_latency = nan; }), "target_latency");
  expect_input_error<ThreeComponents>(with([](P& p) { p.gain = -0.1; }), "gain");
}

TEST(ThreeComponents, ADifferentSeedGivesADifferentDigest) {
  const auto a = run_events(ThreeComponents(three(5)), spec(SyncMethod::sequential, 1, 100));
  const auto again = run_events(ThreeComponents(three(5)), spec(SyncMethod::sequential, 1, 100));
  const auto b = run_events(ThreeComponents(three(6)), spec(SyncMethod::sequential, 1, 100));
  EXPECT_EQ(a.digest, again.digest);
  EXPECT_NE(a.digest, b.digest);
}

}  // namespace
}  // namespace kausal

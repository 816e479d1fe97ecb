// Failures during speculation: the worker reports them with epoch and step and waits for a
// rollback; the optimistic monitor fails the run only if it needs that step in that epoch.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "integrator/local_model_link.hpp"
#include "integrator/ordered_sender.hpp"
#include "integrator/routing_sink.hpp"
#include "integrator/worker.hpp"
#include "pendulum_config.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;

// A System whose Calc fails the first time it is asked for time t_fail.
class FlakyLink final : public ModelLink {
 public:
  FlakyLink(SystemCore& core, double t_fail) : inner_(core), t_fail_(t_fail) {}
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) override {
    if (t == t_fail_ && !failed_) {
      failed_ = true;
      throw ModelError("system-1", "flaky Calc");
    }
    inner_.derivative(t, x, u, dx);
  }
  void output(double t, VectorView x, VectorOut y) override { inner_.output(t, x, y); }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) override {
    inner_.jacobian(t, x, u, J);
  }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) override {
    inner_.indicators(t, x, u, g);
  }
  void on_crossing(std::size_t i, double t, VectorOut x) override { inner_.on_crossing(i, t, x); }
  void completed_step(double t, VectorOut x) override { inner_.completed_step(t, x); }
  void handle_event(const Event& e, std::span<double> x) override { inner_.handle_event(e, x); }
  void change(const ModelChange& c) override { inner_.change(c); }
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) override {
    inner_.step(t, h, u, du, x);
  }
  Bytes save_internal() override { return inner_.save_internal(); }
  void restore_internal(std::span<const std::uint8_t> b) override { inner_.restore_internal(b); }

 private:
  LocalModelLink inner_;
  double t_fail_;
  bool failed_ = false;
};

struct RecordingSink final : BatchSink {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<StateBatch> batches;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> failures;  // (epoch, step)

  void deliver(const StateBatch& b) override {
    std::lock_guard lock(mutex);
    batches.push_back(b);
    cv.notify_all();
  }
  void fail(std::exception_ptr, std::uint32_t epoch, std::uint64_t step) override {
    std::lock_guard lock(mutex);
    failures.emplace_back(epoch, step);
    cv.notify_all();
  }
  template <typename P>
  bool wait(P done) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, 5s, [&] { return done(); });
  }
};

TEST(Worker, ReportsAFailureWithEpochAndStepAndResumesAfterARollback) {
  const double h = 1e-3;
  SystemCore system("system-1");
  system.configure("pendulum", to_parameters({0, 1, 1, 0.1, 0, 9.81}));
  FlakyLink link(system, step_time(0, h, 30));  // computing step 31 fails once
  Integrator integrator(
      testing::pendulum_config("integrator-1", OdeMethod::euler, h, {0.3, 0}, 200), link);
  std::mutex mutex;
  RecordingSink sink;
  Worker ahead(integrator, mutex, sink, 4, 100);

  ASSERT_TRUE(sink.wait([&] { return !sink.failures.empty(); }));
  {
    std::lock_guard lock(sink.mutex);
    EXPECT_EQ(sink.failures.front(), (std::pair<std::uint32_t, std::uint64_t>{0, 31}));
    // Every state before the failure was shipped, in order.
    std::uint64_t next = 1;
    for (const auto& b : sink.batches) {
      EXPECT_EQ(b.first_step, next);
      next += b.count();
    }
    EXPECT_EQ(next, 31u);
  }
  const auto r = ahead.exclusive([&] { return integrator.rollback(10); });
  EXPECT_EQ(r.epoch, 1u);
  EXPECT_EQ(r.discarded_steps, 20u);
  ahead.exclusive([&] {
    integrator.commit(10);
  });  // release: the worker runs on in the new epoch, past the old failure
  ASSERT_TRUE(sink.wait([&] {
    return !sink.batches.empty() && sink.batches.back().epoch == 1 &&
           sink.batches.back().first_step + sink.batches.back().count() > 60;
  }));
  std::lock_guard lock(sink.mutex);
  EXPECT_EQ(sink.failures.size(), 1u);
}

// A sink whose deliveries fail as a dead consumer's provide does.
struct UnreachableConsumerSink final : BatchSink {
  RecordingSink& record;
  explicit UnreachableConsumerSink(RecordingSink& r) : record(r) {}
  void deliver(const StateBatch&) override { throw PeerError("integrator-load", "not reachable"); }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    try {
      std::rethrow_exception(error);
    } catch (const PeerError& e) {
      EXPECT_EQ(e.component(), "integrator-load");
    }
    record.fail(error, epoch, step);
  }
};

TEST(Worker, ReportsADeliveryThatFailsAtTheBatchFirstStepAndStops) {
  const double h = 1e-3;
  SystemCore system("system-1");
  system.configure("pendulum", to_parameters({0, 1, 1, 0.1, 0, 9.81}));
  LocalModelLink link(system);
  Integrator integrator(
      testing::pendulum_config("integrator-1", OdeMethod::euler, h, {0.3, 0}, 200), link);
  std::mutex mutex;
  RecordingSink record;
  UnreachableConsumerSink sink(record);
  Worker ahead(integrator, mutex, sink, 4, 100);
  ASSERT_TRUE(record.wait([&] { return !record.failures.empty(); }));
  std::this_thread::sleep_for(50ms);  // a worker that went on would fail again
  std::lock_guard lock(record.mutex);
  ASSERT_EQ(record.failures.size(), 1u);
  EXPECT_EQ(record.failures.front(), (std::pair<std::uint32_t, std::uint64_t>{0, 1}));
}

// A batch of 6 steps from step 4 with two outputs: output k of step s is 10·s + k.
StateBatch batch_with_outputs() {
  StateBatch b = StateBatch::empty_at(0, 4);
  b.state_size = 1;
  b.output_size = 2;
  for (std::uint64_t s = 4; s < 10; ++s) {
    b.states.push_back(static_cast<double>(s));
    b.outputs.insert(b.outputs.end(), {10.0 * s, 10.0 * s + 1});
  }
  return b;
}

// What a routing sink's threads hand on, waited for by the test.
struct Handed {
  std::mutex mutex;
  std::condition_variable cv;
  std::map<std::size_t, std::vector<ChannelSample>> provided;
  std::vector<std::uint64_t> batches;                           // first steps, in order
  std::vector<std::pair<std::uint64_t, std::string>> failures;  // step, component
  template <typename P>
  bool wait(P done) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, 5s, [&] { return done(); });
  }
};
struct HandedMonitor final : BatchSink {
  Handed& h;
  explicit HandedMonitor(Handed& handed) : h(handed) {}
  void deliver(const StateBatch& b) override {
    std::lock_guard lock(h.mutex);
    h.batches.push_back(b.first_step);
    h.cv.notify_all();
  }
  void fail(std::exception_ptr e, std::uint32_t, std::uint64_t step) override {
    std::string who;
    try {
      std::rethrow_exception(e);
    } catch (const ComponentError& c) {
      who = c.component();
    } catch (...) {
    }
    std::lock_guard lock(h.mutex);
    h.failures.emplace_back(step, who);
    h.cv.notify_all();
  }
};

TEST(RoutingSink, ProvidesEachConsumerItsSamplesAndTheMonitorItsBatchesInOrder) {
  Handed h;
  HandedMonitor monitor(h);
  {
    // Consumer 3 samples output 1 every 2 steps on its channel 1; consumer 0 output 0
    // every step on channel 0, and output 1 every 3 steps on channel 2.
    RoutingSink sink(monitor, {{3, 1, 1, 2}, {0, 0, 0, 1}, {0, 2, 1, 3}},
                     [&](std::size_t consumer, const std::vector<ChannelSample>& samples) {
                       std::lock_guard lock(h.mutex);
                       auto& all = h.provided[consumer];
                       all.insert(all.end(), samples.begin(), samples.end());
                       h.cv.notify_all();
                     });
    StateBatch later = batch_with_outputs();
    later.first_step = 10;  // steps 10..15 (the outputs keep their values: only indices count)
    sink.deliver(batch_with_outputs());
    sink.deliver(later);
    ASSERT_TRUE(h.wait([&] {
      return h.batches.size() == 2 && h.provided[3].size() == 6 && h.provided[0].size() == 16;
    }));
  }
  EXPECT_EQ(h.batches, (std::vector<std::uint64_t>{4, 10}));
  const auto& to3 = h.provided.at(3);  // steps 4, 6, 8, 10, 12, 14: samples 2 .. 7 in order
  for (std::size_t k = 0; k < to3.size(); ++k) {
    EXPECT_EQ(to3[k].channel, 1u);
    EXPECT_EQ(to3[k].index, 2 + k);
  }
  EXPECT_EQ(to3[1].value, 10.0 * 6 + 1);  // output 1 of step 6
  std::size_t channel0 = 0, channel2 = 0;
  for (const ChannelSample& c : h.provided.at(0)) {
    if (c.channel == 0) {
      EXPECT_EQ(c.index, channel0 < 6 ? 4 + channel0 : 10 + channel0 - 6);  // every step
      ++channel0;
    } else {
      ASSERT_EQ(c.channel, 2u);
      EXPECT_EQ(c.index, std::vector<std::uint64_t>({2, 3, 4, 5})[channel2]);  // 6, 9, 12, 15
      ++channel2;
    }
  }
  EXPECT_EQ(channel0, 12u);
  EXPECT_EQ(channel2, 4u);
  EXPECT_EQ(h.provided.at(0)[0].value, 40.0);  // output 0 of step 4
}

TEST(RoutingSink, AConsumerThatFailsIsReportedToTheMonitorNamingIt) {
  Handed h;
  HandedMonitor monitor(h);
  RoutingSink sink(monitor, {{1, 0, 0, 1}}, [](std::size_t, const std::vector<ChannelSample>&) {
    throw PeerError("integrator-2", "gone");
  });
  sink.deliver(batch_with_outputs());
  ASSERT_TRUE(h.wait([&] { return !h.failures.empty(); }));
  {
    std::lock_guard lock(h.mutex);
    EXPECT_EQ(h.failures.front(), (std::pair<std::uint64_t, std::string>{4, "integrator-2"}));
  }
  // The worker learns it at its next delivery (and reports it again: the first one counts).
  bool thrown = false;
  for (int k = 0; k < 500 && !thrown; ++k) {
    try {
      sink.deliver(batch_with_outputs());
      std::this_thread::sleep_for(10ms);
    } catch (const PeerError& e) {
      thrown = true;
      EXPECT_EQ(e.component(), "integrator-2");
    }
  }
  EXPECT_TRUE(thrown);
}

TEST(RoutingSink, WithoutConsumersTheMonitorGetsEachBatchBeforeDeliverReturns) {
  Handed h;
  HandedMonitor monitor(h);
  RoutingSink sink(monitor, {}, [](std::size_t, const std::vector<ChannelSample>&) {
    FAIL() << "no consumer to provide";
  });
  sink.deliver(batch_with_outputs());
  std::lock_guard lock(h.mutex);
  EXPECT_EQ(h.batches, (std::vector<std::uint64_t>{4}));
}

TEST(RoutingSink, ReceiversInThisProcessAreCalledFromTheDeliveringThread) {
  Handed h;
  HandedMonitor monitor(h);
  std::map<std::size_t, std::set<std::thread::id>> threads;  // per consumer
  auto record = [&](std::size_t consumer, const std::vector<ChannelSample>& samples) {
    std::lock_guard lock(h.mutex);
    threads[consumer].insert(std::this_thread::get_id());
    auto& all = h.provided[consumer];
    all.insert(all.end(), samples.begin(), samples.end());
    h.cv.notify_all();
  };
  {
    // Everyone here (the in-process deployment): all done before deliver() returns.
    RoutingSink sink(monitor, {{3, 1, 1, 2}, {0, 0, 0, 1}}, record, {true, {0, 3}});
    sink.deliver(batch_with_outputs());
    std::lock_guard lock(h.mutex);
    EXPECT_EQ(h.batches, (std::vector<std::uint64_t>{4}));
    EXPECT_EQ(h.provided[0].size(), 6u);
    EXPECT_EQ(h.provided[3].size(), 3u);
    EXPECT_EQ(threads[0], std::set{std::this_thread::get_id()});
    EXPECT_EQ(threads[3], std::set{std::this_thread::get_id()});
  }
  {
    // Consumer 3 elsewhere: it gets a thread, and so does the monitor (a failure must reach
    // it after the batches before it); consumer 0 is still called from this thread.
    RoutingSink sink(monitor, {{3, 1, 1, 2}, {0, 0, 0, 1}}, record, {true, {0}});
    sink.deliver(batch_with_outputs());
    {
      std::lock_guard lock(h.mutex);
      EXPECT_EQ(h.provided[0].size(), 12u);
    }
    ASSERT_TRUE(h.wait([&] { return h.batches.size() == 2 && h.provided[3].size() == 6; }));
    std::lock_guard lock(h.mutex);
    EXPECT_EQ(threads[0], std::set{std::this_thread::get_id()});
    EXPECT_EQ(threads[3].size(), 2u);  // this thread before, a sender thread now
  }
}

TEST(RoutingSink, AConsumerInThisProcessThatFailsThrowsOutOfDeliverBeforeTheMonitorGetsTheBatch) {
  Handed h;
  HandedMonitor monitor(h);
  RoutingSink sink(monitor, {{1, 0, 0, 1}},
                   [](std::size_t, const std::vector<ChannelSample>&) {
                     throw ProtocolError("integrator-2", "sample 4 of channel 0 out of order");
                   },
                   {true, {1}});
  try {
    sink.deliver(batch_with_outputs());
    FAIL() << "the consumer's failure must reach the worker";
  } catch (const ProtocolError& e) {
    EXPECT_EQ(e.component(), "integrator-2");
  }
  std::lock_guard lock(h.mutex);
  EXPECT_TRUE(h.batches.empty());
}

// A receiver that waits at a gate the test opens.
struct GatedReceiver {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  std::vector<int> calls;
  void call(int k) {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return open; });
    calls.push_back(k);
  }
  void let_through() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

TEST(OrderedSender, ThePosterGoesOnWhileTheReceiverIsBusyUpToTheBudgetAndOrderIsKept) {
  GatedReceiver receiver;
  {
    OrderedSender sender(1600);  // two calls of 800 bytes wait; the one in progress counts
    sender.post([&] { receiver.call(1); }, 800);
    sender.post([&] { receiver.call(2); }, 800);
    auto third =
        std::async(std::launch::async, [&] { sender.post([&] { receiver.call(3); }, 800); });
    EXPECT_EQ(third.wait_for(100ms), std::future_status::timeout) << "past the budget";
    receiver.let_through();
    ASSERT_EQ(third.wait_for(5s), std::future_status::ready);
    std::promise<void> last;
    sender.post([&] { last.set_value(); }, 0);
    ASSERT_EQ(last.get_future().wait_for(5s), std::future_status::ready);
  }
  EXPECT_EQ(receiver.calls, (std::vector<int>{1, 2, 3}));
}

TEST(OrderedSender, ACallThatThrowsBreaksItAndLaterPostsThrowThatFailure) {
  OrderedSender sender(1 << 20);
  std::atomic<int> after{0};
  sender.post([] { throw PeerError("monitor", "gone"); }, 0);
  bool thrown = false;
  for (int k = 0; k < 500 && !thrown; ++k) {
    try {
      sender.post([&] { ++after; }, 0);
      std::this_thread::sleep_for(10ms);
    } catch (const PeerError& e) {
      thrown = true;
      EXPECT_EQ(e.component(), "monitor");
    }
  }
  EXPECT_TRUE(thrown);
  EXPECT_EQ(after.load(), 0);  // nothing after the failure was called
}

// A deployment whose Integrators are scripted: the test fills the inbox.
struct ScriptedDeployment final : Deployment {
  struct Port final : IntegratorPort {
    std::string id;
    std::uint32_t epoch = 0;
    explicit Port(std::string n) : id(std::move(n)) {}
    const std::string& name() const override { return id; }
    StateBatch advance(std::uint64_t, std::uint64_t) override { throw std::logic_error("unused"); }
    std::vector<double> apply_event(const Event&) override { return {-0.5, 0.0}; }
    void schedule(const std::vector<ArrivingEvent>&) override {}
    void change(const ModelChange&) override {}
    void start(std::size_t, std::uint64_t, std::uint64_t) override {}
    void release(std::uint64_t) override {}
    void provide(const std::vector<ChannelSample>&) override {}
    void provide_predictions(const std::vector<ChannelPrediction>&) override {}
    IntegratorStats stats() override { return {}; }
    RollbackResult rollback(std::uint64_t) override { return {++epoch, 0}; }
    void commit(std::uint64_t) override {}
  };
  BatchInbox box;
  std::vector<std::unique_ptr<Port>> ports;
  ScriptedDeployment() {
    for (const char* n : {"integrator-1", "integrator-2"})
      ports.push_back(std::make_unique<Port>(n));
  }
  std::size_t size() const override { return ports.size(); }
  IntegratorPort& integrator(std::size_t i) override { return *ports[i]; }
  BatchInbox& inbox() override { return box; }
  std::vector<ComponentReport> reports() override { return {}; }
  std::vector<std::string> component_names() const override {
    std::vector<std::string> names;
    for (const auto& p : ports) names.push_back(p->id);
    return names;
  }
};

// Two equal bobs touching at rest (exact binary spacing); pendulum 1 far left, unless
// `hit_at` makes it arrive at the bottom moving right at that step.
Scenario touching_pair(std::uint64_t steps) {
  Scenario s;
  s.file = "scripted";
  s.h = 1e-3;
  s.steps = steps;
  s.chain.restitution = 1;
  s.chain.pendulums = {{0.0, 1, 1, 0.0625, 0, 9.81, 0}, {0.125, 1, 1, 0.0625, 0, 9.81, 0}};
  s.initial = {{-0.5, 0}, {0, 0}};
  return s;
}

StateBatch scripted(std::uint32_t epoch, std::uint64_t from, std::uint64_t to, PendulumState x,
                    std::uint64_t hit_at = 0) {
  StateBatch b = StateBatch::empty_at(epoch, from);
  b.state_size = 2;
  for (std::uint64_t s = from; s <= to; ++s) {
    const PendulumState y = s == hit_at ? PendulumState{0, 1} : x;
    b.states.insert(b.states.end(), y.begin(), y.end());
  }
  return b;
}

RunResult drive(ScriptedDeployment& d, const Scenario& s) {
  OptimisticStepper stepper(d, s, {4, 100});
  TrajectoryRecorder recorder({}, 2, 1, s.steps, 0, s.h);
  RunControl control;
  return drive_chain(s, SyncMethod::optimistic, stepper, {&recorder}, control);
}

TEST(Optimistic, AFailureInADiscardedFutureIsNoFailure) {
  const Scenario s = touching_pair(8);
  ScriptedDeployment d;
  auto fail = std::make_exception_ptr(ModelError("integrator-1", "blew up speculatively"));
  d.box.push({0, scripted(0, 1, 5, {-0.5, 0}, 3), nullptr});  // hits pendulum 2 at step 3
  d.box.push({1, scripted(0, 1, 8, {0, 0}), nullptr});
  d.box.push({0, StateBatch::empty_at(0, 6), fail, 6});    // epoch 0 could not do step 6
  d.box.push({0, scripted(1, 4, 8, {-0.5, 0}), nullptr});  // after the rollback at 3
  d.box.push({1, scripted(1, 4, 8, {0, 0}), nullptr});
  const RunResult r = drive(d, s);
  EXPECT_EQ(r.status, RunStatus::completed) << r.error;
  EXPECT_EQ(r.collisions, 1u);
  EXPECT_EQ(r.counters.rollbacks, 2u);
  EXPECT_GE(r.counters.stale_batches, 1u);  // the failure of epoch 0
}

TEST(Optimistic, AFailureInTheCommittedFutureEndsTheRun) {
  const Scenario s = touching_pair(8);
  ScriptedDeployment d;
  auto fail = std::make_exception_ptr(ModelError("integrator-1", "state is no longer finite"));
  d.box.push({0, scripted(0, 1, 5, {-0.5, 0}), nullptr});
  d.box.push({1, scripted(0, 1, 8, {0, 0}), nullptr});
  d.box.push({0, StateBatch::empty_at(0, 6), fail, 6});
  const RunResult r = drive(d, s);
  EXPECT_EQ(r.status, RunStatus::failed);
  EXPECT_EQ(r.steps, 5u);  // everything before the failing step is committed
  EXPECT_NE(r.error.find("state is no longer finite"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace kausal

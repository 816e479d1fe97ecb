// Operator injections in paced runs through run(RunSpec), in one process (LocalPlatform):
// an outside clock makes the steps they take effect at deterministic; the recording replayed
// under every method gives the live run's digest, which differs from the run without them.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <thread>

#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/injection_check.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/sync/operator.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::as_fast_as_possible;
using testing::Method;
using testing::run_one;
using testing::spec_of;
using testing::TempDir;

RealtimeOptions ticked() {
  RealtimeOptions o;
  o.clock = ClockSource::external;
  return o;
}

// The run's clock and operator, as the platform hands them out; the outside world's script
// runs on its own thread once both are there.
class Outside {
 public:
  explicit Outside(LocalPlatform& platform) {
    platform.on_clock = [this](StepClock* c) { clock_ = c; };
    platform.on_operator = [this](Operator* o) { operator_ = o; };
  }
  template <typename Script>
  void start(Script script) {
    thread_ = std::thread([this, script] {
      while (!clock_ || !operator_) std::this_thread::yield();
      script(*clock_.load(), *operator_.load());
    });
  }
  ~Outside() {
    if (thread_.joinable()) thread_.join();
  }
  void join() { thread_.join(); }

  // Ticks n times, then waits until the run has committed everything released.
  static void tick_and_settle(StepClock& clock, std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; ++k) clock.tick();
    while (clock.status().committed < clock.status().ticks) std::this_thread::yield();
  }

 private:
  std::atomic<StepClock*> clock_{nullptr};
  std::atomic<Operator*> operator_{nullptr};
  std::thread thread_;
};

// The recording of `live` replayed under each method: the live digest every time.
void expect_replays_agree(const RunModel& model, const fs::path& live, const RunResult& recorded,
                          const std::vector<Method>& methods, const fs::path& dir) {
  const std::vector<Injection> recording = load_injections(live / "injections.jsonl");
  LocalPlatform platform;
  for (const Method& m : methods) {
    RunSpec spec = spec_of(model, m, dir / ("replay-" + method_dir(m.method, m.guarantee)),
                           as_fast_as_possible());
    spec.replayed = recording;
    const RunResult r = run_one(spec, platform);
    EXPECT_EQ(r.status, recorded.status) << method_label(m.method, m.guarantee) << ": " << r.error;
    EXPECT_EQ(r.steps, recorded.steps) << method_label(m.method, m.guarantee);
    EXPECT_EQ(r.trajectory_sha256, recorded.trajectory_sha256)
        << method_label(m.method, m.guarantee);
  }
}

TEST(Replay, PushesAndAStopReplayedUnderEveryMethodGiveTheLiveDigest) {
  TempDir dir;
  const RunModel chain = ChainModel{
      std::make_shared<const Scenario>(load_scenario(testing::short_thesis(dir.path(), "1.0"))),
      nullptr};
  LocalPlatform platform;
  Outside outside(platform);
  std::uint64_t pushed_at = 0, stopped_at = 0;
  outside.start([&](StepClock& clock, Operator& op) {
    Outside::tick_and_settle(clock, 300);
    pushed_at = op.push(2, 0.05);
    EXPECT_THROW(op.push(6, 0.05), InputError);  // five pendulums
    EXPECT_THROW(op.set("a.b", 1), InputError);  // a chain has nothing to set
    Outside::tick_and_settle(clock, 200);
    stopped_at = op.stop();
    clock.tick();  // the step the stop holds back is released, and not taken
  });
  const RunResult live = run_one(
      spec_of(chain, {SyncMethod::optimistic, Guarantee::none}, dir / "live", ticked()), platform);
  outside.join();
  EXPECT_EQ(pushed_at, 300u);
  EXPECT_EQ(stopped_at, 500u);
  ASSERT_EQ(live.status, RunStatus::interrupted) << live.error;
  EXPECT_EQ(live.error, "stopped by the operator at step 500");
  EXPECT_EQ(live.steps, 500u);
  const std::vector<Injection> recorded = load_injections(dir / "live" / "injections.jsonl");
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0], (Injection{InjectionKind::push, 300, "2", 0.05}));
  EXPECT_EQ(recorded[1], (Injection{InjectionKind::stop, 500, "", 0}));

  // The push made a difference.
  const RunResult unpushed = run_one(
      spec_of(chain, {SyncMethod::sequential, Guarantee::none}, dir / "unpushed", {}), platform);
  EXPECT_NE(unpushed.trajectory_sha256, live.trajectory_sha256);
  expect_replays_agree(chain, dir / "live", live,
                       {{SyncMethod::sequential, Guarantee::none},
                        {SyncMethod::conservative, Guarantee::step},
                        {SyncMethod::conservative, Guarantee::lookahead},
                        {SyncMethod::optimistic, Guarantee::none}},
                       dir.path());
}

TEST(Replay, ChangedInputsAndParametersReplayedUnderEveryMethodGiveTheLiveDigest) {
  TempDir dir;
  const auto s = std::make_shared<const PartitionedScenario>(
      load_partitioned_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-tanks.toml"));
  const RunModel tanks = PartitionedModel{s, nullptr};
  LocalPlatform platform;
  Outside outside(platform);
  std::uint64_t inflow_at = 0, area_at = 0;
  outside.start([&](StepClock& clock, Operator& op) {
    Outside::tick_and_settle(clock, 100);
    inflow_at = op.set("upper.inflow", 0.05);
    EXPECT_THROW(op.set("lower.inflow", 1), InputError);  // fed by the upper tank
    EXPECT_THROW(op.set("lower.bogus", 1), InputError);
    EXPECT_THROW(op.set("middle.area", 1), InputError);
    EXPECT_THROW(op.push(1, 1), InputError);
    Outside::tick_and_settle(clock, 101);
    area_at = op.set("lower.area", 1.5);
    Outside::tick_and_settle(clock, s->ticks - 201);
  });
  const RunResult live =
      run_one(spec_of(tanks, {SyncMethod::conservative, Guarantee::none}, dir / "live", ticked()),
              platform);
  outside.join();
  // One common step (2 ticks: the upper tank steps 1 s, the lower 0.5 s) past the released
  // ticks.
  EXPECT_EQ(inflow_at, 102u);
  EXPECT_EQ(area_at, 204u);
  ASSERT_EQ(live.status, RunStatus::completed) << live.error;
  const RunResult unchanged = run_one(
      spec_of(tanks, {SyncMethod::sequential, Guarantee::none}, dir / "unchanged", {}), platform);
  EXPECT_NE(unchanged.trajectory_sha256, live.trajectory_sha256);
  expect_replays_agree(tanks, dir / "live", live,
                       {{SyncMethod::sequential, Guarantee::none},
                        {SyncMethod::conservative, Guarantee::none},
                        {SyncMethod::optimistic, Guarantee::none}},
                       dir.path());
}

// Under the co-simulation master a change goes on the master's grid, its longest macro step
// past the released ticks (the master computes a macro step from its start): the live run
// and its replays agree, sequential and with the partitions in processes of their own.
TEST(Replay, ChangesUnderTheMasterReplayedGiveTheLiveDigest) {
  TempDir dir;
  const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(
      std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-mass-master.toml"));
  ASSERT_TRUE(s->master);
  const RunModel master = PartitionedModel{s, nullptr};
  const std::uint64_t grid = s->master->grid_ticks;
  const std::uint64_t ahead = (s->master->max_ticks + grid - 1) / grid * grid;
  LocalPlatform platform;
  Outside outside(platform);
  std::uint64_t damping_at = 0, stiffness_at = 0;
  outside.start([&](StepClock& clock, Operator& op) {
    Outside::tick_and_settle(clock, 100 * grid);
    damping_at = op.set("mass1.d", 0.5);
    EXPECT_THROW(op.set("mass1.bogus", 1), InputError);
    Outside::tick_and_settle(clock, 3 * ahead);
    stiffness_at = op.set("mass2.k", 900);
    Outside::tick_and_settle(clock, s->ticks - 100 * grid - 3 * ahead);
  });
  const RunResult live =
      run_one(spec_of(master, {SyncMethod::conservative, Guarantee::none}, dir / "live", ticked()),
              platform);
  outside.join();
  EXPECT_EQ(damping_at, 100 * grid + ahead);
  EXPECT_EQ(stiffness_at, 100 * grid + 4 * ahead);
  ASSERT_EQ(live.status, RunStatus::completed) << live.error;
  const RunResult unchanged = run_one(
      spec_of(master, {SyncMethod::sequential, Guarantee::none}, dir / "unchanged", {}), platform);
  EXPECT_NE(unchanged.trajectory_sha256, live.trajectory_sha256);
  expect_replays_agree(
      master, dir / "live", live,
      {{SyncMethod::sequential, Guarantee::none}, {SyncMethod::conservative, Guarantee::none}},
      dir.path());
}

TEST(Replay, AnInjectionTheModelCannotTakeIsRefusedBeforeTheRun) {
  TempDir dir;
  const RunModel chain = ChainModel{
      std::make_shared<const Scenario>(load_scenario(testing::short_thesis(dir.path(), "0.1"))),
      nullptr};
  RunSpec spec =
      spec_of(chain, {SyncMethod::sequential, Guarantee::none}, dir / "bad", as_fast_as_possible());
  spec.replayed = {{InjectionKind::push, 10, "0", 0.1}};
  LocalPlatform platform;
  const RunResult r = run_one(spec, platform);
  EXPECT_EQ(r.status, RunStatus::failed);
  EXPECT_EQ(r.exit_code, ExitCode::bad_input);
  EXPECT_NE(r.error.find("no pendulum '0'"), std::string::npos) << r.error;
}

// `kausal inject DIR push 1 1e308` was accepted and recorded, then failed the run (and its
// replay). A push the chain's steps cannot resolve is refused, naming what it would take.
TEST(Replay, APushTheChainCannotResolveIsRefusedNamingTheLargestItTakes) {
  TempDir dir;
  const auto scenario =
      std::make_shared<const Scenario>(load_scenario(testing::short_thesis(dir.path(), "0.1")));
  const RunModel chain = ChainModel{scenario, nullptr};
  const PendulumParams& p = scenario->chain.pendulums[0];
  const double largest = p.mass * p.length / scenario->h;
  EXPECT_NO_THROW(check_injection(chain, {InjectionKind::push, 0, "1", largest}));
  EXPECT_NO_THROW(check_injection(chain, {InjectionKind::push, 0, "1", -largest}));
  for (const double impulse : {1e308, -1e308, 2 * largest}) {
    try {
      check_injection(chain, {InjectionKind::push, 0, "1", impulse});
      ADD_FAILURE() << impulse << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("rad per step"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kausal

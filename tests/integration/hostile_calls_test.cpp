// Hostile or careless calls over CORBA: this test process is a client of real
// kausal-system and kausal-integrator processes, as any program on the network could be.
// Every size, count and window is checked against the System's model and the limits
// (system/request_limits.hpp); one call's work and memory are bounded; protocol mistakes
// are answered with the declared ProtocolViolation (never CORBA::UNKNOWN); and the
// component lives on after each of them.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <memory>
#include <thread>

#include "component_client.hpp"
#include "idl/block_convert.hpp"
#include "monitor/deploy/clock_servant.hpp"
#include "monitor/deploy/served_reference.hpp"
#include "monitor/deploy/state_sink_servant.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto npos = std::string::npos;
constexpr CORBA::ULong huge_count = std::numeric_limits<CORBA::ULong>::max();
constexpr CORBA::ULongLong endless = std::numeric_limits<CORBA::ULongLong>::max();

// A sink servant in the test's ORB, deactivated when the test leaves.
template <typename Servant, typename Sink>
class TestSink {
 public:
  explicit TestSink(Servant* servant) : servant_(servant) {
    OrbRuntime& orb = monitor_orb(1000);
    CORBA::Object_var obj = orb.resolve(orb.activate(servant_));
    ref_ = Sink::_narrow(obj);
  }
  ~TestSink() { monitor_orb(1000).deactivate(servant_); }
  typename Sink::_ptr_type ref() const { return ref_.in(); }

 private:
  PortableServer::Servant_var<Servant> servant_;
  typename Sink::_var_type ref_;
};

// The monitor's sink for one Integrator "integrator-w" of this many states and outputs.
struct StateSink {
  explicit StateSink(std::size_t state_size = 2, std::size_t output_size = 0)
      : sink{new StateSinkServant(inbox, {{"integrator-w", {0, state_size, output_size}}})} {}
  std::shared_ptr<BatchInbox> inbox = std::make_shared<BatchInbox>();
  TestSink<StateSinkServant, idl::StateSink> sink;
  idl::StateSink_ptr ref() const { return sink.ref(); }
};

void expect_alive(WireComponents& w) {
  EXPECT_NO_THROW(w.integrator->ping());
  EXPECT_NO_THROW(w.system->ping());
  EXPECT_TRUE(w.integrator_process.running()) << w.integrator_process.status();
  EXPECT_TRUE(w.system_process.running()) << w.system_process.status();
}

TEST(HostileCalls, CalcBeforeConfigureIsAProtocolViolation) {
  WireComponents w;
  const idl::DoubleSeq x = to_seq(std::vector<double>{0.1, 0.2});
  const idl::DoubleSeq no_inputs;
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              delete w.system->derivative(0, x, no_inputs);
            }).find("before configure"),
            npos);
  const idl::Event e = to_idl(Event{"impulse", 0, 0, {1.0}});
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { delete w.system->handle_event(e, x); }), "");
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { w.system->shape(); }), "");
  expect_alive(w);
}

TEST(HostileCalls, SetUpOnceStartedIsAProtocolViolation) {
  WireComponents w;
  w.set_up_pendulum(1000);
  StateSink sink;
  w.integrator->start(sink.ref(), 8, 16, endless);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->set_up(w.pendulum_setup());
            }).find("once started"),
            npos);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start(sink.ref(), 8, 16, endless);
            }).find("twice"),
            npos);
  // It ran ahead to its window and shipped what it computed.
  const auto batch = sink.inbox->pop(5s);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->batch.first_step, 1u);
  expect_alive(w);
}

// calc_work = 10^12 made one Calc hold the System for an hour: the work of one Calc is
// bounded (limits::max_calc_work) for every model, over the wire as in a scenario.
TEST(HostileCalls, WorkPerCalcBeyondTheLimitIsRefusedNamingCalcWork) {
  WireComponents w;
  const idl::ParameterSeq p = to_idl(
      Parameters{{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}, {"calc_work", 1e12}});
  EXPECT_NE(
      reason_of<idl::ModelFailure>([&] { w.system->configure("pendulum", p); }).find("calc_work"),
      npos);
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(w.member("actuator", {{"calc_work", 1e9}}),
                                            idl::DirectLinkSeq{}, idl::ConstantInputSeq{});
            }).find("calc_work"),
            npos);
  expect_alive(w);
}

TEST(HostileCalls, AStateOfAnotherSizeThanTheModelsIsRefusedNamingX0) {
  WireComponents w;
  const idl::ParameterSeq p =
      to_idl(Parameters{{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}});
  w.system->configure("pendulum", p);
  idl::IntegratorSetup setup = w.pendulum_setup();
  setup.x0 = to_seq(std::vector<double>(3, 0.1));
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { w.integrator->set_up(setup); }).find("x0"),
            npos);
  expect_alive(w);
}

// The setup that aborted the Integrator (a worker allocating 2^32 - 1 outputs) and its
// relatives: each refused naming the field, and the Integrator lives on.
TEST(HostileCalls, PartitionSizesThatDoNotFitTheModelAreRefusedNamingTheField) {
  WireComponents w;
  // Two members of one name (a change could reach either) are refused; the System lives on.
  const Parameters tank{{"area", 1}, {"orifice", 0.01}, {"level0", 1}};
  const idl::MemberSetupSeq twins = to_idl(
      std::vector<MemberRecipe>{{"a", "water_tank", tank, {}}, {"a", "water_tank", tank, {}}});
  const idl::DirectLinkSeq no_links;
  const idl::ConstantInputSeq no_constants;
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(twins, no_links, no_constants);
            }).find("two members of the partition have this name"),
            npos);
  w.configure_tank();
  const IntegratorConfig good = w.tank_config();
  auto refused = [&](const char* field, auto&& spoil) {
    idl::IntegratorSetup setup = to_idl(good, w.system.in());
    spoil(setup);
    const std::string why = reason_of<idl::ProtocolViolation>([&] { w.integrator->set_up(setup); });
    EXPECT_NE(why.find(field), npos) << field << ": " << why;
  };
  refused("output_size", [](idl::IntegratorSetup& s) { s.output_size = huge_count; });
  refused("indicator_count", [](idl::IntegratorSetup& s) { s.indicator_count = huge_count; });
  refused("x0", [](idl::IntegratorSetup& s) { s.x0.length(5); });
  refused("channels", [](idl::IntegratorSetup& s) { s.channels.length(0); });
  StateSink sink(1, 2);
  // Nothing was set up: starting is refused, and nothing steps.
  EXPECT_NE(
      reason_of<idl::ProtocolViolation>([&] { w.integrator->start(sink.ref(), 8, 4, endless); }),
      "");
  w.integrator->set_up(to_idl(good, w.system.in()));
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start(sink.ref(), huge_count, 4, endless);
            }).find("batch_size"),
            npos);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start(sink.ref(), 8, endless, endless);
            }).find("window"),
            npos);
  w.integrator->start(sink.ref(), 8, 4, endless);  // waits for its input, alive
  std::this_thread::sleep_for(200ms);
  expect_alive(w);
}

// advance(10^8, 0) used to compute for minutes, holding the Integrator's lock, its state
// list growing by 5 MB/s long after the caller had given up.
TEST(HostileCalls, AnAdvanceComputesForABoundedTimeAndHoldsABoundedStateList) {
  WireComponents w;
  w.set_up_pendulum();
  // Further past gvt than the state list may hold: refused at once.
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              delete w.integrator->advance(100'000'000, 0);
            }).find("gvt"),
            npos);
  // Within that budget but minutes of work: the answer comes after about 250 ms with the
  // steps taken (well within this client's call timeout of 2 s), and the next call is
  // served at once: the Integrator is not computing on for a caller that gave up.
  const auto asked = std::chrono::steady_clock::now();
  idl::StateBatch_var first = w.integrator->advance(1'200'000, 0);
  const auto answered = std::chrono::steady_clock::now();
  const std::uint64_t taken = first->states.length() / 2;
  EXPECT_GT(taken, 0u);
  EXPECT_LT(taken, 1'200'000u);
  EXPECT_LT(answered - asked, 1500ms);
  w.integrator->commit(taken);
  EXPECT_LT(std::chrono::steady_clock::now() - answered, 500ms);
  // Asked again, it goes on from where it stopped.
  idl::StateBatch_var next = w.integrator->advance(1'200'000, 0);
  EXPECT_EQ(next->first_step, taken + 1);
  EXPECT_LT(resident_mib(w.integrator_process.pid()), 200.0);
  expect_alive(w);
}

// Samples for steps far ahead of the partition used to be kept without bound (100,000 per
// call for a minute: 7 MB to 1.2 GB). A channel now holds at most its share of the memory
// budget ahead of the oldest sample a step needs; beyond it, provide is refused.
TEST(HostileCalls, SamplesFarAheadOfThePartitionAreRefusedWithinTheMemoryBudget) {
  WireComponents w;
  w.configure_tank();
  IntegratorConfig config = w.tank_config();
  config.last_step = std::numeric_limits<std::uint64_t>::max();
  w.integrator->set_up(to_idl(config, w.system.in()));
  StateSink sink(1, 2);
  w.integrator->start(sink.ref(), 8, 4, endless);  // a window of 4 steps: it waits at once
  constexpr CORBA::ULong per_call = 100'000;
  idl::ChannelSampleSeq batch;
  batch.length(per_call);
  std::uint64_t sent = 0;
  std::string refused;
  // The budget is 256 MiB: about 5.6 million samples of one channel.
  for (int call = 0; call < 200 && refused.empty(); ++call) {
    for (CORBA::ULong k = 0; k < per_call; ++k) batch[k] = {0, sent + k, 1e-3};
    refused = reason_of<idl::ProtocolViolation>([&] { w.integrator->provide(batch); });
    if (refused.empty()) sent += per_call;
  }
  EXPECT_NE(refused.find("samples ahead of the oldest one a step still needs"), npos) << refused;
  EXPECT_GT(sent, 1'000'000u);   // a legitimate producer's lead is far below the budget
  EXPECT_LT(sent, 10'000'000u);  // and the budget holds
  EXPECT_LT(resident_mib(w.integrator_process.pid()), 700.0);
  expect_alive(w);
}

TEST(HostileCalls, StartWithAnEndlessWindowOrBatchIsRefused) {
  WireComponents w;
  w.set_up_pendulum();
  StateSink sink;
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start(sink.ref(), 8, endless, endless);
            }).find("window"),
            npos);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start(sink.ref(), huge_count, 16, endless);
            }).find("batch_size"),
            npos);
  // Refused calls changed nothing: a sane start steps and ships its window.
  w.integrator->start(sink.ref(), 8, 16, endless);
  std::uint64_t states = 0;
  while (auto item = sink.inbox->pop(1s)) states += item->batch.count();
  EXPECT_EQ(states, 16u);
  expect_alive(w);
}

// A kausal-block answers every request that does not fit with an IDL exception naming the
// field, computes nothing for it, and serves the next good one.
TEST(HostileCalls, ABlockRefusesRequestsThatDoNotFitAndLivesOn) {
  TempDir dir;
  ChildProcess process{"block-w",
                       fs::path(KAUSAL_BIN_DIR) / "kausal-block",
                       {"--name", "block-w"},
                       dir / "block.log"};
  const idl::Block_var block = start_component<idl::Block>(process);
  ASSERT_FALSE(CORBA::is_nil(block));
  idl::BlockAdvance request;
  request.from = 0;
  request.restart = true;
  request.states = to_seq(std::vector<double>{0.1, 0.0, 0.0, 0.0});
  request.steps = 1;
  request.limit = 3;  // (IDL structs leave their numbers uninitialised)
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              delete block->advance(request);
            }).find("before set_up"),
            npos);
  BlockSpec spec;
  for (const double x : {0.0, 0.3}) spec.chain.pendulums.push_back({x, 1, 1, 0.1, 0, 9.81, 0});
  spec.h = 1e-3;
  idl::BlockSetup setup = to_idl(spec);
  setup.method = "leapfrog";
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { block->set_up(setup); }).find("leapfrog"), npos);
  setup.method = "euler";
  setup.pendulums[1].mass = -1;
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { block->set_up(setup); }).find("mass"), npos);
  setup.pendulums[1].mass = 1;
  setup.pendulums[1].calc_work = 1'000'000'000'000;  // an hour per Calc
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { block->set_up(setup); }).find("calc_work"), npos);
  block->set_up(to_idl(spec));
  request.states.length(3);  // not (phi, omega) pairs
  EXPECT_NE(
      reason_of<idl::ProtocolViolation>([&] { delete block->advance(request); }).find("pairs"),
      npos);
  request.states = to_seq(std::vector<double>{0.1, 0.0, 0.0, 0.0});
  request.steps = std::numeric_limits<CORBA::ULongLong>::max();
  EXPECT_NE(
      reason_of<idl::ProtocolViolation>([&] { delete block->advance(request); }).find("steps"),
      npos);
  request.steps = 3;
  request.edge.length(1);
  request.edge[0] = 2;
  EXPECT_NE(
      reason_of<idl::ProtocolViolation>([&] { delete block->advance(request); }).find("one step"),
      npos);
  request.edge.length(0);
  // Running ahead it answers with the steps computed so far (at least one), and computes no
  // further than asked: 2 pendulums, Euler, at most 3 steps.
  idl::BlockSteps_var steps = block->advance(request);
  const CORBA::ULong taken = steps->impacts.length();
  EXPECT_GE(taken, 1u);
  EXPECT_LE(taken, 3u);
  EXPECT_EQ(steps->states.length(), 4 * taken);
  EXPECT_GE(steps->calc_calls, 2 * taken);
  EXPECT_LE(steps->calc_calls, 6u);
  // Asked to run ahead for ever, it holds at most its memory budget of steps (256 MiB): the
  // budget once counted the states alone, and these 2 pendulums held 747 MB.
  request.from = 0;
  request.steps = 1;
  request.limit = endless;
  steps = block->advance(request);
  double held = 0;
  for (int same = 0, k = 0; same < 3 && k < 300; ++k) {  // until it stops growing (60 s)
    std::this_thread::sleep_for(200ms);
    const double now = resident_mib(process.pid());
    same = now == held ? same + 1 : 0;
    held = now;
  }
  EXPECT_GT(held, 100.0);  // it did run ahead
  EXPECT_LT(held, 340.0);
  block->ping();
  EXPECT_TRUE(process.running());
}

// The direct data path sends from the worker's thread to receivers in this process only
// (integrator/routing_sink.hpp); that rests on this test's question.
TEST(OrbRuntime, ServesHereOnlyObjectsActiveInThisProcess) {
  WireComponents w;  // objects of other processes, with keys much like this one's
  StateSink in_root;
  OrbRuntime& orb = monitor_orb(1000);
  EXPECT_TRUE(orb.serves_here(in_root.ref()));
  EXPECT_FALSE(orb.serves_here(w.integrator.in()));
  EXPECT_FALSE(orb.serves_here(w.system.in()));
  EXPECT_FALSE(orb.serves_here(CORBA::Object::_nil()));
  {
    CollocatedAdapter adapter(orb, true);  // as the single layout hosts its servants
    const PortableServer::Servant_var<StateSinkServant> servant =
        new StateSinkServant(in_root.inbox, {{"integrator-w", {0, 2, 0}}});
    const CORBA::Object_var ref = orb.resolve(adapter.activate(servant.in()));
    EXPECT_TRUE(orb.serves_here(ref.in()));
  }
  expect_alive(w);
}

// kausal tick calls a run's clock while the run ends, and the clock goes with the handle of
// its servant. Such a call once found its servant deleted under it (the monitor crashed with
// exit 139, once in three runs under load): now each call either ends before the clock goes
// or hears OBJECT_NOT_EXIST, and the reference file goes with the handle.
TEST(OrbRuntime, CallsIntoAServedClockAsItGoesEndFirstOrHearItIsGone) {
  TempDir dir;
  OrbRuntime& orb = monitor_orb(1000);
  const fs::path file = dir / "clock.ior";
  for (int round = 0; round < 20; ++round) {
    RealtimeOptions options;
    options.clock = ClockSource::external;
    auto clock = std::make_unique<StepClock>(options, 0.01, 0, 1u << 30);
    auto served = serve_with_reference<ClockServant>(orb, *clock, file, "clock");
    const CORBA::Object_var obj = orb.resolve(read_file(file));
    const idl::Clock_var ref = idl::Clock::_narrow(obj);
    std::atomic<unsigned> answered{0}, gone{0}, other{0};
    std::vector<std::thread> callers;
    for (int k = 0; k < 3; ++k)
      callers.emplace_back([&] {
        try {
          for (;;) {
            ref->tick();
            ++answered;
          }
        } catch (const CORBA::OBJECT_NOT_EXIST&) {
          ++gone;
        } catch (...) {
          ++other;
        }
      });
    while (answered < 30) std::this_thread::yield();
    served.reset();
    clock.reset();
    for (auto& caller : callers) caller.join();
    EXPECT_EQ(gone, 3u) << "round " << round;
    EXPECT_EQ(other, 0u) << "round " << round;
    EXPECT_FALSE(fs::exists(file));
  }
}

}  // namespace
}  // namespace kausal::testing

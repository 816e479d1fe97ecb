// Hostile or careless calls over CORBA: this test process is a client of real
// kausal-system and kausal-integrator processes, as any program on the network could be.
// Every size, count and window is checked against the System's model and the limits
// (system/request_limits.hpp); one call's work and memory are bounded; protocol mistakes
// are answered with the declared ProtocolViolation (never CORBA::UNKNOWN); and the
// component lives on after each of them.
#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "component_client.hpp"
#include "monitor/deploy/partition_sink_servant.hpp"
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
    CORBA::Object_var obj = orb.resolve(orb.activate(servant));
    servant->_remove_ref();  // the POA owns it now
    ref_ = Sink::_narrow(obj);
  }
  ~TestSink() { monitor_orb(1000).deactivate(servant_); }
  typename Sink::_ptr_type ref() const { return ref_.in(); }

 private:
  Servant* servant_;
  typename Sink::_var_type ref_;
};

struct StateSink {
  std::shared_ptr<BatchInbox> inbox = std::make_shared<BatchInbox>();
  TestSink<StateSinkServant, idl::StateSink> sink{
      new StateSinkServant(inbox, std::map<std::string, std::size_t>{{"integrator-w", 0}})};
  idl::StateSink_ptr ref() const { return sink.ref(); }
};

struct PartitionSink {
  std::shared_ptr<PartitionInbox> inbox = std::make_shared<PartitionInbox>();
  TestSink<PartitionSinkServant, idl::PartitionSink> sink{
      new PartitionSinkServant(inbox, {{"integrator-w", 0}}, {{1, 2}})};
  idl::PartitionSink_ptr ref() const { return sink.ref(); }
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

TEST(HostileCalls, InitialiseWhileRunningAheadIsAProtocolViolation) {
  WireComponents w;
  w.initialise_pendulum();
  StateSink sink;
  w.integrator->run_ahead(sink.ref(), 8, 16, 1000);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->initialise(w.pendulum_setup());
            }).find("running ahead"),
            npos);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->initialise_partition(to_idl(w.tank_config(), w.system.in()));
            }).find("while running"),
            npos);
  // It ran ahead to its window and shipped what it computed.
  const auto batch = sink.inbox->pop(5s);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->batch.first_step, 1u);
  expect_alive(w);
}

TEST(HostileCalls, AStateOfAnotherSizeThanTheModelsIsRefusedNamingX0) {
  WireComponents w;
  const idl::ParameterSeq p =
      to_idl(Parameters{{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}});
  w.system->configure("pendulum", p);
  idl::IntegratorSetup setup = w.pendulum_setup();
  setup.x0 = to_seq(std::vector<double>(3, 0.1));
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { w.integrator->initialise(setup); }).find("x0"),
            npos);
  expect_alive(w);
}

// The setup that aborted the Integrator (a worker allocating 2^32 - 1 outputs) and its
// relatives: each refused naming the field, and the Integrator lives on.
TEST(HostileCalls, PartitionSizesThatDoNotFitTheModelAreRefusedNamingTheField) {
  WireComponents w;
  w.configure_tank();
  const CoupledConfig good = w.tank_config();
  auto refused = [&](const char* field, auto&& spoil) {
    idl::PartitionSetup setup = to_idl(good, w.system.in());
    spoil(setup);
    const std::string why =
        reason_of<idl::ProtocolViolation>([&] { w.integrator->initialise_partition(setup); });
    EXPECT_NE(why.find(field), npos) << field << ": " << why;
  };
  refused("output_size", [](idl::PartitionSetup& s) { s.output_size = huge_count; });
  refused("indicator_count", [](idl::PartitionSetup& s) { s.indicator_count = huge_count; });
  refused("x0", [](idl::PartitionSetup& s) { s.x0.length(5); });
  refused("channels", [](idl::PartitionSetup& s) { s.channels.length(0); });
  refused("window", [](idl::PartitionSetup& s) {
    s.speculate = true;
    s.window = endless;
  });
  PartitionSink sink;
  // Nothing was set up: starting is refused, and nothing steps.
  EXPECT_NE(
      reason_of<idl::ProtocolViolation>([&] { w.integrator->start_partition(sink.ref(), 8); }), "");
  w.integrator->initialise_partition(to_idl(good, w.system.in()));
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->start_partition(sink.ref(), huge_count);
            }).find("steps_per_batch"),
            npos);
  w.integrator->start_partition(sink.ref(), 8);  // waits for its input, alive
  std::this_thread::sleep_for(200ms);
  expect_alive(w);
}

// advance(10^8, 0) used to compute for minutes, holding the Integrator's lock, its state
// list growing by 5 MB/s long after the caller had given up.
TEST(HostileCalls, AnAdvanceComputesForABoundedTimeAndHoldsABoundedStateList) {
  WireComponents w;
  w.initialise_pendulum();
  // Further past gvt than the state list may hold: refused at once.
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              delete w.integrator->advance(100'000'000, 0);
            }).find("gvt"),
            npos);
  // Within that budget but minutes of work: the answer comes after about 250 ms with the
  // steps taken (well within this client's call timeout of 2 s), and the next call is
  // served at once: the Integrator is not computing on for a caller that gave up.
  const auto asked = std::chrono::steady_clock::now();
  idl::StateBatch_var first = w.integrator->advance(1'500'000, 0);
  const auto answered = std::chrono::steady_clock::now();
  const std::uint64_t taken = first->states.length() / 2;
  EXPECT_GT(taken, 0u);
  EXPECT_LT(taken, 1'500'000u);
  EXPECT_LT(answered - asked, 1500ms);
  w.integrator->commit(taken);
  EXPECT_LT(std::chrono::steady_clock::now() - answered, 500ms);
  // Asked again, it goes on from where it stopped.
  idl::StateBatch_var next = w.integrator->advance(1'500'000, 0);
  EXPECT_EQ(next->first_step, taken + 1);
  EXPECT_LT(resident_mib(w.integrator_process.pid()), 200.0);
  expect_alive(w);
}

TEST(HostileCalls, RunAheadWithAnEndlessWindowOrBatchIsRefused) {
  WireComponents w;
  w.initialise_pendulum();
  StateSink sink;
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->run_ahead(sink.ref(), 8, endless, endless);
            }).find("window"),
            npos);
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] {
              w.integrator->run_ahead(sink.ref(), huge_count, 16, endless);
            }).find("batch_size"),
            npos);
  // Refused calls changed nothing: a sane run-ahead starts and ships its window.
  w.integrator->run_ahead(sink.ref(), 8, 16, endless);
  std::uint64_t states = 0;
  while (auto item = sink.inbox->pop(1s)) states += item->batch.count();
  EXPECT_EQ(states, 16u);
  expect_alive(w);
}

}  // namespace
}  // namespace kausal::testing

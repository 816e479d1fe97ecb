// Hostile or careless calls over CORBA: this test process is a client of real
// kausal-system and kausal-integrator processes, as any program on the network could be.
// Every size, count and window is checked against the System's model and the limits
// (common/request_limits.hpp); one call's work and memory are bounded; protocol mistakes
// are answered with the declared ProtocolViolation (never CORBA::UNKNOWN); and the
// component lives on after each of them.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "component_client.hpp"
#include "idl/block_convert.hpp"
#include "monitor/deploy/clock_servant.hpp"
#include "monitor/deploy/lease_servant.hpp"
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

// Every operation of idl/kausal.idl, as "Interface::operation".
std::set<std::string> idl_operations() {
  std::istringstream in(read_file(fs::path(KAUSAL_SOURCE_DIR) / "idl" / "kausal.idl"));
  std::string text;
  for (std::string line; std::getline(in, line);) text += line.substr(0, line.find("//")) + "\n";
  const std::regex interface_head(R"(interface\s+(\w+)\s*(:\s*\w+\s*)?\{)");
  const std::regex operation(R"((?:oneway\s+)?[\w:]+\s+(\w+)\s*\()");
  std::set<std::string> out;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), interface_head);
       m != std::sregex_iterator(); ++m) {
    std::size_t end = static_cast<std::size_t>(m->position(0) + m->length(0));
    for (int depth = 1; depth > 0 && end < text.size(); ++end)
      depth += text[end] == '{' ? 1 : text[end] == '}' ? -1 : 0;
    const std::string body =
        text.substr(static_cast<std::size_t>(m->position(0) + m->length(0)),
                    end - static_cast<std::size_t>(m->position(0) + m->length(0)));
    for (auto op = std::sregex_iterator(body.begin(), body.end(), operation);
         op != std::sregex_iterator(); ++op)
      out.insert((*m)[1].str() + "::" + (*op)[1].str());
  }
  return out;
}

// The operations named on the "Hostile calls:" comment lines of the integration tests, each
// beside the test that calls them with hostile values or out of protocol order.
std::set<std::string> operations_with_hostile_tests() {
  std::set<std::string> out;
  for (const auto& entry :
       fs::directory_iterator(fs::path(KAUSAL_SOURCE_DIR) / "tests" / "integration")) {
    if (entry.path().extension() != ".cpp") continue;
    std::istringstream in(read_file(entry.path()));
    for (std::string line; std::getline(in, line);) {
      const auto at = line.find_first_not_of(' ');
      if (at == std::string::npos || line.compare(at, 17, "// Hostile calls:") != 0) continue;
      std::istringstream names(line.substr(at + 17));
      for (std::string name; names >> name;) out.insert(name);
    }
  }
  return out;
}

// A new IDL operation needs a hostile-call test: this fails until one names it.
TEST(HostileCalls, EveryIdlOperationHasAHostileCallTest) {
  const auto operations = idl_operations();
  EXPECT_GE(operations.size(), 60u) << "the IDL reader found too few operations";
  EXPECT_TRUE(operations.count("System::derivative") && operations.count("Node::shutdown"));
  const auto tested = operations_with_hostile_tests();
  std::string missing, unknown;
  for (const auto& op : operations)
    if (!tested.count(op)) missing += " " + op;
  for (const auto& op : tested)
    if (!operations.count(op)) unknown += " " + op;
  EXPECT_EQ(missing, "") << "IDL operations that no hostile-call test calls (name each on a "
                            "comment line 'Hostile calls:' beside the test that does)";
  EXPECT_EQ(unknown, "") << "'Hostile calls:' lines name operations the IDL does not have";
}

void expect_alive(WireComponents& w) {
  EXPECT_NO_THROW(w.integrator->ping());
  EXPECT_NO_THROW(w.system->ping());
  EXPECT_TRUE(w.integrator_process.running()) << w.integrator_process.status();
  EXPECT_TRUE(w.system_process.running()) << w.system_process.status();
}

// Hostile calls: System::derivative System::handle_event System::shape
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

// Hostile calls: Integrator::set_up Integrator::start
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

// Hostile calls: System::configure System::configure_partition
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
                                            idl::DirectLinkSeq{}, idl::ConstantInputSeq{},
                                            idl::HeldInputSeq{});
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
              w.system->configure_partition(twins, no_links, no_constants, idl::HeldInputSeq{});
            }).find("two members of the partition have this name"),
            npos);
  // An FMU sent as bytes to a System that serves plain TCP: refused, nothing written (a binary
  // from a caller nobody authenticated is never loaded).
  const MemberRecipe fmu{
      "f", "fmu", {}, FmuSource{"/tmp/escaped.fmu", true, "", {}, {'j', 'u', 'n', 'k'}}};
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(to_idl(std::vector<MemberRecipe>{fmu}), no_links,
                                            no_constants, idl::HeldInputSeq{});
            }).find("is taken only over TLS"),
            npos);
  EXPECT_FALSE(fs::exists("/tmp/escaped.fmu"));
  // A String coupling that names a number of the FMU: refused naming it.
  MemberRecipe stairs{"s", "fmu", {}, {}};
  stairs.fmu.archive = (fs::path(KAUSAL_BIN_DIR) / ".." / "fmus" / "staircase.fmu").string();
  stairs.fmu.co_simulation = true;
  stairs.fmu.coupled_texts = {"signal"};
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(to_idl(std::vector<MemberRecipe>{stairs}), no_links,
                                            no_constants, idl::HeldInputSeq{});
            }).find("'signal' is coupled as a String, but it is no String input or output"),
            npos);
  // An input table whose time goes back, or with more rows than a table may hold.
  const idl::MemberSetupSeq one_tank =
      to_idl(std::vector<MemberRecipe>{{"a", "water_tank", tank, {}}});
  for (auto [rows, expected] : {std::pair{std::size_t{2}, "its time goes back"},
                                std::pair{max_input_table_rows + 1, "rows, more than"}}) {
    std::vector<double> times(rows, 1.0);
    times[1] = 0;
    const idl::ConstantInputSeq table = to_idl(std::vector<ConstantInput>{
        {0, 0, 0.0, InputTable{times, std::vector<double>(rows, 0.5), Interpolation::linear}}});
    EXPECT_NE(reason_of<idl::ModelFailure>([&] {
                w.system->configure_partition(one_tank, no_links, table, idl::HeldInputSeq{});
              }).find(expected),
              npos)
        << expected;
  }
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
  // A multistep memory its method does not keep (the tank's is a one-step method).
  refused("memory0.past", [](idl::IntegratorSetup& s) { s.memory0.past.length(3); });
  refused("newton", [](idl::IntegratorSetup& s) { s.newton.max_iterations = 4'000'000'000u; });
  refused("newton", [](idl::IntegratorSetup& s) { s.newton.tolerance = -1; });
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

// A hybrid model's partition (IDL v23): a tank whose inflow events set. Held inputs, event
// ports and events out of range, not finite, in the past, twice or too many are refused
// naming what is wrong, and the components live on.
// Hostile calls: Integrator::schedule
TEST(HostileCalls, APartitionsEventPortsAndEventsAreCheckedAndBounded) {
  WireComponents w;
  const idl::DirectLinkSeq no_links;
  const idl::ConstantInputSeq no_constants;
  EXPECT_NE(outcome_of([&] {
              w.system->configure_partition(WireComponents::tank_member(), no_links, no_constants,
                                            to_idl(std::vector<HeldInput>{{0, 7, {}}}));
            }).find("held[0].input"),
            npos);
  // A held parameter (IDL v25) the member was not given, or whose member cannot change.
  EXPECT_NE(outcome_of([&] {
              w.system->configure_partition(WireComponents::tank_member(), no_links, no_constants,
                                            to_idl(std::vector<HeldInput>{{0, 0, "nonsense"}}));
            }).find("parameter 'nonsense' is not given"),
            npos);
  ASSERT_EQ(w.system->configure_partition(WireComponents::tank_member(), no_links, no_constants,
                                          to_idl(std::vector<HeldInput>{{0, 0, {}}})),
            1u);
  IntegratorConfig good = w.tank_config();
  good.channels.clear();
  good.method = OdeMethod::rk4;
  good.ports.inputs = {{EventEffect::set_input, 0}, {EventEffect::add_state, 0}};
  good.ports.outputs = {{0, 0.5, CrossingDirection::falling, 0}};
  good.ports.held0 = {0.0};
  good.ports.model_outputs = 2;
  auto refused = [&](const char* field, auto&& spoil) {
    idl::IntegratorSetup setup = to_idl(good, w.system.in());
    spoil(setup);
    const std::string why = outcome_of([&] { w.integrator->set_up(setup); });
    EXPECT_NE(why, "answered") << field;
    EXPECT_NE(why.find(field), npos) << field << ": " << why;
  };
  refused("direction", [](idl::IntegratorSetup& s) { s.ports.outputs[0].direction = 7; });
  refused("effect", [](idl::IntegratorSetup& s) { s.ports.inputs[0].effect = 9; });
  refused("event output 0", [](idl::IntegratorSetup& s) { s.ports.outputs[0].index = 5; });
  refused("].of", [](idl::IntegratorSetup& s) { s.ports.outputs[0].of = 9; });
  // The tank has no event indicators: none to watch.
  refused("no such event indicator", [](idl::IntegratorSetup& s) { s.ports.outputs[0].of = 1; });
  refused("event input 1", [](idl::IntegratorSetup& s) { s.ports.inputs[1].index = 3; });
  refused("input count", [](idl::IntegratorSetup& s) { s.ports.held0.length(0); });
  refused("ports.outputs", [](idl::IntegratorSetup& s) {
    s.ports.outputs.length(static_cast<CORBA::ULong>(limits::max_model_size + 1));
  });
  refused("tolerance", [](idl::IntegratorSetup& s) { s.ports.tolerance = -1; });
  w.integrator->set_up(to_idl(good, w.system.in()));
  auto schedule = [&](std::vector<ArrivingEvent> events) {
    const idl::ArrivingEventSeq seq = to_idl(events);
    return outcome_of([&] { w.integrator->schedule(seq); });
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(schedule({{{0.004, 0, 0}, 2, 1.0}}).find("no such event input"), npos);
  EXPECT_NE(schedule({{{nan, 0, 0}, 0, 1.0}}).find("not finite"), npos);
  EXPECT_NE(schedule({{{0.004, 0, 1}, 0, nan}}).find("not finite"), npos);
  EXPECT_NE(schedule({{{0.004, 0, 2}, 0, 1.0}, {{0.004, 0, 2}, 0, 2.0}}).find("arrived twice"),
            npos);
  // The sequence is bounded on arrival; the events waiting in a partition too.
  idl::ArrivingEventSeq flood;
  flood.length(static_cast<CORBA::ULong>(limits::max_arriving_events + 1));
  EXPECT_NE(outcome_of([&] {
              w.integrator->schedule(flood);
            }).find("ProtocolViolation: schedule: the events 4097 exceeds 4096"),
            npos);
  std::vector<ArrivingEvent> many;
  for (std::uint64_t k = 0; k <= limits::max_arriving_events; ++k)
    many.push_back({{0.005, 1, k}, 1, 1e-9});
  many.resize(limits::max_arriving_events / 2);
  EXPECT_EQ(schedule(many), "answered");
  many.clear();
  for (std::uint64_t k = 0; k <= limits::max_arriving_events / 2 + 1; ++k)
    many.push_back({{0.006, 2, k}, 1, 1e-9});
  EXPECT_NE(schedule(many).find("the limit"), npos);
  // Stepped past its time: refused until the partition is rolled back.
  idl::StateBatch_var stepped = w.integrator->advance(5, 0);
  EXPECT_GT(stepped->states.length(), 0u);
  EXPECT_NE(schedule({{{0.001, 3, 0}, 0, 1.0}}).find("roll back first"), npos);
  expect_alive(w);
}

// advance(10^8, 0) used to compute for minutes, holding the Integrator's lock, its state
// list growing by 5 MB/s long after the caller had given up.
// Hostile calls: Integrator::advance
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
// Hostile calls: Integrator::provide
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
// Hostile calls: Block::set_up Block::advance
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

// Every System operation out of order (ProtocolViolation) or with values that do not fit the
// model (ModelFailure naming what does not fit): a declared exception each, never
// CORBA::UNKNOWN, and the System answers the next call; the
// Participant operations take odd arguments in their stride, and shutdown ends the process.
// Hostile calls: System::output System::jacobian System::indicators System::on_crossing
// Hostile calls: System::step System::save_internal System::restore_internal System::change
// Hostile calls: System::completed_step
// Hostile calls: Participant::info Participant::timing Participant::trace Participant::observe
// Hostile calls: Participant::ping Participant::shutdown
TEST(HostileCalls, EverySystemOperationRefusesWhatDoesNotFitTheModelAndTheSystemLivesOn) {
  WireComponents w;
  const idl::DoubleSeq two = to_seq(std::vector<double>{0.1, 0.2});
  const idl::DoubleSeq three = to_seq(std::vector<double>{0.1, 0.2, 0.3});
  const idl::DoubleSeq none;
  idl::OctetSeq bytes;
  bytes.length(16);
  const idl::ModelChange change = to_idl(ModelChange{"a", "inflow", 1, 0, 0});
  const auto starts_with = [](const std::string& outcome, const std::string& kind) {
    return outcome.rfind(kind, 0) == 0;
  };
  // Before configure: each call is a protocol violation.
  for (const auto& [what, outcome] : std::vector<std::pair<std::string, std::string>>{
           {"output", outcome_of([&] { delete w.system->output(0, two); })},
           {"jacobian", outcome_of([&] { delete w.system->jacobian(0, two, none); })},
           {"indicators", outcome_of([&] { delete w.system->indicators(0, two, none); })},
           {"on_crossing", outcome_of([&] { delete w.system->on_crossing(0, 0, two); })},
           {"completed_step", outcome_of([&] { delete w.system->completed_step(0, two); })},
           {"step", outcome_of([&] { delete w.system->step(0, 1e-3, two, none, none); })},
           {"save_internal", outcome_of([&] { delete w.system->save_internal(); })},
           {"restore_internal", outcome_of([&] { w.system->restore_internal(bytes); })},
           {"change", outcome_of([&] { w.system->change(change); })}})
    EXPECT_TRUE(starts_with(outcome, "ProtocolViolation")) << what << ": " << outcome;

  // A pendulum: 2 states, no inputs, no indicators, no internal state, not a partition.
  const idl::ParameterSeq p =
      to_idl(Parameters{{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}});
  w.system->configure("pendulum", p);
  for (const auto& [what, outcome, kind] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"output of 3 states", outcome_of([&] { delete w.system->output(0, three); }),
            "ModelFailure: state has 3 values, the model's state has 2"},
           {"jacobian with an input", outcome_of([&] { delete w.system->jacobian(0, two, two); }),
            "ModelFailure: inputs have 2 values, the model has 0"},
           {"indicators of 3 states",
            outcome_of([&] { delete w.system->indicators(0, three, none); }),
            "ModelFailure: state has 3 values"},
           {"on_crossing 4294967295",
            outcome_of([&] { delete w.system->on_crossing(4'294'967'295u, 0, two); }),
            "ModelFailure: no zero-crossing indicator 4294967295"},
           {"completed_step of 3 states",
            outcome_of([&] { delete w.system->completed_step(0, three); }),
            "ModelFailure: completed_step: x has 3 values, the model's state has 2"},
           {"completed_step at an infinite time", outcome_of([&] {
              delete w.system->completed_step(std::numeric_limits<double>::infinity(), two);
            }),
            "ModelFailure: completed_step: t is not finite"},
           {"step of a model integrated through derivative",
            outcome_of([&] { delete w.system->step(0, 1e-3, two, none, none); }), "ModelFailure"},
           {"step with input derivatives that are not whole orders of its inputs",
            outcome_of([&] { delete w.system->step(0, 1e-3, two, none, two); }),
            "ModelFailure: step: 2 input derivatives are not whole orders of 0 inputs"},
           {"save_internal of a model without internal state",
            outcome_of([&] { delete w.system->save_internal(); }), "ModelFailure"},
           {"restore_internal of a model without internal state",
            outcome_of([&] { w.system->restore_internal(bytes); }), "ModelFailure"},
           {"change of a model that is not a partition",
            outcome_of([&] { w.system->change(change); }), "ModelFailure"}})
    EXPECT_TRUE(starts_with(outcome, kind)) << what << ": " << outcome;

  // The Participant operations: a page far past the trace is empty, a nil view or one that
  // is no view at all is harmless.
  idl::ActivityTrace_var page = w.system->trace(endless, true);
  EXPECT_EQ(page->spans.length(), 0u);
  w.system->observe(idl::Animation::_nil());
  w.system->observe(idl::Animation::_unchecked_narrow(w.integrator.in()));
  idl::ComponentInfo_var info = w.system->info();
  EXPECT_EQ(info->interface_version, idl::INTERFACE_VERSION);
  idl::ComponentTiming_var timing = w.system->timing();
  expect_alive(w);
  w.system->shutdown();
  EXPECT_EQ(w.system_process.wait_for_exit(10s), true) << w.system_process.status();
}

// Every Integrator operation before set_up, and the ones that name a step or a channel with
// one it does not have: a declared exception each, and the Integrator answers the next call.
// Hostile calls: Integrator::release Integrator::provide_predictions Integrator::apply_event
// Hostile calls: Integrator::change Integrator::rollback Integrator::commit
// Hostile calls: Integrator::statistics
TEST(HostileCalls, EveryIntegratorOperationRefusesWhatItHasNotGotAndTheIntegratorLivesOn) {
  WireComponents w;
  idl::ChannelPredictionSeq predictions;
  predictions.length(1);
  predictions[0] = {7, 0, 10, 1, 0, 0, 0, 0, 1, 0};
  const idl::Event event = to_idl(Event{"impulse", 5, 0.005, {1.0}});
  const idl::ModelChange change = to_idl(ModelChange{"a", "inflow", 1, 0, 0});
  const auto expect = [&](const std::string& when, const std::vector<std::string>& kinds) {
    w.integrator->release(endless);  // oneway: nothing to answer, nothing to break
    const std::vector<std::pair<std::string, std::string>> outcomes{
        {"provide_predictions",
         outcome_of([&] { w.integrator->provide_predictions(predictions); })},
        {"apply_event", outcome_of([&] { delete w.integrator->apply_event(event); })},
        {"rollback", outcome_of([&] { w.integrator->rollback(endless); })},
        {"change", outcome_of([&] { w.integrator->change(change); })},
        {"commit", outcome_of([&] { w.integrator->commit(endless); })}};
    for (std::size_t k = 0; k < outcomes.size(); ++k)
      EXPECT_EQ(outcomes[k].second.rfind(kinds[k], 0), 0u)
          << when << ", " << outcomes[k].first << ": " << outcomes[k].second;
  };
  const std::string violation = "ProtocolViolation";
  expect("before set_up", {violation, violation, violation, violation, violation});
  idl::IntegratorStats_var before = w.integrator->statistics();
  EXPECT_EQ(before->steps_computed, 0u);
  // Set up for a pendulum at step 0: no channel 7, no step 5 yet, nothing to roll back to
  // beyond its steps; a pendulum is no partition whose inputs could change; a commit may
  // lie ahead of the Integrator (the monitor's GVT), and it then holds nothing back.
  w.set_up_pendulum(1000);
  expect("set up at step 0", {violation, violation, violation,
                              "ModelFailure: its model is not a partition", "answered"});
  const auto batch = w.integrator->advance(3, 0);
  EXPECT_EQ(batch->first_step, 1u);
  delete batch;
  expect_alive(w);
}

// The monitor's StateSink takes batches and failures only from the Integrators of its run;
// one of theirs that does not fit fails the run naming it. The Lease answers whoever pings
// it.
// Hostile calls: StateSink::deliver StateSink::fail Lease::ping
TEST(HostileCalls, TheMonitorsSinkRefusesStrangersAndBatchesOfOtherSizes) {
  StateSink sink(2, 0);
  idl::StateBatch batch;
  batch.epoch = 0;
  batch.first_step = 1;
  batch.state_size = 2;
  batch.output_size = 0;
  batch.states = to_seq(std::vector<double>{0.1, 0.2});
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { sink.ref()->deliver("intruder", batch); }), "");
  EXPECT_NE(reason_of<idl::ProtocolViolation>(
                [&] { sink.ref()->fail("intruder", 0, 1, "model", "intruder", "forged"); }),
            "");
  EXPECT_FALSE(sink.inbox->pop(0ms)) << "a stranger's call reached the run";
  // From one of the run's Integrators, a batch that does not fit (or a failure of no known
  // kind) is that Integrator's protocol error: the run fails naming it.
  const auto run_failure = [&](auto&& call) {
    call();
    const auto item = sink.inbox->pop(1s);
    if (!item || !item->failure) return std::string("no failure");
    try {
      std::rethrow_exception(item->failure);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
  batch.state_size = 3;
  batch.states = to_seq(std::vector<double>{0.1, 0.2, 0.3});
  EXPECT_NE(run_failure([&] { sink.ref()->deliver("integrator-w", batch); }).find("expected 2"),
            npos);
  batch.state_size = 2;  // not whole steps
  EXPECT_NE(run_failure([&] { sink.ref()->deliver("integrator-w", batch); }).find("whole steps"),
            npos);
  batch.states = to_seq(std::vector<double>{0.1, std::nan("")});
  EXPECT_NE(run_failure([&] { sink.ref()->deliver("integrator-w", batch); }).find("non-finite"),
            npos);
  EXPECT_NE(run_failure([&] {
              sink.ref()->fail("integrator-w", 0, 1, "no-such-kind", "x", "forged");
            }).find("unknown kind"),
            npos);
  TestSink<LeaseServant, idl::Lease> lease(new LeaseServant);
  lease.ref()->ping();
}

// The operator and the clock of a paced run take calls from whoever reaches them (kausal
// inject, kausal tick, controllers in the loop): what the run cannot take is Refused with
// the reason, the run goes on, and a stop ends it where the operator asked.
// Hostile calls: Operator::push Operator::set Operator::send Operator::stop Operator::read
// Hostile calls: Operator::pace
// Hostile calls: Clock::tick Clock::status
TEST(HostileCalls, APacedRunsOperatorRefusesWhatTheRunCannotTakeAndTheRunGoesOn) {
  TempDir dir;
  const fs::path out = dir / "paced";
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 0.05"}});
  KausalProcess run({"run", file.string(), "--method", "conservative", "--external-clock",
                     "--trace", "off", "--out", out.string()},
                    dir.path());
  for (int k = 0; k < 1500 && !(fs::exists(out / "clock.ior") && fs::exists(out / "operator.ior"));
       ++k)
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(fs::exists(out / "operator.ior")) << run.err();
  OrbRuntime& orb = monitor_orb(1000);
  const CORBA::Object_var op_obj = orb.resolve(read_file(out / "operator.ior"));
  const idl::Operator_var op = idl::Operator::_narrow(op_obj);
  const CORBA::Object_var clock_obj = orb.resolve(read_file(out / "clock.ior"));
  const idl::Clock_var clock = idl::Clock::_narrow(clock_obj);
  const auto refused = [](auto&& call) {
    try {
      call();
    } catch (const idl::Refused& e) {
      return std::string(e.reason.in());
    }
    return std::string();
  };
  idl::StringSeq unknown;
  unknown.length(1);
  unknown[0] = "no_such_value";
  for (const auto& [what, reason] : std::vector<std::pair<std::string, std::string>>{
           {"push 4294967295", refused([&] { op->push(4'294'967'295u, 0.01); })},
           {"push NaN", refused([&] { op->push(1, std::nan("")); })},
           {"push 1e308", refused([&] { op->push(1, 1e308); })},
           {"set a target a chain does not have", refused([&] { op->set("upper.inflow", 1); })},
           {"set NaN", refused([&] { op->set("", std::nan("")); })},
           {"send to a chain", refused([&] { op->send("component-0", 1); })},
           {"send NaN", refused([&] { op->send("component-0", std::nan("")); })},
           {"send to a megabyte's name",
            refused([&] { op->send(std::string(1 << 20, 'x').c_str(), 1); })},
           {"read an unknown value", refused([&] { delete op->read(unknown); })},
           {"pace NaN", refused([&] { op->pace(std::nan("")); })},
           {"pace -1", refused([&] { op->pace(-1); })},
           {"pace 1e-300", refused([&] { op->pace(1e-300); })}})
    EXPECT_NE(reason, "") << what << " was accepted";

  const idl::ClockStatus before = clock->status();
  EXPECT_EQ(before.ticks, 0u);
  EXPECT_EQ(before.last, 50u);
  for (int k = 0; k < 5; ++k) clock->tick();
  const CORBA::ULongLong stop_at = op->stop();
  // Tick on until the run has ended at its stop (its clock then no longer answers).
  std::optional<int> code;
  for (int k = 0; k < 6000 && !code; ++k) {
    try {
      clock->tick();
    } catch (const CORBA::SystemException&) {
      // The run is going or gone.
    }
    code = run.wait(10ms);
  }
  EXPECT_EQ(code, std::optional<int>(130)) << run.err();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["steps"], stop_at) << run.err();
}

// A connection flood (docs/tls.md, "What a run without TLS trusts"): 3,000 connections to a
// System, half of them silent and half sending a GIOP request header and no more
// (slowloris). The System takes them up with a thread each and bounded memory, a caller
// connected before the flood (as a run's monitor is) is answered within the call timeout
// meanwhile, and afterwards the System lives on. (A caller connecting during a flood:
// RealtimeCli.AFloodedMonitorStillServesItsRunAndANewOperator. omniORB closes the flood's
// connections after two to four idle minutes, idl/orb_runtime.cpp: longer than a test
// should wait.)
TEST(HostileCalls, AConnectionFloodIsServedInBoundedMemoryAndTheRunsOwnCallsGetThrough) {
  WireComponents w;
  w.system->ping();  // the test's connection, made before the flood
  const pid_t pid = static_cast<pid_t>(w.system_process.pid());
  const int port = listening_port(pid);
  ASSERT_GT(port, 0) << "no listening socket of the System found";
  ConnectionFlood flood(port, 3000);
  if (!flood.possible()) GTEST_SKIP() << "this test process may not open 3,000 files";
  EXPECT_GE(flood.size(), 1500u);
  std::this_thread::sleep_for(500ms);  // the System takes up what got in
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_NO_THROW(w.system->ping());
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 2s);
  // A thread per connection (up to 10,000, idl/orb_runtime.cpp) and the System's own few.
  EXPECT_LE(thread_count(pid), static_cast<int>(flood.size()) + 32) << "threads of the System";
  EXPECT_LT(resident_mib(pid), 256.0) << "MiB resident in the flooded System";
  flood.end();
  std::this_thread::sleep_for(100ms);
  expect_alive(w);
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

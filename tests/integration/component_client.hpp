#pragma once
// The test process as a CORBA client of real kausal-system and kausal-integrator processes
// started by hand (no monitor in between): for checks of what the servants do with values
// that arrive over the wire, careless or hostile. The test's ORB is the monitor's
// (monitor_orb: calls time out after 2 s), and it serves, so a test can hand a component a
// sink of its own.
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

#include "idl/composite_convert.hpp"
#include "idl/convert.hpp"
#include "kausal_process.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/deploy/process_deployment.hpp"

namespace kausal::testing {

// A component process started by hand; its object reference read from its stdout.
template <typename T>
typename T::_var_type start_component(ChildProcess& process) {
  const auto ior = process.read_line(std::chrono::seconds(10));
  if (!ior) throw std::runtime_error(process.name() + " did not start: " + process.status());
  CORBA::Object_var obj = monitor_orb(1000).resolve(*ior);
  return T::_narrow(obj);
}

// Runs `call` and returns the reason of the IDL exception E it raises ("" if none; any
// other exception, CORBA::UNKNOWN included, fails the test by escaping).
template <typename E, typename F>
std::string reason_of(F&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.reason.in();
  }
  return "";
}

// What a call answered: "answered", or the declared IDL exception it raised with its reason
// ("ProtocolViolation: ...", "ModelFailure: ...", "PeerFailure: ..."). Anything else
// (CORBA::UNKNOWN, a lost connection) escapes and fails the test.
template <typename F>
std::string outcome_of(F&& call) {
  try {
    call();
  } catch (const idl::ProtocolViolation& e) {
    return std::string("ProtocolViolation: ") + e.reason.in();
  } catch (const idl::ModelFailure& e) {
    return std::string("ModelFailure: ") + e.reason.in();
  } catch (const idl::PeerFailure& e) {
    return std::string("PeerFailure: ") + e.reason.in();
  }
  return "answered";
}

// One System and one Integrator process, each alone, as the process layout starts them.
struct WireComponents {
  TempDir dir;
  ChildProcess system_process{"system-w",
                              fs::path(KAUSAL_BIN_DIR) / "kausal-system",
                              {"--name", "system-w", "--call-timeout-ms", "1000"},
                              dir / "system.log"};
  ChildProcess integrator_process{"integrator-w",
                                  fs::path(KAUSAL_BIN_DIR) / "kausal-integrator",
                                  {"--name", "integrator-w", "--call-timeout-ms", "1000"},
                                  dir / "integrator.log"};
  idl::System_var system = start_component<idl::System>(system_process);
  idl::Integrator_var integrator = start_component<idl::Integrator>(integrator_process);

  static idl::MemberSetupSeq member(const std::string& model, const Parameters& parameters) {
    return to_idl(std::vector<MemberRecipe>{{"a", model, parameters, {}, {}}});
  }
  static idl::MemberSetupSeq pendulum_member(const std::string& model = "pendulum") {
    return member(model, {{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}});
  }
  // One state, one input (its inflow), two outputs.
  static idl::MemberSetupSeq tank_member() {
    return member("water_tank", {{"area", 1}, {"orifice", 0.01}, {"level0", 1}});
  }
  void configure_tank() {
    const idl::DirectLinkSeq no_links;
    const idl::ConstantInputSeq no_constants;
    system->configure_partition(tank_member(), no_links, no_constants, idl::HeldInputSeq{});
  }
  // A partition of the tank: right for the System after configure_tank().
  IntegratorConfig tank_config() const {
    IntegratorConfig c;
    c.name = "integrator-w";
    c.tick = 0.001;
    c.last_step = 10;
    c.x0 = Vector::Ones(1);
    c.output_size = 2;
    c.channels = {{"x -> a.inflow", 0, 1, InputSource::samples, {}}};
    return c;
  }
  // The Integrator set up for a pendulum chain, its System configured with one pendulum.
  void set_up_pendulum(std::uint64_t last_step = std::numeric_limits<std::uint64_t>::max()) {
    const idl::ParameterSeq p =
        to_idl(Parameters{{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}});
    system->configure("pendulum", p);
    integrator->set_up(pendulum_setup(last_step));
  }
  idl::IntegratorSetup pendulum_setup(
      std::uint64_t last_step = std::numeric_limits<std::uint64_t>::max()) const {
    IntegratorConfig c;
    c.name = "integrator-w";
    c.tick = 0.001;
    c.last_step = last_step;
    c.x0 = Vector{{0.5, 0.0}};
    c.coupling_sends_events = true;
    c.publish_first_state = false;
    return to_idl(c, system.in());
  }
};

}  // namespace kausal::testing

#include "monitor/cli/inject_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "common/errors.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/cli/run_reference.hpp"

namespace kausal {
namespace {

// A call to the run's operator: a refusal is bad input (exit 2) with the run's reason.
template <typename Call>
auto call_operator(bool tls, Call&& call) -> decltype(call()) {
  try {
    return on_run("operator", tls, std::forward<Call>(call));
  } catch (const idl::Refused& refused) {
    throw InputError(std::string("the run refused: ") + refused.reason.in());
  }
}

const char* const kActions[] = {"push", "set", "send", "stop", "read", "pace"};

}  // namespace

CLI::App* add_inject_command(CLI::App& app, InjectOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "inject",
      "influence a paced run (--realtime, --external-clock, --animate) while it goes: each "
      "action takes effect at the next step boundary no component has computed past, and is "
      "recorded with that step in OUT/injections.jsonl (kausal run --replay OUT repeats it). "
      "docs/realtime.md");
  cmd->add_option("run_dir", o.run_dir, "the run's output directory (it holds operator.ior)")
      ->required();
  cmd->require_subcommand(1);
  CLI::App* push =
      cmd->add_subcommand("push", "push a pendulum of a chain: its bob gets a tangential impulse");
  push->add_option("pendulum", o.pendulum, "the pendulum, 1-based")->required();
  push->add_option("impulse", o.impulse, "N·s; positive pushes towards larger angles")->required();
  CLI::App* set = cmd->add_subcommand(
      "set", "set a partitioned model's constant input or parameter from the next boundary on");
  set->add_option("target", o.target, "SUBSYSTEM.NAME, e.g. upper.inflow or lower.area")
      ->required();
  set->add_option("value", o.value, "the new value")->required();
  CLI::App* send = cmd->add_subcommand(
      "send",
      "send a discrete-event model's component an event at the next boundary's time "
      "(docs/events.md)");
  send->add_option("target", o.target,
                   "COMPONENT or COMPONENT.KIND (the kind by name or number; none: kind 0), "
                   "e.g. server-3.arrival")
      ->required();
  send->add_option("value", o.value, "the event's payload (default 0)");
  cmd->add_subcommand("stop", "end the run at the next boundary (interrupted; --resume goes on)");
  CLI::App* read = cmd->add_subcommand(
      "read",
      "print the newest committed values (trajectory.csv's names, or a partition's outputs)");
  read->add_option("names", o.names, "e.g. lower.level upper.outflow, or phi_1 omega_1")
      ->required();
  CLI::App* pace = cmd->add_subcommand(
      "pace", "from now on FACTOR simulated seconds per wall second (0: as fast as possible)");
  pace->add_option("factor", o.factor, "simulated seconds per wall second, 0 or more")->required();
  add_tls_options(*cmd, o.tls, "TLS: the run's CA certificate (PEM), for a run with --tls-ca",
                  "this client's");
  // The TLS options may also follow the action (kausal inject OUT stop --tls-ca ...).
  for (CLI::App* action : cmd->get_subcommands({})) action->fallthrough();
  return cmd;
}

int inject_command(const CLI::App& inject, const InjectOptions& o) {
  const std::string ior = run_reference(o.run_dir, "operator.ior", "a paced run");
  OrbSettings client;
  client.serve = false;
  client.tls = o.tls;
  OrbRuntime orb(client);
  auto on_operator = [tls = o.tls.enabled()](auto&& call) {
    return call_operator(tls, std::forward<decltype(call)>(call));
  };
  CORBA::Object_var object = orb.resolve(ior);
  idl::Operator_var op = on_operator([&] { return idl::Operator::_narrow(object); });
  if (CORBA::is_nil(op)) throw InputError(o.run_dir.string() + "/operator.ior: not an operator");
  std::string action;
  for (const char* a : kActions)
    if (inject.got_subcommand(a)) action = a;
  auto takes_effect = [&](CORBA::ULongLong step) {
    std::cout << "kausal inject: " << action << " takes effect at step " << step << "\n";
    return 0;
  };
  if (action == "push")
    return takes_effect(
        on_operator([&] { return op->push(static_cast<CORBA::ULong>(o.pendulum), o.impulse); }));
  if (action == "set")
    return takes_effect(on_operator([&] { return op->set(o.target.c_str(), o.value); }));
  if (action == "send")
    return takes_effect(on_operator([&] { return op->send(o.target.c_str(), o.value); }));
  if (action == "stop") return takes_effect(on_operator([&] { return op->stop(); }));
  if (action == "pace") {
    on_operator([&] { op->pace(o.factor); });
    std::cout << "kausal inject: pace " << o.factor << "\n";
    return 0;
  }
  idl::StringSeq names;
  names.length(static_cast<CORBA::ULong>(o.names.size()));
  for (std::size_t k = 0; k < o.names.size(); ++k)
    names[static_cast<CORBA::ULong>(k)] = o.names[k].c_str();
  idl::Reading_var r = on_operator([&] { return op->read(names); });
  std::cout << "step " << r->step << "  t " << r->t;
  for (std::size_t k = 0; k < o.names.size(); ++k)
    std::cout << "  " << o.names[k] << " " << r->values[static_cast<CORBA::ULong>(k)];
  std::cout << "\n";
  return 0;
}

}  // namespace kausal

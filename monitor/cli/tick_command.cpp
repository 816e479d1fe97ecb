#include "monitor/cli/tick_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "common/errors.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/cli/run_reference.hpp"

namespace kausal {

CLI::App* add_tick_command(CLI::App& app, TickOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "tick",
      "release steps of a run started with --external-clock: one tick, one step (a "
      "partitioned model: one tick of its time grid). Prints the run's clock afterwards: "
      "ticks so far, overruns (ticks that found the previous step still running), the last "
      "committed state. docs/realtime.md");
  cmd->add_option("run_dir", o.run_dir, "the run's output directory (it holds clock.ior)")
      ->required();
  cmd->add_option("--count", o.count, "ticks to send")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}));
  cmd->add_flag("--all", o.all, "tick until the run's last step is released");
  cmd->add_option("--period", o.period,
                  "seconds between ticks (a fixed rate from the first); default: each tick as "
                  "soon as the previous call returned")
      ->check(CLI::Range(1e-6, 3600.0));
  add_tls_options(*cmd, o.tls, "TLS: the run's CA certificate (PEM), for a run with --tls-ca",
                  "this client's");
  return cmd;
}

int tick_command(const TickOptions& o) {
  const std::string ior = run_reference(o.run_dir, "clock.ior", "a run with --external-clock");
  OrbSettings client;
  client.serve = false;
  client.tls = o.tls;
  OrbRuntime orb(client);
  auto on_clock = [tls = o.tls.enabled()](auto&& call) {
    return on_run("clock", tls, std::forward<decltype(call)>(call));
  };
  CORBA::Object_var object = orb.resolve(ior);
  idl::Clock_var clock = on_clock([&] { return idl::Clock::_narrow(object); });
  if (CORBA::is_nil(clock)) throw InputError(o.run_dir.string() + "/clock.ior: not a clock");
  idl::ClockStatus status = on_clock([&] { return clock->status(); });
  const std::uint64_t count = o.all ? status.last - std::min(status.last, status.ticks) : o.count;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t ticks = status.ticks;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (o.period)
      std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::duration<double>(*o.period * k)));
    ticks = on_clock([&] { return clock->tick(); });
  }
  try {
    status = on_clock([&] { return clock->status(); });
  } catch (const Error&) {
    // The tick that releases the last step lets the run finish, and a fast one has ended
    // before it can be asked: that is the run completing, not a failure.
    if (ticks < status.last) throw;
    std::cout << "kausal tick: " << count << " sent; the run's clock: every one of its "
              << status.last << " steps released, and the run has ended\n";
    return 0;
  }
  std::cout << "kausal tick: " << count << " sent; the run's clock: " << status.ticks << " ticks, "
            << status.overruns << " overruns, state " << status.committed << " of " << status.last
            << " committed\n";
  return 0;
}

}  // namespace kausal

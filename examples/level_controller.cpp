// A controller in the loop (docs/realtime.md, "A controller in the loop"): a PI level
// controller for the water tanks of scenarios/two-tanks.toml. Every cycle of wall time it
// reads the lower tank's level through the run's Operator and writes the upper tank's
// inflow; it reports how often it missed its own deadline (a cycle whose read and write
// ended after the next cycle was due). Only the documented interface is used: what a
// controller of a real rig would do.
//
//   kausal run scenarios/two-tanks.toml --realtime 60 --skip-feasibility-check --out OUT &
//   kausal-level-controller OUT --setpoint 0.15
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace idl = kausal::idl;

struct Settings {
  std::filesystem::path run_dir;
  double setpoint = 0.15;  // m, the lower tank's level
  double kp = 0.5;         // m³/s per m
  double ti = 60;          // s of model time
  double max_inflow = 0.1;
  double cycle = 0.02;  // s of wall time
  std::string measured = "lower.level";
  std::string actuator = "upper.inflow";
};

// The operator's reference once the run has written it (a run starts in a moment).
std::string operator_reference(const std::filesystem::path& dir) {
  const auto file = dir / "operator.ior";
  for (int attempt = 0; attempt < 200; ++attempt) {
    std::ifstream in(file);
    std::string ior;
    if (in && std::getline(in, ior) && ior.rfind("IOR:", 0) == 0) return ior;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error(file.string() + ": no operator (is a paced run writing there?)");
}

struct Report {
  std::uint64_t cycles = 0;
  std::uint64_t misses = 0;       // cycles that ended after the next one was due
  std::vector<double> latency_s;  // read + write per cycle

  void print(std::ostream& o) const {
    std::vector<double> l = latency_s;
    std::sort(l.begin(), l.end());
    auto at = [&](double p) {
      return l.empty() ? 0.0
                       : l[std::min(l.size() - 1,
                                    static_cast<std::size_t>(p * static_cast<double>(l.size())))];
    };
    o << "level-controller: " << cycles << " cycles, " << misses << " deadline misses; "
      << "read+write µs p50 " << at(0.5) * 1e6 << ", p99 " << at(0.99) * 1e6 << ", max "
      << (l.empty() ? 0.0 : l.back()) * 1e6 << "\n";
  }
};

int control(const Settings& s) {
  kausal::OrbSettings client;
  client.serve = false;
  kausal::OrbRuntime orb(client);
  CORBA::Object_var object = orb.resolve(operator_reference(s.run_dir));
  idl::Operator_var op = idl::Operator::_narrow(object);
  idl::StringSeq names;
  names.length(1);
  names[0] = s.measured.c_str();
  Report report;
  double integral = 0;
  double last_t = -1;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.cycle));
  auto due = Clock::now();
  try {
    for (;; ++report.cycles) {
      std::this_thread::sleep_until(due);
      const auto start = Clock::now();
      idl::Reading_var r = op->read(names);
      const double error = s.setpoint - r->values[0];
      if (last_t >= 0) integral += error * (r->t - last_t);
      last_t = r->t;
      const double u = std::clamp(s.kp * (error + integral / s.ti), 0.0, s.max_inflow);
      op->set(s.actuator.c_str(), u);
      const auto end = Clock::now();
      report.latency_s.push_back(std::chrono::duration<double>(end - start).count());
      due += period;
      if (end > due) ++report.misses;
    }
  } catch (const idl::Refused& refused) {
    // The run has released its last step: nothing more to control.
    std::cout << "level-controller: the run refused: " << refused.reason.in() << "\n";
  } catch (const CORBA::Exception&) {
    std::cout << "level-controller: the run has ended\n";
  }
  report.print(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  CLI::App app(
      "PI level controller for scenarios/two-tanks.toml, in the loop of a paced run "
      "(docs/realtime.md): reads the lower tank's level, writes the upper tank's "
      "inflow, once per cycle; reports its deadline misses");
  app.add_option("run_dir", s.run_dir, "the paced run's output directory (operator.ior)")
      ->required();
  app.add_option("--setpoint", s.setpoint, "m: the lower tank's level to hold")
      ->capture_default_str();
  app.add_option("--kp", s.kp, "proportional gain, m³/s per m")->capture_default_str();
  app.add_option("--ti", s.ti, "integral time, s of model time")->capture_default_str();
  app.add_option("--cycle", s.cycle, "s of wall time between cycles")
      ->capture_default_str()
      ->check(CLI::Range(1e-4, 10.0));
  CLI11_PARSE(app, argc, argv);
  try {
    return control(s);
  } catch (const std::exception& e) {
    std::cerr << "level-controller: " << e.what() << "\n";
    return 2;
  }
}

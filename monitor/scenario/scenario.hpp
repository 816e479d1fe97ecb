#pragma once
// A pendulum-chain scenario read from TOML (format: docs/scenarios.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "integrator/method.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "system/chain.hpp"

namespace kausal {

struct Scenario {
  std::string file;  // as given, for messages
  std::string name;
  std::string description;
  std::string model = "pendulum-chain";
  OdeMethod method = OdeMethod::euler;  // euler or rk4
  double h = 0;                         // step size, s
  std::uint64_t steps = 0;              // number of steps to take
  std::uint64_t output_every = 1;       // trajectory.csv gets every k-th step (and the last)
  ChainSpec chain;
  std::uint64_t calc_work = 0;         // model.calc_work: artificial work units per Calc at speed 1
  std::vector<double> speed;           // pendulum[i].speed: relative speed of its System's host
  std::vector<PendulumState> initial;  // (φ, ω) of every pendulum at t = 0

  std::size_t pendulums() const { return initial.size(); }
  double t0() const { return 0.0; }
};

// Reads and checks a scenario (a regular file of at most 16 MiB, input_file.hpp), including
// that its output fits `limits`. Every problem throws InputError "file:line: message".
Scenario load_scenario(const std::filesystem::path& file, const ScenarioLimits& limits = {});
// The same from text (tests, the fuzzer); `file` names it in messages.
Scenario parse_scenario(const std::string& text, const std::string& file,
                        const ScenarioLimits& limits = {});

}  // namespace kausal

#pragma once
// A Scenario written out as the TOML file a user would write, for the integration tests
// that run seeded random chains through the real CLI.
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>

#include "monitor/scenario/scenario.hpp"

namespace kausal::testing {

inline std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest exact form
  return {buf, end};
}

// A scenario as the TOML file a user would write (values round-trip exactly).
inline std::filesystem::path write_toml(const Scenario& s, const std::filesystem::path& file) {
  std::ofstream out(file);
  out << "name = \"" << s.name << "\"\n[simulation]\nintegrator = \"" << ode_method_name(s.method)
      << "\"\nstep = " << number(s.h) << "\nsteps = " << s.steps
      << "\noutput_every = " << s.output_every << "\n[model]\ntype = \"pendulum-chain\"\n"
      << "restitution = " << number(s.chain.restitution) << "\n";
  for (std::size_t i = 0; i < s.pendulums(); ++i) {
    const auto& p = s.chain.pendulums[i];
    out << "[[pendulum]]\npivot_x = " << number(p.pivot_x) << "\nlength = " << number(p.length)
        << "\nmass = " << number(p.mass) << "\nradius = " << number(p.radius)
        << "\ndamping = " << number(p.damping) << "\nangle = " << number(s.initial[i][0])
        << "\nangular_velocity = " << number(s.initial[i][1]) << "\n";
  }
  return file;
}

}  // namespace kausal::testing

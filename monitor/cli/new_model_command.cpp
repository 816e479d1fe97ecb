#include "monitor/cli/new_model_command.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <regex>

#include "common/errors.hpp"
#include "system/model_library.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

// The project's files, @NAME@ standing for the model's name.
const char* const kCMakeLists =
    R"(# A kausal model library built outside kausal's tree (kausal new-model; docs/adding-a-model.md,
# "A model out of tree"). Needs an installed kausal: cmake -S . -B build
# -DCMAKE_PREFIX_PATH=<kausal's install prefix>, then cmake --build build && ctest --test-dir build.
cmake_minimum_required(VERSION 3.20)
project(@NAME@ LANGUAGES CXX)

find_package(kausal REQUIRED)

# lib@NAME@.so: the models @NAME@.cpp registers.
kausal_add_model_library(@NAME@ @NAME@.cpp)

# @NAME@.toml with the library's path, for `kausal run build/@NAME@.toml`.
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/@NAME@.toml INPUT ${CMAKE_CURRENT_SOURCE_DIR}/@NAME@.toml.in)

# Every method of kausal on the scenario, one digest (kausal compare exits 1 if one differs;
# each run writes a fresh build/runs/@NAME@-compare-<time>).
enable_testing()
add_test(NAME @NAME@_every_method
  COMMAND ${KAUSAL_EXECUTABLE} compare ${CMAKE_CURRENT_BINARY_DIR}/@NAME@.toml
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
)";

const char* const kModel =
    R"(// The model @NAME@ (kausal new-model): a mass on a spring and a damper, driven by a force,
//   m x'' = F - k x - d x'
// Make it yours: the names of its states, inputs and outputs (signature), its state at t = 0
// (initial_state), dx/dt (derivative) and, if they are not the states, its outputs (output);
// and its parameters where it is registered, below. system/model.hpp of the installed kausal
// says what else a model may do (a Jacobian, zero crossings, events).
#include <memory>

#include "system/model_library.hpp"

namespace {

struct Parameters {
  double mass = 1, stiffness = 0, damping = 0, x0 = 0;
};

class Model final : public kausal::Model {
 public:
  explicit Model(const Parameters& p) : p_(p) {}

  const kausal::Signature& signature() const override {
    // states, inputs, outputs (the outputs here are the states, which output() copies)
    static const kausal::Signature signature{{"x", "v"}, {"force"}, {"x", "v"}};
    return signature;
  }

  kausal::Vector initial_state() const override { return kausal::Vector{{p_.x0, 0.0}}; }

  void derivative(double, kausal::VectorView x, kausal::VectorView u,
                  kausal::VectorOut dx) const override {
    dx[0] = x[1];
    dx[1] = (u[0] - p_.stiffness * x[0] - p_.damping * x[1]) / p_.mass;
  }

 private:
  Parameters p_;
};

}  // namespace

// Registers the library's models: each with its parameters (name, default or none when a
// scenario must give it, meaning with unit, lowest value), which kausal checks before the
// factory sees them.
KAUSAL_MODEL_LIBRARY(registry) {
  registry.add({"@NAME@",
                "a mass on a spring and a damper driven by a force, m x'' = F - k x - d x'",
                {{"mass", 1.0, "m, kg", kausal::positive},
                 {"stiffness", 100.0, "spring stiffness k, N/m", 0},
                 {"damping", 0.5, "damping d, N s/m", 0},
                 {"x0", 0.0, "x at t = 0, m"}},
                [](const kausal::ParameterValues& v) {
                  return std::make_unique<Model>(
                      Parameters{v["mass"], v["stiffness"], v["damping"], v["x0"]});
                }});
}
)";

const char* const kScenario =
    R"(# Two @NAME@ models in two partitions, the first one's position driving the second one's force
# (the build writes build/@NAME@.toml with the library's path): kausal run build/@NAME@.toml
# --method conservative, or kausal compare it.
name = "@NAME@"

[run]
t_end = 2.0
output_interval = 0.01

[[subsystem]]
name = "first"
model = "@NAME@"
library = "$<TARGET_FILE:@NAME@>"
parameters = { x0 = 0.1 }
inputs = { force = 0.0 }  # released from x0 = 0.1, no force
integrator = "rk4"
h = 0.001

[[subsystem]]
name = "second"
model = "@NAME@"
library = "$<TARGET_FILE:@NAME@>"
parameters = { stiffness = 50.0, damping = 1.0 }
integrator = "rk4"
h = 0.002

[[coupling]]
from = "first.x"
to = "second.force"
)";

const char* const kReadme = R"(# @NAME@: a kausal model library

Made by `kausal new-model @NAME@`. The model is in `@NAME@.cpp`; `@NAME@.toml.in` is a
scenario of two of them coupled (the build writes `build/@NAME@.toml` with the library's path).

    cmake -S . -B build -DCMAKE_PREFIX_PATH=<kausal's install prefix>
    cmake --build build
    ctest --test-dir build                          # kausal compare: every method, one digest
    kausal run build/@NAME@.toml --method optimistic --layout process

A scenario names the library beside the model (`library = "..."`, relative to the scenario);
kausal loads it into every process that builds the model. Rebuild it after upgrading kausal:
a library built for another version is refused.
)";

std::string with_name(std::string text, const std::string& name) {
  for (std::size_t at = text.find("@NAME@"); at != std::string::npos; at = text.find("@NAME@"))
    text.replace(at, 6, name);
  return text;
}

}  // namespace

CLI::App* add_new_model_command(CLI::App& app, NewModelOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "new-model",
      "write a model of one's own as a project outside kausal's tree (docs/adding-a-model.md): "
      "DIR/CMakeLists.txt (find_package(kausal), the model library libNAME.so, a test), "
      "DIR/NAME.cpp (a model NAME to edit: a driven mass on a spring), DIR/NAME.toml.in (a "
      "scenario of two of them coupled) and DIR/README.md");
  cmd->add_option("name", o.name, "the model's name: lower case letters, digits and _")->required();
  cmd->add_option("--dir", o.dir,
                  "where to write the project (default: ./NAME; must be new or "
                  "empty)");
  cmd->footer("Exit codes: 0 written, 2 a bad name or a directory in the way.");
  return cmd;
}

int new_model_command(const NewModelOptions& o) {
  if (!std::regex_match(o.name, std::regex("[a-z][a-z0-9_]{0,63}")))
    throw InputError("command line: new-model: '" + o.name +
                     "' must be lower case letters, digits and _, starting with a letter");
  if (model_registry().find(o.name))
    throw InputError("command line: new-model: '" + o.name +
                     "' is a model kausal has (kausal models): choose another name");
  const fs::path dir = o.dir.empty() ? fs::path(o.name) : o.dir;
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw InputError(dir.string() + ": exists and is not an empty directory");
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create it: " + ec.message());
  const std::pair<std::string, const char*> files[] = {{"CMakeLists.txt", kCMakeLists},
                                                       {o.name + ".cpp", kModel},
                                                       {o.name + ".toml.in", kScenario},
                                                       {"README.md", kReadme}};
  for (const auto& [file, text] : files) {
    std::ofstream out(dir / file);
    out << with_name(text, o.name);
    if (!out) throw InputError((dir / file).string() + ": cannot write it");
  }
  std::cout << "wrote " << dir.string() << "/: CMakeLists.txt, " << o.name << ".cpp, " << o.name
            << ".toml.in, README.md\n"
            << "build: cmake -S " << dir.string() << " -B " << (dir / "build").string()
            << " -DCMAKE_PREFIX_PATH=<kausal's install prefix> && cmake --build "
            << (dir / "build").string() << "\n";
  return 0;
}

}  // namespace kausal

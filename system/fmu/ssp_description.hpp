#pragma once
// An SSP archive (System Structure and Parameterization, the Modelica Association's format
// for a system of FMUs): its SystemStructure.ssd read as untrusted input into what kausal
// maps (docs/fmi.md, "Systems of FMUs: SSP"): the components, each an FMU inside the archive
// with the values its parameter bindings give, the connections between their connectors and
// the default experiment's stop time. What kausal cannot map is refused naming the element
// and its line: a nested system, a component that is not an FMU, a connection to the
// system's own connectors or with a transformation, a parameter mapping, a prefix.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "system/fmu/model_description.hpp"

namespace kausal::fmu {

// Which of an FMU's interfaces a component asks for (its `implementation` attribute).
enum class SspImplementation : std::uint8_t { any, model_exchange, co_simulation };

// A port of a component as the SSD lists it (<ssd:Connector>): written for other tools;
// kausal takes the ports from the FMU itself.
struct SspConnector {
  std::string name;
  Causality kind = Causality::input;  // input, output or parameter
  ValueType type = ValueType::real;
};

struct SspComponent {
  std::string name;
  std::string source;  // the .fmu, a path inside the archive
  SspImplementation implementation = SspImplementation::any;
  int line = 0;  // of its <Component> in SystemStructure.ssd
  // Parameter values by name: Real, Integer and Boolean (1 or 0) as numbers, String as text;
  // a number's SSV type (real, integer or boolean; real where not given).
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> texts;
  std::map<std::string, ValueType> number_types;
  // kausal's own annotation (type "org.kausal.partition"): how kausal steps it. Empty and
  // nullopt in a file that has none.
  std::string integrator;
  std::optional<double> h;
  std::vector<SspConnector> connectors;  // written, not read
};

// Connector `from_connector` of component `from` drives `to_connector` of `to`.
struct SspConnection {
  std::string from, from_connector, to, to_connector;
  int line = 0;
};

struct SspSystem {
  std::string name, description;
  std::optional<double> stop_time;  // <DefaultExperiment stopTime>
  // kausal's own annotation of the system (type "org.kausal.run"): run settings an SSD has no
  // place for. nullopt and empty in a file that has none.
  std::optional<double> output_interval;
  std::optional<int> hold;
  std::string method;
  std::vector<SspComponent> components;
  std::vector<SspConnection> connections;
};

// Above these a description is refused rather than allocated for.
inline constexpr std::size_t max_ssp_components = 10'000;
inline constexpr std::size_t max_ssp_connections = 100'000;

// The text of another entry of the archive (a parameter file, .ssv), by its path inside it;
// InputError if there is none.
using SspEntryReader = std::function<std::string(const std::string& entry)>;

// Parses SystemStructure.ssd's text; `file` names it in every InputError
// ("<file>:<line>: <what>"). Names are checked: unique component names without '.', every
// connection between components that exist.
SspSystem parse_ssp_description(const std::string& xml, const std::string& file,
                                const SspEntryReader& read_entry);

// The system of an .ssp file: its SystemStructure.ssd and the parameter files it names.
SspSystem read_ssp_description(const std::filesystem::path& ssp);

// SystemStructure.ssd (SSP 1.0) of `s`: its components with their sources, implementations and
// parameter values (inline), its connections, its stop time, and kausal's annotations where
// set. parse_ssp_description reads back what this writes.
std::string write_ssp_description(const SspSystem& s);

// The annotation types kausal writes and reads.
inline constexpr const char* kKausalRunAnnotation = "org.kausal.run";
inline constexpr const char* kKausalPartitionAnnotation = "org.kausal.partition";

}  // namespace kausal::fmu

#pragma once
// What an FMU's modelDescription.xml says, read and checked before any of its code is loaded:
// a bad description is the user's input error (exit code 2), reported with the file and line,
// never a crash or an FMU called with value references it does not have.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kausal::fmu {

enum class Causality { parameter, calculated_parameter, input, output, local, independent };
enum class Variability { constant, fixed, tunable, discrete, continuous };
// kausal's class of a variable's values. FMI 3.0's Float32 and Float64 are real, its integer
// types integer; binary is FMI 3.0's Binary (never coupled, never given a start value).
enum class ValueType { real, integer, boolean, string, enumeration, binary };
// The C type the FMU exchanges a value as: FMI 2.0's Real, Integer (and Enumeration), Boolean
// and String are float64, int32, boolean and string; FMI 3.0 names it by its element, and its
// Enumeration is an int64.
enum class CType {
  float64,
  float32,
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  boolean,
  string,
  binary
};
enum class FmiVersion { v2, v3 };
// unspecified: the file has no initial= (effective_initial gives the standard's default).
enum class Initial { exact, approx, calculated, unspecified };
enum class FmuKind { model_exchange, co_simulation };

// An FMI 3.0 <Clock>, by its intervalVariability. kausal activates time-based input Clocks
// (every kind but triggered) at their ticks; the others are refused by name.
enum class ClockKind { constant, fixed, tunable, changing, countdown, triggered };

struct Clock {
  std::string name;
  unsigned value_reference = 0;
  Causality causality = Causality::input;
  ClockKind kind = ClockKind::constant;
  // intervalDecimal (or intervalCounter / resolution) and shiftDecimal (or shiftCounter /
  // resolution), where the description gives them.
  std::optional<double> interval, shift;
  int line = 0;
};

struct Variable {
  std::string name;
  unsigned value_reference = 0;
  ValueType type = ValueType::real;
  CType ctype = CType::float64;
  Causality causality = Causality::local;
  Variability variability = Variability::continuous;
  Initial initial = Initial::unspecified;
  std::optional<double> start;               // Real, Integer, Boolean (0/1), Enumeration
  std::optional<std::string> text_start;     // String
  std::optional<double> min, max;            // Real, Integer, Enumeration: its, or its type's
  std::optional<std::size_t> derivative_of;  // Real: 0-based index into variables of the state
  std::string description, unit;             // unit: the Real's, else its declaredType's
  // An element of an FMI 3.0 array (its index in ModelDescription::arrays), element
  // `element` of it in row-major order. Its value_reference is then kausal's own, numbered
  // above every reference the FMU has (FmuInstance reads and writes the whole array).
  std::optional<std::size_t> array_of;
  std::size_t element = 0;
  bool structural = false;  // FMI 3.0 structural parameter: may size an array, is never set
  bool text_array = false;  // FMI 3.0 String or Binary array: kept whole, never coupled or set
  // FMI 3.0 intermediateUpdate="true": may be set (an input) or read within fmi3DoStep's
  // intermediate update.
  bool intermediate_update = false;
  // FMI 3.0 clocked variable: indices into ModelDescription::clocks (its clocks= attribute).
  // It may be read and written only while one of them ticks.
  std::vector<std::size_t> clocks;
  int line = 0;  // in modelDescription.xml
};

// An FMI 3.0 array variable (<Dimension> children). kausal imports each element as a scalar
// variable of its own, named as Modelica names them: "x[2]", "A[1,2]" (1-based, row-major).
struct ArrayVariable {
  std::string name;
  unsigned value_reference = 0;      // the FMU's: one call reads or writes every element
  std::vector<std::size_t> extents;  // a <Dimension>'s start=, or its structural parameter's
  std::size_t first = 0;             // the index in `variables` of its first element
  std::size_t size = 0;              // the product of the extents
  int line = 0;
};

// The <ModelExchange> or <CoSimulation> element.
struct KindInterface {
  std::string model_identifier;
  bool needs_execution_tool = false, can_be_instantiated_only_once_per_process = false,
       can_get_and_set_fmu_state = false, can_serialize_fmu_state = false,
       provides_directional_derivative = false;
  // co-simulation only
  bool can_handle_variable_communication_step_size = false, can_interpolate_inputs = false;
  int max_output_derivative_order = 0;
  // FMI 3.0: kausal may instantiate it with event mode and early return (docs/fmi.md).
  bool has_event_mode = false;
  // FMI 3.0: it calls the intermediate update callback within fmi3DoStep, where kausal sets
  // its intermediate inputs (Variable::intermediate_update) to their values at that time.
  bool provides_intermediate_update = false;
  bool completed_integrator_step_not_needed = false;  // model exchange only
};

// An <Unknown> of <ModelStructure> (FMI 3.0: an <Output>, <ContinuousStateDerivative>, ...,
// its value references turned into indices); indices 0-based. dependencies nullopt: depends on
// everything.
struct Unknown {
  std::size_t variable = 0;
  std::optional<std::vector<std::size_t>> dependencies;
  int line = 0;
};

struct DefaultExperiment {
  std::optional<double> start_time, stop_time, tolerance, step_size;
};

struct ModelDescription {
  std::string file;  // for messages, e.g. "ball.fmu: modelDescription.xml"
  FmiVersion version = FmiVersion::v2;
  // guid: FMI 2.0's guid, FMI 3.0's instantiationToken (what instantiation is given).
  std::string fmi_version, model_name, guid, description, generation_tool;
  std::optional<KindInterface> model_exchange, co_simulation;
  std::size_t event_indicators = 0;
  DefaultExperiment default_experiment;
  std::vector<Variable> variables;  // an array's elements in its place, one by one
  std::vector<ArrayVariable> arrays;
  std::vector<Clock> clocks;  // FMI 3.0: time-based input clocks only (others are refused)
  std::vector<Unknown> outputs, derivatives, initial_unknowns;

  // The continuous states in Derivatives order (the variable each derivative is the derivative of).
  std::vector<std::size_t> states() const;
  const Variable* find(std::string_view name) const;             // nullptr if none
  const ArrayVariable* find_array(std::string_view name) const;  // nullptr if none
  // Throws InputError if the FMU lacks that kind.
  const KindInterface& interface_of(FmuKind k) const;
};

// Above these a description is refused rather than allocated for (variables: arrays' elements
// counted one by one).
inline constexpr std::size_t max_variables = 1'000'000;
// Arrays' elements, all arrays together: a few bytes of XML declare an array, so their
// elements are bounded far below max_variables (each is a Variable of its own).
inline constexpr std::size_t max_array_elements = 100'000;
inline constexpr std::size_t max_event_indicators = 1'000'000;

// Parses and checks FMI 2.0 and 3.0 descriptions; every problem is InputError
// "<file>:<line>: <what>" (the line of the element at fault): XML that is not well-formed, a
// root other than fmiModelDescription, an fmiVersion other than 2.0 or 3.0, a missing guid
// (instantiationToken), modelName or modelIdentifier, neither ModelExchange nor CoSimulation, a
// variable without name, valueReference or type element, a name declared twice, a bad number or
// keyword, a derivative= or index= out of range (1-based in the file; FMI 3.0: a value reference
// no variable has, or one two variables have), a Derivatives entry whose variable has no
// derivative=, more than max_variables variables; in FMI 3.0 also what kausal does not import
// (clocks, scheduled execution) and arrays it cannot size: a <Dimension> that is neither a
// positive start= nor the value reference of a structural parameter with a positive integer
// start, a start list of the wrong length, a derivative array of another size than its state's.
ModelDescription parse_model_description(std::string_view xml, const std::string& file);

// The initial= a variable without one has (FMI 2.0 §2.2.7, FMI 3.0 §2.4.7.5: the same table of
// causality and variability); unspecified where the standard allows none (inputs, the
// independent variable).
Initial effective_initial(const Variable& v);

const char* to_string(Causality c);
const char* to_string(Variability v);
const char* to_string(ValueType t);
const char* to_string(CType t);      // the FMI 3.0 element: "Float64", "Int32", ...
const char* to_string(FmuKind k);    // "model exchange", "co-simulation"
const char* to_string(ClockKind k);  // the intervalVariability: "constant", "countdown", ...

}  // namespace kausal::fmu

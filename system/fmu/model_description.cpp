#include "system/fmu/model_description.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include <pugixml.hpp>

#include "common/errors.hpp"
#include "system/fmu/xml_reader.hpp"

namespace kausal::fmu {

namespace {

bool is_c_name(std::string_view s) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (s.empty() || !letter(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

constexpr Keywords<Causality, 6> causalities{
    {{"parameter", Causality::parameter},
     {"calculatedParameter", Causality::calculated_parameter},
     {"input", Causality::input},
     {"output", Causality::output},
     {"local", Causality::local},
     {"independent", Causality::independent}}};
constexpr Keywords<Variability, 5> variabilities{{{"constant", Variability::constant},
                                                  {"fixed", Variability::fixed},
                                                  {"tunable", Variability::tunable},
                                                  {"discrete", Variability::discrete},
                                                  {"continuous", Variability::continuous}}};
constexpr Keywords<ClockKind, 6> clock_kinds{{{"constant", ClockKind::constant},
                                              {"fixed", ClockKind::fixed},
                                              {"tunable", ClockKind::tunable},
                                              {"changing", ClockKind::changing},
                                              {"countdown", ClockKind::countdown},
                                              {"triggered", ClockKind::triggered}}};
constexpr Keywords<Initial, 3> initials{
    {{"exact", Initial::exact}, {"approx", Initial::approx}, {"calculated", Initial::calculated}}};
constexpr Keywords<ValueType, 5> type_elements{{{"Real", ValueType::real},
                                                {"Integer", ValueType::integer},
                                                {"Boolean", ValueType::boolean},
                                                {"String", ValueType::string},
                                                {"Enumeration", ValueType::enumeration}}};

std::string quoted(std::string_view name) {
  return "variable '" + std::string(name) + "'";
}

void read_header(XmlReader& r, const pugi::xml_node& root, ModelDescription& md) {
  const pugi::xml_attribute version = root.attribute("fmiVersion");
  if (!version)
    r.fail(root, "fmiModelDescription has no fmiVersion: kausal imports FMI 2.0 and 3.0");
  md.fmi_version = version.value();
  const std::string_view v = md.fmi_version;
  // 3.0 and its maintenance releases ("3.0.1"); not the betas, whose API differs.
  if (v == "3.0" || v.starts_with("3.0."))
    md.version = FmiVersion::v3;
  else if (!v.starts_with("2.0"))
    r.fail(root, "fmiVersion is '" + md.fmi_version + "': kausal imports FMI 2.0 and 3.0");
  const char* token = md.version == FmiVersion::v3 ? "instantiationToken" : "guid";
  for (const char* required : {"modelName", token})
    if (!root.attribute(required) || !*root.attribute(required).value())
      r.fail(root, std::string("fmiModelDescription has no ") + required);
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute(token).value();
  md.description = root.attribute("description").value();
  md.generation_tool = root.attribute("generationTool").value();
  if (md.version == FmiVersion::v3) return;  // its event indicators are listed in ModelStructure
  md.event_indicators = static_cast<std::size_t>(
      r.integer(root, "numberOfEventIndicators", "fmiModelDescription", 0, max_event_indicators)
          .value_or(0));
}

// FMI 3.0 spells the state functions "FMUState", the derivatives plural, and asks for
// fmi3CompletedIntegratorStep only where needsCompletedIntegratorStep says so.
KindInterface read_kind(XmlReader& r, const pugi::xml_node& e, FmuKind kind, FmiVersion version) {
  const bool v3 = version == FmiVersion::v3;
  KindInterface k;
  const pugi::xml_attribute id = e.attribute("modelIdentifier");
  if (!id || !*id.value()) r.fail(e, std::string("<") + e.name() + "> has no modelIdentifier");
  k.model_identifier = id.value();
  // It names the shared object to load: a path in it would load something outside the FMU.
  if (!is_c_name(k.model_identifier))
    r.fail(e, "modelIdentifier '" + k.model_identifier + "' is not a C name");
  k.needs_execution_tool = r.flag(e, "needsExecutionTool");
  k.can_be_instantiated_only_once_per_process = r.flag(e, "canBeInstantiatedOnlyOncePerProcess");
  k.can_get_and_set_fmu_state = r.flag(e, v3 ? "canGetAndSetFMUState" : "canGetAndSetFMUstate");
  k.can_serialize_fmu_state = r.flag(e, v3 ? "canSerializeFMUState" : "canSerializeFMUstate");
  k.provides_directional_derivative =
      r.flag(e, v3 ? "providesDirectionalDerivatives" : "providesDirectionalDerivative");
  if (kind == FmuKind::model_exchange) {
    k.completed_integrator_step_not_needed = v3 ? !r.flag(e, "needsCompletedIntegratorStep")
                                                : r.flag(e, "completedIntegratorStepNotNeeded");
    return k;
  }
  k.has_event_mode = v3 && r.flag(e, "hasEventMode");
  k.provides_intermediate_update = v3 && r.flag(e, "providesIntermediateUpdate");
  k.can_handle_variable_communication_step_size =
      r.flag(e, "canHandleVariableCommunicationStepSize");
  k.can_interpolate_inputs = r.flag(e, "canInterpolateInputs");
  k.max_output_derivative_order = static_cast<int>(
      r.integer(e, "maxOutputDerivativeOrder", "<CoSimulation>", 0, INT_MAX).value_or(0));
  return k;
}

void read_default_experiment(XmlReader& r, const pugi::xml_node& e, DefaultExperiment& d) {
  if (!e) return;
  const std::string what = "<DefaultExperiment>";
  d.start_time = r.real(e, "startTime", what);
  d.stop_time = r.real(e, "stopTime", what);
  d.tolerance = r.real(e, "tolerance", what);
  d.step_size = r.real(e, "stepSize", what);
  if (d.tolerance && !(*d.tolerance > 0)) r.fail(e, "tolerance of " + what + " must be > 0");
  if (d.step_size && !(*d.step_size > 0)) r.fail(e, "stepSize of " + what + " must be > 0");
}

// What a <SimpleType> gives the variables that declare it: a Real's unit, a Real's,
// Integer's or Enumeration's range.
struct DeclaredType {
  std::string_view unit;
  std::optional<double> min, max;
};
using DeclaredTypes = std::unordered_map<std::string_view, DeclaredType>;

// The min= and max= of a type element (a variable's or a SimpleType's), as numbers; a range
// whose min is above its max is refused.
void read_range(XmlReader& r, const pugi::xml_node& e, ValueType type, const std::string& what,
                std::optional<double>& min, std::optional<double>& max, long long lowest = INT_MIN,
                long long highest = INT_MAX) {
  const auto bound = [&](const char* attr) -> std::optional<double> {
    if (type == ValueType::real) return r.real(e, attr, what);
    if (auto v = r.integer(e, attr, what, lowest, highest)) return static_cast<double>(*v);
    return std::nullopt;
  };
  if (type != ValueType::real && type != ValueType::integer && type != ValueType::enumeration)
    return;
  if (auto v = bound("min")) min = v;
  if (auto v = bound("max")) max = v;
  if (min && max && *min > *max) r.fail(e, "min of " + what + " is above its max");
}

DeclaredTypes declared_types(XmlReader& r, const pugi::xml_node& defs) {
  DeclaredTypes types;
  for (const pugi::xml_node& t : defs.children("SimpleType")) {
    const std::string what = "type '" + std::string(t.attribute("name").value()) + "'";
    for (const pugi::xml_node& e : t.children()) {
      const auto type = type_elements.find(e.name());
      if (!type) continue;
      DeclaredType d;
      if (*type == ValueType::real) d.unit = e.attribute("unit").value();
      read_range(r, e, *type, what, d.min, d.max);
      types.emplace(t.attribute("name").value(), d);
    }
  }
  return types;
}

pugi::xml_node type_element(XmlReader& r, const pugi::xml_node& sv, const std::string& what,
                            ValueType& type) {
  pugi::xml_node found;
  for (const pugi::xml_node& child : sv.children()) {
    if (child.type() != pugi::node_element) continue;
    const auto t = type_elements.find(child.name());
    if (!t) continue;
    if (found) r.fail(child, what + " has two type elements");
    found = child;
    type = *t;
  }
  if (!found) r.fail(sv, what + " has no type element (" + type_elements.list() + ")");
  return found;
}

// A variable's start value; `lowest`, `highest`: the range of its integer type. FMI 2.0 gives
// a String's start as an attribute, FMI 3.0 as <Start value="..."/> (a Binary's is not read:
// kausal never gives one).
void read_start(XmlReader& r, const pugi::xml_node& t, const std::string& what, Variable& v,
                long long lowest = INT_MIN, long long highest = INT_MAX,
                FmiVersion version = FmiVersion::v2) {
  switch (v.type) {
    case ValueType::real:
      v.start = r.real(t, "start", what);
      break;
    case ValueType::integer:
    case ValueType::enumeration:
      if (auto s = r.integer(t, "start", what, lowest, highest)) v.start = static_cast<double>(*s);
      break;
    case ValueType::boolean:
      if (const pugi::xml_attribute a = t.attribute("start")) {
        const auto b = parse_bool(a.value());
        if (!b) r.fail(t, "start of " + what + " is not true or false: '" + a.value() + "'");
        v.start = *b ? 1.0 : 0.0;
      }
      break;
    case ValueType::string:
      if (version == FmiVersion::v3) {
        if (const pugi::xml_node start = t.child("Start"))
          v.text_start = start.attribute("value").value();
      } else if (const pugi::xml_attribute a = t.attribute("start")) {
        v.text_start = a.value();
      }
      break;
    case ValueType::binary:
      break;
  }
}

// What FMI 2.0's ScalarVariable and FMI 3.0's typed element both say in their attributes:
// value reference, causality, variability (`otherwise` where not given), initial, description.
template <std::size_t N>
void read_attributes(XmlReader& r, const pugi::xml_node& e, const std::string& what,
                     const Keywords<Causality, N>& causality_words, Variability otherwise,
                     Variable& v) {
  const auto vr = r.integer(e, "valueReference", what, 0, UINT32_MAX);
  if (!vr) r.fail(e, what + " has no valueReference");
  v.value_reference = static_cast<unsigned>(*vr);
  v.causality = r.keyword(e, "causality", what, causality_words).value_or(Causality::local);
  v.variability = r.keyword(e, "variability", what, variabilities).value_or(otherwise);
  v.initial = r.keyword(e, "initial", what, initials).value_or(Initial::unspecified);
  v.description = e.attribute("description").value();
}

// What the type element `t` says of its values: the range (its declared type's, then its
// own, within [lowest, highest] for an integer type) and, of a real, the unit and the raw
// derivative= (an index in FMI 2.0, a value reference in 3.0; checked by the caller).
std::optional<long long> read_facets(XmlReader& r, const pugi::xml_node& t,
                                     const DeclaredTypes& types, const std::string& what,
                                     Variable& v, long long lowest = INT_MIN,
                                     long long highest = INT_MAX) {
  const auto declared = types.find(t.attribute("declaredType").value());
  if (declared != types.end()) v.min = declared->second.min, v.max = declared->second.max;
  read_range(r, t, v.type, what, v.min, v.max, lowest, highest);
  if (v.type != ValueType::real) return std::nullopt;
  v.unit = t.attribute("unit").value();
  if (v.unit.empty() && declared != types.end()) v.unit = declared->second.unit;
  return r.integer(t, "derivative", what, LLONG_MIN, LLONG_MAX);
}

// The derivative= of a real as the file gives it (FMI 2.0: the state's 1-based index, FMI 3.0:
// its value reference); checked once all variables are known.
struct PendingDerivative {
  std::size_t variable;
  long long target;
  int line;
};

Variable read_variable(XmlReader& r, const pugi::xml_node& sv, const DeclaredTypes& types,
                       std::vector<PendingDerivative>& derivatives, std::size_t index) {
  Variable v;
  v.line = r.line(sv);
  const pugi::xml_attribute name = sv.attribute("name");
  if (!name || !*name.value()) r.fail(sv, "ScalarVariable has no name");
  v.name = name.value();
  const std::string what = quoted(v.name);
  read_attributes(r, sv, what, causalities, Variability::continuous, v);
  const pugi::xml_node t = type_element(r, sv, what, v.type);
  v.ctype = v.type == ValueType::real      ? CType::float64
            : v.type == ValueType::boolean ? CType::boolean
            : v.type == ValueType::string  ? CType::string
                                           : CType::int32;
  read_start(r, t, what, v);
  if (auto d = read_facets(r, t, types, what, v)) derivatives.push_back({index, *d, r.line(t)});
  return v;
}

void read_variables(XmlReader& r, const pugi::xml_node& root, ModelDescription& md) {
  const DeclaredTypes types = declared_types(r, root.child("TypeDefinitions"));
  std::unordered_map<std::string_view, std::size_t> by_name;
  std::vector<PendingDerivative> derivatives;
  for (const pugi::xml_node& sv : root.child("ModelVariables").children("ScalarVariable")) {
    if (md.variables.size() == max_variables)
      r.fail(sv, "more than " + std::to_string(max_variables) + " variables");
    md.variables.push_back(read_variable(r, sv, types, derivatives, md.variables.size()));
    const auto [it, fresh] = by_name.emplace(sv.attribute("name").value(), md.variables.size() - 1);
    if (!fresh)
      r.fail(sv, quoted(md.variables.back().name) + " is declared twice (first on line " +
                     std::to_string(md.variables[it->second].line) + ")");
  }
  const std::size_t n = md.variables.size();
  for (const auto& d : derivatives) {
    const std::string what =
        "derivative=" + std::to_string(d.target) + " of " + quoted(md.variables[d.variable].name);
    if (d.target < 1 || static_cast<std::size_t>(d.target) > n)
      r.fail_at_line(d.line, what + " is out of range (1.." + std::to_string(n) + ")");
    const std::size_t state = static_cast<std::size_t>(d.target) - 1;
    if (state == d.variable) r.fail_at_line(d.line, what + " names the variable itself");
    if (md.variables[state].type != ValueType::real)
      r.fail_at_line(d.line, what + " names " + quoted(md.variables[state].name) + ", not a Real");
    md.variables[d.variable].derivative_of = state;
  }
}

std::size_t variable_index(XmlReader& r, const pugi::xml_node& e, const std::string& text,
                           std::size_t n, const char* what) {
  const std::string where = std::string(what) + " '" + text + "' in <" + e.parent().name() + ">";
  const auto i = parse_integer(text, LLONG_MIN, LLONG_MAX);
  if (!i) r.fail(e, where + " is not a number");
  if (*i < 1 || static_cast<unsigned long long>(*i) > n)
    r.fail(e, where + " is out of range (1.." + std::to_string(n) + ")");
  return static_cast<std::size_t>(*i) - 1;
}

std::vector<std::size_t> dependency_list(XmlReader& r, const pugi::xml_node& e,
                                         std::string_view list, std::size_t n) {
  std::vector<std::size_t> out;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t begin = list.find_first_not_of(" \t\r\n", at);
    if (begin == std::string_view::npos) break;
    std::size_t end = list.find_first_of(" \t\r\n", begin);
    if (end == std::string_view::npos) end = list.size();
    out.push_back(variable_index(r, e, std::string(list.substr(begin, end - begin)), n,
                                 "dependencies entry"));
    at = end;
  }
  return out;
}

std::vector<Unknown> read_unknowns(XmlReader& r, const pugi::xml_node& list, std::size_t n) {
  std::vector<Unknown> out;
  for (const pugi::xml_node& e : list.children("Unknown")) {
    Unknown u;
    u.line = r.line(e);
    const pugi::xml_attribute index = e.attribute("index");
    if (!index) r.fail(e, std::string("<Unknown> of <") + list.name() + "> has no index");
    u.variable = variable_index(r, e, index.value(), n, "index");
    if (const pugi::xml_attribute deps = e.attribute("dependencies"))
      u.dependencies = dependency_list(r, e, deps.value(), n);
    out.push_back(std::move(u));
  }
  return out;
}

void check_structure(XmlReader& r, const ModelDescription& md);

void read_structure(XmlReader& r, const pugi::xml_node& s, ModelDescription& md) {
  const std::size_t n = md.variables.size();
  md.outputs = read_unknowns(r, s.child("Outputs"), n);
  md.derivatives = read_unknowns(r, s.child("Derivatives"), n);
  md.initial_unknowns = read_unknowns(r, s.child("InitialUnknowns"), n);
  check_structure(r, md);
}

void check_structure(XmlReader& r, const ModelDescription& md) {
  for (const Unknown& u : md.outputs)
    if (md.variables[u.variable].causality != Causality::output)
      r.fail_at_line(u.line, "<Outputs> lists " + quoted(md.variables[u.variable].name) +
                                 ", whose causality is not output");
  for (const Unknown& u : md.derivatives)
    if (!md.variables[u.variable].derivative_of)
      r.fail_at_line(u.line, "<Derivatives> lists " + quoted(md.variables[u.variable].name) +
                                 ", which has no derivative= (of which state?)");
}

// ---- FMI 3.0 (§2.4.7: a variable is an element named by its type; references by value
// reference, each variable's own) ----

struct Fmi3Element {
  std::string_view name;
  ValueType type;
  CType ctype;
  long long lowest = 0, highest = 0;  // integer types: the range a start, min or max may have
};
// UInt64 and Int64 are held as doubles by kausal: their values beyond what a long long
// holds are refused where they are read.
constexpr Fmi3Element fmi3_elements[] = {
    {"Float64", ValueType::real, CType::float64},
    {"Float32", ValueType::real, CType::float32},
    {"Int8", ValueType::integer, CType::int8, INT8_MIN, INT8_MAX},
    {"UInt8", ValueType::integer, CType::uint8, 0, UINT8_MAX},
    {"Int16", ValueType::integer, CType::int16, INT16_MIN, INT16_MAX},
    {"UInt16", ValueType::integer, CType::uint16, 0, UINT16_MAX},
    {"Int32", ValueType::integer, CType::int32, INT32_MIN, INT32_MAX},
    {"UInt32", ValueType::integer, CType::uint32, 0, UINT32_MAX},
    {"Int64", ValueType::integer, CType::int64, LLONG_MIN, LLONG_MAX},
    {"UInt64", ValueType::integer, CType::uint64, 0, LLONG_MAX},
    {"Boolean", ValueType::boolean, CType::boolean},
    {"String", ValueType::string, CType::string},
    {"Binary", ValueType::binary, CType::binary},
    {"Enumeration", ValueType::enumeration, CType::int64, LLONG_MIN, LLONG_MAX}};

const Fmi3Element* fmi3_element(std::string_view name) {
  for (const Fmi3Element& e : fmi3_elements)
    if (e.name == name) return &e;
  return nullptr;
}

std::string fmi3_element_list() {
  std::string out;
  for (const Fmi3Element& e : fmi3_elements) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out + ", Clock";
}

constexpr Keywords<Causality, 7> fmi3_causalities{
    {{"parameter", Causality::parameter},
     // Structural parameters size arrays (Variable::structural says which they are).
     {"structuralParameter", Causality::parameter},
     {"calculatedParameter", Causality::calculated_parameter},
     {"input", Causality::input},
     {"output", Causality::output},
     {"local", Causality::local},
     {"independent", Causality::independent}}};

// <Float64Type name="..." unit="..." min="..." max="..."/> and the like: their units and ranges.
DeclaredTypes declared_types_3(XmlReader& r, const pugi::xml_node& defs) {
  DeclaredTypes types;
  for (const pugi::xml_node& t : defs.children()) {
    std::string_view element = t.name();
    if (t.type() != pugi::node_element || !element.ends_with("Type")) continue;
    element.remove_suffix(4);
    const Fmi3Element* e = fmi3_element(element);
    if (!e) continue;
    const std::string what = "type '" + std::string(t.attribute("name").value()) + "'";
    DeclaredType d;
    if (e->type == ValueType::real) d.unit = t.attribute("unit").value();
    read_range(r, t, e->type, what, d.min, d.max, e->lowest, e->highest);
    types.emplace(t.attribute("name").value(), d);
  }
  return types;
}

// A <Dimension> as the file gives it: a fixed extent, or the value reference of the
// structural parameter that holds it (looked up once every variable is known).
struct PendingDimension {
  std::optional<std::size_t> extent;
  unsigned reference = 0;
  int line = 0;
};
// A numeric or Boolean array as read: expanded into its elements once its extents are known.
struct PendingArray {
  std::size_t variable = 0;  // its index among the variables as read
  std::vector<PendingDimension> dimensions;
  std::optional<std::string> start;   // the start= list, as written
  long long lowest = 0, highest = 0;  // an integer type's range
};

std::vector<PendingDimension> read_dimensions(XmlReader& r, const pugi::xml_node& e,
                                              const std::string& what) {
  std::vector<PendingDimension> dimensions;
  for (const pugi::xml_node& d : e.children("Dimension")) {
    PendingDimension pd;
    pd.line = r.line(d);
    if (const pugi::xml_attribute start = d.attribute("start")) {
      const auto n = parse_integer(start.value(), 1, static_cast<long long>(max_variables));
      if (!n)
        r.fail(d, "<Dimension> of " + what + ": start is not an integer in [1, " +
                      std::to_string(max_variables) + "]: '" + start.value() + "'");
      pd.extent = static_cast<std::size_t>(*n);
    } else if (const pugi::xml_attribute vr = d.attribute("valueReference")) {
      const auto n = parse_integer(vr.value(), 0, UINT32_MAX);
      if (!n)
        r.fail(d, "<Dimension> of " + what + ": valueReference is not a value reference: '" +
                      vr.value() + "'");
      pd.reference = static_cast<unsigned>(*n);
    } else {
      r.fail(d, "<Dimension> of " + what + " has neither start nor valueReference");
    }
    dimensions.push_back(pd);
  }
  return dimensions;
}

// A <Clock>: kausal activates time-based input Clocks at their ticks. An output or local
// Clock (always triggered) and a triggered input Clock are refused: kausal has no receiver for
// the one and no source of ticks for the other.
Clock read_clock(XmlReader& r, const pugi::xml_node& e, const std::string& what) {
  Clock c;
  c.name = e.attribute("name").value();
  c.line = r.line(e);
  const auto vr = r.integer(e, "valueReference", what, 0, UINT32_MAX);
  if (!vr) r.fail(e, what + " has no valueReference");
  c.value_reference = static_cast<unsigned>(*vr);
  c.causality = r.keyword(e, "causality", what, fmi3_causalities).value_or(Causality::local);
  const auto kind = r.keyword(e, "intervalVariability", what, clock_kinds);
  if (!kind) r.fail(e, what + " (a Clock) has no intervalVariability");
  c.kind = *kind;
  if (c.causality != Causality::input)
    r.fail(e, what + " is a Clock of causality " + to_string(c.causality) +
                  ": kausal activates input Clocks at their ticks and has no receiver for the "
                  "ticks of an FMU's own Clocks");
  if (c.kind == ClockKind::triggered)
    r.fail(e, what +
                  " is a triggered input Clock: kausal activates time-based Clocks (constant, "
                  "fixed, tunable, changing, countdown) and has no source for its ticks");
  const auto resolution = r.integer(e, "resolution", what, 1, LLONG_MAX);
  const auto fraction = [&](const char* counter) -> std::optional<double> {
    const auto n = r.integer(e, counter, what, 0, LLONG_MAX);
    if (!n) return std::nullopt;
    return static_cast<double>(*n) / static_cast<double>(resolution.value_or(1));
  };
  c.interval = r.real(e, "intervalDecimal", what);
  if (!c.interval) c.interval = fraction("intervalCounter");
  c.shift = r.real(e, "shiftDecimal", what);
  if (!c.shift) c.shift = fraction("shiftCounter");
  if (c.interval && !(std::isfinite(*c.interval) && *c.interval > 0))
    r.fail(e, what + ": its interval is not a positive number");
  if (c.shift && !(std::isfinite(*c.shift) && *c.shift >= 0))
    r.fail(e, what + ": its shift is not a number >= 0");
  if (c.kind == ClockKind::constant && !c.interval)
    r.fail(e, what + " is a constant Clock without intervalDecimal (or intervalCounter)");
  return c;
}

Variable read_variable_3(XmlReader& r, const pugi::xml_node& e, const DeclaredTypes& types,
                         std::vector<PendingDerivative>& derivatives,
                         std::vector<PendingArray>& arrays, std::size_t index) {
  Variable v;
  v.line = r.line(e);
  const pugi::xml_attribute name = e.attribute("name");
  if (!name || !*name.value()) r.fail(e, std::string("<") + e.name() + "> has no name");
  v.name = name.value();
  const std::string what = quoted(v.name);
  const Fmi3Element* type = fmi3_element(e.name());
  if (!type)
    r.fail(e, std::string("<") + e.name() + "> is not a variable element (" + fmi3_element_list() +
                  ")");
  v.type = type->type;
  v.ctype = type->ctype;
  v.structural = std::string_view(e.attribute("causality").value()) == "structuralParameter";
  v.intermediate_update = r.flag(e, "intermediateUpdate");
  read_attributes(r, e, what, fmi3_causalities,
                  v.type == ValueType::real ? Variability::continuous : Variability::discrete, v);
  std::vector<PendingDimension> dimensions = read_dimensions(r, e, what);
  // A String or Binary array is kept whole: never coupled, never given a value (as a
  // Binary scalar). A number or Boolean array becomes its elements.
  v.text_array =
      !dimensions.empty() && (v.type == ValueType::string || v.type == ValueType::binary);
  if (dimensions.empty()) {
    read_start(r, e, what, v, type->lowest, type->highest, FmiVersion::v3);
  } else if (!v.text_array) {
    PendingArray a{index, std::move(dimensions), std::nullopt, type->lowest, type->highest};
    if (const pugi::xml_attribute start = e.attribute("start")) a.start = start.value();
    arrays.push_back(std::move(a));
  }
  const auto d = read_facets(r, e, types, what, v, type->lowest, type->highest);
  if (d && (*d < 0 || *d > UINT32_MAX))
    r.fail(e, "derivative of " + what + " is not an integer in [0, " + std::to_string(UINT32_MAX) +
                  "]: '" + e.attribute("derivative").value() + "'");
  if (d) derivatives.push_back({index, *d, r.line(e)});
  return v;
}

using ByReference = std::unordered_map<unsigned, std::size_t>;

// Where each variable as read went once the arrays were expanded: its first index in
// ModelDescription::variables and how many (an array's elements; 1 for anything else).
struct Placed {
  std::size_t first = 0, count = 1;
};
struct Placement {
  ByReference by_reference;    // the FMU's value reference → the variable as read
  std::vector<Placed> placed;  // per variable as read
  std::vector<std::size_t> expanded(std::size_t variable) const {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < placed.at(variable).count; ++k)
      out.push_back(placed[variable].first + k);
    return out;
  }
};

// The extents of array `a`: its <Dimension>s' starts, or its structural parameters'.
std::vector<std::size_t> extents_of(XmlReader& r, const PendingArray& a,
                                    const std::vector<Variable>& variables,
                                    const ByReference& by_reference) {
  const std::string what = quoted(variables[a.variable].name);
  std::vector<std::size_t> extents;
  for (const PendingDimension& d : a.dimensions) {
    if (d.extent) {
      extents.push_back(*d.extent);
      continue;
    }
    const std::string where =
        "<Dimension valueReference=\"" + std::to_string(d.reference) + "\"> of " + what;
    const auto it = by_reference.find(d.reference);
    if (it == by_reference.end())
      r.fail_at_line(d.line, where + " is no variable's value reference");
    const Variable& p = variables[it->second];
    if (!p.structural || p.type != ValueType::integer || !p.start || *p.start < 1 ||
        *p.start > static_cast<double>(max_variables))
      r.fail_at_line(d.line, where + " names " + quoted(p.name) +
                                 ", not a structural parameter of an integer type with a start "
                                 "in [1, " +
                                 std::to_string(max_variables) + "]");
    extents.push_back(static_cast<std::size_t>(*p.start));
  }
  return extents;
}

// "A[1,2]": element k (row-major) of an array with these extents.
std::string element_name(const std::string& array, const std::vector<std::size_t>& extents,
                         std::size_t k) {
  std::vector<std::size_t> index(extents.size());
  for (std::size_t d = extents.size(); d-- > 0;) {
    index[d] = k % extents[d] + 1;
    k /= extents[d];
  }
  std::string name = array;
  for (std::size_t d = 0; d < index.size(); ++d) {
    name += d ? ',' : '[';
    name += std::to_string(index[d]);
  }
  name += ']';
  return name;
}

// The start= list of array `a`: one value per element, or none at all.
std::vector<std::optional<double>> array_starts(XmlReader& r, const PendingArray& a,
                                                const Variable& v, std::size_t size) {
  std::vector<std::optional<double>> starts(size);
  if (!a.start) return starts;
  const std::string what = "start of " + quoted(v.name);
  std::vector<std::string_view> tokens;
  const std::string_view list = *a.start;
  for (std::size_t at = list.find_first_not_of(" \t\r\n"); at != std::string_view::npos;
       at = list.find_first_not_of(" \t\r\n", at)) {
    const std::size_t end = std::min(list.find_first_of(" \t\r\n", at), list.size());
    if (tokens.size() == size)
      r.fail_at_line(v.line, what + " has more than its " + std::to_string(size) + " elements");
    tokens.push_back(list.substr(at, end - at));
    at = end;
  }
  if (tokens.size() != size)
    r.fail_at_line(v.line, what + " has " + std::to_string(tokens.size()) + " values for its " +
                               std::to_string(size) + " elements");
  for (std::size_t k = 0; k < size; ++k) {
    const std::string token(tokens[k]);
    std::optional<double> x;
    if (v.type == ValueType::real) {
      x = parse_double(token);
    } else if (v.type == ValueType::boolean) {
      if (const auto b = parse_bool(token)) x = *b ? 1.0 : 0.0;
    } else if (const auto n = parse_integer(token, a.lowest, a.highest)) {
      x = static_cast<double>(*n);
    }
    if (!x)
      r.fail_at_line(v.line, what + ": element " + std::to_string(k + 1) + " '" + token +
                                 "' is not a " + to_string(v.type) + " it can hold");
    starts[k] = x;
  }
  return starts;
}

// Every number or Boolean array becomes its elements, in its place, each with a value
// reference of kausal's numbered above the FMU's; a derivative array's elements are the
// derivatives of its state array's.
Placement expand_arrays(XmlReader& r, const pugi::xml_node& root, ModelDescription& md,
                        const std::vector<PendingArray>& pending, ByReference by_reference) {
  Placement out;
  out.by_reference = std::move(by_reference);
  std::vector<const PendingArray*> array_of(md.variables.size(), nullptr);
  for (const PendingArray& a : pending) array_of[a.variable] = &a;
  std::uint64_t next_reference = 0;
  for (const Variable& v : md.variables)
    next_reference = std::max<std::uint64_t>(next_reference, std::uint64_t{v.value_reference} + 1);
  for (const Clock& c : md.clocks)
    next_reference = std::max<std::uint64_t>(next_reference, std::uint64_t{c.value_reference} + 1);
  std::vector<Variable> read = std::move(md.variables);
  md.variables.clear();
  std::size_t elements = 0;  // of the arrays so far
  for (std::size_t i = 0; i < read.size(); ++i) {
    const PendingArray* a = array_of[i];
    if (!a) {
      out.placed.push_back({md.variables.size(), 1});
      md.variables.push_back(read[i]);
      continue;
    }
    ArrayVariable array;
    array.name = read[i].name;
    array.value_reference = read[i].value_reference;
    array.extents = extents_of(r, *a, read, out.by_reference);
    array.line = read[i].line;
    array.size = 1;
    for (const std::size_t n : array.extents)
      if ((array.size *= n) > max_array_elements - elements)
        r.fail_at_line(read[i].line, "more than " + std::to_string(max_array_elements) +
                                         " array elements, those of " + quoted(array.name) +
                                         " counted");
    elements += array.size;
    if (next_reference + array.size - 1 > UINT32_MAX)
      r.fail(root, "too many array elements to number them as value references");
    const auto starts = array_starts(r, *a, read[i], array.size);
    array.first = md.variables.size();
    out.placed.push_back({array.first, array.size});
    for (std::size_t k = 0; k < array.size; ++k) {
      Variable e = read[i];
      e.name = element_name(array.name, array.extents, k);
      e.value_reference = static_cast<unsigned>(next_reference++);
      e.start = starts[k];
      e.array_of = md.arrays.size();
      e.element = k;
      md.variables.push_back(std::move(e));
    }
    md.arrays.push_back(std::move(array));
  }
  // derivative= was resolved among the variables as read.
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (!read[i].derivative_of) continue;
    const Placed d = out.placed[i], x = out.placed[*read[i].derivative_of];
    if (d.count != x.count ||
        (array_of[i] == nullptr) != (array_of[*read[i].derivative_of] == nullptr))
      r.fail_at_line(read[i].line, quoted(read[i].name) + " has " + std::to_string(d.count) +
                                       " elements and its state " +
                                       quoted(read[*read[i].derivative_of].name) + " " +
                                       std::to_string(x.count) + ": kausal pairs them one by one");
    for (std::size_t k = 0; k < d.count; ++k) md.variables[d.first + k].derivative_of = x.first + k;
  }
  return out;
}

// A clocked variable's clocks= list: the value references of the Clocks it belongs to.
void read_clocks_of(XmlReader& r, const pugi::xml_node& e, const ModelDescription& md,
                    Variable& v) {
  const std::string_view list = e.attribute("clocks").value();
  for (std::size_t from = list.find_first_not_of(" \t\r\n"); from != std::string_view::npos;
       from = list.find_first_not_of(" \t\r\n", from)) {
    const std::size_t end = std::min(list.find_first_of(" \t\r\n", from), list.size());
    const std::string_view item = list.substr(from, end - from);
    const auto vr = parse_integer(item, 0, UINT32_MAX);
    const auto clock = std::find_if(md.clocks.begin(), md.clocks.end(),
                                    [&](const Clock& c) { return vr && c.value_reference == *vr; });
    if (clock == md.clocks.end())
      r.fail(e, "clocks entry '" + std::string(item) + "' of " + quoted(v.name) +
                    " is no Clock's value reference");
    const auto k = static_cast<std::size_t>(clock - md.clocks.begin());
    if (std::find(v.clocks.begin(), v.clocks.end(), k) == v.clocks.end()) v.clocks.push_back(k);
    from = end;
  }
}

Placement read_variables_3(XmlReader& r, const pugi::xml_node& root, ModelDescription& md) {
  const DeclaredTypes types = declared_types_3(r, root.child("TypeDefinitions"));
  ByReference by_reference;
  std::vector<PendingDerivative> derivatives;
  std::vector<PendingArray> arrays;
  // Names and value references are shared by variables and clocks: (name, line) of each.
  std::unordered_map<std::string, int> names;
  std::unordered_map<unsigned, std::pair<std::string, int>> references;
  const auto claim = [&](const pugi::xml_node& e, const std::string& name, unsigned vr) {
    const auto [it, fresh] = names.emplace(name, r.line(e));
    if (!fresh)
      r.fail(e, quoted(name) + " is declared twice (first on line " + std::to_string(it->second) +
                    ")");
    const auto [same, own] = references.emplace(vr, std::pair{name, r.line(e)});
    if (!own)
      r.fail(e, "valueReference " + std::to_string(vr) + " of " + quoted(name) + " is also " +
                    quoted(same->second.first) + "'s (line " + std::to_string(same->second.second) +
                    "): in FMI 3.0 each variable has its own");
  };
  std::vector<std::pair<std::size_t, pugi::xml_node>> clocked;  // variable, its element
  for (const pugi::xml_node& e : root.child("ModelVariables").children()) {
    if (e.type() != pugi::node_element) continue;
    if (md.variables.size() + md.clocks.size() == max_variables)
      r.fail(e, "more than " + std::to_string(max_variables) + " variables");
    if (std::string_view(e.name()) == "Clock") {
      const std::string name = e.attribute("name").value();
      if (name.empty()) r.fail(e, "<Clock> has no name");
      md.clocks.push_back(read_clock(r, e, quoted(name)));
      claim(e, name, md.clocks.back().value_reference);
      continue;
    }
    md.variables.push_back(read_variable_3(r, e, types, derivatives, arrays, md.variables.size()));
    const Variable& v = md.variables.back();
    claim(e, v.name, v.value_reference);
    by_reference.emplace(v.value_reference, md.variables.size() - 1);
    if (e.attribute("clocks")) clocked.emplace_back(md.variables.size() - 1, e);
  }
  for (const auto& [index, e] : clocked) read_clocks_of(r, e, md, md.variables[index]);
  for (const auto& d : derivatives) {
    const std::string what =
        "derivative=" + std::to_string(d.target) + " of " + quoted(md.variables[d.variable].name);
    const auto state = by_reference.find(static_cast<unsigned>(d.target));
    if (state == by_reference.end())
      r.fail_at_line(d.line, what + " is no variable's value reference");
    if (state->second == d.variable) r.fail_at_line(d.line, what + " names the variable itself");
    if (md.variables[state->second].type != ValueType::real)
      r.fail_at_line(d.line, what + " names " + quoted(md.variables[state->second].name) +
                                 ", not a Float32 or Float64");
    md.variables[d.variable].derivative_of = state->second;
  }
  return expand_arrays(r, root, md, arrays, std::move(by_reference));
}

std::size_t variable_of(XmlReader& r, const pugi::xml_node& e, std::string_view text,
                        const ByReference& by_reference, const char* what) {
  const std::string where =
      std::string(what) + " '" + std::string(text) + "' in <" + e.name() + ">";
  const auto vr = parse_integer(text, 0, UINT32_MAX);
  if (!vr) r.fail(e, where + " is not a value reference");
  const auto it = by_reference.find(static_cast<unsigned>(*vr));
  if (it == by_reference.end()) r.fail(e, where + " is no variable's value reference");
  return it->second;
}

// An <Output>, <ContinuousStateDerivative>, ... of FMI 3.0: one Unknown per element of an
// array, each depending on every element of the arrays it lists.
// The dependencies entries of all Unknowns together, arrays expanded: an <Output> of an array
// that depends on an array is an entry per pair of elements.
constexpr std::size_t max_dependency_entries = 4'000'000;

std::vector<Unknown> read_unknown_3(XmlReader& r, const pugi::xml_node& e, const Placement& at,
                                    std::size_t& entries) {
  const pugi::xml_attribute vr = e.attribute("valueReference");
  if (!vr) r.fail(e, std::string("<") + e.name() + "> has no valueReference");
  const std::size_t variable = variable_of(r, e, vr.value(), at.by_reference, "valueReference");
  std::optional<std::vector<std::size_t>> dependencies;
  if (const pugi::xml_attribute deps = e.attribute("dependencies")) {
    dependencies.emplace();
    const std::string_view list = deps.value();
    for (std::size_t from = list.find_first_not_of(" \t\r\n"); from != std::string_view::npos;
         from = list.find_first_not_of(" \t\r\n", from)) {
      const std::size_t end = std::min(list.find_first_of(" \t\r\n", from), list.size());
      const std::size_t listed =
          variable_of(r, e, list.substr(from, end - from), at.by_reference, "dependencies entry");
      if (at.placed[listed].count > max_dependency_entries - entries - dependencies->size())
        r.fail(e, "more than " + std::to_string(max_dependency_entries) +
                      " dependencies entries, arrays counted element by element");
      for (const std::size_t k : at.expanded(listed)) dependencies->push_back(k);
      from = end;
    }
  }
  const std::vector<std::size_t> elements = at.expanded(variable);
  const std::size_t each = dependencies ? dependencies->size() : 0;
  if (each > 0 && elements.size() > (max_dependency_entries - entries) / each)
    r.fail(e, "more than " + std::to_string(max_dependency_entries) +
                  " dependencies entries, arrays counted element by element");
  entries += each * elements.size();
  std::vector<Unknown> out;
  for (const std::size_t k : elements) out.push_back({k, dependencies, r.line(e)});
  return out;
}

void read_structure_3(XmlReader& r, const pugi::xml_node& s, const Placement& at,
                      ModelDescription& md) {
  std::size_t entries = 0;
  for (const pugi::xml_node& e : s.children()) {
    if (e.type() != pugi::node_element) continue;
    const std::string_view kind = e.name();
    // A clocked state's previous value is the FMU's business: kausal reads it like any
    // clocked variable.
    if (kind == "ClockedState") {
      for (const Unknown& u : read_unknown_3(r, e, at, entries))
        if (md.variables[u.variable].clocks.empty())
          r.fail(e, "<ClockedState> " + quoted(md.variables[u.variable].name) +
                        " is not a clocked variable (it has no clocks=)");
      continue;
    }
    if (kind != "Output" && kind != "ContinuousStateDerivative" && kind != "InitialUnknown" &&
        kind != "EventIndicator")
      r.fail(e, "<" + std::string(kind) +
                    "> is not an element of <ModelStructure> (Output, ContinuousStateDerivative, "
                    "ClockedState, InitialUnknown, EventIndicator)");
    std::vector<Unknown> unknowns = read_unknown_3(r, e, at, entries);
    if (md.variables[unknowns.front().variable].text_array)
      r.fail(e, "<" + std::string(kind) + "> " +
                    quoted(md.variables[unknowns.front().variable].name) +
                    " is a String or Binary array");
    std::vector<Unknown>& into = kind == "Output"                      ? md.outputs
                                 : kind == "ContinuousStateDerivative" ? md.derivatives
                                                                       : md.initial_unknowns;
    if (kind != "EventIndicator") {
      into.insert(into.end(), unknowns.begin(), unknowns.end());
    } else if ((md.event_indicators += unknowns.size()) > max_event_indicators) {
      r.fail(e, "more than " + std::to_string(max_event_indicators) + " event indicators");
    }
  }
  check_structure(r, md);
}

}  // namespace

ModelDescription parse_model_description(std::string_view xml, const std::string& file) {
  XmlReader r(xml, file);
  pugi::xml_document doc;
  const pugi::xml_node root = r.root_of(doc, "fmiModelDescription", "fmiModelDescription");

  ModelDescription md;
  md.file = file;
  read_header(r, root, md);
  if (const pugi::xml_node me = root.child("ModelExchange"))
    md.model_exchange = read_kind(r, me, FmuKind::model_exchange, md.version);
  if (const pugi::xml_node cs = root.child("CoSimulation"))
    md.co_simulation = read_kind(r, cs, FmuKind::co_simulation, md.version);
  if (!md.model_exchange && !md.co_simulation)
    r.fail(root, "neither <ModelExchange> nor <CoSimulation>: the FMU offers nothing to run");
  read_default_experiment(r, root.child("DefaultExperiment"), md.default_experiment);
  if (md.version == FmiVersion::v3) {
    if (root.child("ScheduledExecution"))
      r.fail(root.child("ScheduledExecution"),
             "<ScheduledExecution>: kausal imports model exchange and co-simulation only");
    const Placement placement = read_variables_3(r, root, md);
    read_structure_3(r, root.child("ModelStructure"), placement, md);
  } else {
    read_variables(r, root, md);
    read_structure(r, root.child("ModelStructure"), md);
  }
  return md;
}

std::vector<std::size_t> ModelDescription::states() const {
  std::vector<std::size_t> out;
  out.reserve(derivatives.size());
  for (const Unknown& d : derivatives)
    if (d.variable < variables.size() && variables[d.variable].derivative_of)
      out.push_back(*variables[d.variable].derivative_of);
  return out;
}

const Variable* ModelDescription::find(std::string_view name) const {
  for (const Variable& v : variables)
    if (v.name == name) return &v;
  return nullptr;
}

const ArrayVariable* ModelDescription::find_array(std::string_view name) const {
  for (const ArrayVariable& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

const KindInterface& ModelDescription::interface_of(FmuKind k) const {
  const auto& i = k == FmuKind::model_exchange ? model_exchange : co_simulation;
  if (!i)
    throw InputError(
        file + ": the FMU does not support " + to_string(k) + " (it offers " +
        to_string(k == FmuKind::model_exchange ? FmuKind::co_simulation : FmuKind::model_exchange) +
        " only)");
  return *i;
}

Initial effective_initial(const Variable& v) {
  if (v.initial != Initial::unspecified) return v.initial;
  switch (v.causality) {
    case Causality::parameter:
      return Initial::exact;
    case Causality::calculated_parameter:
      return Initial::calculated;
    case Causality::input:
    case Causality::independent:
      return Initial::unspecified;
    case Causality::output:
    case Causality::local:
      return v.variability == Variability::constant ? Initial::exact : Initial::calculated;
  }
  return Initial::unspecified;
}

const char* to_string(Causality c) {
  switch (c) {
    case Causality::parameter:
      return "parameter";
    case Causality::calculated_parameter:
      return "calculatedParameter";
    case Causality::input:
      return "input";
    case Causality::output:
      return "output";
    case Causality::local:
      return "local";
    case Causality::independent:
      return "independent";
  }
  return "?";
}

const char* to_string(Variability v) {
  switch (v) {
    case Variability::constant:
      return "constant";
    case Variability::fixed:
      return "fixed";
    case Variability::tunable:
      return "tunable";
    case Variability::discrete:
      return "discrete";
    case Variability::continuous:
      return "continuous";
  }
  return "?";
}

const char* to_string(ValueType t) {
  switch (t) {
    case ValueType::real:
      return "Real";
    case ValueType::integer:
      return "Integer";
    case ValueType::boolean:
      return "Boolean";
    case ValueType::string:
      return "String";
    case ValueType::enumeration:
      return "Enumeration";
    case ValueType::binary:
      return "Binary";
  }
  return "?";
}

const char* to_string(CType t) {
  for (const Fmi3Element& e : fmi3_elements)
    if (e.ctype == t && e.type != ValueType::enumeration) return e.name.data();
  return "?";
}

const char* to_string(ClockKind k) {
  for (const auto& [word, kind] : clock_kinds.words)
    if (kind == k) return word.data();
  return "?";
}

const char* to_string(FmuKind k) {
  return k == FmuKind::model_exchange ? "model exchange" : "co-simulation";
}

}  // namespace kausal::fmu

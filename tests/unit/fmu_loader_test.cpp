// FMI 2.0 and 3.0 import, the parts that need no FMU binary: modelDescription.xml (what comes out,
// what a bad file says), the .fmu archive (reading, unpacking, what it refuses) and the call error.
#include <zip.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "system/fmu/clock_schedule.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/fmu_error.hpp"
#include "system/fmu/fmu_library.hpp"
#include "system/fmu/fmu_model.hpp"
#include "system/fmu/model_description.hpp"
#include "tests/temp_dir.hpp"

namespace kausal::fmu {
namespace {

using kausal::testing::TempDir;

const std::string file = "vdp.fmu: modelDescription.xml";

// Model exchange and co-simulation, two states, every value type.
const std::string valid_xml = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="VanDerPol" guid="{8c4e810f}"
  description="oscillator" generationTool="hand" numberOfEventIndicators="1">
  <ModelExchange modelIdentifier="vdp" canGetAndSetFMUstate="true" canSerializeFMUstate="true"
    completedIntegratorStepNotNeeded="true"/>
  <CoSimulation modelIdentifier="vdp_cs" canHandleVariableCommunicationStepSize="true"
    maxOutputDerivativeOrder="1" canBeInstantiatedOnlyOncePerProcess="1"
    providesDirectionalDerivative="true"/>
  <TypeDefinitions>
    <SimpleType name="Position"><Real unit="m"/></SimpleType>
  </TypeDefinitions>
  <DefaultExperiment startTime="0" stopTime="20" tolerance="1e-6"/>
  <ModelVariables>
    <ScalarVariable name="time" valueReference="0" causality="independent"><Real/></ScalarVariable>
    <ScalarVariable name="x0" valueReference="1" causality="output" initial="exact" description="position">
      <Real start="2" declaredType="Position"/></ScalarVariable>
    <ScalarVariable name="der(x0)" valueReference="2"><Real derivative="2"/></ScalarVariable>
    <ScalarVariable name="x1" valueReference="3" causality="output" initial="exact">
      <Real start="-0.5" unit="m/s"/></ScalarVariable>
    <ScalarVariable name="der(x1)" valueReference="4"><Real derivative="4"/></ScalarVariable>
    <ScalarVariable name="mu" valueReference="5" causality="parameter" variability="fixed">
      <Real start="1.5"/></ScalarVariable>
    <ScalarVariable name="n" valueReference="0" causality="parameter" variability="tunable">
      <Integer start="3"/></ScalarVariable>
    <ScalarVariable name="on" valueReference="0" causality="input" variability="discrete">
      <Boolean start="true"/></ScalarVariable>
    <ScalarVariable name="label" valueReference="0" causality="parameter" variability="fixed">
      <String start="hi"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs><Unknown index="2" dependencies=""/><Unknown index="4"/></Outputs>
    <Derivatives><Unknown index="5" dependencies="2 4  6"/><Unknown index="3" dependencies="4"/></Derivatives>
    <InitialUnknowns><Unknown index="3"/></InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>
)xml";

// valid_xml with the first `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  std::string xml = valid_xml;
  const auto at = xml.find(from);
  if (at == std::string::npos) throw std::logic_error("test: no '" + from + "' in valid_xml");
  return xml.replace(at, from.size(), to);
}

// The 1-based line of the first `text` in xml.
int line_of(const std::string& xml, const std::string& text) {
  const auto at = xml.find(text);
  if (at == std::string::npos) throw std::logic_error("test: no '" + text + "'");
  return 1 + static_cast<int>(std::count(xml.begin(), xml.begin() + at, '\n'));
}

std::string xml_error_of(const std::string& xml) {
  try {
    parse_model_description(xml, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// The message is "<file>:<line>: <what>" and contains `what`.
void expect_error(const std::string& xml, int line, const std::string& what) {
  const std::string message = xml_error_of(xml);
  const std::string where = file + ":" + std::to_string(line) + ": ";
  EXPECT_EQ(message.rfind(where, 0), 0u) << message << "\nexpected to start with " << where;
  EXPECT_NE(message.find(what), std::string::npos) << message << "\nexpected: " << what;
}

TEST(FmuModelDescription, ReadsEveryField) {
  const ModelDescription md = parse_model_description(valid_xml, file);
  EXPECT_EQ(md.file, file);
  EXPECT_EQ(md.fmi_version, "2.0");
  EXPECT_EQ(md.model_name, "VanDerPol");
  EXPECT_EQ(md.guid, "{8c4e810f}");
  EXPECT_EQ(md.description, "oscillator");
  EXPECT_EQ(md.generation_tool, "hand");
  EXPECT_EQ(md.event_indicators, 1u);
  EXPECT_EQ(md.default_experiment.start_time, 0.0);
  EXPECT_EQ(md.default_experiment.stop_time, 20.0);
  EXPECT_EQ(md.default_experiment.tolerance, 1e-6);
  EXPECT_FALSE(md.default_experiment.step_size);

  ASSERT_TRUE(md.model_exchange);
  const KindInterface& me = md.interface_of(FmuKind::model_exchange);
  EXPECT_EQ(me.model_identifier, "vdp");
  EXPECT_TRUE(me.can_get_and_set_fmu_state);
  EXPECT_TRUE(me.can_serialize_fmu_state);
  EXPECT_TRUE(me.completed_integrator_step_not_needed);
  EXPECT_FALSE(me.provides_directional_derivative);
  EXPECT_FALSE(me.can_be_instantiated_only_once_per_process);
  const KindInterface& cs = md.interface_of(FmuKind::co_simulation);
  EXPECT_EQ(cs.model_identifier, "vdp_cs");
  EXPECT_TRUE(cs.can_handle_variable_communication_step_size);
  EXPECT_FALSE(cs.can_interpolate_inputs);
  EXPECT_EQ(cs.max_output_derivative_order, 1);
  EXPECT_TRUE(cs.can_be_instantiated_only_once_per_process);
  EXPECT_TRUE(cs.provides_directional_derivative);
  EXPECT_FALSE(cs.can_get_and_set_fmu_state);
}

TEST(FmuModelDescription, ReadsVariables) {
  const ModelDescription md = parse_model_description(valid_xml, file);
  ASSERT_EQ(md.variables.size(), 9u);
  const Variable& time = md.variables[0];
  EXPECT_EQ(time.causality, Causality::independent);
  EXPECT_FALSE(time.start);

  const Variable* x0 = md.find("x0");
  ASSERT_NE(x0, nullptr);
  EXPECT_EQ(x0, &md.variables[1]);
  EXPECT_EQ(x0->value_reference, 1u);
  EXPECT_EQ(x0->type, ValueType::real);
  EXPECT_EQ(x0->causality, Causality::output);
  EXPECT_EQ(x0->variability, Variability::continuous);
  EXPECT_EQ(x0->initial, Initial::exact);
  EXPECT_EQ(x0->start, 2.0);
  EXPECT_EQ(x0->unit, "m");  // from its declaredType
  EXPECT_EQ(x0->description, "position");
  EXPECT_EQ(x0->line, line_of(valid_xml, "name=\"x0\""));
  EXPECT_FALSE(x0->derivative_of);

  const Variable* der_x0 = md.find("der(x0)");
  ASSERT_NE(der_x0, nullptr);
  EXPECT_EQ(der_x0->causality, Causality::local);  // the defaults
  EXPECT_EQ(der_x0->variability, Variability::continuous);
  EXPECT_EQ(der_x0->initial, Initial::unspecified);
  EXPECT_EQ(effective_initial(*der_x0), Initial::calculated);
  EXPECT_EQ(der_x0->derivative_of, 1u);
  EXPECT_EQ(md.find("der(x1)")->derivative_of, 3u);
  EXPECT_EQ(md.find("x1")->start, -0.5);
  EXPECT_EQ(md.find("x1")->unit, "m/s");

  const Variable* mu = md.find("mu");
  EXPECT_EQ(mu->causality, Causality::parameter);
  EXPECT_EQ(mu->variability, Variability::fixed);
  EXPECT_EQ(effective_initial(*mu), Initial::exact);
  EXPECT_EQ(md.find("n")->type, ValueType::integer);
  EXPECT_EQ(md.find("n")->start, 3.0);
  EXPECT_EQ(md.find("n")->variability, Variability::tunable);
  EXPECT_EQ(md.find("on")->type, ValueType::boolean);
  EXPECT_EQ(md.find("on")->start, 1.0);
  EXPECT_EQ(md.find("on")->causality, Causality::input);
  EXPECT_EQ(effective_initial(*md.find("on")), Initial::unspecified);
  EXPECT_EQ(md.find("label")->type, ValueType::string);
  EXPECT_FALSE(md.find("label")->start);
  EXPECT_EQ(md.find("nope"), nullptr);
}

TEST(FmuModelDescription, ReadsTheModelStructure) {
  const ModelDescription md = parse_model_description(valid_xml, file);
  // Derivatives order, not variable order.
  EXPECT_EQ(md.states(), (std::vector<std::size_t>{3, 1}));
  ASSERT_EQ(md.derivatives.size(), 2u);
  EXPECT_EQ(md.derivatives[0].variable, 4u);
  EXPECT_EQ(md.derivatives[0].dependencies, (std::vector<std::size_t>{1, 3, 5}));
  EXPECT_EQ(md.derivatives[1].dependencies, (std::vector<std::size_t>{3}));
  ASSERT_EQ(md.outputs.size(), 2u);
  EXPECT_EQ(md.outputs[0].variable, 1u);
  EXPECT_EQ(md.outputs[0].dependencies, std::vector<std::size_t>{});  // depends on nothing
  EXPECT_EQ(md.outputs[1].variable, 3u);
  EXPECT_FALSE(md.outputs[1].dependencies);  // on everything
  EXPECT_EQ(md.outputs[1].line, line_of(valid_xml, "<Unknown index=\"4\"/>"));
  ASSERT_EQ(md.initial_unknowns.size(), 1u);
  EXPECT_EQ(md.initial_unknowns[0].variable, 2u);
}

TEST(FmuModelDescription, AKindTheFmuLacksIsAnInputError) {
  const ModelDescription md = parse_model_description(
      with(R"(<ModelExchange modelIdentifier="vdp")", R"(<Other modelIdentifier="vdp")"), file);
  EXPECT_FALSE(md.model_exchange);
  try {
    md.interface_of(FmuKind::model_exchange);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              file + ": the FMU does not support model exchange (it offers co-simulation only)");
  }
}

TEST(FmuModelDescription, RefusesXmlThatIsNotWellFormed) {
  expect_error("<?xml version=\"1.0\"?>\n<fmiModelDescription fmiVersion=\"2.0\">\n<a></b>\n", 3,
               "not well-formed XML: ");
  expect_error("", 1, "not well-formed XML: No document element found");
  // The line where the parser noticed: the unclosed tag's next one.
  expect_error(with("<ModelVariables>", "<ModelVariables"),
               line_of(valid_xml, "<ModelVariables>") + 1,
               "not well-formed XML: Error parsing start element tag");
}

TEST(FmuModelDescription, RefusesAnotherRootOrVersion) {
  expect_error("\n<fmuModelDescription fmiVersion=\"2.0\"/>", 2,
               "the root element is <fmuModelDescription>, not <fmiModelDescription>");
  expect_error(with("fmiVersion=\"2.0\"", "fmiVersion=\"1.0\""), 2,
               "fmiVersion is '1.0': kausal imports FMI 2.0");
  expect_error(with("fmiVersion=\"2.0\"", "fmiVersion=\"3.0-beta\""), 2,
               "fmiVersion is '3.0-beta'");
  expect_error(with("fmiVersion=\"2.0\"", ""), 2, "has no fmiVersion");
}

TEST(FmuModelDescription, RefusesAMissingGuidModelNameOrKind) {
  expect_error(with("guid=\"{8c4e810f}\"", ""), 2, "fmiModelDescription has no guid");
  expect_error(with("modelName=\"VanDerPol\"", ""), 2, "fmiModelDescription has no modelName");
  std::string neither = with("<ModelExchange", "<X");
  neither.replace(neither.find("<CoSimulation"), 13, "<Y");
  expect_error(neither, 2, "neither <ModelExchange> nor <CoSimulation>");
  expect_error(with(R"(modelIdentifier="vdp_cs")", ""), line_of(valid_xml, "<CoSimulation"),
               "<CoSimulation> has no modelIdentifier");
  // It names the shared object: no paths.
  expect_error(with(R"(modelIdentifier="vdp")", R"(modelIdentifier="../../lib/evil")"),
               line_of(valid_xml, "<ModelExchange"),
               "modelIdentifier '../../lib/evil' is not a C name");
}

TEST(FmuModelDescription, RefusesAnIncompleteVariable) {
  const int mu = line_of(valid_xml, "name=\"mu\"");
  expect_error(with(R"(name="mu")", ""), mu, "ScalarVariable has no name");
  expect_error(with(R"(name="mu" valueReference="5")", R"(name="mu")"), mu,
               "variable 'mu' has no valueReference");
  expect_error(with(R"(<Real start="1.5"/>)", "<Annotations/>"), mu,
               "variable 'mu' has no type element (Real, Integer, Boolean, String, Enumeration)");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="1.5"/><Integer/>)"), mu + 1,
               "variable 'mu' has two type elements");
}

TEST(FmuModelDescription, RefusesANameDeclaredTwice) {
  expect_error(with(R"(name="mu")", R"(name="x1")"), line_of(valid_xml, "name=\"mu\""),
               "variable 'x1' is declared twice (first on line " +
                   std::to_string(line_of(valid_xml, "name=\"x1\"")) + ")");
}

TEST(FmuModelDescription, RefusesBadNumbersAndKeywords) {
  const int mu = line_of(valid_xml, "name=\"mu\"");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="fast"/>)"), mu + 1,
               "start of variable 'mu' is not a finite number: 'fast'");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="1.5x"/>)"), mu + 1,
               "start of variable 'mu' is not a finite number");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="NaN"/>)"), mu + 1, "not a finite");
  expect_error(with(R"(valueReference="5")", R"(valueReference="-1")"), mu,
               "valueReference of variable 'mu' is not an integer in [0, 4294967295]: '-1'");
  expect_error(with(R"(valueReference="5")", R"(valueReference="4294967296")"), mu,
               "valueReference of variable 'mu'");
  expect_error(with(R"(<Integer start="3"/>)", R"(<Integer start="3.5"/>)"),
               line_of(valid_xml, "<Integer start"), "start of variable 'n' is not an integer");
  expect_error(with(R"(<Boolean start="true"/>)", R"(<Boolean start="yes"/>)"),
               line_of(valid_xml, "<Boolean start"),
               "start of variable 'on' is not true or false: 'yes'");
  expect_error(with(R"(causality="parameter" variability="fixed">
      <Real start="1.5"/>)",
                    R"(causality="param" variability="fixed">
      <Real start="1.5"/>)"),
               mu,
               "causality 'param' of variable 'mu' is not one of parameter, calculatedParameter, "
               "input, output, local, independent");
  expect_error(with(R"(canSerializeFMUstate="true")", R"(canSerializeFMUstate="yes")"),
               line_of(valid_xml, "<ModelExchange"),
               "canSerializeFMUstate of <ModelExchange> is not true or false: 'yes'");
  expect_error(with(R"(tolerance="1e-6")", R"(tolerance="-1")"),
               line_of(valid_xml, "<DefaultExperiment"),
               "tolerance of <DefaultExperiment> must be > 0");
  expect_error(with(R"(numberOfEventIndicators="1")", R"(numberOfEventIndicators="99999999999")"),
               2,
               "numberOfEventIndicators of fmiModelDescription is not an integer in [0, 1000000]");
}

// min= and max= of a variable, or of the SimpleType it declares (its own win), for Real,
// Integer and Enumeration; a range upside down is refused with its line.
TEST(FmuModelDescription, ReadsRangesFromTheVariableOrItsDeclaredType) {
  std::string xml =
      with(R"(<SimpleType name="Position"><Real unit="m"/></SimpleType>)",
           R"(<SimpleType name="Position"><Real unit="m" min="-3" max="3"/></SimpleType>
    <SimpleType name="Count"><Integer min="1" max="9"/></SimpleType>)");
  xml.replace(xml.find(R"(<Real start="2" declaredType="Position"/>)"), 41,
              R"(<Real start="2" declaredType="Position" max="2.5"/>)");
  xml.replace(xml.find(R"(<Real start="1.5"/>)"), 19, R"(<Real start="1.5" min="0"/>)");
  xml.replace(xml.find(R"(<Integer start="3"/>)"), 20,
              R"(<Integer start="3" declaredType="Count"/>)");
  const ModelDescription md = parse_model_description(xml, file);
  const Variable& x0 = *md.find("x0");
  EXPECT_EQ(x0.min, -3.0);
  EXPECT_EQ(x0.max, 2.5);
  EXPECT_EQ(x0.unit, "m");
  EXPECT_EQ(md.find("mu")->min, 0.0);
  EXPECT_FALSE(md.find("mu")->max);
  EXPECT_EQ(md.find("n")->min, 1.0);
  EXPECT_EQ(md.find("n")->max, 9.0);
  EXPECT_FALSE(md.find("x1")->min);
  EXPECT_FALSE(md.find("on")->min);

  const int mu = line_of(valid_xml, "name=\"mu\"");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="1.5" min="2" max="1"/>)"), mu + 1,
               "min of variable 'mu' is above its max");
  expect_error(with(R"(<Real start="1.5"/>)", R"(<Real start="1.5" max="big"/>)"), mu + 1,
               "max of variable 'mu' is not a finite number: 'big'");
  expect_error(with(R"(<Integer start="3"/>)", R"(<Integer start="3" min="0.5"/>)"),
               line_of(valid_xml, "<Integer start"), "min of variable 'n' is not an integer");
  expect_error(with(R"(<Real unit="m"/>)", R"(<Real unit="m" min="1" max="0"/>)"),
               line_of(valid_xml, "<SimpleType"), "min of type 'Position' is above its max");
}

// What kausal takes of an interface: model exchange with continuous states sets its inputs
// in continuous time, so a discrete input is refused there (with its line) and not in
// co-simulation; a String variable is no port, whatever its causality.
TEST(FmuModelDescription, PortsOfEachInterface) {
  const ModelDescription md = parse_model_description(valid_xml, file);
  try {
    fmu_ports(md, FmuKind::model_exchange);
    ADD_FAILURE() << "a discrete input of a model-exchange FMU with states was taken";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("line " + std::to_string(line_of(valid_xml, "name=\"on\"")) +
                                   ": input 'on' is discrete"),
        std::string::npos)
        << e.what();
  }
  const FmuPorts cs = fmu_ports(md, FmuKind::co_simulation);
  EXPECT_TRUE(cs.steps_itself);
  EXPECT_EQ(cs.signature.inputs, std::vector<std::string>{"on"});
  EXPECT_EQ(cs.signature.outputs, (std::vector<std::string>{"x0", "x1"}));
  const ModelDescription with_string_port =
      parse_model_description(with(R"(name="label" valueReference="0" causality="parameter")",
                                   R"(name="label" valueReference="0" causality="output")"),
                              file);
  EXPECT_EQ(fmu_ports(with_string_port, FmuKind::co_simulation).signature.outputs,
            (std::vector<std::string>{"x0", "x1"}));
}

TEST(FmuModelDescription, RefusesIndicesOutOfRange) {
  const int der_x0 = line_of(valid_xml, "<Real derivative=\"2\"");
  expect_error(with(R"(derivative="2")", R"(derivative="10")"), der_x0,
               "derivative=10 of variable 'der(x0)' is out of range (1..9)");
  expect_error(with(R"(derivative="2")", R"(derivative="0")"), der_x0, "is out of range (1..9)");
  expect_error(with(R"(derivative="2")", R"(derivative="3")"), der_x0,
               "derivative=3 of variable 'der(x0)' names the variable itself");
  expect_error(with(R"(derivative="2")", R"(derivative="7")"), der_x0,
               "derivative=7 of variable 'der(x0)' names variable 'n', not a Real");
  const int outputs = line_of(valid_xml, "<Outputs>");
  expect_error(with(R"(<Unknown index="2" dependencies=""/>)", R"(<Unknown index="0"/>)"), outputs,
               "index '0' in <Outputs> is out of range (1..9)");
  expect_error(with(R"(<Unknown index="2" dependencies=""/>)", R"(<Unknown index="10"/>)"), outputs,
               "index '10' in <Outputs> is out of range (1..9)");
  expect_error(with(R"(<Unknown index="2" dependencies=""/>)", R"(<Unknown index="two"/>)"),
               outputs, "index 'two' in <Outputs> is not a number");
  expect_error(with(R"(<Unknown index="2" dependencies=""/>)", R"(<Unknown/>)"), outputs,
               "<Unknown> of <Outputs> has no index");
  expect_error(with(R"(dependencies="2 4  6")", R"(dependencies="2 40")"),
               line_of(valid_xml, "<Derivatives>"),
               "dependencies entry '40' in <Derivatives> is out of range (1..9)");
}

TEST(FmuModelDescription, RefusesADerivativesEntryWithoutDerivative) {
  expect_error(with(R"(<Unknown index="3" dependencies="4"/>)", R"(<Unknown index="6"/>)"),
               line_of(valid_xml, "<Derivatives>"),
               "<Derivatives> lists variable 'mu', which has no derivative= (of which state?)");
  expect_error(with(R"(<Unknown index="4"/>)", R"(<Unknown index="6"/>)"),
               line_of(valid_xml, "<Outputs>"),
               "<Outputs> lists variable 'mu', whose causality is not output");
}

TEST(FmuModelDescription, InitialDefaultsFollowTheStandardsTable) {
  Variable v;
  v.causality = Causality::calculated_parameter;
  v.variability = Variability::fixed;
  EXPECT_EQ(effective_initial(v), Initial::calculated);
  v.causality = Causality::output;
  v.variability = Variability::constant;
  EXPECT_EQ(effective_initial(v), Initial::exact);
  v.initial = Initial::approx;
  EXPECT_EQ(effective_initial(v), Initial::approx);
}

// ---- the archive ----

struct ZipEntry {
  std::string name, data;
  bool symlink = false;
};

// Writes a zip with libzip, as a tool exporting an FMU would.
void write_zip(const std::filesystem::path& path, const std::vector<ZipEntry>& entries) {
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(z, nullptr) << error;
  for (const ZipEntry& e : entries) {
    if (!e.name.empty() && e.name.back() == '/') {
      ASSERT_GE(zip_dir_add(z, e.name.substr(0, e.name.size() - 1).c_str(), 0), 0);
      continue;
    }
    // libzip reads the buffer at zip_close: entries outlives it.
    zip_source_t* source = zip_source_buffer(z, e.data.data(), e.data.size(), 0);
    ASSERT_NE(source, nullptr);
    const zip_int64_t index = zip_file_add(z, e.name.c_str(), source, ZIP_FL_OVERWRITE);
    ASSERT_GE(index, 0) << zip_strerror(z);
    // Nothing to compress: stored, so that an archive of ten thousand empty entries does not
    // set up a compressor for each (under ASan, 11 s of mapping and unmapping its memory).
    if (e.data.empty()) {
      ASSERT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0), 0);
    }
    if (e.symlink) {
      ASSERT_EQ(zip_file_set_external_attributes(z, static_cast<zip_uint64_t>(index), 0,
                                                 ZIP_OPSYS_UNIX, (0120777u) << 16),
                0);
    }
  }
  ASSERT_EQ(zip_close(z), 0);
}

std::string archive_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<ZipEntry> good_entries = {
    {"modelDescription.xml", valid_xml},
    {"binaries/", ""},
    {"binaries/linux64/vdp.so", std::string("\x7f"
                                            "ELF\0\1",
                                            6)},
    {"resources/table.csv", "t,x\n0,1\n"},
    {"documentation/", ""},
};

// ---- FMI 3.0 ----

// Variables named by their type's element, referenced by value reference; a Float64 state
// and its derivative, every integer width, a Float32, a String with a <Start>, a Binary, an
// event indicator.
const std::string valid_xml_3 = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m3" instantiationToken="{tok-3}">
  <ModelExchange modelIdentifier="m3" canGetAndSetFMUState="true" canSerializeFMUState="true"
    providesDirectionalDerivatives="true" needsCompletedIntegratorStep="true"/>
  <CoSimulation modelIdentifier="m3" canHandleVariableCommunicationStepSize="true"/>
  <TypeDefinitions>
    <Float64Type name="Length" unit="m" min="0"/>
    <Int8Type name="Small" min="-5" max="5"/>
  </TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="10" causality="output" initial="exact" start="1"
      declaredType="Length"/>
    <Float64 name="der(x)" valueReference="11" derivative="10"/>
    <Float32 name="k" valueReference="12" causality="parameter" variability="fixed" start="0.5"/>
    <Int8 name="i8" valueReference="20" causality="parameter" variability="fixed" start="-3"
      declaredType="Small"/>
    <UInt64 name="u64" valueReference="21" causality="parameter" variability="fixed" start="7"/>
    <Enumeration name="mode" valueReference="22" causality="parameter" variability="fixed"
      start="2" declaredType="Modes"/>
    <Boolean name="on" valueReference="30" causality="input" start="true"/>
    <String name="label" valueReference="40" causality="parameter" variability="fixed">
      <Start value="hello"/>
    </String>
    <Binary name="blob" valueReference="41" causality="parameter" variability="fixed"/>
    <Float64 name="z" valueReference="50"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="10" dependencies="10"/>
    <ContinuousStateDerivative valueReference="11" dependencies="10 12"/>
    <InitialUnknown valueReference="11"/>
    <EventIndicator valueReference="50"/>
  </ModelStructure>
</fmiModelDescription>
)xml";

TEST(Fmi3ModelDescription, ReadsTypesReferencesAndStructure) {
  const ModelDescription md = parse_model_description(valid_xml_3, file);
  EXPECT_EQ(md.version, FmiVersion::v3);
  EXPECT_EQ(md.guid, "{tok-3}");
  ASSERT_TRUE(md.model_exchange && md.co_simulation);
  EXPECT_TRUE(md.model_exchange->can_get_and_set_fmu_state);
  EXPECT_TRUE(md.model_exchange->can_serialize_fmu_state);
  EXPECT_TRUE(md.model_exchange->provides_directional_derivative);
  EXPECT_FALSE(md.model_exchange->completed_integrator_step_not_needed);
  EXPECT_TRUE(md.co_simulation->can_handle_variable_communication_step_size);
  ASSERT_EQ(md.variables.size(), 11u);
  const auto& x = *md.find("x");
  EXPECT_EQ(x.ctype, CType::float64);
  EXPECT_EQ(x.unit, "m");
  EXPECT_EQ(x.min, 0.0);
  EXPECT_EQ(x.variability, Variability::continuous);  // a Float's default
  EXPECT_EQ(md.find("der(x)")->derivative_of, 1u);    // by value reference 10
  EXPECT_EQ(md.find("k")->ctype, CType::float32);
  EXPECT_EQ(md.find("k")->start, 0.5);
  const auto& i8 = *md.find("i8");
  EXPECT_EQ(i8.type, ValueType::integer);
  EXPECT_EQ(i8.ctype, CType::int8);
  EXPECT_EQ(i8.start, -3.0);
  EXPECT_EQ(i8.min, -5.0);
  EXPECT_EQ(i8.max, 5.0);
  EXPECT_EQ(md.find("u64")->ctype, CType::uint64);
  EXPECT_EQ(md.find("mode")->type, ValueType::enumeration);
  EXPECT_EQ(md.find("mode")->ctype, CType::int64);
  EXPECT_EQ(md.find("on")->variability, Variability::discrete);  // a non-Float's default
  EXPECT_EQ(md.find("on")->start, 1.0);
  EXPECT_EQ(md.find("label")->text_start, "hello");
  EXPECT_EQ(md.find("blob")->type, ValueType::binary);
  EXPECT_EQ(md.event_indicators, 1u);
  ASSERT_EQ(md.derivatives.size(), 1u);
  EXPECT_EQ(md.derivatives[0].variable, 2u);
  EXPECT_EQ(*md.derivatives[0].dependencies, (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(md.states(), std::vector<std::size_t>{1});
  ASSERT_EQ(md.outputs.size(), 1u);
  EXPECT_EQ(md.outputs[0].variable, 1u);
  EXPECT_EQ(md.initial_unknowns.size(), 1u);
  EXPECT_STREQ(to_string(CType::uint16), "UInt16");
  EXPECT_FALSE(md.find("x")->array_of);
  EXPECT_TRUE(md.arrays.empty());
  // A Binary takes no start value; a number for a Float32 does.
  EXPECT_NE(start_value_problem(md, "blob").find("is a Binary"), std::string::npos);
  EXPECT_EQ(start_value_problem(md, "k"), "");
}

// An FMI 3.0 array becomes its elements, in its place, named as Modelica names them and
// sized by a fixed extent or a structural parameter: states, derivatives, outputs and event
// indicators element by element; a String array stays whole and uncoupled.
TEST(Fmi3ModelDescription, AnArrayBecomesItsElements) {
  std::string xml = valid_xml_3;
  xml.replace(
      xml.find("<Binary"), 0,
      "<UInt8 name=\"n\" valueReference=\"59\" causality=\"structuralParameter\" "
      "variability=\"fixed\" start=\"2\"/>\n    "
      "<Float64 name=\"gains\" valueReference=\"60\" causality=\"output\">\n"
      "      <Dimension start=\"3\"/>\n    </Float64>\n    "
      "<Float64 name=\"M\" valueReference=\"61\" causality=\"parameter\" "
      "variability=\"fixed\" start=\"1 2 3 4 5 6\">\n      <Dimension valueReference=\"59\"/>"
      "<Dimension start=\"3\"/>\n    </Float64>\n    "
      "<String name=\"labels\" valueReference=\"62\" causality=\"output\">\n"
      "      <Dimension start=\"2\"/>\n    </String>\n    ");
  xml.replace(xml.find("<InitialUnknown"), 0, "<Output valueReference=\"60\"/>\n    ");
  const ModelDescription md = parse_model_description(xml, file);
  EXPECT_EQ(md.find("gains"), nullptr);
  ASSERT_NE(md.find_array("gains"), nullptr);
  EXPECT_EQ(md.find_array("gains")->size, 3u);
  EXPECT_EQ(md.find_array("gains")->value_reference, 60u);
  ASSERT_NE(md.find("gains[3]"), nullptr);
  EXPECT_EQ(*md.find("gains[3]")->array_of, 0u);
  EXPECT_EQ(md.find("gains[3]")->element, 2u);
  const fmu::ArrayVariable& m = *md.find_array("M");
  EXPECT_EQ(m.extents, (std::vector<std::size_t>{2, 3}));  // n = 2 rows, 3 columns
  EXPECT_EQ(md.find("M[1,3]")->start, 3.0);
  EXPECT_EQ(md.find("M[2,1]")->start, 4.0);
  EXPECT_TRUE(md.find("n")->structural);
  // kausal's references of the elements are new, above the FMU's own (at most 62).
  std::set<unsigned> refs;
  for (const fmu::Variable& v : md.variables) refs.insert(v.value_reference);
  EXPECT_EQ(refs.size(), md.variables.size());
  EXPECT_GT(md.find("M[1,1]")->value_reference, 62u);
  const FmuPorts ports = fmu_ports(md, FmuKind::co_simulation);
  EXPECT_EQ(ports.signature.outputs,
            (std::vector<std::string>{"x", "gains[1]", "gains[2]", "gains[3]"}));
  EXPECT_TRUE(md.find("labels")->text_array);
  EXPECT_EQ(start_value_problem(md, "M[2,3]"), "");
  EXPECT_NE(start_value_problem(md, "M").find("is an array: give its elements their values one by "
                                              "one ('M[1,1]' … 'M[2,3]')"),
            std::string::npos);
  EXPECT_NE(start_value_problem(md, "n").find("is a structural parameter"), std::string::npos);
  EXPECT_NE(start_value_problem(md, "labels").find("String or Binary array"), std::string::npos);
  ASSERT_EQ(md.outputs.size(), 4u);
  EXPECT_EQ(md.variables[md.outputs[3].variable].name, "gains[3]");
}

// A state array and its derivative array pair element by element; an indicator array counts
// each element.
TEST(Fmi3ModelDescription, StateAndIndicatorArraysPairElementByElement) {
  std::string xml = valid_xml_3;
  const auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = xml.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    xml.replace(at, from.size(), to);
  };
  replace(
      R"x(<Float64 name="der(x)" valueReference="11" derivative="10"/>)x",
      R"x(<Float64 name="v" valueReference="13" initial="exact" start="0 1"><Dimension start="2"/></Float64>
    <Float64 name="der(v)" valueReference="14" derivative="13"><Dimension start="2"/></Float64>
    <Float64 name="der(x)" valueReference="11" derivative="10"/>)x");
  replace(R"(<Float64 name="z" valueReference="50"/>)",
          R"(<Float64 name="z" valueReference="50"><Dimension start="3"/></Float64>)");
  replace(R"(<InitialUnknown)",
          R"(<ContinuousStateDerivative valueReference="14" dependencies="13"/>
    <InitialUnknown)");
  const ModelDescription md = parse_model_description(xml, file);
  EXPECT_EQ(md.event_indicators, 3u);
  std::vector<std::string> states;
  for (const std::size_t k : md.states()) states.push_back(md.variables[k].name);
  EXPECT_EQ(states, (std::vector<std::string>{"x", "v[1]", "v[2]"}));
  ASSERT_EQ(md.derivatives.size(), 3u);
  EXPECT_EQ(*md.derivatives[2].dependencies,
            (std::vector<std::size_t>{md.states()[1], md.states()[2]}));
}

// An array kausal cannot size or pair is refused with its line.
TEST(Fmi3ModelDescription, RefusesAnArrayItCannotSizeOrPair) {
  const auto with = [](const std::string& to) {
    std::string xml = valid_xml_3;
    const std::string from = R"(<Float64 name="z" valueReference="50"/>)";
    return xml.replace(xml.find(from), from.size(), to);
  };
  expect_error(with(R"(<Float64 name="z" valueReference="50"><Dimension/></Float64>)"), 26,
               "<Dimension> of variable 'z' has neither start nor valueReference");
  expect_error(with(R"(<Float64 name="z" valueReference="50"><Dimension start="0"/></Float64>)"),
               26, "<Dimension> of variable 'z': start is not an integer in [1, 1000000]: '0'");
  expect_error(
      with(R"(<Float64 name="z" valueReference="50"><Dimension valueReference="12"/></Float64>)"),
      26,
      "<Dimension valueReference=\"12\"> of variable 'z' names variable 'k', not a structural "
      "parameter of an integer type");
  expect_error(
      with(R"(<Float64 name="z" valueReference="50"><Dimension valueReference="77"/></Float64>)"),
      26, "<Dimension valueReference=\"77\"> of variable 'z' is no variable's value reference");
  expect_error(
      with(R"(<Float64 name="z" valueReference="50" start="1 2"><Dimension start="3"/></Float64>)"),
      26, "start of variable 'z' has 2 values for its 3 elements");
  expect_error(
      with(
          R"(<Float64 name="z" valueReference="50" start="1 x 3"><Dimension start="3"/></Float64>)"),
      26, "start of variable 'z': element 2 'x' is not a Real it can hold");
  expect_error(
      with(
          R"(<Float64 name="z" valueReference="50"><Dimension start="1000"/><Dimension start="1000"/><Dimension start="2"/></Float64>)"),
      26, "more than 100000 array elements, those of variable 'z' counted");
  // An output array that depends on an array: an entry per pair of elements, bounded.
  std::string pairs = with(R"(<Float64 name="z" valueReference="50" causality="output">)"
                           R"(<Dimension start="3000"/></Float64>)");
  pairs.replace(pairs.find(R"(<EventIndicator valueReference="50"/>)"), 37,
                R"(<Output valueReference="50" dependencies="50"/>)");
  expect_error(pairs, 32,
               "more than 4000000 dependencies entries, arrays counted element by element");
  // der(x) is a scalar whose state would be an array.
  std::string xml = valid_xml_3;
  xml.replace(xml.find(R"(start="1")"), 9, R"(start="1 2")");
  xml.replace(xml.find("declaredType=\"Length\"/>"), 23,
              "declaredType=\"Length\"><Dimension start=\"2\"/></Float64>");
  expect_error(xml, 14, "variable 'der(x)' has 1 elements and its state variable 'x' 2");
}

// What kausal does not import from FMI 3.0 is refused with its line, by name; so are the
// mistakes a 3.0 file can make that a 2.0 file cannot.
TEST(Fmi3ModelDescription, RefusesWhatItDoesNotImportByNameAndLine) {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string xml = valid_xml_3;
    const std::size_t at = xml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return xml.replace(at, from.size(), to);
  };
  expect_error(with(R"(fmiVersion="3.0")", R"(fmiVersion="3.0-beta.2")"), 2,
               "fmiVersion is '3.0-beta.2': kausal imports FMI 2.0 and 3.0");
  expect_error(with(R"( instantiationToken="{tok-3}")", ""), 2,
               "fmiModelDescription has no instantiationToken");
  const std::string clock = R"(<Float64 name="z" valueReference="50"/>)";
  expect_error(with(clock, R"(<Clock name="z" valueReference="50"/>)"), 26,
               "variable 'z' (a Clock) has no intervalVariability");
  expect_error(with(clock, R"(<Clock name="z" valueReference="50" causality="output" )"
                           R"(intervalVariability="triggered"/>)"),
               26,
               "variable 'z' is a Clock of causality output: kausal activates input Clocks at "
               "their ticks and has no receiver for the ticks of an FMU's own Clocks");
  expect_error(with(clock, R"(<Clock name="z" valueReference="50" causality="input" )"
                           R"(intervalVariability="triggered"/>)"),
               26, "variable 'z' is a triggered input Clock: kausal activates time-based Clocks");
  expect_error(with(clock, R"(<Clock name="z" valueReference="50" causality="input" )"
                           R"(intervalVariability="constant"/>)"),
               26, "variable 'z' is a constant Clock without intervalDecimal (or intervalCounter)");
  expect_error(with(clock, R"(<Clock name="z" valueReference="50" causality="input" )"
                           R"(intervalVariability="fixed" intervalDecimal="-1"/>)"),
               26, "variable 'z': its interval is not a positive number");
  expect_error(with(clock, R"(<Clock name="z" valueReference="10" causality="input" )"
                           R"(intervalVariability="countdown"/>)"),
               26, "valueReference 10 of variable 'z' is also variable 'x''s (line 12)");
  expect_error(with(clock, R"(<Float64 name="z" valueReference="50" clocks="12"/>)"), 26,
               "clocks entry '12' of variable 'z' is no Clock's value reference");
  expect_error(
      with(R"(<Float64 name="z" valueReference="50"/>)", R"(<Real name="z" valueReference="50"/>)"),
      26, "<Real> is not a variable element (Float64, Float32, Int8");
  expect_error(with(R"(name="z" valueReference="50")", R"(name="z" valueReference="10")"), 26,
               "valueReference 10 of variable 'z' is also variable 'x''s (line 12): in FMI 3.0 "
               "each variable has its own");
  expect_error(with(R"(derivative="10")", R"(derivative="99")"), 14,
               "derivative=99 of variable 'der(x)' is no variable's value reference");
  expect_error(with(R"(derivative="10")", R"(derivative="20")"), 14,
               "names variable 'i8', not a Float32 or Float64");
  expect_error(with(R"(start="-3")", R"(start="-300")"), 16,
               "start of variable 'i8' is not an integer in [-128, 127]: '-300'");
  expect_error(with(R"(start="7")", R"(start="18446744073709551615")"), 18,
               "start of variable 'u64' is not an integer");
  expect_error(
      with(R"(<EventIndicator valueReference="50"/>)", R"(<ClockedState valueReference="50"/>)"),
      32, "<ClockedState> variable 'z' is not a clocked variable (it has no clocks=)");
  expect_error(with(R"(<Output valueReference="10" dependencies="10"/>)",
                    R"(<Output valueReference="10" dependencies="10 77"/>)"),
               29, "dependencies entry '77' in <Output> is no variable's value reference");
  expect_error(with(R"(<Output valueReference="10" dependencies="10"/>)",
                    R"(<Outputs valueReference="10"/>)"),
               29, "<Outputs> is not an element of <ModelStructure>");
  expect_error(with(R"(  <CoSimulation)", R"(  <ScheduledExecution modelIdentifier="m3"/>
  <CoSimulation)"),
               5, "<ScheduledExecution>: kausal imports model exchange and co-simulation only");
}

// Time-based input Clocks and the variables they clock: their kinds, intervals and shifts as
// the description gives them (a fraction counter / resolution as a decimal), and each clocked
// variable's Clocks by index; a clocked state is accepted.
TEST(Fmi3ModelDescription, ReadsInputClocksAndTheVariablesTheyClock) {
  std::string xml = valid_xml_3;
  xml.replace(xml.find(R"(<Float64 name="z" valueReference="50"/>)"), 39,
              R"(<Float64 name="z" valueReference="50" clocks="61 60"/>
    <Clock name="fast" valueReference="60" causality="input" intervalVariability="constant"
      intervalDecimal="0.25" shiftDecimal="0.1"/>
    <Clock name="slow" valueReference="61" causality="input" intervalVariability="fixed"
      intervalCounter="3" resolution="4"/>
    <Clock name="when" valueReference="62" causality="input" intervalVariability="countdown"/>)");
  xml.replace(xml.find(R"(<EventIndicator valueReference="50"/>)"), 37,
              R"(<ClockedState valueReference="50"/>)");
  const ModelDescription md = parse_model_description(xml, file);
  ASSERT_EQ(md.clocks.size(), 3u);
  EXPECT_EQ(md.clocks[0].name, "fast");
  EXPECT_EQ(md.clocks[0].kind, ClockKind::constant);
  EXPECT_EQ(md.clocks[0].interval, 0.25);
  EXPECT_EQ(md.clocks[0].shift, 0.1);
  EXPECT_EQ(md.clocks[1].kind, ClockKind::fixed);
  EXPECT_EQ(md.clocks[1].interval, 0.75);
  EXPECT_FALSE(md.clocks[1].shift);
  EXPECT_EQ(md.clocks[2].kind, ClockKind::countdown);
  EXPECT_FALSE(md.clocks[2].interval);
  EXPECT_EQ(md.find("z")->clocks, (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(md.find("x")->clocks.empty());
  EXPECT_STREQ(to_string(ClockKind::countdown), "countdown");
  // Clocks are no variables: no port, no start value.
  EXPECT_EQ(md.find("fast"), nullptr);
  // Their ticks reach a co-simulation FMU in event mode only.
  try {
    fmu_ports(md, FmuKind::co_simulation);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "line 27: Clock 'fast' of a co-simulation FMU without hasEventMode: its ticks "
                  "need event mode"),
              std::string::npos)
        << e.what();
  }
}

// Periodic ticks are counted from their base, never accumulated; a tick a rounding error
// past t is due at t; a once-only tick stops after it; the schedule survives its bytes.
TEST(ClockSchedule, CountsPeriodicTicksAndKeepsOnceOnlyOnesUntilTheyTick) {
  const double none = std::numeric_limits<double>::infinity();
  ClockSchedule s(3);
  EXPECT_EQ(s.next(), none);
  s.periodic(0, 0.0, 0.1);
  s.once(1, 0.35);
  EXPECT_EQ(s.due(0.0), (std::vector<std::size_t>{0}));
  s.ticked(0);
  EXPECT_EQ(s.next(), 0.1);
  for (int k = 1; k < 4; ++k) s.ticked(0);  // clock 0 next at 0.4
  EXPECT_EQ(s.next(), 0.35);
  EXPECT_TRUE(s.due(0.349).empty());
  EXPECT_EQ(s.due(0.35 - 1e-14), (std::vector<std::size_t>{1}));
  s.ticked(1);
  EXPECT_EQ(s.next(), 4 * 0.1);
  for (int k = 4; k < 1000; ++k) s.ticked(0);
  // 1000 ticks of 0.1 later: exactly base + 1000 · 0.1, not a sum of 1000 rounded steps.
  EXPECT_EQ(s.next(), 1000 * 0.1);
  const std::vector<std::uint8_t> bytes = s.save();
  EXPECT_EQ(bytes.size(), 3 * ClockSchedule::bytes_per_clock);
  ClockSchedule back(3);
  back.restore(bytes);
  EXPECT_EQ(back.next(), s.next());
  EXPECT_EQ(back.save(), bytes);
  s.stop(0);
  EXPECT_EQ(s.next(), none);
  EXPECT_THROW(ClockSchedule(2).restore(bytes), std::invalid_argument);
}

TEST(FmuArchive, ReadsAnEntryWithoutUnpacking) {
  TempDir dir;
  const auto fmu = dir / "vdp.fmu";
  write_zip(fmu, good_entries);
  EXPECT_EQ(read_fmu_entry(fmu, "modelDescription.xml"), valid_xml);
  EXPECT_EQ(read_fmu_entry(fmu, "resources/table.csv"), "t,x\n0,1\n");
  const ModelDescription md = read_model_description(fmu);
  EXPECT_EQ(md.file, fmu.string() + ": modelDescription.xml");
  EXPECT_EQ(md.model_name, "VanDerPol");
  EXPECT_FALSE(std::filesystem::exists(dir / "binaries"));
}

// A missing binary is named with what the FMU has instead: other platforms, or other files
// where its modelIdentifier's binary should be.
TEST(FmuArchive, AMissingBinaryIsNamedWithWhatTheFmuHasInstead) {
  TempDir dir;
  const ModelDescription md = parse_model_description(valid_xml, file);
  const auto error_of = [&] {
    try {
      FmuLibrary(dir.path(), md, FmuKind::model_exchange, "vdp.fmu");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::filesystem::create_directories(dir / "binaries" / "win64");
  EXPECT_EQ(error_of(),
            "vdp.fmu: no linux64 binary: binaries/linux64/vdp.so (the FMU has binaries for: "
            "win64)");
  std::filesystem::create_directories(dir / "binaries" / "linux64");
  std::ofstream(dir / "binaries" / "linux64" / "VanDerPol.so") << "not this one";
  EXPECT_EQ(error_of(),
            "vdp.fmu: binaries/linux64 has no vdp.so, the binary its modelIdentifier names (it "
            "has: VanDerPol.so)");
}

TEST(FmuArchive, UnpacksEveryEntryAndOverwrites) {
  TempDir dir;
  const auto fmu = dir / "vdp.fmu";
  write_zip(fmu, good_entries);
  const auto out = dir / "unpacked" / "vdp";
  std::filesystem::create_directories(out / "resources");
  std::ofstream(out / "resources" / "table.csv") << "stale and longer than the new content\n";
  unpack_fmu(fmu, out);
  EXPECT_EQ(read_text(out / "modelDescription.xml"), valid_xml);
  EXPECT_EQ(read_text(out / "binaries" / "linux64" / "vdp.so"), std::string("\x7f"
                                                                            "ELF\0\1",
                                                                            6));
  EXPECT_EQ(read_text(out / "resources" / "table.csv"), "t,x\n0,1\n");
  EXPECT_TRUE(std::filesystem::is_directory(out / "documentation"));
}

TEST(FmuArchive, SaysWhatIsNotAnFmu) {
  TempDir dir;
  dir.write("text.fmu", "this is not a zip archive at all");
  const auto text = dir / "text.fmu";
  EXPECT_EQ(archive_error([&] {
              read_fmu_entry(text, "modelDescription.xml");
            }).rfind(text.string() + ": not a zip archive (", 0),
            0u);
  EXPECT_EQ(archive_error([&] {
              unpack_fmu(text, dir / "out");
            }).rfind(text.string() + ": not a zip archive (", 0),
            0u);
  const auto none = dir / "none.fmu";
  EXPECT_EQ(archive_error([&] { read_model_description(none); }), none.string() + ": no such file");

  const auto empty = dir / "empty.fmu";
  write_zip(empty, {{"resources/x", "x"}});
  EXPECT_EQ(archive_error([&] { read_model_description(empty); }),
            empty.string() + ": has no modelDescription.xml");

  // The parser's messages name the .fmu too.
  const auto bad = dir / "bad.fmu";
  write_zip(bad, {{"modelDescription.xml", "<fmiModelDescription fmiVersion=\"1.0\"/>"}});
  EXPECT_EQ(archive_error([&] { read_model_description(bad); }),
            bad.string() +
                ": modelDescription.xml:1: fmiVersion is '1.0': kausal imports FMI 2.0 and 3.0");
}

TEST(FmuArchive, RefusesEntriesThatEscapeTheDirectory) {
  TempDir dir;
  for (const std::string name :
       {"../evil", "resources/../../evil", "/tmp/evil", "a\\..\\..\\evil"}) {
    const auto fmu = dir / "evil.fmu";
    write_zip(fmu, {{"modelDescription.xml", valid_xml}, {name, "boom"}});
    const auto out = dir / "out";
    EXPECT_EQ(archive_error([&] { unpack_fmu(fmu, out); }),
              fmu.string() + ": entry '" + name +
                  "' would be written outside the directory (absolute path or '..')");
    // Checked before anything is written.
    EXPECT_FALSE(std::filesystem::exists(out)) << name;
    EXPECT_FALSE(std::filesystem::exists(dir / "evil")) << name;
  }
}

TEST(FmuArchive, RefusesSymlinks) {
  TempDir dir;
  const auto fmu = dir / "link.fmu";
  write_zip(fmu, {{"modelDescription.xml", valid_xml},
                  {"binaries/linux64/vdp.so", "/usr/lib/x86_64-linux-gnu/libc.so.6", true}});
  EXPECT_EQ(archive_error([&] { unpack_fmu(fmu, dir / "out"); }),
            fmu.string() +
                ": entry 'binaries/linux64/vdp.so' is a symlink (kausal unpacks plain files only)");
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(FmuArchive, RefusesTooManyEntriesAndTooLargeOnes) {
  TempDir dir;
  std::vector<ZipEntry> many;
  for (std::size_t i = 0; i <= max_unpacked_entries; ++i)
    many.push_back({"resources/" + std::to_string(i), ""});
  const auto crowded = dir / "crowded.fmu";
  write_zip(crowded, many);
  EXPECT_EQ(archive_error([&] { unpack_fmu(crowded, dir / "out"); }),
            crowded.string() + ": has 10001 entries, more than the limit of 10000");

  // Compresses to almost nothing; must still not be read whole.
  const auto big = dir / "big.fmu";
  write_zip(big, {{"modelDescription.xml", std::string(max_entry_bytes + 1, ' ')}});
  EXPECT_EQ(archive_error([&] { read_fmu_entry(big, "modelDescription.xml"); }),
            big.string() + ": modelDescription.xml is larger than the limit of 64 MiB");
}

// ---- the call error ----

TEST(FmuCallError, NamesTheCallTheStatusTheTimeAndTheLog) {
  const FmuCallError e("fmi2DoStep", fmi2Error, 0.5,
                       {"[fmi2Warning] logStatusWarning: step too large",
                        "[fmi2Error] logStatusError: division by zero"});
  EXPECT_EQ(std::string(e.what()),
            "fmi2DoStep returned fmi2Error at t = 0.5: [fmi2Warning] logStatusWarning: step too "
            "large; [fmi2Error] logStatusError: division by zero");
  EXPECT_EQ(e.function(), "fmi2DoStep");
  EXPECT_EQ(e.status(), fmi2Error);
  EXPECT_EQ(e.exit_code(), ExitCode::simulation_failed);
  const SimulationError& as_simulation_error = e;  // what the run's error handling catches
  EXPECT_NE(std::string(as_simulation_error.what()).find("fmi2DoStep"), std::string::npos);

  EXPECT_EQ(std::string(
                FmuCallError("fmi2DoStep", fmi2Discard, 1, {}, "the FMU refused the step").what()),
            "fmi2DoStep returned fmi2Discard at t = 1 (the FMU refused the step) (the FMU logged "
            "nothing)");
  EXPECT_EQ(std::string(FmuCallError::not_called("fmi2GetReal", fmi2Fatal, 2, {}).what()),
            "fmi2GetReal not called at t = 2: an earlier call returned fmi2Fatal, after which the "
            "FMU must not be called (the FMU logged nothing)");
  EXPECT_EQ(status_name(static_cast<fmi2Status>(7)), "fmi2Status(7)");
}

}  // namespace
}  // namespace kausal::fmu

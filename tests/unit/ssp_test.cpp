// SSP import (docs/fmi.md, "Systems of FMUs: SSP"): SystemStructure.ssd read and checked,
// and the test archive three_fmus.ssp (tests/fmus/ssp: the staircase, the integrator and the
// feedthrough FMUs, Real, Integer and Boolean connections, inline and file parameter
// bindings) run as the scenario written by hand for the same system.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/errors.hpp"
#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/ssp_scenario.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/ssp_description.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const fs::path kFmus = KAUSAL_TEST_FMU_DIR;
const fs::path kThreeFmus = kFmus / "three_fmus.ssp";

// The SSP's FMUs are unpacked into $XDG_CACHE_HOME/kausal/ssp: a directory of the test's own.
class SspTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* was = std::getenv("XDG_CACHE_HOME");
    if (was) saved_ = was;
    had_ = was != nullptr;
    setenv("XDG_CACHE_HOME", cache_.path().c_str(), 1);
  }
  void TearDown() override {
    if (had_)
      setenv("XDG_CACHE_HOME", saved_.c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
  }
  TempDir cache_;

 private:
  std::string saved_;
  bool had_ = false;
};

const char* const kHeader =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription xmlns:ssd=\"http://ssp-standard.org/SSP1/"
    "SystemStructureDescription\" xmlns:ssv=\"http://ssp-standard.org/SSP1/"
    "SystemStructureParameterValues\" version=\"1.0\" name=\"s\">\n";

// A description whose system holds `elements` (from line 5 on) and `connections` (after
// them and two lines more).
std::string ssd(const std::string& elements, const std::string& connections = "",
                const std::string& experiment = "<ssd:DefaultExperiment stopTime=\"1\"/>") {
  return std::string(kHeader) + "<ssd:System name=\"sys\">\n<ssd:Elements>\n" + elements +
         "</ssd:Elements>\n<ssd:Connections>\n" + connections +
         "</ssd:Connections>\n</ssd:System>\n" + experiment +
         "\n</ssd:SystemStructureDescription>\n";
}

const std::string kTwo =
    "<ssd:Component name=\"a\" source=\"resources/a.fmu\"/>\n"
    "<ssd:Component name=\"b\" source=\"resources/b.fmu\"/>\n";

std::string ssd_error(const std::string& xml) {
  try {
    fmu::parse_ssp_description(xml, "s.ssd", [](const std::string& entry) -> std::string {
      throw InputError("s.ssp: has no " + entry);
    });
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(SspDescription, ComponentsConnectionsAndParametersAreRead) {
  const fmu::SspSystem s = fmu::parse_ssp_description(
      ssd("<ssd:Component name=\"a\" source=\"./resources/a%20b.fmu\" "
          "implementation=\"ModelExchange\">\n"
          "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
          "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>"
          "<ssv:Parameter name=\"k\"><ssv:Real value=\"2.5\"/></ssv:Parameter>"
          "<ssv:Parameter name=\"n\"><ssv:Integer value=\"-3\"/></ssv:Parameter>"
          "<ssv:Parameter name=\"on\"><ssv:Boolean value=\"true\"/></ssv:Parameter>"
          "<ssv:Parameter name=\"label\"><ssv:String value=\"x &quot;y&quot;\"/></ssv:Parameter>"
          "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
          "<ssd:ParameterBinding source=\"resources/more.ssv\"/></ssd:ParameterBindings>\n"
          "</ssd:Component>\n<ssd:Component name=\"b\" source=\"resources/b.fmu\"/>\n",
          "<ssd:Connection startElement=\"a\" startConnector=\"y\" endElement=\"b\" "
          "endConnector=\"u\"/>\n"),
      "s.ssd", [](const std::string& entry) {
        EXPECT_EQ(entry, "resources/more.ssv");
        return std::string(
            "<ssv:ParameterSet xmlns:ssv=\"x\" version=\"1.0\" name=\"q\"><ssv:Parameters>"
            "<ssv:Parameter name=\"m\"><ssv:Real value=\"1e-3\"/></ssv:Parameter>"
            "</ssv:Parameters></ssv:ParameterSet>");
      });
  EXPECT_EQ(s.name, "sys");
  EXPECT_EQ(s.stop_time, 1.0);
  ASSERT_EQ(s.components.size(), 2u);
  const fmu::SspComponent& a = s.components[0];
  EXPECT_EQ(a.source, "resources/a b.fmu");
  EXPECT_EQ(a.implementation, fmu::SspImplementation::model_exchange);
  EXPECT_EQ(a.line, 5);
  using Numbers = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(a.numbers, (Numbers{{"k", 2.5}, {"n", -3}, {"on", 1}, {"m", 1e-3}}));
  ASSERT_EQ(a.texts.size(), 1u);
  EXPECT_EQ(a.texts[0].second, "x \"y\"");
  ASSERT_EQ(s.connections.size(), 1u);
  EXPECT_EQ(s.connections[0].from + "." + s.connections[0].from_connector, "a.y");
  EXPECT_EQ(s.connections[0].to + "." + s.connections[0].to_connector, "b.u");
}

// What kausal cannot map is refused naming the element's line and what it is.
TEST(SspDescription, WhatCannotBeMappedIsRefusedNamingTheLine) {
  const std::string connection =
      "<ssd:Connection startElement=\"a\" startConnector=\"y\" endElement=\"b\" "
      "endConnector=\"u\"";
  const std::pair<std::string, std::string> cases[] = {
      {ssd(kTwo + "<ssd:System name=\"inner\"/>\n"),
       "s.ssd:7: a nested system 'inner': kausal maps one flat system of FMUs"},
      {ssd("<ssd:Component name=\"a\" source=\"a.ssp\" "
           "type=\"application/x-ssp-package\"/>\n"),
       "s.ssd:5: component 'a' is of type 'application/x-ssp-package': kausal maps FMUs"},
      {ssd(kTwo, "<ssd:Connection startConnector=\"in\" endElement=\"b\" endConnector=\"u\"/>\n"),
       "s.ssd:9: connects the system's own connector 'in': kausal maps connections between "
       "components"},
      {ssd(kTwo, connection + "><ssc:LinearTransformation factor=\"2\"/></ssd:Connection>\n"),
       "s.ssd:9: a connection with a transformation (<ssc:LinearTransformation>) is not mapped"},
      {ssd(kTwo,
           "<ssd:Connection startElement=\"a\" startConnector=\"y\" endElement=\"c\" "
           "endConnector=\"u\"/>\n"),
       "s.ssd:9: 'c' is not a component of the system (components: a, b)"},
      {ssd(kTwo + "<ssd:Component name=\"a\" source=\"resources/c.fmu\"/>\n"),
       "s.ssd:7: component 'a' is named twice (first at line 5)"},
      {ssd("<ssd:Component name=\"a.b\" source=\"resources/a.fmu\"/>\n"),
       "s.ssd:5: component name 'a.b' must be given, without '.'"},
      {ssd("<ssd:Component name=\"a\" source=\"../a.fmu\"/>\n"),
       "s.ssd:5: source '../a.fmu' of component 'a' is not a path inside the archive"},
      {ssd("<ssd:Component name=\"a\" source=\"file:///tmp/a.fmu\"/>\n"),
       "is not a path inside the archive"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\" implementation=\"Both\"/>\n"),
       "s.ssd:5: implementation 'Both' of component 'a' is not one of any, ModelExchange, "
       "CoSimulation"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding prefix=\"a.\"/></ssd:ParameterBindings></ssd:Component>\n"),
       "has prefix 'a.', which is not mapped"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding source=\"p.ssv\"><ssd:ParameterMapping/>"
           "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n"),
       "has a parameter mapping, which is not mapped"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding source=\"p.ssv\"/></ssd:ParameterBindings></ssd:Component>\n"),
       "s.ssp: has no p.ssv"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet><ssv:Parameters>"
           "<ssv:Parameter name=\"e\"><ssv:Enumeration value=\"red\"/></ssv:Parameter>"
           "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
           "</ssd:ParameterBindings></ssd:Component>\n"),
       "parameter 'e' of component 'a' is of type Enumeration, which is not mapped"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet><ssv:Parameters>"
           "<ssv:Parameter name=\"k\"><ssv:Real value=\"1\"/></ssv:Parameter>"
           "<ssv:Parameter name=\"k\"><ssv:Real value=\"2\"/></ssv:Parameter>"
           "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
           "</ssd:ParameterBindings></ssd:Component>\n"),
       "parameter 'k' of component 'a' is given twice"},
      {ssd("<ssd:Component name=\"a\" source=\"resources/a.fmu\"><ssd:ParameterBindings>"
           "<ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet><ssv:Parameters>"
           "<ssv:Parameter name=\"k\"><ssv:Real value=\"fast\"/></ssv:Parameter>"
           "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
           "</ssd:ParameterBindings></ssd:Component>\n"),
       "value of parameter 'k' of component 'a' is not a finite number: 'fast'"},
      {ssd(kTwo, "", "<ssd:DefaultExperiment startTime=\"1\" stopTime=\"2\"/>"),
       "startTime is 1: kausal runs a system from t = 0"},
      {"<fmiModelDescription fmiVersion=\"2.0\"/>",
       "s.ssd:1: the root element is <fmiModelDescription>, not <ssd:SystemStructureDescription>"},
      {"<ssd:SystemStructureDescription version=\"3.0\" name=\"x\"/>",
       "version '3.0': kausal reads SSP 1.0 and 2.0 system structures"},
      {"<ssd:SystemStructureDescription version=\"1.0\">\n<ssd:System name=\"x\">",
       "s.ssd:2: not well-formed XML"},
      {std::string(kHeader) + "<ssd:System name=\"sys\"><ssd:ParameterBindings>"
                              "<ssd:ParameterBinding source=\"p.ssv\"/></ssd:ParameterBindings>"
                              "</ssd:System></ssd:SystemStructureDescription>",
       "parameter bindings of the system itself are not mapped"},
  };
  for (const auto& [xml, expected] : cases)
    EXPECT_NE(ssd_error(xml).find(expected), std::string::npos)
        << ssd_error(xml) << "\nexpected: " << expected;
}

// The scenario written by hand for three_fmus.ssp: what its mapping must come to.
std::string by_hand() {
  std::ostringstream text;
  const std::string fmus = kFmus.string();
  text << "name = \"stairs\"\n[run]\nt_end = 3.0\n"
       << "[[subsystem]]\nname = \"source\"\nmodel = \"fmu\"\nfmu = \"" << fmus
       << "/staircase.fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
          "h = 0.01\nparameters = { period = 0.5, height = 0.25, switch_at = 1.25, direction = "
          "\"up\" }\n"
       << "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"" << fmus
       << "/integrator.fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
          "h = 0.01\n"
       << "[[subsystem]]\nname = \"pass\"\nmodel = \"fmu\"\nfmu = \"" << fmus
       << "/feedthrough.fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
          "h = 0.01\n"
       << "[[coupling]]\nfrom = \"source.signal\"\nto = \"sum.u\"\n"
          "[[coupling]]\nfrom = \"sum.x\"\nto = \"pass.u_real\"\n"
          "[[coupling]]\nfrom = \"source.level\"\nto = \"pass.u_int\"\n"
          "[[coupling]]\nfrom = \"source.switched\"\nto = \"pass.u_bool\"\n";
  return text.str();
}

RunResult run_partitioned(const fs::path& file, SyncMethod m, const fs::path& out,
                          bool rollback_check = false) {
  const auto s = std::make_shared<const PartitionedScenario>(load_partitioned_scenario(file));
  RunSpec spec = testing::spec_of(PartitionedModel{s, nullptr}, {m, Guarantee::none}, out);
  if (m != SyncMethod::sequential) spec.layout = Layout::single;
  spec.rollback_check = rollback_check;
  LocalPlatform platform;
  RunControl control;
  return run(spec, platform, control);
}

// The last row of trajectory.csv, by column name.
std::map<std::string, double> last_row(const fs::path& out) {
  std::ifstream csv(out / "trajectory.csv");
  std::string header, line, last;
  std::getline(csv, header);
  while (std::getline(csv, line))
    if (!line.empty()) last = line;
  std::map<std::string, double> row;
  std::stringstream names(header), values(last);
  for (std::string name, value; std::getline(names, name, ',') && std::getline(values, value, ',');)
    row[name] = std::stod(value);
  return row;
}

// The three FMUs of the archive, mapped: the digest of the scenario written by hand, under
// every method with the rollback check; the integral of the staircase exact at t_end (each
// stair lands on a step), the switch from the parameter file set at 1.25 s.
TEST_F(SspTest, ThreeFmusRunAsTheScenarioWrittenByHandUnderEveryMethod) {
  TempDir dir;
  const fs::path hand = dir / "by-hand.toml";
  std::ofstream(hand) << by_hand();
  const RunResult written = run_partitioned(hand, SyncMethod::sequential, dir / "hand");
  ASSERT_EQ(written.status, RunStatus::completed) << written.error;
  const RunResult mapped = run_partitioned(kThreeFmus, SyncMethod::sequential, dir / "ssp");
  ASSERT_EQ(mapped.status, RunStatus::completed) << mapped.error;
  EXPECT_EQ(mapped.trajectory_sha256, written.trajectory_sha256);
  const auto row = last_row(dir / "ssp");
  EXPECT_EQ(row.at("t"), 3.0);
  EXPECT_EQ(row.at("source.level"), 6.0);
  EXPECT_NEAR(row.at("sum.x"), 0.25 * 0.5 * (1 + 2 + 3 + 4 + 5), 1e-9);
  EXPECT_EQ(row.at("pass.y_bool"), 1.0) << "switch_at = 1.25 comes from resources/switch.ssv";
  EXPECT_EQ(row.at("pass.y_int"), 5.0) << "a step behind the source";
  for (const SyncMethod m : {SyncMethod::conservative, SyncMethod::optimistic}) {
    const RunResult r = run_partitioned(kThreeFmus, m, dir / std::string(to_string(m)), true);
    ASSERT_EQ(r.status, RunStatus::completed) << to_string(m) << ": " << r.error;
    EXPECT_EQ(r.trajectory_sha256, written.trajectory_sha256) << to_string(m);
  }
}

// The archive's files are unpacked once per content, and found again by a second load.
TEST_F(SspTest, TheArchiveIsUnpackedOnceByItsContent) {
  const fs::path first = unpacked_ssp(kThreeFmus);
  EXPECT_EQ(first.parent_path(), cache_.path() / "kausal" / "ssp");
  EXPECT_TRUE(fs::is_regular_file(first / "resources" / "integrator.fmu"));
  EXPECT_TRUE(fs::is_regular_file(first / "SystemStructure.ssd"));
  const auto written = fs::last_write_time(first / "resources" / "integrator.fmu");
  EXPECT_EQ(unpacked_ssp(kThreeFmus), first);
  EXPECT_EQ(fs::last_write_time(first / "resources" / "integrator.fmu"), written);
  EXPECT_EQ(std::distance(fs::directory_iterator(first.parent_path()), fs::directory_iterator()),
            1);
}

std::string load_error(const fs::path& file) {
  try {
    load_partitioned_scenario(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

// An archive that is not an SSP, a system without a stop time, a scenario that names an
// archive that is not there, and an FMU the system names that the archive lacks.
TEST_F(SspTest, ArchivesThatCannotBeRunAreRefusedByName) {
  TempDir dir;
  const fs::path fmu_as_ssp = dir / "fmu.ssp";
  fs::copy_file(kFmus / "integrator.fmu", fmu_as_ssp);
  EXPECT_NE(load_error(fmu_as_ssp).find("fmu.ssp: has no SystemStructure.ssd"), std::string::npos)
      << load_error(fmu_as_ssp);
  const fs::path scenario = dir / "names.toml";
  std::ofstream(scenario) << "ssp = \"missing.ssp\"\n[run]\nt_end = 1.0\n";
  EXPECT_NE(load_error(scenario).find("names.toml:1: ssp '" + (dir / "missing.ssp").string() +
                                      "': no such file"),
            std::string::npos)
      << load_error(scenario);
  // A scenario that names the archive: its FMU paths lie inside it, [run] is its own.
  const fs::path beside = dir / "beside.toml";
  fs::copy_file(kThreeFmus, dir / "three.ssp");
  std::ofstream(beside) << "ssp = \"three.ssp\"\n[run]\nt_end = 1.0\n[[subsystem]]\n"
                           "name = \"s\"\nmodel = \"fmu\"\nfmu = \"resources/integrator.fmu\"\n"
                           "integrator = \"rk4\"\nh = 0.1\n[[subsystem]]\nname = \"t\"\n"
                           "model = \"fmu\"\nfmu = \"resources/absent.fmu\"\nintegrator = "
                           "\"rk4\"\nh = 0.1\n";
  EXPECT_NE(load_error(beside).find("absent.fmu"), std::string::npos) << load_error(beside);
  EXPECT_EQ(load_error(beside).find("integrator.fmu"), std::string::npos) << load_error(beside);
  EXPECT_NE(load_error(kFmus / "no_stop_time.ssp")
                .find("no_stop_time.ssp: SystemStructure.ssd gives no <ssd:DefaultExperiment "
                      "stopTime>: print the scenario it maps to (kausal models "),
            std::string::npos)
      << load_error(kFmus / "no_stop_time.ssp");
  EXPECT_TRUE(is_ssp_archive(kThreeFmus));
  EXPECT_FALSE(is_ssp_archive(beside));
}

// ---- export (kausal export-ssp) ----

// What write_ssp_description writes, parse_ssp_description reads back: components with
// their sources, interfaces and typed parameter values, connections, the stop time and
// kausal's annotations.
TEST(SspDescription, WhatIsWrittenIsReadBackFieldByField) {
  fmu::SspSystem system;
  system.name = "written";
  system.description = "a & b < c";
  system.stop_time = 2.5;
  system.output_interval = 0.1;
  system.hold = 1;
  system.method = "optimistic";
  fmu::SspComponent a;
  a.name = "a";
  a.source = "resources/a b.fmu";
  a.implementation = fmu::SspImplementation::model_exchange;
  a.numbers = {{"k", 0.1}, {"n", 3}, {"on", 1}};
  a.number_types = {{"n", fmu::ValueType::integer}, {"on", fmu::ValueType::boolean}};
  a.texts = {{"label", "x \"y\""}};
  a.integrator = "rk3";
  a.h = 0.01;
  a.connectors = {{"y", fmu::Causality::output, fmu::ValueType::real}};
  fmu::SspComponent b;
  b.name = "b";
  b.source = "resources/b.fmu";
  b.implementation = fmu::SspImplementation::co_simulation;
  b.h = 0.05;
  system.components = {a, b};
  system.connections = {{"a", "y", "b", "u", 0}};
  const std::string xml = fmu::write_ssp_description(system);
  const fmu::SspSystem read = fmu::parse_ssp_description(
      xml, "written.ssd",
      [](const std::string& entry) -> std::string { throw InputError("no entry " + entry); });
  EXPECT_EQ(read.name, "written");
  EXPECT_EQ(read.description, "a & b < c");
  EXPECT_EQ(read.stop_time, 2.5);
  EXPECT_EQ(read.output_interval, 0.1);
  EXPECT_EQ(read.hold, 1);
  EXPECT_EQ(read.method, "optimistic");
  ASSERT_EQ(read.components.size(), 2u);
  const fmu::SspComponent& ra = read.components[0];
  EXPECT_EQ(ra.source, "resources/a b.fmu");
  EXPECT_EQ(ra.implementation, fmu::SspImplementation::model_exchange);
  EXPECT_EQ(ra.numbers, a.numbers);
  EXPECT_EQ(ra.number_types, a.number_types);
  EXPECT_EQ(ra.texts, a.texts);
  EXPECT_EQ(ra.integrator, "rk3");
  EXPECT_EQ(ra.h, 0.01);
  EXPECT_EQ(read.components[1].implementation, fmu::SspImplementation::co_simulation);
  EXPECT_EQ(read.components[1].integrator, "");
  EXPECT_EQ(read.components[1].h, 0.05);
  ASSERT_EQ(read.connections.size(), 1u);
  EXPECT_EQ(read.connections[0].to_connector, "u");
  // The connectors are for other tools; the kausal annotations sit where SSP puts annotations.
  EXPECT_NE(xml.find("<ssd:Connector name=\"y\" kind=\"output\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<ssc:Annotation type=\"org.kausal.partition\">"), std::string::npos);
}

// A scenario of FMUs written as an SSP and run from it gives the scenario's digest, whatever
// the archive was made from (a TOML scenario, or an SSP's own scenario); an FMU two
// subsystems use is packed once.
TEST_F(SspTest, AnExportedScenarioRunsFromItsArchiveToItsDigest) {
  TempDir dir;
  std::string text = by_hand();
  // kausal's own choices, which only its annotations carry: an integrator, steps, a hold.
  const auto edit = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  edit("t_end = 3.0\n", "t_end = 3.0\nhold = 1\noutput_interval = 0.2\n");
  edit("/integrator.fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"",
       "/integrator.fmu\"\nintegrator = \"rk3\"");
  text += "[[subsystem]]\nname = \"sum2\"\nmodel = \"fmu\"\nfmu = \"" + kFmus.string() +
          "/integrator.fmu\"\nintegrator = \"euler\"\nh = 0.02\n"
          "[[coupling]]\nfrom = \"sum.x\"\nto = \"sum2.u\"\n";
  const fs::path toml = dir / "system.toml";
  std::ofstream(toml) << text;
  const RunResult original = run_partitioned(toml, SyncMethod::sequential, dir / "toml");
  ASSERT_EQ(original.status, RunStatus::completed) << original.error;
  const fs::path ssp = dir / "system.ssp";
  export_ssp(load_partitioned_scenario(toml), ssp);
  const fmu::SspSystem written = fmu::read_ssp_description(ssp);
  EXPECT_EQ(written.components.size(), 4u);
  EXPECT_EQ(written.components[1].source, written.components[3].source);
  const RunResult exported = run_partitioned(ssp, SyncMethod::sequential, dir / "ssp");
  ASSERT_EQ(exported.status, RunStatus::completed) << exported.error;
  EXPECT_EQ(exported.trajectory_sha256, original.trajectory_sha256);
  // An SSP's own scenario, exported again.
  const fs::path again = dir / "again.ssp";
  export_ssp(load_partitioned_scenario(kThreeFmus), again);
  const RunResult three = run_partitioned(kThreeFmus, SyncMethod::sequential, dir / "three");
  const RunResult re = run_partitioned(again, SyncMethod::optimistic, dir / "again");
  ASSERT_EQ(re.status, RunStatus::completed) << re.error;
  EXPECT_EQ(re.trajectory_sha256, three.trajectory_sha256);
}

// kausal's annotations are read as untrusted input too: an integrator kausal does not know or
// a step that is not one is refused with the component's line.
TEST_F(SspTest, ABadKausalAnnotationIsRefusedWithItsLine) {
  TempDir dir;
  fmu::SspSystem system = fmu::read_ssp_description(kThreeFmus);
  system.components[1].integrator = "nope";
  std::vector<std::pair<std::string, fs::path>> files;
  const fs::path unpacked = unpacked_ssp(kThreeFmus);
  for (const auto& c : system.components) files.emplace_back(c.source, unpacked / c.source);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  fmu::write_zip(dir / "bad.ssp", {{"SystemStructure.ssd", fmu::write_ssp_description(system)}},
                 files);
  const std::string e = load_error(dir / "bad.ssp");
  EXPECT_NE(e.find("bad.ssp: SystemStructure.ssd:"), std::string::npos) << e;
  EXPECT_NE(e.find("component 'sum': kausal's annotation: unknown integrator 'nope'"),
            std::string::npos)
      << e;
  std::string xml = fmu::write_ssp_description(system);
  xml.replace(xml.find("integrator=\"nope\""), 17, "h=\"-1\"");
  const std::string h = ssd_error(xml);
  EXPECT_NE(h.find("h of component 'sum''s kausal annotation must be > 0"), std::string::npos) << h;
}

// What an SSP has no place for is refused naming the field, and nothing is written.
TEST_F(SspTest, WhatAnSspCannotCarryIsRefusedByNameAndNothingIsWritten) {
  TempDir dir;
  using Edits = std::vector<std::pair<std::string, std::string>>;
  const auto refusal = [&](const Edits& edits) {
    std::string text = by_hand();
    for (const auto& [from, to] : edits) {
      const std::size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    const fs::path toml = dir / "refused.toml";
    std::ofstream(toml) << text;
    try {
      export_ssp(load_partitioned_scenario(toml), dir / "refused.ssp");
    } catch (const InputError& e) {
      EXPECT_FALSE(fs::exists(dir / "refused.ssp"));
      EXPECT_FALSE(fs::exists(dir / "refused.ssp.part"));
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string tank =
      "[[subsystem]]\nname = \"tank\"\nmodel = \"water_tank\"\n"
      "parameters = { area = 1.0, orifice = 0.01 }\nintegrator = \"rk4\"\nh = 0.01\n"
      "[[coupling]]\nfrom = \"sum.x\"\nto = \"tank.inflow\"\n";
  EXPECT_NE(refusal({{"[[coupling]]\nfrom = \"sum.x\"\nto = \"pass.u_real\"\n",
                      tank + "[[coupling]]\nfrom = \"sum.x\"\nto = \"pass.u_real\"\n"}})
                .find("subsystem 'tank' is kausal's model 'water_tank': an SSP carries FMUs only"),
            std::string::npos);
  EXPECT_NE(refusal({{"to = \"pass.u_real\"\n", "to = \"pass.u_real\"\nhold = 2\n"}})
                .find("the coupling sum.x -> pass.u_real has a hold of its own"),
            std::string::npos);
  EXPECT_NE(refusal({{"[[coupling]]\nfrom = \"source.switched\"\nto = \"pass.u_bool\"\n", ""},
                     {"/feedthrough.fmu\"\n", "/feedthrough.fmu\"\ninputs = { u_bool = 1 }\n"}})
                .find("subsystem 'pass' holds input 'u_bool' at a value"),
            std::string::npos);
  EXPECT_NE(refusal({{"t_end = 3.0\n", "t_end = 3.0\ntolerance = 0.1\n"}}).find("run.tolerance"),
            std::string::npos);
}

}  // namespace
}  // namespace kausal

#include "system/fmu/ssp_description.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "common/listed.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/xml_reader.hpp"

namespace kausal::fmu {
namespace {

constexpr const char* kFmuType = "application/x-fmu-sharedlibrary";
constexpr const char* kParameterSetType = "application/x-ssp-parameter-set";

constexpr Keywords<SspImplementation, 3> implementations{
    {{"any", SspImplementation::any},
     {"ModelExchange", SspImplementation::model_exchange},
     {"CoSimulation", SspImplementation::co_simulation}}};

// The element's first child element named `name` (any prefix), or none.
pugi::xml_node child(const pugi::xml_node& e, std::string_view name) {
  for (const pugi::xml_node c : e.children())
    if (c.type() == pugi::node_element && local_name(c) == name) return c;
  return {};
}

// A path inside the archive from a URI reference relative to SystemStructure.ssd (the
// archive's root): "resources/a.fmu" or "./resources/a.fmu", %XX decoded. Nothing outside the
// archive: no scheme, no absolute path, no "..".
std::string archive_path(XmlReader& r, const pugi::xml_node& e, const char* attr,
                         const std::string& what) {
  const std::string given = e.attribute(attr).value();
  std::string path;
  for (std::size_t k = 0; k < given.size(); ++k) {
    const auto hex = [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    };
    if (given[k] == '%' && k + 2 < given.size() && hex(given[k + 1]) && hex(given[k + 2])) {
      path += static_cast<char>(std::stoi(given.substr(k + 1, 2), nullptr, 16));
      k += 2;
    } else {
      path += given[k];
    }
  }
  while (path.starts_with("./")) path.erase(0, 2);
  const std::filesystem::path p(path);
  bool inside = !path.empty() && p.is_relative() && path.find(':') == std::string::npos &&
                path.find('\0') == std::string::npos;
  for (const auto& part : p) inside = inside && part != "..";
  if (!inside)
    r.fail(e, std::string(attr) + " '" + given + "' of " + what +
                  " is not a path inside the archive (kausal reads what the .ssp holds)");
  return path;
}

class SsdReader {
 public:
  SsdReader(const std::string& xml, const std::string& file, const SspEntryReader& read_entry)
      : r_(xml, file), read_entry_(read_entry) {}

  SspSystem read() {
    pugi::xml_document doc;
    const pugi::xml_node root =
        r_.root_of(doc, "SystemStructureDescription", "ssd:SystemStructureDescription");
    const std::string version = root.attribute("version").value();
    if (!version.starts_with("1.") && !version.starts_with("2."))
      r_.fail(root, "version '" + version + "': kausal reads SSP 1.0 and 2.0 system structures");
    pugi::xml_node system;
    for (const pugi::xml_node e : root.children()) {
      if (e.type() != pugi::node_element) continue;
      if (local_name(e) == "System") {
        if (system) r_.fail(e, "a second <ssd:System>: a description holds one");
        system = e;
      } else if (local_name(e) == "DefaultExperiment") {
        read_default_experiment(e);
      }
    }
    if (!system) r_.fail(root, "<ssd:SystemStructureDescription> has no <ssd:System>");
    read_system(system);
    return std::move(s_);
  }

 private:
  void read_default_experiment(const pugi::xml_node& e) {
    const auto start = r_.real(e, "startTime", "<ssd:DefaultExperiment>");
    if (start && *start != 0)
      r_.fail(e, "startTime is " + std::string(e.attribute("startTime").value()) +
                     ": kausal runs a system from t = 0");
    s_.stop_time = r_.real(e, "stopTime", "<ssd:DefaultExperiment>");
    if (s_.stop_time && !(*s_.stop_time > 0))
      r_.fail(e, "stopTime must be > 0 (it is the run's t_end)");
  }

  void read_system(const pugi::xml_node& system) {
    s_.name = system.attribute("name").value();
    if (s_.name.empty()) r_.fail(system, "<ssd:System> has no name");
    s_.description = system.attribute("description").value();
    for (const pugi::xml_node e : system.children()) {
      if (e.type() != pugi::node_element) continue;
      const std::string_view name = local_name(e);
      if (name == "Elements") read_elements(e);
      if (name == "ParameterBindings" && child(e, "ParameterBinding"))
        r_.fail(e,
                "parameter bindings of the system itself are not mapped: bind the values "
                "to its components");
      if (name == "SignalDictionaries" && child(e, "SignalDictionary"))
        r_.fail(e, "signal dictionaries are not mapped: connect the components directly");
    }
    for (const pugi::xml_node e : system.children())
      if (e.type() == pugi::node_element && local_name(e) == "Connections") read_connections(e);
    if (const pugi::xml_node run = kausal_annotation(system, kKausalRunAnnotation)) {
      const std::string what = "the system's kausal annotation";
      s_.output_interval = r_.real(run, "output_interval", what);
      if (s_.output_interval && !(*s_.output_interval > 0))
        r_.fail(run, "output_interval of " + what + " must be > 0");
      if (const auto hold = r_.integer(run, "hold", what, 0, 2)) s_.hold = static_cast<int>(*hold);
      s_.method = run.attribute("method").value();
    }
  }

  // The element kausal wrote inside <ssd:Annotations><ssc:Annotation type="..."> of `owner`,
  // or none: other tools' annotations are theirs to read.
  static pugi::xml_node kausal_annotation(const pugi::xml_node& owner, std::string_view type) {
    const pugi::xml_node annotations = child(owner, "Annotations");
    for (const pugi::xml_node a : annotations.children())
      if (a.type() == pugi::node_element && local_name(a) == "Annotation" &&
          a.attribute("type").value() == type)
        for (const pugi::xml_node e : a.children())
          if (e.type() == pugi::node_element) return e;
    return {};
  }

  void read_elements(const pugi::xml_node& elements) {
    for (const pugi::xml_node e : elements.children()) {
      if (e.type() != pugi::node_element) continue;
      const std::string_view kind = local_name(e);
      const std::string name = e.attribute("name").value();
      if (kind == "System")
        r_.fail(e, "a nested system '" + name + "': kausal maps one flat system of FMUs");
      if (kind == "SignalDictionaryReference")
        r_.fail(e, "signal dictionary reference '" + name +
                       "': signal dictionaries are not mapped: connect the components directly");
      if (kind == "Component") read_component(e);
    }
  }

  void read_component(const pugi::xml_node& e) {
    if (s_.components.size() == max_ssp_components)
      r_.fail(e, "more than " + std::to_string(max_ssp_components) + " components");
    SspComponent c;
    c.name = e.attribute("name").value();
    c.line = r_.line(e);
    if (c.name.empty() || c.name.find('.') != std::string::npos)
      r_.fail(e, "component name '" + c.name + "' must be given, without '.'");
    if (const auto first = lines_.find(c.name); first != lines_.end())
      r_.fail(e, "component '" + c.name + "' is named twice (first at line " +
                     std::to_string(first->second) + ")");
    const std::string what = "component '" + c.name + "'";
    const std::string type = e.attribute("type").value();
    if (!type.empty() && type != kFmuType)
      r_.fail(e, what + " is of type '" + type + "': kausal maps FMUs (" + kFmuType + ")");
    if (!e.attribute("source")) r_.fail(e, what + " has no source");
    c.source = archive_path(r_, e, "source", what);
    c.implementation =
        r_.keyword(e, "implementation", what, implementations).value_or(SspImplementation::any);
    if (const pugi::xml_node bindings = child(e, "ParameterBindings"))
      for (const pugi::xml_node b : bindings.children())
        if (b.type() == pugi::node_element && local_name(b) == "ParameterBinding")
          read_binding(b, c);
    if (const pugi::xml_node step = kausal_annotation(e, kKausalPartitionAnnotation)) {
      c.integrator = step.attribute("integrator").value();
      c.h = r_.real(step, "h", what + "'s kausal annotation");
      if (c.h && !(*c.h > 0)) r_.fail(step, "h of " + what + "'s kausal annotation must be > 0");
    }
    lines_[c.name] = c.line;
    s_.components.push_back(std::move(c));
  }

  void read_binding(const pugi::xml_node& b, SspComponent& c) {
    const std::string what = "a parameter binding of component '" + c.name + "'";
    const std::string type = b.attribute("type").value();
    if (!type.empty() && type != kParameterSetType)
      r_.fail(b, what + " is of type '" + type + "' (kausal reads " + kParameterSetType + ")");
    if (*b.attribute("prefix").value())
      r_.fail(b, what + " has prefix '" + std::string(b.attribute("prefix").value()) +
                     "', which is not mapped: give the parameters' own names");
    if (std::string_view(b.attribute("sourceBase").value()) == "component")
      r_.fail(b, what +
                     " has sourceBase \"component\" (a file inside the FMU), which is not "
                     "mapped");
    if (const pugi::xml_node mapping = child(b, "ParameterMapping"))
      r_.fail(mapping, what +
                           " has a parameter mapping, which is not mapped: give the values "
                           "under the connectors' names");
    if (const pugi::xml_node inline_values = child(b, "ParameterValues")) {
      const pugi::xml_node set = child(inline_values, "ParameterSet");
      if (!set) r_.fail(inline_values, what + ": <ssd:ParameterValues> holds no ParameterSet");
      read_parameter_set(r_, set, c);
      return;
    }
    if (!b.attribute("source"))
      r_.fail(b, what + " has neither a source nor <ssd:ParameterValues>");
    const std::string entry = archive_path(r_, b, "source", what);
    const std::string text = read_entry_(entry);
    pugi::xml_document doc;
    XmlReader ssv(text, r_.file() + " → " + entry);
    read_parameter_set(ssv, ssv.root_of(doc, "ParameterSet", "ssv:ParameterSet"), c);
  }

  // One value per name: Real, Integer and Boolean as numbers, String as text.
  static void read_parameter_set(XmlReader& r, const pugi::xml_node& set, SspComponent& c) {
    std::set<std::string> given;
    for (const auto& [name, v] : c.numbers) given.insert(name);
    for (const auto& [name, v] : c.texts) given.insert(name);
    const pugi::xml_node parameters = child(set, "Parameters");
    for (const pugi::xml_node p : parameters.children()) {
      if (p.type() != pugi::node_element || local_name(p) != "Parameter") continue;
      const std::string name = p.attribute("name").value();
      const std::string what = "parameter '" + name + "' of component '" + c.name + "'";
      if (name.empty()) r.fail(p, "a parameter of component '" + c.name + "' has no name");
      if (!given.insert(name).second) r.fail(p, what + " is given twice");
      pugi::xml_node value;
      for (const pugi::xml_node v : p.children())
        if (v.type() == pugi::node_element) {
          value = v;
          break;
        }
      if (!value) r.fail(p, what + " has no value");
      const std::string_view type = local_name(value);
      if (!value.attribute("value")) r.fail(value, what + " has no value");
      if (type == "Real") {
        c.numbers.emplace_back(name, *r.real(value, "value", what));
      } else if (type == "Integer") {
        c.numbers.emplace_back(
            name, static_cast<double>(*r.integer(value, "value", what, INT32_MIN, INT32_MAX)));
        c.number_types[name] = ValueType::integer;
      } else if (type == "Boolean") {
        c.numbers.emplace_back(name, r.flag(value, "value") ? 1.0 : 0.0);
        c.number_types[name] = ValueType::boolean;
      } else if (type == "String") {
        c.texts.emplace_back(name, value.attribute("value").value());
      } else {
        r.fail(value, what + " is of type " + std::string(type) +
                          ", which is not mapped (Real, Integer, Boolean and String are)");
      }
    }
  }

  void read_connections(const pugi::xml_node& connections) {
    for (const pugi::xml_node e : connections.children()) {
      if (e.type() != pugi::node_element || local_name(e) != "Connection") continue;
      if (s_.connections.size() == max_ssp_connections)
        r_.fail(e, "more than " + std::to_string(max_ssp_connections) + " connections");
      SspConnection c;
      c.line = r_.line(e);
      c.from = e.attribute("startElement").value();
      c.from_connector = e.attribute("startConnector").value();
      c.to = e.attribute("endElement").value();
      c.to_connector = e.attribute("endConnector").value();
      if (c.from_connector.empty() || c.to_connector.empty())
        r_.fail(e, "a connection needs startConnector and endConnector");
      for (const auto& [element, connector] :
           {std::pair{c.from, c.from_connector}, std::pair{c.to, c.to_connector}}) {
        if (element.empty())
          r_.fail(e, "connects the system's own connector '" + connector +
                         "': kausal maps connections between components");
        if (!lines_.contains(element))
          r_.fail(e, "'" + element + "' is not a component of the system (components: " +
                         listed(component_names(), 20) + ")");
      }
      for (const pugi::xml_node t : e.children())
        if (t.type() == pugi::node_element && local_name(t).ends_with("Transformation"))
          r_.fail(t, "a connection with a transformation (<" + std::string(t.name()) +
                         ">) is not mapped: kausal couples values as they are");
      s_.connections.push_back(std::move(c));
    }
  }

  std::vector<std::string> component_names() const {
    std::vector<std::string> names;
    for (const SspComponent& c : s_.components) names.push_back(c.name);
    return names;
  }

  XmlReader r_;
  const SspEntryReader& read_entry_;
  SspSystem s_;
  std::map<std::string, int> lines_;  // component name → its line
};

}  // namespace

SspSystem parse_ssp_description(const std::string& xml, const std::string& file,
                                const SspEntryReader& read_entry) {
  SsdReader reader(xml, file, read_entry);
  return reader.read();
}

namespace {

constexpr const char* kSsd = "http://ssp-standard.org/SSP1/SystemStructureDescription";
constexpr const char* kSsc = "http://ssp-standard.org/SSP1/SystemStructureCommon";
constexpr const char* kSsv = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";
constexpr const char* kKausal = "urn:kausal:ssp:1";

// Shortest text that reads back as the same double.
std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return text;
}

pugi::xml_node annotation(pugi::xml_node owner, const char* type, const char* element) {
  pugi::xml_node a = owner.append_child("ssd:Annotations").append_child("ssc:Annotation");
  a.append_attribute("type") = type;
  return a.append_child(element);
}

void write_connectors(pugi::xml_node component, const SspComponent& c) {
  if (c.connectors.empty()) return;
  pugi::xml_node connectors = component.append_child("ssd:Connectors");
  for (const SspConnector& k : c.connectors) {
    pugi::xml_node e = connectors.append_child("ssd:Connector");
    e.append_attribute("name") = k.name.c_str();
    e.append_attribute("kind") = k.kind == Causality::output      ? "output"
                                 : k.kind == Causality::parameter ? "parameter"
                                                                  : "input";
    const char* type = k.type == ValueType::integer       ? "ssc:Integer"
                       : k.type == ValueType::boolean     ? "ssc:Boolean"
                       : k.type == ValueType::string      ? "ssc:String"
                       : k.type == ValueType::enumeration ? "ssc:Integer"
                                                          : "ssc:Real";
    e.append_child(type);
  }
}

void write_parameters(pugi::xml_node component, const SspComponent& c) {
  if (c.numbers.empty() && c.texts.empty()) return;
  pugi::xml_node binding =
      component.append_child("ssd:ParameterBindings").append_child("ssd:ParameterBinding");
  pugi::xml_node set = binding.append_child("ssd:ParameterValues").append_child("ssv:ParameterSet");
  set.append_attribute("version") = "1.0";
  set.append_attribute("name") = c.name.c_str();
  pugi::xml_node parameters = set.append_child("ssv:Parameters");
  for (const auto& [name, value] : c.numbers) {
    pugi::xml_node p = parameters.append_child("ssv:Parameter");
    p.append_attribute("name") = name.c_str();
    const auto type = c.number_types.find(name);
    const ValueType t = type == c.number_types.end() ? ValueType::real : type->second;
    if (t == ValueType::boolean)
      p.append_child("ssv:Boolean").append_attribute("value") = value != 0 ? "true" : "false";
    else if (t == ValueType::integer || t == ValueType::enumeration)
      p.append_child("ssv:Integer").append_attribute("value") = number_text(value).c_str();
    else
      p.append_child("ssv:Real").append_attribute("value") = number_text(value).c_str();
  }
  for (const auto& [name, text] : c.texts) {
    pugi::xml_node p = parameters.append_child("ssv:Parameter");
    p.append_attribute("name") = name.c_str();
    p.append_child("ssv:String").append_attribute("value") = text.c_str();
  }
}

}  // namespace

std::string write_ssp_description(const SspSystem& s) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = doc.append_child("ssd:SystemStructureDescription");
  root.append_attribute("xmlns:ssd") = kSsd;
  root.append_attribute("xmlns:ssc") = kSsc;
  root.append_attribute("xmlns:ssv") = kSsv;
  root.append_attribute("xmlns:kausal") = kKausal;
  root.append_attribute("version") = "1.0";
  root.append_attribute("name") = s.name.c_str();
  pugi::xml_node system = root.append_child("ssd:System");
  system.append_attribute("name") = s.name.c_str();
  if (!s.description.empty()) system.append_attribute("description") = s.description.c_str();
  pugi::xml_node elements = system.append_child("ssd:Elements");
  for (const SspComponent& c : s.components) {
    pugi::xml_node e = elements.append_child("ssd:Component");
    e.append_attribute("name") = c.name.c_str();
    e.append_attribute("type") = kFmuType;
    e.append_attribute("source") = c.source.c_str();
    if (c.implementation != SspImplementation::any)
      e.append_attribute("implementation") =
          c.implementation == SspImplementation::co_simulation ? "CoSimulation" : "ModelExchange";
    write_connectors(e, c);
    write_parameters(e, c);
    if (!c.integrator.empty() || c.h) {
      pugi::xml_node step = annotation(e, kKausalPartitionAnnotation, "kausal:Partition");
      if (!c.integrator.empty()) step.append_attribute("integrator") = c.integrator.c_str();
      if (c.h) step.append_attribute("h") = number_text(*c.h).c_str();
    }
  }
  if (!s.connections.empty()) {
    pugi::xml_node connections = system.append_child("ssd:Connections");
    for (const SspConnection& c : s.connections) {
      pugi::xml_node e = connections.append_child("ssd:Connection");
      e.append_attribute("startElement") = c.from.c_str();
      e.append_attribute("startConnector") = c.from_connector.c_str();
      e.append_attribute("endElement") = c.to.c_str();
      e.append_attribute("endConnector") = c.to_connector.c_str();
    }
  }
  if (s.output_interval || s.hold || !s.method.empty()) {
    pugi::xml_node run = annotation(system, kKausalRunAnnotation, "kausal:Run");
    if (s.output_interval)
      run.append_attribute("output_interval") = number_text(*s.output_interval).c_str();
    if (s.hold) run.append_attribute("hold") = *s.hold;
    if (!s.method.empty()) run.append_attribute("method") = s.method.c_str();
  }
  if (s.stop_time) {
    pugi::xml_node experiment = root.append_child("ssd:DefaultExperiment");
    experiment.append_attribute("startTime") = "0";
    experiment.append_attribute("stopTime") = number_text(*s.stop_time).c_str();
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

SspSystem read_ssp_description(const std::filesystem::path& ssp) {
  return parse_ssp_description(
      read_fmu_entry(ssp, "SystemStructure.ssd"), ssp.string() + ": SystemStructure.ssd",
      [&](const std::string& entry) { return read_fmu_entry(ssp, entry); });
}

}  // namespace kausal::fmu

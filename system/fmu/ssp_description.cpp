#include "system/fmu/ssp_description.hpp"

#include <algorithm>
#include <map>
#include <set>

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
      } else if (type == "Boolean") {
        c.numbers.emplace_back(name, r.flag(value, "value") ? 1.0 : 0.0);
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

SspSystem read_ssp_description(const std::filesystem::path& ssp) {
  return parse_ssp_description(
      read_fmu_entry(ssp, "SystemStructure.ssd"), ssp.string() + ": SystemStructure.ssd",
      [&](const std::string& entry) { return read_fmu_entry(ssp, entry); });
}

}  // namespace kausal::fmu

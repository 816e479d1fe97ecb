#include "monitor/scenario/event_scenario.hpp"

#include <cmath>

#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/toml_reader.hpp"
#include "system/events/event_model_registry.hpp"

namespace kausal {

namespace {

std::string known_models() {
  std::string list;
  for (const auto& type : des::event_model_types())
    list += (list.empty() ? "" : ", ") + type.name;
  return list;
}

std::string known_parameters(const des::EventModelType& type) {
  std::string list;
  for (const auto& p : type.parameters) list += (list.empty() ? "" : ", ") + p.name;
  return list;
}

void read_parameters(const toml::table& root, const des::EventModelType& type, EventScenario& s) {
  for (const auto& p : type.parameters) s.parameters[p.name] = p.default_value;
  const toml::node* node = root.get("parameters");
  if (!node) return;
  const toml::table* table = node->as_table();
  TableReader top(root, s.file, "");
  if (!table) top.fail("parameters", "must be a table");
  TableReader reader(*table, s.file, "parameters");
  for (const auto& [key, value] : *table) {
    const std::string name(key.str());
    const auto* known = [&]() -> const des::EventParameter* {
      for (const auto& p : type.parameters)
        if (p.name == name) return &p;
      return nullptr;
    }();
    if (!known)
      reader.fail_at(value.source(), "unknown parameter '" + name + "' of model " + type.name +
                                         " (known: " + known_parameters(type) + ")");
    const double v = *reader.number(name);
    if (const std::string problem = des::parameter_problem(*known, v); !problem.empty())
      reader.fail(name, problem);
    s.parameters[name] = v;
  }
}

EventScenario read(const toml::table& root, const std::string& file) {
  EventScenario s;
  s.file = file;
  TableReader top(root, file, "");
  s.name = top.text("name").value_or(std::filesystem::path(file).stem().string());
  s.description = top.text("description").value_or("");
  const toml::node* events_node = top.take("events");
  if (!events_node || !events_node->as_table())
    top.fail_at(root.source(), "missing table [events] (a discrete-event scenario)");
  top.take("parameters");
  top.reject_unknown_keys();

  TableReader events(*events_node->as_table(), file, "events");
  const auto model = events.text("model");
  if (!model) events.fail_at(events_node->source(), "missing field events.model");
  const des::EventModelType* type = des::event_model_type(*model);
  if (!type) events.fail("model", "'" + *model + "' is not an event model (known: " +
                                      known_models() + ")");
  s.model = *model;
  s.end = events.required_number("end");
  if (!(s.end > 0)) events.fail("end", "must be positive");
  if (const auto m = events.choice<SyncMethod>("method", {{"sequential", SyncMethod::sequential},
                                                           {"conservative", SyncMethod::conservative},
                                                           {"optimistic", SyncMethod::optimistic}}))
    s.method = *m;
  if (const auto g = events.integer("groups")) {
    if (*g < 1 || *g > 1024) events.fail("groups", "must be between 1 and 1024");
    s.groups = static_cast<std::uint32_t>(*g);
  }
  if (const auto w = events.number("window")) {
    if (!(*w > 0)) events.fail("window", "must be positive");
    s.window = *w;
  }
  if (const auto v = events.choice<des::StateSaving>(
          "saving", {{"full", des::StateSaving::full},
                     {"incremental", des::StateSaving::incremental}}))
    s.saving = *v;
  if (const auto c = events.choice<des::Cancellation>(
          "cancellation", {{"aggressive", des::Cancellation::aggressive},
                           {"lazy", des::Cancellation::lazy}}))
    s.cancellation = *c;
  if (const auto d = events.choice<des::DeadlockPolicy>(
          "deadlock", {{"fail", des::DeadlockPolicy::fail},
                       {"recover", des::DeadlockPolicy::recover}}))
    s.deadlock = *d;
  if (const auto b = events.integer("batch")) {
    if (*b < 1 || *b > 1'000'000) events.fail("batch", "must be between 1 and 1000000");
    s.batch = static_cast<std::uint32_t>(*b);
  }
  if (const auto g = events.integer("gvt_interval")) {
    if (*g < 1 || *g > 1'000'000'000) events.fail("gvt_interval", "must be between 1 and 1e9");
    s.gvt_interval = static_cast<std::uint64_t>(*g);
  }
  events.reject_unknown_keys();

  read_parameters(root, *type, s);
  const toml::node* where = root.get("parameters");
  try {
    s.built = type->make(s.parameters);
  } catch (const InputError& e) {
    top.fail_at(where ? where->source() : events_node->source(), e.what());
  }
  if (s.groups > s.built->components())
    events.fail("groups", "is more than the model's " + std::to_string(s.built->components()) +
                              " components");
  return s;
}

}  // namespace

bool is_event_scenario(const std::filesystem::path& file) {
  const toml::table root = parse_toml(read_input_file(file, "scenario file"), file.string());
  return root.contains("events");
}

EventScenario parse_event_scenario(const std::string& text, const std::string& file) {
  return read(parse_toml(text, file), file);
}

EventScenario load_event_scenario(const std::filesystem::path& file) {
  return parse_event_scenario(read_input_file(file, "scenario file"), file.string());
}

}  // namespace kausal

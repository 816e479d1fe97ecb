#include "monitor/scenario/event_scenario.hpp"

#include <cmath>

#include "monitor/scenario/event_model_reader.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/ssp_scenario.hpp"
#include "monitor/scenario/toml_reader.hpp"
#include "system/events/event_model_registry.hpp"

namespace kausal {

namespace {

std::string known_models() {
  std::string list;
  for (const auto& type : des::event_model_types()) list += (list.empty() ? "" : ", ") + type.name;
  return list;
}

std::string known_parameters(const des::EventModelType& type) {
  std::string list;
  for (const auto& p : type.parameters) list += (list.empty() ? "" : ", ") + p.name;
  return list;
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
  const des::EventModelType* type = &event_model_named(events, *events_node);
  s.model = type->name;
  s.end = events.required_number("end");
  if (!(s.end > 0)) events.fail("end", "must be positive");
  if (const auto m =
          events.choice<SyncMethod>("method", {{"sequential", SyncMethod::sequential},
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
          "saving",
          {{"full", des::StateSaving::full}, {"incremental", des::StateSaving::incremental}}))
    s.saving = *v;
  if (const auto c = events.choice<des::Cancellation>(
          "cancellation",
          {{"aggressive", des::Cancellation::aggressive}, {"lazy", des::Cancellation::lazy}}))
    s.cancellation = *c;
  if (const auto d = events.choice<des::DeadlockPolicy>(
          "deadlock",
          {{"fail", des::DeadlockPolicy::fail}, {"recover", des::DeadlockPolicy::recover}}))
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

  const toml::node* where = root.get("parameters");
  if (where && !where->as_table()) top.fail("parameters", "must be a table");
  s.parameters =
      event_model_parameters(where ? where->as_table() : nullptr, *type, file, "parameters");
  try {
    s.built = type->make(s.parameters);
  } catch (const InputError& e) {
    top.fail_at(where ? where->source() : events_node->source(), e.what());
  }
  if (!s.built->ports().empty())
    events.fail("model", "'" + s.model + "' sends events to continuous partitions: it runs " +
                             "beside [[subsystem]] tables (a hybrid model, docs/events.md)");
  if (s.groups > s.built->components())
    events.fail("groups", "is more than the model's " + std::to_string(s.built->components()) +
                              " components");
  return s;
}

}  // namespace

const des::EventModelType& event_model_named(TableReader& table, const toml::node& at) {
  const auto model = table.text("model");
  if (!model) table.fail_at(at.source(), "missing field " + table.qualified("model"));
  const des::EventModelType* type = des::event_model_type(*model);
  if (!type)
    table.fail("model", "'" + *model + "' is not an event model (known: " + known_models() + ")");
  return *type;
}

std::map<std::string, double> event_model_parameters(const toml::table* given,
                                                     const des::EventModelType& type,
                                                     const std::string& file,
                                                     const std::string& where) {
  std::map<std::string, double> values;
  for (const auto& p : type.parameters) values[p.name] = p.default_value;
  if (!given) return values;
  TableReader reader(*given, file, where);
  for (const auto& [key, value] : *given) {
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
    values[name] = v;
  }
  return values;
}

bool is_event_scenario(const std::filesystem::path& file) {
  if (is_ssp_archive(file)) return false;
  const toml::table root = parse_toml(read_input_file(file, "scenario file"), file.string());
  return root.contains("events") && !root.contains("subsystem") && !root.contains("ssp");
}

EventScenario parse_event_scenario(const std::string& text, const std::string& file) {
  return read(parse_toml(text, file), file);
}

EventScenario load_event_scenario(const std::filesystem::path& file) {
  return parse_event_scenario(read_input_file(file, "scenario file"), file.string());
}

}  // namespace kausal

#pragma once
// How a scenario names a discrete-event model and its parameters: the [events] table of a
// discrete-event scenario and of a hybrid model (for the two parsers only).
#include <map>
#include <string>

#include "monitor/scenario/toml_reader.hpp"
#include "system/events/event_model_registry.hpp"

namespace kausal {

// The event model `table`.model names; InputError listing the known ones (`at`: the table).
const des::EventModelType& event_model_named(TableReader& table, const toml::node& at);
// Its parameters from a table of them (null: none given), each checked, the defaults filled
// in; InputError "file:line: message" naming a bad one. `where`: the table's name.
std::map<std::string, double> event_model_parameters(const toml::table* given,
                                                     const des::EventModelType& type,
                                                     const std::string& file,
                                                     const std::string& where);

}  // namespace kausal

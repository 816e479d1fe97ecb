#pragma once
// A discrete-event scenario read from TOML (format: docs/events.md): which event model, its
// parameters, the end time, and how its components are synchronised by default.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "integrator/events/event_group.hpp"
#include "integrator/events/logical_process.hpp"
#include "integrator/events/mailbox_exchange.hpp"
#include "monitor/core/run_kind.hpp"
#include "system/events/event_model.hpp"

namespace kausal {

struct EventScenario {
  std::string name;
  std::string description;
  std::string file;
  std::string model;                         // a name of event_model_types()
  std::map<std::string, double> parameters;  // every parameter, defaults filled in
  std::shared_ptr<const des::EventModel> built;
  double end = 0;                              // events below it are committed
  SyncMethod method = SyncMethod::sequential;  // kausal run's default
  std::uint32_t groups = 2;                    // conservative and optimistic
  std::optional<double> window;                // optimistic; default: default_window()
  des::StateSaving saving = des::StateSaving::full;
  des::Cancellation cancellation = des::Cancellation::aggressive;
  des::DeadlockPolicy deadlock = des::DeadlockPolicy::fail;
  std::uint32_t batch = 64;
  std::uint64_t gvt_interval = 1024;
};

// Whether a file has an [events] table and no [[subsystem]] (a discrete-event scenario; with
// subsystems it is a hybrid model, partitioned_scenario.hpp).
bool is_event_scenario(const std::filesystem::path& file);
// Reads and checks a discrete-event scenario; every problem throws InputError
// "file:line: message".
EventScenario load_event_scenario(const std::filesystem::path& file);
EventScenario parse_event_scenario(const std::string& text, const std::string& file);

}  // namespace kausal

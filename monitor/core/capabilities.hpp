#pragma once
// What goes with what (docs/capabilities.md): for each kind of model, the methods it runs
// under, the layouts it is deployed in, the services and settings it takes, and for each it
// refuses, the reason in one sentence. The command line's checks, run()'s, `kausal
// capabilities`, docs/capabilities.md and the tests' digest cells all read this one table;
// nothing else decides what goes together.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "monitor/core/run_kind.hpp"

namespace kausal {

// The kinds of model a scenario file describes (docs/scenarios.md): a row of pendulums, a
// model of partitions (each with its ODE method or an FMU), the same coupled by the
// co-simulation master ([master]), discrete-event components ([events]), and partitions with
// discrete-event components beside them, events crossing between the two (a hybrid model:
// [[subsystem]] and [events]).
enum class ModelKind { chain, partitioned, master, events, hybrid };

// What a run can be asked for beside its method and layout, as the command line asks.
enum class Service {
  paced,           // --realtime FACTOR (and --animate, which paces as the view plays)
  external_clock,  // --external-clock: kausal tick releases the steps
  inject,          // kausal inject into the running run
  replay,          // run --replay: a recording's injections again
  resume,          // run --resume: from the last checkpoint
  rollback_check,  // --rollback-check: every Integrator (block) steps, restores, steps again
  animate,         // --animate: the live window
  nodes,           // --deploy: the components on node agents
  tls,             // --tls-ca: TLS between every process of the run and its clients
};
inline constexpr Service kServices[] = {
    Service::paced,   Service::external_clock, Service::inject,
    Service::replay,  Service::resume,         Service::rollback_check,
    Service::animate, Service::nodes,          Service::tls};

// Settings that belong to one method or kind (command-line options).
// (reference: compare --reference, the global error against a reference solution.)
enum class Setting { guarantee, check_guarantees, batch, window, tolerance, groups, reference };
inline constexpr Setting kSettings[] = {
    Setting::guarantee, Setting::check_guarantees, Setting::batch,    Setting::window,
    Setting::tolerance, Setting::groups,           Setting::reference};

std::string_view name_of(ModelKind kind);
std::string_view name_of(Service service);  // the option that asks for it: "--realtime"
std::string_view name_of(Setting setting);  // "--guarantee"

// What the table is asked about: one run.
struct RunShape {
  ModelKind kind = ModelKind::chain;
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;
  RunLayout layout;  // empty for sequential
};

// The kind's sequential run: what a refusal of the kind as a whole is asked about.
inline RunShape sequential_run(ModelKind kind) {
  return {kind, SyncMethod::sequential, Guarantee::none, {}};
}

// "the chain model, conservative/step in the process layout": what a refusal refuses.
std::string describe(const RunShape& shape);

// The methods the kind runs under with their guarantees, sequential first: what `kausal
// compare` runs.
std::vector<std::pair<SyncMethod, Guarantee>> methods_of(ModelKind kind);
// The layouts a conservative or optimistic run of the kind may take.
std::vector<Layout> layouts_of(ModelKind kind);

// Why a run cannot be so, or nothing when it can: its method and layout; a service or a
// setting asked of it. The reason is a sentence for the user, without a prefix: the callers
// say what asked (the command line, a checkpoint).
std::optional<std::string> refusal(const RunShape& shape);
std::optional<std::string> refusal(const RunShape& shape, Service service);
std::optional<std::string> refusal(const RunShape& shape, Setting setting);

// The whole table as text: `kausal capabilities` prints it, docs/capabilities.md holds it.
std::string capability_table();

}  // namespace kausal

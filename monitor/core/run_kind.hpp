#pragma once
// The words that say what kind of run a run is and how it ended, as typed values: compared
// as enums everywhere in the code, written as these names in summary.json, checkpoints,
// tables and on the command line (and read back from there by the parse functions, which
// throw InputError naming what they were given).
#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace kausal {

// How the components are synchronised (docs/model.md §3).
enum class SyncMethod { sequential, conservative, optimistic };
// How a conservative run grants: one step per round, or as far as the lookahead proves
// impact-free. `none` for the other methods.
enum class Guarantee { none, step, lookahead };
// How a run ended.
enum class RunStatus { completed, failed, interrupted };
// How a run's components are packed into processes (docs/architecture.md). A sequential run
// has no components and so no layout: its RunLayout is empty ("none" in files). blocks: a
// chain cut into blocks of pendulums, each a component stepping its block on a lane of the
// kausal process (--layout blocks:K; the count is RunSpec::blocks); block_processes: the
// same blocks, each in a kausal-block process (--layout block-processes:K).
enum class Layout { process, pendulum, single, blocks, block_processes };
// Whether the layout cuts a chain into blocks (on threads or in processes).
constexpr bool in_blocks(Layout layout) {
  return layout == Layout::blocks || layout == Layout::block_processes;
}
using RunLayout = std::optional<Layout>;
// Where a run's processes compute: cores pins each component's process (and, conservative,
// the monitor lane that calls it) to one CPU; none leaves it to the OS (--pin).
enum class Pinning { none, cores };
// What a component of a run does: the monitor, the in-process sequential reference, a
// System or Integrator (of a pendulum or a partition), an event group (the discrete-event
// components one thread runs), or a block of pendulums (the model and its stepping in one).
enum class ComponentRole { monitor, sequential, system, integrator, event_group, block };
// What releases the steps of a run (--realtime, --clock): nothing (as fast as possible), the
// wall clock scaled by a factor, or ticks from outside (kausal tick).
enum class ClockSource { none, wall, external };
// How the monitor waits for a step's release time: sleep (cheap, wakes a little late),
// spin (on time, burns a CPU), or hybrid (sleeps until shortly before, then spins).
enum class ReleaseWait { sleep, spin, hybrid };
// What an operator does to a running paced run (kausal inject, docs/realtime.md): push a
// pendulum, set a partition's constant input or parameter, stop the run.
enum class InjectionKind { push, set, stop, send };

std::string_view name_of(SyncMethod method);
std::string_view name_of(Guarantee guarantee);  // "" for none
std::string_view name_of(RunStatus status);
std::string_view name_of(Layout layout);
std::string_view name_of(ComponentRole role);
std::string_view name_of(Pinning pinning);
std::string_view name_of(ClockSource clock);
std::string_view name_of(ReleaseWait wait);
std::string_view name_of(InjectionKind kind);
std::string layout_label(const RunLayout& layout);  // the layout's name, or "none"

std::optional<SyncMethod> sync_method_named(std::string_view name);
std::optional<Guarantee> guarantee_named(std::string_view name);  // "" is none
std::optional<RunStatus> run_status_named(std::string_view name);
// "process", "pendulum" (also "pair": a System and its Integrator in one process, whatever
// they compute), "single" or "blocks" (the command line spells it blocks:K).
std::optional<Layout> layout_named(std::string_view name);
// The most blocks a chain may be cut into (--layout blocks:K).
inline constexpr std::uint32_t kMaxBlocks = 1024;
// A layout as the command line spells it: layout_named's words, or "blocks:K", which sets
// *blocks (if given) to K (2 .. kMaxBlocks). InputError listing the layouts for anything else.
Layout parse_layout(const std::string& name, std::uint32_t* blocks = nullptr);
// "none" is an empty RunLayout; anything else as layout_named.
std::optional<RunLayout> run_layout_named(std::string_view name);
std::optional<Pinning> pinning_named(std::string_view name);
std::optional<ReleaseWait> release_wait_named(std::string_view name);
std::optional<InjectionKind> injection_kind_named(std::string_view name);

// The typed words above: each has a name_of, and is written and printed by that name.
template <typename T>
concept RunWord =
    std::same_as<T, SyncMethod> || std::same_as<T, Guarantee> || std::same_as<T, RunStatus> ||
    std::same_as<T, Layout> || std::same_as<T, ComponentRole> || std::same_as<T, Pinning> ||
    std::same_as<T, ClockSource> || std::same_as<T, ReleaseWait> || std::same_as<T, InjectionKind>;

template <RunWord T>
std::string to_string(T word) {
  return std::string(name_of(word));
}

// By name in every JSON file too, ordered or not (an enum would otherwise be written as a
// number). Written only: files are read back through the *_named functions, which name a
// bad field. One overload per word, not a RunWord template: nlohmann's own template for
// enums would be as good a match as that, and the call ambiguous.
template <typename Json>
void to_json(Json& j, SyncMethod w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, Guarantee w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, RunStatus w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, Layout w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, ComponentRole w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, Pinning w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, ClockSource w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, ReleaseWait w) {
  j = name_of(w);
}
template <typename Json>
void to_json(Json& j, InjectionKind w) {
  j = name_of(w);
}

// By name, wherever they are printed (and in test failure messages).
template <RunWord T>
std::ostream& operator<<(std::ostream& o, T word) {
  return o << name_of(word);
}

// "conservative/lookahead", "optimistic", ...: how tables and directories name a run.
inline std::string method_label(SyncMethod m, Guarantee g) {
  return g == Guarantee::none ? to_string(m) : to_string(m) + "/" + to_string(g);
}

}  // namespace kausal

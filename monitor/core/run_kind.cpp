#include "monitor/core/run_kind.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "common/errors.hpp"

namespace kausal {
namespace {

constexpr std::array<std::pair<SyncMethod, std::string_view>, 3> kMethods{{
    {SyncMethod::sequential, "sequential"},
    {SyncMethod::conservative, "conservative"},
    {SyncMethod::optimistic, "optimistic"},
}};
constexpr std::array<std::pair<Guarantee, std::string_view>, 3> kGuarantees{{
    {Guarantee::none, ""},
    {Guarantee::step, "step"},
    {Guarantee::lookahead, "lookahead"},
}};
constexpr std::array<std::pair<RunStatus, std::string_view>, 3> kStatuses{{
    {RunStatus::completed, "completed"},
    {RunStatus::failed, "failed"},
    {RunStatus::interrupted, "interrupted"},
}};

constexpr std::array<std::pair<Layout, std::string_view>, 5> kLayouts{{
    {Layout::process, "process"},
    {Layout::pendulum, "pendulum"},
    {Layout::single, "single"},
    {Layout::blocks, "blocks"},
    {Layout::block_processes, "block-processes"},
}};

constexpr std::array<std::pair<ComponentRole, std::string_view>, 6> kRoles{{
    {ComponentRole::monitor, "monitor"},
    {ComponentRole::sequential, "sequential"},
    {ComponentRole::system, "system"},
    {ComponentRole::integrator, "integrator"},
    {ComponentRole::event_group, "event-group"},
    {ComponentRole::block, "block"},
}};

constexpr std::array<std::pair<Pinning, std::string_view>, 2> kPinnings{{
    {Pinning::none, "none"},
    {Pinning::cores, "cores"},
}};

constexpr std::array<std::pair<ClockSource, std::string_view>, 3> kClocks{{
    {ClockSource::none, "none"},
    {ClockSource::wall, "wall"},
    {ClockSource::external, "external"},
}};

constexpr std::array<std::pair<ReleaseWait, std::string_view>, 3> kWaits{{
    {ReleaseWait::sleep, "sleep"},
    {ReleaseWait::spin, "spin"},
    {ReleaseWait::hybrid, "hybrid"},
}};

constexpr std::array<std::pair<InjectionKind, std::string_view>, 4> kInjections{{
    {InjectionKind::push, "push"},
    {InjectionKind::set, "set"},
    {InjectionKind::stop, "stop"},
    {InjectionKind::send, "send"},
}};

template <typename Enum, std::size_t N>
std::string_view name_in(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_in(const std::array<std::pair<Enum, std::string_view>, N>& table,
                             std::string_view name) {
  for (const auto& [value, known] : table)
    if (known == name) return value;
  return std::nullopt;
}

}  // namespace

std::string_view name_of(SyncMethod method) {
  return name_in(kMethods, method);
}
std::string_view name_of(Guarantee guarantee) {
  return name_in(kGuarantees, guarantee);
}
std::string_view name_of(RunStatus status) {
  return name_in(kStatuses, status);
}
std::string_view name_of(Layout layout) {
  return name_in(kLayouts, layout);
}

std::string_view name_of(ComponentRole role) {
  return name_in(kRoles, role);
}

std::string layout_label(const RunLayout& layout) {
  return layout ? std::string(name_of(*layout)) : "none";
}

std::optional<SyncMethod> sync_method_named(std::string_view name) {
  return value_in(kMethods, name);
}
std::optional<Guarantee> guarantee_named(std::string_view name) {
  return value_in(kGuarantees, name);
}
std::optional<RunStatus> run_status_named(std::string_view name) {
  return value_in(kStatuses, name);
}

std::optional<Layout> layout_named(std::string_view name) {
  if (name == "pair") return Layout::pendulum;
  return value_in(kLayouts, name);
}

Layout parse_layout(const std::string& name, std::uint32_t* blocks) {
  for (const Layout layout : {Layout::blocks, Layout::block_processes}) {
    const std::string prefix = std::string(name_of(layout)) + ":";
    if (!name.starts_with(prefix)) continue;
    const std::string count = name.substr(prefix.size());
    std::uint32_t k = 0;
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), k);
    if (error != std::errc{} || end != count.data() + count.size() || k < 2 || k > kMaxBlocks)
      throw InputError("layout '" + name + "': " + prefix + "K needs a whole K from 2 to " +
                       std::to_string(kMaxBlocks));
    if (blocks) *blocks = k;
    return layout;
  }
  if (const auto layout = layout_named(name); layout && !in_blocks(*layout)) return *layout;
  throw InputError("unknown layout '" + name +
                   "' (process, pendulum, single, blocks:K or block-processes:K)");
}

std::optional<RunLayout> run_layout_named(std::string_view name) {
  if (name == "none") return RunLayout{};
  const std::optional<Layout> layout = value_in(kLayouts, name);
  if (!layout) return std::nullopt;
  return std::optional<RunLayout>(std::in_place, *layout);
}

std::string_view name_of(Pinning pinning) {
  return name_in(kPinnings, pinning);
}

std::optional<Pinning> pinning_named(std::string_view name) {
  return value_in(kPinnings, name);
}

std::string_view name_of(ClockSource clock) {
  return name_in(kClocks, clock);
}

std::string_view name_of(ReleaseWait wait) {
  return name_in(kWaits, wait);
}

std::optional<ReleaseWait> release_wait_named(std::string_view name) {
  return value_in(kWaits, name);
}

std::string_view name_of(InjectionKind kind) {
  return name_in(kInjections, kind);
}

std::optional<InjectionKind> injection_kind_named(std::string_view name) {
  return value_in(kInjections, name);
}

}  // namespace kausal

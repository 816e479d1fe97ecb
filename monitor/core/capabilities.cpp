#include "monitor/core/capabilities.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>

namespace kausal {
namespace {

constexpr std::size_t kLayoutCount = 5;  // Layout
constexpr std::size_t kServiceCount = std::size(kServices);
constexpr std::size_t kSettingCount = std::size(kSettings);

std::size_t index(Layout l) {
  return static_cast<std::size_t>(l);
}
std::size_t index(Service s) {
  return static_cast<std::size_t>(s);
}
std::size_t index(Setting s) {
  return static_cast<std::size_t>(s);
}

// One kind of model. Every cell says why the kind refuses the method, layout, service or
// setting, or is empty when it takes it. What depends on the method or the layout alone
// (a sequential run has no components; blocks have no Integrators) is in the rules below
// the table, the same for every kind.
struct KindRow {
  ModelKind kind;
  std::string_view name;
  std::string_view describes;
  std::string_view optimistic;
  std::array<std::string_view, kLayoutCount> layout;
  std::array<std::string_view, kServiceCount> service;
  std::array<std::string_view, kSettingCount> setting;
};

constexpr std::string_view kBlocksCutChains =
    "blocks cut a row of pendulums; this model is cut into its own parts already";
constexpr std::string_view kLookaheadBuiltIn =
    "a conservative partition already steps as far as its final inputs reach "
    "(docs/architecture.md, \"Lookahead is built in\")";
constexpr std::string_view kGroupsOnly =
    "--groups splits discrete-event components into event groups";
constexpr std::string_view kInEventsTable =
    "a discrete-event model's settings are in its scenario's [events] table";

// What partitioned models, coupled by samples or by the master, share: the layouts and the
// settings they refuse; and the row of a kind that takes every service.
constexpr std::array<std::string_view, kLayoutCount> kPartitionLayouts{"", "", "", kBlocksCutChains,
                                                                       kBlocksCutChains};
constexpr std::array<std::string_view, kSettingCount> kPartitionSettings{
    kLookaheadBuiltIn,
    kLookaheadBuiltIn,
    "a partition ships its final steps in batches of its own",
    "",
    "",
    kGroupsOnly,
    ""};
constexpr std::array<std::string_view, kServiceCount> kEveryService{};


// The table (docs/capabilities.md is its text).
constexpr std::array<KindRow, 5> kKinds{{
    {ModelKind::chain,
     "chain",
     "a row of pendulums (thesis.toml, cradle.toml, large.toml, ...)",
     "",
     {"", "", "", "", ""},
     kEveryService,
     {"", "", "", "",
      "--tolerance is the error a partition's prediction may make; a chain predicts nothing",
      kGroupsOnly, "a pendulum chain's contacts have no reference answer"}},
    {ModelKind::partitioned, "partitioned",
     "partitions with their ODE methods or FMUs, coupled by samples (two-mass.toml, ...)", "",
     kPartitionLayouts, kEveryService, kPartitionSettings},
    {ModelKind::master, "master",
     "partitions coupled by the co-simulation master ([master]: two-mass-master.toml, ...)",
     "the master retries a macro step instead of speculating (remove [master] to run the "
     "partitions optimistically)",
     kPartitionLayouts, kEveryService, kPartitionSettings},
    {ModelKind::events,
     "events",
     "discrete-event components in event groups ([events]: phold.toml, queueing-network.toml, ...)",
     "",
     {"",
      "the pendulum layout pairs a System with its Integrator; event groups have neither: "
      "use process (a process per group) or single (a thread per group)",
      "", kBlocksCutChains, kBlocksCutChains},
     kEveryService,
     {kInEventsTable, "it checks a chain's impact-free grants; event groups grant no steps",
      kInEventsTable, kInEventsTable, kInEventsTable, "",
      "discrete events have no reference answer"}},
    {ModelKind::hybrid,
     "hybrid",
     "partitions and discrete-event components exchanging events ([[subsystem]] and [events]: "
     "two-tanks-level-switch.toml, machines-repair.toml, ...)",
     "",
     kPartitionLayouts,
     kEveryService,
     {kLookaheadBuiltIn, kLookaheadBuiltIn,
      "a partition ships its final steps in batches of its own", "",
      "a hybrid model's partitions take their inputs final (only events make them roll back): "
      "they predict nothing",
      "",
      "a hybrid model has no reference solution here"}},
}};

const KindRow& row(ModelKind kind) {
  return kKinds[static_cast<std::size_t>(kind)];
}

std::optional<std::string> reason(std::string_view cell) {
  if (cell.empty()) return std::nullopt;
  return std::string(cell);
}

std::string layout_words(Layout l) {
  return in_blocks(l) ? std::string(name_of(l)) + ":K" : std::string(name_of(l));
}

bool starts_processes(Layout l) {
  return l != Layout::single && l != Layout::blocks;
}

// The rules that depend on the method or the layout alone, before the kind's cell.
std::optional<std::string> method_rule(const RunShape& s, Service service) {
  const bool sequential = s.method == SyncMethod::sequential;
  const bool no_processes = s.layout && !starts_processes(*s.layout);
  switch (service) {
    case Service::nodes:
      if (sequential) return "a sequential run computes in the monitor: it deploys no components";
      if (no_processes) {
        std::string use;
        for (const Layout l : layouts_of(s.kind))
          if (starts_processes(l)) use += (use.empty() ? "" : ", ") + layout_words(l);
        return "the " + layout_words(*s.layout) + " layout starts no processes (use " + use + ")";
      }
      return std::nullopt;
    case Service::rollback_check:
      if (sequential)
        return "it checks the Integrators (or blocks) of conservative and optimistic runs; a "
               "sequential run has none";
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> method_rule(const RunShape& s, Setting setting) {
  const bool optimistic = s.method == SyncMethod::optimistic;
  switch (setting) {
    case Setting::guarantee:
      if (s.method != SyncMethod::conservative) return "it applies to --method conservative";
      return std::nullopt;
    case Setting::check_guarantees:
      if (s.method != SyncMethod::conservative || s.guarantee != Guarantee::lookahead)
        return "it applies to --method conservative --guarantee lookahead";
      return std::nullopt;
    case Setting::batch:
      if (!optimistic) return "it applies to --method optimistic";
      if (s.layout && in_blocks(*s.layout))
        return "optimistic blocks ship no batches (the monitor takes each block's steps as "
               "they are computed)";
      return std::nullopt;
    case Setting::window:
    case Setting::tolerance:
      if (!optimistic) return "it applies to --method optimistic";
      return std::nullopt;
    case Setting::groups:
    case Setting::reference:
      return std::nullopt;
  }
  return std::nullopt;
}

// Every conservative or optimistic run of the kind: what a service is tried on for the text.
std::vector<RunShape> distributed_shapes(ModelKind kind) {
  std::vector<RunShape> shapes;
  for (const auto& [m, g] : methods_of(kind))
    if (m != SyncMethod::sequential)
      for (const Layout l : layouts_of(kind)) shapes.push_back({kind, m, g, l});
  return shapes;
}

// The runs a reason covers, in words: the layouts alone when it covers them under every
// method ("in single"), a method alone when it covers it in every layout ("optimistic"),
// otherwise each method with its layouts ("conservative/step in blocks:K").
std::string runs_words(ModelKind kind, const std::vector<RunShape>& runs) {
  const std::vector<Layout> all = layouts_of(kind);
  std::vector<std::pair<std::string, std::vector<Layout>>> by_method;
  for (const auto& [m, g] : methods_of(kind)) {
    if (m == SyncMethod::sequential) continue;
    std::vector<Layout> covered;
    for (const RunShape& s : runs)
      if (s.method == m && s.guarantee == g) covered.push_back(*s.layout);
    by_method.emplace_back(method_label(m, g), covered);
  }
  auto layouts_words = [](const std::vector<Layout>& layouts) {
    std::string words;
    for (const Layout l : layouts) words += (words.empty() ? "in " : ", ") + layout_words(l);
    return words;
  };
  const bool same_layouts = std::all_of(by_method.begin(), by_method.end(), [&](const auto& m) {
    return m.second == by_method.front().second;
  });
  if (same_layouts) return layouts_words(by_method.front().second);
  std::string words;
  for (const auto& [method, covered] : by_method) {
    if (covered.empty()) continue;
    words += (words.empty() ? "" : ", ") + method;
    if (covered.size() != all.size()) words += " " + layouts_words(covered);
  }
  return words;
}

// One line of the text: "yes", "no: REASON", or "yes; not with RUNS: REASON".
template <typename Asked>
std::string support_line(ModelKind kind, Asked asked) {
  std::map<std::string, std::vector<RunShape>> refused;  // reason -> the runs it refuses
  const std::vector<RunShape> shapes = distributed_shapes(kind);
  std::size_t refused_runs = 0;
  for (const RunShape& s : shapes)
    if (const auto why = refusal(s, asked)) {
      refused[*why].push_back(s);
      ++refused_runs;
    }
  if (refused.empty()) return "yes";
  if (refused.size() == 1 && refused_runs == shapes.size()) return "no: " + refused.begin()->first;
  std::string line = refused_runs == shapes.size() ? "no" : "yes";
  for (const auto& [why, runs] : refused) line += "; not " + runs_words(kind, runs) + ": " + why;
  return line;
}

}  // namespace

std::string_view name_of(ModelKind kind) {
  return row(kind).name;
}

std::string_view name_of(Service service) {
  constexpr std::array<std::string_view, kServiceCount> names{
      "--realtime",       "--external-clock", "kausal inject", "--replay", "--resume",
      "--rollback-check", "--animate",        "--deploy",      "--tls-ca"};
  return names[index(service)];
}

std::string_view name_of(Setting setting) {
  constexpr std::array<std::string_view, kSettingCount> names{
      "--guarantee", "--check-guarantees", "--batch",    "--window",
      "--tolerance", "--groups",           "--reference"};
  return names[index(setting)];
}

std::string describe(const RunShape& s) {
  std::string words =
      "the " + std::string(name_of(s.kind)) + " model, " + method_label(s.method, s.guarantee);
  if (s.layout) words += " in the " + layout_words(*s.layout) + " layout";
  return words;
}

std::vector<std::pair<SyncMethod, Guarantee>> methods_of(ModelKind kind) {
  std::vector<std::pair<SyncMethod, Guarantee>> methods{{SyncMethod::sequential, Guarantee::none}};
  if (kind == ModelKind::chain) {
    methods.emplace_back(SyncMethod::conservative, Guarantee::step);
    methods.emplace_back(SyncMethod::conservative, Guarantee::lookahead);
  } else {
    methods.emplace_back(SyncMethod::conservative, Guarantee::none);
  }
  if (row(kind).optimistic.empty()) methods.emplace_back(SyncMethod::optimistic, Guarantee::none);
  return methods;
}

std::vector<Layout> layouts_of(ModelKind kind) {
  std::vector<Layout> layouts;
  for (const Layout l :
       {Layout::process, Layout::pendulum, Layout::single, Layout::blocks, Layout::block_processes})
    if (row(kind).layout[index(l)].empty()) layouts.push_back(l);
  return layouts;
}

std::optional<std::string> refusal(const RunShape& s) {
  const KindRow& k = row(s.kind);
  if (s.method == SyncMethod::optimistic && !k.optimistic.empty()) return reason(k.optimistic);
  if (s.method == SyncMethod::sequential) {
    if (s.layout) return std::string("a sequential run deploys no components, so it has no layout");
    return std::nullopt;
  }
  if (!s.layout) return std::string("a conservative or optimistic run needs a layout");
  return reason(k.layout[index(*s.layout)]);
}

std::optional<std::string> refusal(const RunShape& s, Service service) {
  if (auto why = method_rule(s, service)) return why;
  return reason(row(s.kind).service[index(service)]);
}

std::optional<std::string> refusal(const RunShape& s, Setting setting) {
  // The kind's cell first: "--batch does not apply to partitioned models" says more than
  // "--batch applies to optimistic runs" to whoever ran a partitioned model conservative.
  if (auto why = reason(row(s.kind).setting[index(setting)])) return why;
  return method_rule(s, setting);
}

std::string capability_table() {
  std::ostringstream out;
  for (const KindRow& k : kKinds) {
    if (k.kind != kKinds.front().kind) out << "\n";
    out << k.name << ": " << k.describes << "\n";
    out << "  methods            ";
    const auto methods = methods_of(k.kind);
    for (std::size_t i = 0; i < methods.size(); ++i)
      out << (i ? ", " : "") << method_label(methods[i].first, methods[i].second);
    if (!k.optimistic.empty()) out << " (not optimistic: " << k.optimistic << ")";
    out << "\n  layouts            ";
    const auto layouts = layouts_of(k.kind);
    for (std::size_t i = 0; i < layouts.size(); ++i)
      out << (i ? ", " : "") << layout_words(layouts[i]);
    out << (layouts.empty() ? "none (a sequential run deploys no components)\n"
                            : " (every method but sequential, which has none)\n");
    for (const Service s : kServices) {
      std::string name(name_of(s));
      name.resize(std::max<std::size_t>(name.size(), 18), ' ');
      out << "  " << name << " " << support_line(k.kind, s) << "\n";
    }
    for (const Setting s : kSettings) {
      std::string name(name_of(s));
      name.resize(std::max<std::size_t>(name.size(), 18), ' ');
      out << "  " << name << " " << support_line(k.kind, s) << "\n";
    }
  }
  return out.str();
}

}  // namespace kausal

#include "monitor/scenario/scenario.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/toml_reader.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {
namespace {

void read_simulation(const toml::table& table, const std::string& file, Scenario& s) {
  TableReader r(table, file, "simulation");
  if (auto m = r.text("integrator")) {
    const auto* node = table.get("integrator");
    const std::string where = file + ":" + std::to_string(node->source().begin.line) + ": ";
    // The chain's lookahead bound (docs/lookahead.md) and its sequential fast path are
    // derived for these two; partitioned models take every method.
    try {
      s.method = parse_ode_method(*m, where);
    } catch (const InputError&) {
      throw InputError(where + "unknown integrator '" + *m +
                       "' (the pendulum chain takes euler or rk4)");
    }
    if (s.method != OdeMethod::euler && s.method != OdeMethod::rk4)
      throw InputError(where + "integrator '" + *m +
                       "' is not available for the pendulum chain (euler or rk4: the "
                       "lookahead bound and the sequential reference are derived for them)");
  }
  s.h = r.required_number("step");
  if (!(s.h > 0)) r.fail("step", "must be > 0");

  const bool by_steps = r.has("steps");
  if (by_steps == r.has("duration"))
    r.fail_at(table.source(), "[simulation] needs exactly one of 'duration' (s) or 'steps'");
  const std::string limit = format_number(static_cast<double>(kMaxSteps));
  if (by_steps) {
    const auto n = *r.integer("steps");
    if (n < 1) r.fail("steps", "must be >= 1");
    if (static_cast<std::uint64_t>(n) > kMaxSteps)
      r.fail("steps", "is more than " + limit + " (the limit)");
    s.steps = static_cast<std::uint64_t>(n);
  } else {
    const double d = *r.number("duration");
    if (!(d > 0)) r.fail("duration", "must be > 0");
    const auto steps = steps_covering(d, s.h);
    if (!steps)
      r.fail("duration", "is more than " + limit + " steps (the limit) of simulation.step = " +
                             format_number(s.h) + " s");
    s.steps = *steps;
  }

  if (r.has("output_every") && r.has("output_interval"))
    r.fail("output_interval", "and output_every both given; use one");
  if (auto every = r.integer("output_every")) {
    if (*every < 1) r.fail("output_every", "must be >= 1");
    s.output_every = static_cast<std::uint64_t>(*every);
  }
  if (auto interval = r.number("output_interval")) {
    const auto every = whole_multiple(*interval, s.h);
    if (!every)
      r.fail("output_interval",
             "must be a whole multiple (>= 1, at most " + limit + " steps) of simulation.step");
    s.output_every = *every;
  }
  r.reject_unknown_keys();
}

// What the run writes (trajectory.csv: the first row, every output_every-th step and the
// last; a checkpoint of two numbers per pendulum) must fit the limit. Named: the field
// that sets the output rows.
void check_output_size(const toml::table& simulation, const std::string& file, const Scenario& s,
                       const ScenarioLimits& limits) {
  const double rows = std::floor(static_cast<double>(s.steps) / s.output_every) + 2;
  const double pendulums = static_cast<double>(s.pendulums());
  const std::string why = output_over_limit(rows, 1 + 2 * pendulums, 64 * pendulums, limits);
  if (why.empty()) return;
  TableReader r(simulation, file, "simulation");
  for (const char* key : {"output_interval", "output_every", "duration", "steps"})
    if (r.has(key)) r.fail(key, why);
}

void read_model(const toml::table& table, const std::string& file, Scenario& s, double& gravity) {
  TableReader r(table, file, "model");
  auto type = r.text("type");
  if (!type) r.fail_at(table.source(), "missing field model.type (\"pendulum-chain\")");
  if (*type != "pendulum-chain")
    r.fail("type", "'" + *type + "' is not a known model (pendulum-chain)");
  s.model = *type;
  gravity = r.number("gravity").value_or(9.81);
  if (!(gravity > 0)) r.fail("gravity", "must be > 0");
  s.chain.restitution = r.required_number("restitution");
  if (s.chain.restitution < 0 || s.chain.restitution > 1)
    r.fail("restitution", "must be in [0, 1]");
  if (auto work = r.integer("calc_work")) {
    if (*work < 0 || static_cast<std::uint64_t>(*work) > limits::max_calc_work)
      r.fail("calc_work", "must be in [0, 1e8] (one Calc at most about 0.3 s)");
    s.calc_work = static_cast<std::uint64_t>(*work);
  }
  if (auto sweeps = r.integer("max_sweeps")) {
    if (*sweeps < 1 || *sweeps > 1'000'000) r.fail("max_sweeps", "must be in [1, 1000000]");
    s.chain.max_sweeps = static_cast<int>(*sweeps);
  }
  r.reject_unknown_keys();
}

// Where a pendulum of the chain was declared: a [[pendulum]] table, or member `member` of
// the `row`-th [[row]] (1-based; 0: a [[pendulum]]). Kept compact: a chain may have millions.
struct Origin {
  std::uint32_t line = 0;
  std::uint32_t row = 0;
  std::uint64_t member = 0;
};

// The fields a pendulum and a row's members share: all but pivot_x (and a row's count and
// spacing). Appends the pendulum to the chain `count` times, the k-th at first_pivot + k·spacing.
void read_pendulums(TableReader& r, const toml::table& table, double first_pivot, double spacing,
                    std::uint64_t count, double gravity, Scenario& s) {
  PendulumParams p;
  p.length = r.required_number("length");
  if (!(p.length > 0)) r.fail("length", "must be > 0");
  p.mass = r.required_number("mass");
  if (!(p.mass > 0)) r.fail("mass", "must be > 0");
  p.radius = r.required_number("radius");
  if (!(p.radius > 0)) r.fail("radius", "must be > 0");
  if (!(p.radius < p.length)) r.fail("radius", "must be smaller than the length");
  p.damping = r.number("damping").value_or(0.0);
  if (p.damping < 0) r.fail("damping", "must be >= 0");
  p.gravity = gravity;

  if (r.has("angle") && r.has("angle_deg")) r.fail("angle_deg", "and angle both given; use one");
  double phi = 0;
  if (auto a = r.number("angle"))
    phi = *a;
  else if (auto d = r.number("angle_deg"))
    phi = *d * M_PI / 180.0;
  else
    r.fail_at(table.source(), "missing field " + r.qualified("angle") + " (rad) or angle_deg");
  const double omega = r.number("angular_velocity").value_or(0.0);
  const double speed = r.number("speed").value_or(1.0);
  if (!(speed > 0 && speed <= 1e6)) r.fail("speed", "must be in (0, 1e6]");
  // A slow host does the same work more slowly: its System gets calc_work / speed units, at
  // most limits::max_calc_work (every model's bound: one Calc below the call timeout).
  const double work = std::round(static_cast<double>(s.calc_work) / speed);
  if (!(work <= static_cast<double>(limits::max_calc_work)))
    r.fail("speed", "makes model.calc_work / speed more than 1e8 units (a Calc of over 0.3 s)");
  p.calc_work = static_cast<std::uint64_t>(work);
  r.reject_unknown_keys();
  for (std::uint64_t k = 0; k < count; ++k) {
    p.pivot_x = first_pivot + static_cast<double>(k) * spacing;
    s.chain.pendulums.push_back(p);
    s.initial.push_back({phi, omega});
    s.speed.push_back(speed);
  }
}

void read_pendulum(const toml::table& table, const std::string& file, std::size_t index,
                   double gravity, Scenario& s, std::vector<Origin>& origins) {
  TableReader r(table, file, "pendulum[" + std::to_string(index + 1) + "]");
  const double pivot = r.required_number("pivot_x");
  read_pendulums(r, table, pivot, 0.0, 1, gravity, s);
  origins.push_back({static_cast<std::uint32_t>(table.source().begin.line), 0, 0});
}

// A row: `count` equal pendulums, `spacing` apart from pivot_x on (a chain of a million
// needs no file of a million tables).
void read_row(const toml::table& table, const std::string& file, std::size_t index, double gravity,
              Scenario& s, std::vector<Origin>& origins) {
  TableReader r(table, file, "row[" + std::to_string(index + 1) + "]");
  const auto count = r.integer("count");
  if (!count) r.fail_at(table.source(), "missing field " + r.qualified("count"));
  const std::uint64_t room = kMaxPendulums - s.chain.pendulums.size();
  if (*count < 1 || static_cast<std::uint64_t>(*count) > room)
    r.fail("count", "must be in [1, " + std::to_string(room) + "] (a chain has at most " +
                        std::to_string(kMaxPendulums) + " pendulums)");
  const double pivot = r.required_number("pivot_x");
  const double spacing = r.required_number("spacing");
  if (!(spacing > 0)) r.fail("spacing", "must be > 0 (pendulums stand left to right)");
  if (!std::isfinite(pivot + static_cast<double>(*count - 1) * spacing))
    r.fail("spacing", "puts the row's last pivot beyond the largest number");
  read_pendulums(r, table, pivot, spacing, static_cast<std::uint64_t>(*count), gravity, s);
  for (std::int64_t k = 0; k < *count; ++k)
    origins.push_back({static_cast<std::uint32_t>(table.source().begin.line),
                       static_cast<std::uint32_t>(index + 1), static_cast<std::uint64_t>(k + 1)});
}

// Pendulums must stand left to right, and no two bobs may overlap, neither at rest nor at
// the start (touching is allowed: a cradle starts that way).
void check_geometry(const std::vector<Origin>& origins, const std::string& file,
                    const Scenario& s) {
  // "pendulum[3]" for a [[pendulum]] table, "row[1] member 7" for a row's member.
  auto label = [&](std::size_t i) {
    const Origin& o = origins[i];
    if (o.row == 0) return "pendulum[" + std::to_string(i + 1) + "]";
    return "row[" + std::to_string(o.row) + "] member " + std::to_string(o.member);
  };
  auto where = [&](std::size_t i) {
    return file + ":" + std::to_string(origins[i].line) + ": " + label(i);
  };
  const auto& p = s.chain.pendulums;
  for (std::size_t i = 0; i + 1 < p.size(); ++i)
    if (!(p[i + 1].pivot_x > p[i].pivot_x))
      throw InputError(where(i + 1) + ".pivot_x must be greater than " + label(i) +
                       ".pivot_x (pendulums stand left to right: the [[pendulum]] tables in "
                       "order, then each [[row]])");
  const std::vector<PendulumState> rest(p.size(), PendulumState{0, 0});
  ImpactSweep sweep(s.chain);
  for (const auto& [states, when] :
       {std::pair{&rest, "at rest"}, {&s.initial, "at the start angles"}}) {
    for (const BobPair& pair : sweep.candidates(*states)) {
      const PendulumParams &a = p[pair.i], &b = p[pair.j];
      const double reach = a.radius + b.radius;
      const double slack = 1e-12 * (std::abs(a.pivot_x) + std::abs(b.pivot_x) + reach);
      const double distance =
          bob_distance(a, b, (*states)[pair.i].data(), (*states)[pair.j].data());
      if (distance < reach - slack) {
        std::ostringstream m;
        m << where(pair.j) << ": bob overlaps " << label(pair.i) << " " << when << " (distance "
          << distance << " < sum of radii " << reach << ")";
        throw InputError(m.str());
      }
    }
  }
}

// The array of tables `key` ([[pendulum]], [[row]]), or null if the file has none.
const toml::array* tables(TableReader& top, const std::string& key, std::size_t most) {
  const toml::node* node = top.take(key);
  if (!node) return nullptr;
  const toml::array* list = node->as_array();
  if (!list || !list->is_array_of_tables())
    top.fail(key, "must be an array of tables ([[" + key + "]])");
  if (list->empty()) top.fail(key, "is empty");
  if (list->size() > most) top.fail(key, "has more than " + std::to_string(most) + " entries");
  return list;
}

Scenario from_table(const toml::table& root, const std::string& file,
                    const ScenarioLimits& limits) {
  Scenario s;
  s.file = file;
  TableReader top(root, file, "");
  s.name = top.text("name").value_or(std::filesystem::path(file).stem().string());
  s.description = top.text("description").value_or("");

  const toml::table* simulation = top.subtable("simulation");
  if (!simulation) top.fail_at(root.source(), "missing table [simulation]");
  read_simulation(*simulation, file, s);

  const toml::table* model = top.subtable("model");
  if (!model) top.fail_at(root.source(), "missing table [model]");
  double gravity = 9.81;
  read_model(*model, file, s, gravity);

  // The chain: the [[pendulum]] tables in file order, then each [[row]]'s members.
  const toml::array* pendulums = tables(top, "pendulum", 100'000);
  const toml::array* rows = tables(top, "row", 1000);
  if (!pendulums && !rows)
    top.fail_at(root.source(), "no pendulums: add [[pendulum]] tables or a [[row]]");
  std::vector<Origin> origins;
  if (pendulums)
    for (std::size_t i = 0; i < pendulums->size(); ++i)
      read_pendulum(*(*pendulums)[i].as_table(), file, i, gravity, s, origins);
  if (rows)
    for (std::size_t i = 0; i < rows->size(); ++i)
      read_row(*(*rows)[i].as_table(), file, i, gravity, s, origins);
  top.reject_unknown_keys();
  check_geometry(origins, file, s);
  check_output_size(*simulation, file, s, limits);
  return s;
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& file,
                        const ScenarioLimits& limits) {
  return from_table(parse_toml(text, file), file, limits);
}

Scenario load_scenario(const std::filesystem::path& file, const ScenarioLimits& limits) {
  return parse_scenario(read_input_file(file, "scenario file"), file.string(), limits);
}

}  // namespace kausal

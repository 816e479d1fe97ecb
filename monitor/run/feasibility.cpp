#include "monitor/run/feasibility.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/errors.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/scenario/scenario_limits.hpp"

namespace kausal {
namespace {

std::string micros_text(double s) {
  return micros(s) + " µs";
}

}  // namespace

PartitionReport analyze_partitioned(const PartitionedScenario& s, CompositeModel& model, double t,
                                    const Vector& x) {
  Matrix J = Matrix::Zero(x.size(), x.size());
  model.jacobian(t, x, Vector(), J);
  std::vector<PartitionStepping> stepping;
  for (const auto& p : s.partitions) stepping.push_back({p.method, p.h});
  return analyze_partitions(J, partition_blocks(s), stepping);
}

std::vector<std::string> unstable_partitions(const PartitionedScenario& s,
                                             const std::optional<ModelChange>& change) {
  // A co-simulation FMU's stability is its own solver's business: nothing to analyse.
  if (!first_stepping_itself(s).empty()) return {};
  const auto model = build_monolithic_model(s);
  if (change) model->change(*change);
  const PartitionReport report = analyze_partitioned(s, *model, s.t0(), model->initial_state());
  std::vector<std::string> out;
  for (const auto& d : report.partitions) {
    if (!d.h_exceeds_limit || !d.method) continue;
    std::ostringstream o;
    o << d.name << ": h = " << d.h << " s exceeds the " << ode_method_name(*d.method)
      << " stability limit " << d.h_max << " s";
    out.push_back(o.str());
  }
  return out;
}

void choose_integrators(PartitionedScenario& s) {
  if (std::none_of(s.partitions.begin(), s.partitions.end(),
                   [](const PartitionSpec& p) { return p.automatic; }))
    return;
  if (const std::string itself = first_stepping_itself(s); !itself.empty())
    throw InputError(s.file + ": integrator = \"auto\" chooses from the model's Jacobian, which '" +
                     itself + "' (a model that steps itself) does not give: name the integrators");
  // An "auto" partition's placeholder method is rk4: the report judges it by RK4's limit.
  const auto model = build_monolithic_model(s);
  const PartitionReport report = analyze_partitioned(s, *model, s.t0(), model->initial_state());
  for (std::size_t k = 0; k < s.partitions.size(); ++k) {
    PartitionSpec& p = s.partitions[k];
    if (!p.automatic) continue;
    const PartitionDiagnostics& d = report.partitions[k];
    std::ostringstream why;
    why.precision(4);
    if (p.h <= 0.9 * d.h_max) {
      p.method = OdeMethod::rk4;
      why << "rk4: h = " << p.h << " s is within 90 % of its stability limit " << d.h_max
          << " s here";
    } else {
      // The modes RK4 cannot keep: do they all decay faster than they turn?
      bool oscillates = false;
      for (const auto& l : d.eigenvalues)
        if (l.real() <= 0 && p.h > 0.9 * stable_step_limit(OdeMethod::rk4, l) &&
            std::abs(l.imag()) > std::abs(l.real()))
          oscillates = true;
      p.method = oscillates ? OdeMethod::am2 : OdeMethod::backward_euler;
      why << ode_method_name(p.method) << ": rk4 would need h <= " << d.h_max << " s, h = " << p.h
          << " s; the modes beyond it "
          << (oscillates ? "oscillate (the trapezoidal rule keeps their amplitude)"
                         : "decay (stiff: backward Euler damps them)");
    }
    p.chosen_because = why.str();
  }
}

void require_feasible(const StepBudget& b) {
  std::ostringstream o;
  if (!b.unstable.empty()) {
    o << "--realtime: the run would be unstable at the start (kausal analyze):";
    for (const auto& u : b.unstable) o << "\n  " << u;
    o << "\nuse a smaller step or an implicit or exponential method for these partitions";
    throw InputError(o.str());
  }
  if (b.keeps_up()) return;
  o << "--realtime " << b.factor << ": the run cannot keep up: a step may take "
    << micros_text(b.budget_s()) << " (h = " << b.h << " s / " << b.factor << ") but needs about "
    << micros_text(b.step_s()) << " (compute " << micros_text(b.compute_s) << ", the p99 of "
    << b.measured << " steps measured here; communication " << b.calls_per_step << " calls of "
    << micros_text(b.call_s) << ")";
  o << "\nthe fastest factor that keeps up is about " << b.fastest_factor();
  if (b.calls_per_step > 0)
    o << "; a layout with fewer calls per step (pendulum, single) is faster";
  o << " (or --skip-feasibility-check to run anyway)";
  throw InputError(o.str());
}

double pace_for_view(const StepBudget& b) {
  if (b.keeps_up()) return b.factor;
  // Half the limit (at 0.8 of it a tenth of the steps still overran: the probe measures a
  // quiet moment), to two significant digits, rounded down.
  const double f = 0.5 * b.fastest_factor();
  const double unit = std::pow(10.0, std::floor(std::log10(f)) - 1);
  return std::max(unit, std::floor(f / unit) * unit);
}

std::string describe_view_pace(const StepBudget& b, double factor) {
  std::ostringstream o;
  o << "--animate: paced at " << format_number(factor) << "× real time";
  if (factor == b.factor)
    o << ", the pace the view plays it at";
  else
    o << ", below the view's " << format_number(b.factor) << "×: a step needs about "
      << micros_text(b.step_s()) << " (compute " << micros_text(b.compute_s) << ", "
      << format_number(b.calls_per_step) << " calls of " << micros_text(b.call_s)
      << "), more than the " << micros_text(b.budget_s()) << " that pace gives it";
  o << " (--realtime FACTOR sets another)";
  return o.str();
}

}  // namespace kausal

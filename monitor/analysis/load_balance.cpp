#include "monitor/analysis/load_balance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "common/errors.hpp"
#include "common/listed.hpp"
#include "common/text_table.hpp"
#include "integrator/ode_method.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "system/composite_model.hpp"

namespace kausal {
namespace {

// The partition's model with its inputs held.
class HeldInputs final : public RightHandSide {
 public:
  HeldInputs(const Model& model, Vector u) : model_(model), u_(std::move(u)) {}
  void derivative(double t, VectorView x, VectorOut dx) override {
    model_.derivative(t, x, u_, dx);
  }
  void jacobian(double t, VectorView x, MatrixOut J) override { model_.jacobian(t, x, u_, J); }
  void model_step(double t, double h, Vector& x) override {
    model_.step(t, h, u_, Matrix(u_.size(), 0), x);
  }

 private:
  const Model& model_;
  Vector u_;
};

std::string number(double v, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << v;
  return out.str();
}

// Whole numbers from 100 on, else `digits` significant digits.
std::string figure(double v, int digits) {
  return v >= 100 ? std::to_string(std::llround(v)) : number(v, digits);
}

std::string percent(double share) {
  return number(100 * share, share < 0.1 ? 2 : 3) + " %";
}

}  // namespace

double step_cost_us(OdeStepper& stepper, RightHandSide& f, const Vector& x0, double h,
                    std::uint64_t most, std::chrono::milliseconds budget) {
  Vector x = x0;
  std::uint64_t steps = 0, n = 0;
  const auto start = std::chrono::steady_clock::now();
  auto spent = std::chrono::steady_clock::duration::zero();
  most = std::max<std::uint64_t>(most, 1);
  while (spent < budget && steps < most) {
    try {
      stepper.step(f, h * static_cast<double>(n), h, x);
      ++n;
    } catch (const std::exception&) {  // inputs held at 0 can take a model where it fails
      x = x0;
      stepper.restart();
      n = 0;
    }
    // (The clock read every 64 steps: it costs about as much as the cheapest steps.)
    if (++steps % 64 == 0 || steps == most) spent = std::chrono::steady_clock::now() - start;
  }
  return std::chrono::duration<double, std::micro>(spent).count() / static_cast<double>(steps);
}

std::vector<PartitionLoad> measure_loads(const PartitionedScenario& s,
                                         std::chrono::milliseconds budget) {
  std::vector<PartitionLoad> loads;
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    const PartitionSpec& spec = s.partitions[p];
    const auto model = build_partition_model(s, p);
    PartitionLoad load{spec.name, {}, spec.h, 0};
    for (std::size_t m : spec.members) load.members.push_back(s.subsystems[m].name);
    OdeStepper stepper(spec.method, model->state_size(), model->blocks(), spec.newton);
    HeldInputs f(*model, Vector::Zero(static_cast<Eigen::Index>(model->input_size())));
    load.step_us = step_cost_us(stepper, f, model->initial_state(), spec.h, spec.steps, budget);
    loads.push_back(std::move(load));
  }
  return loads;
}

std::string format_load_report(const std::vector<PartitionLoad>& loads, double round_trip_us) {
  if (loads.empty()) return {};
  double total = 0;
  for (const PartitionLoad& l : loads) total += l.work();
  std::vector<std::vector<std::string>> rows = {
      {"partition", "step µs", "steps/s", "work µs/s", "share"}};
  for (const PartitionLoad& l : loads)
    rows.push_back({l.name, figure(l.step_us, 3), figure(1 / l.h, 4), figure(l.work(), 4),
                    percent(l.work() / total)});
  std::ostringstream out;
  out << "load: each partition's step alone on one CPU, its inputs held (CPU µs per simulated "
         "second)\n"
      << format_table(rows, {Align::left, Align::right, Align::right, Align::right, Align::right});
  std::vector<std::size_t> order(loads.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return loads[a].work() > loads[b].work(); });
  const PartitionLoad& largest = loads[order.front()];
  const double share = largest.work() / total;
  if (loads.size() > 1)
    out << "advice: side by side the partitions can go at most " << number(1 / share, 3)
        << "× as fast as one CPU doing all their work: " << largest.name << " carries "
        << percent(share) << "\n";
  if (loads.size() > 1 && share > 0.5) {
    if (largest.members.size() > 1)
      out << "advice: split " << largest.name << " (" << percent(share)
          << " of the work): its subsystems " << listed(largest.members)
          << " can be partitions of their own ([[partition]] members)\n";
    else
      out << "advice: " << largest.name << " (" << percent(share)
          << " of the work) is one subsystem: a longer step (stable h above) or a cheaper "
             "integrator is what shortens the run\n";
  }
  if (loads.size() > 2) {
    const PartitionLoad& a = loads[order[order.size() - 1]];
    const PartitionLoad& b = loads[order[order.size() - 2]];
    if (a.work() + b.work() <= largest.work())
      out << "advice: merge " << b.name << " and " << a.name << ": together "
          << percent((a.work() + b.work()) / total) << " of the work, no more than " << largest.name
          << "'s; one partition fewer, the same bound\n";
  }
  std::vector<std::string> cheap;
  for (const PartitionLoad& l : loads)
    if (l.step_us < round_trip_us) cheap.push_back(l.name);
  if (!cheap.empty())
    out << "advice: a step of " << listed(cheap)
        << " costs less than a call between processes (about " << number(round_trip_us, 2)
        << " µs): in a process of its own such a partition waits more than it computes "
           "(--layout single keeps it in the monitor's process)\n";
  return out.str();
}

}  // namespace kausal

#pragma once
// A partitioned scenario run in this process, sequential or distributed over a
// LocalDeployment, with its recorded rows: what the tests of partitioned models compare.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/sync/cosim_master.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "reference/cvode_reference.hpp"
#include "reference/exact_linear_response.hpp"

namespace kausal::testing {

struct Outcome {
  RunResult result;
  std::vector<std::vector<double>> rows;  // t, then every partition's states
};

inline Outcome sequential(const PartitionedScenario& s) {
  const PartitionedPlan plan = plan_partitions(s, {});
  PartitionedRecorder recorder("", s, plan, true);
  RunControl control;
  RunResult r = run_partitioned_sequential(s, plan, control, {nullptr, {&recorder}});
  return {r, recorder.rows()};
}

inline Outcome distributed(const PartitionedScenario& s, const PartitionedMode& mode) {
  const PartitionedPlan plan = plan_partitions(s, mode);
  PartitionedRecorder recorder("", s, plan, true);
  RunControl control;
  LocalDeployment deployment(partitioned_deployment(s, plan));
  RunResult r = run_partitioned_distributed(
      s, mode.speculate ? SyncMethod::optimistic : SyncMethod::conservative, plan, deployment,
      control, {nullptr, {&recorder}});
  return {r, recorder.rows()};
}

// Under the co-simulation master ([master]): every partition in this thread, or (concurrent)
// a Jacobi step's partitions at once.
inline Outcome master(const PartitionedScenario& s, bool concurrent = false) {
  const PartitionedPlan plan = plan_partitions(s, {});
  PartitionedRecorder recorder("", s, plan, true);
  RunControl control;
  LocalDeployment deployment(partitioned_deployment(s, plan));
  RunResult r = run_cosimulation(s, concurrent ? SyncMethod::conservative : SyncMethod::sequential,
                                 plan, deployment, control, {nullptr, {&recorder}}, concurrent);
  return {r, recorder.rows()};
}

inline std::string shipped_text(const std::string& name) {
  std::ifstream in(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The shipped scenario with some of its text replaced (each `from` must occur).
inline PartitionedScenario variant(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  std::string text = shipped_text(name);
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("'" + from + "' not in " + name);
    text.replace(at, from.size(), to);
  }
  return parse_partitioned_scenario(text, name);
}

// Benchmark E's matrix from docs/benchmarks.md, written out here (not from the model code).
inline Matrix two_mass_matrix() {
  const double k1 = 10, d1 = 0.1, kc = 100, dc = 1, k2 = 1000, d2 = 1;
  Matrix A(4, 4);
  A << 0, 1, 0, 0,                     //
      -(k1 + kc), -(d1 + dc), kc, dc,  //
      0, 0, 0, 1,                      //
      kc, dc, -(k2 + kc), -(d2 + dc);
  return A;
}

// Benchmark E's exact solution at the rows' times (x1(0) = 0.1 m, everything else 0).
inline std::vector<Vector> two_mass_exact(const Outcome& o) {
  Vector x0(4);
  x0 << 0.1, 0, 0, 0;
  std::vector<double> times;
  for (const auto& row : o.rows) times.push_back(row[0]);
  return reference::exact_linear_response(two_mass_matrix(), Matrix::Zero(4, 1), Vector::Zero(1),
                                          x0, times);
}

// The largest error of either mass's position against the exact solution, in m.
inline double two_mass_position_error(const Outcome& o) {
  const auto exact = two_mass_exact(o);
  double worst = 0;
  for (std::size_t i = 0; i < exact.size(); ++i)
    for (Eigen::Index k = 0; k < 4; k += 2)
      worst = std::max(worst, std::abs(o.rows[i][static_cast<std::size_t>(k) + 1] - exact[i][k]));
  return worst;
}

// CVODE on the monolithic model (every coupling direct) at the given times.
inline std::vector<Vector> monolithic_reference(const PartitionedScenario& s,
                                                const std::vector<double>& times) {
  const auto model = build_monolithic_model(s);
  auto f = [&](double t, const Vector& x, Vector& dx) { model->derivative(t, x, Vector(), dx); };
  return reference::cvode_reference(f, model->initial_state(), 0.0, times);
}

inline std::vector<double> times_of(const Outcome& o) {
  std::vector<double> t;
  for (const auto& row : o.rows) t.push_back(row[0]);
  return t;
}

// Largest deviation of the state from the reference over the rows, relative to its range.
inline double worst_relative_error(const Outcome& o, const std::vector<Vector>& ref,
                                   std::size_t state) {
  double lo = ref.front()[static_cast<Eigen::Index>(state)], hi = lo, worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double r = ref[i][static_cast<Eigen::Index>(state)];
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    worst = std::max(worst, std::abs(o.rows[i][state + 1] - r));
  }
  return worst / std::max(hi - lo, 1e-12);
}

}  // namespace kausal::testing

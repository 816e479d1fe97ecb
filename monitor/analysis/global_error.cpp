#include "monitor/analysis/global_error.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "reference/cvode_reference.hpp"

namespace kausal {
namespace {

struct Rows {
  std::vector<double> times;
  std::vector<std::vector<double>> states;  // per row, without t
};

Rows read_rows(const std::filesystem::path& csv, std::size_t states) {
  std::ifstream in(csv);
  if (!in) throw InputError(csv.string() + ": cannot be read");
  Rows rows;
  std::string line;
  std::getline(in, line);  // the header
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::vector<double> values;
    for (std::string field; std::getline(fields, field, ',');) {
      try {
        values.push_back(std::stod(field));
      } catch (const std::exception&) {
        throw InputError(csv.string() + ":" + std::to_string(number) + ": '" + field +
                         "' is not a number");
      }
    }
    if (values.size() != states + 1)
      throw InputError(csv.string() + ":" + std::to_string(number) + ": " +
                       std::to_string(values.size()) + " columns, the scenario has " +
                       std::to_string(states + 1));
    rows.times.push_back(values.front());
    rows.states.emplace_back(values.begin() + 1, values.end());
  }
  return rows;
}

}  // namespace

ReferenceAnswer::ReferenceAnswer(const PartitionedScenario& s) : s_(s) {
  const auto model = build_monolithic_model(s);  // InputError for a co-simulation FMU
  if (model->indicator_count() > 0)
    throw InputError(s.file +
                     ": --reference integrates the monolithic model with CVODE, which "
                     "does not handle its events (zero crossings)");
}

const std::vector<Vector>& ReferenceAnswer::at(const std::vector<double>& times) {
  if (times == times_ && !reference_.empty()) return reference_;
  const auto model = build_monolithic_model(s_);
  auto f = [&](double t, const Vector& x, Vector& dx) { model->derivative(t, x, Vector(), dx); };
  try {
    reference_ = reference::cvode_reference(f, model->initial_state(), s_.t0(), times);
  } catch (const std::runtime_error& e) {
    throw SimulationError(s_.file + ": the CVODE reference failed: " + e.what());
  }
  times_ = times;
  return reference_;
}

double ReferenceAnswer::global_error(const std::filesystem::path& trajectory_csv) {
  const auto states = static_cast<std::size_t>(build_monolithic_model(s_)->initial_state().size());
  const Rows rows = read_rows(trajectory_csv, states);
  if (rows.times.empty()) throw InputError(trajectory_csv.string() + ": no rows");
  const std::vector<Vector>& ref = at(rows.times);
  double worst = 0;
  for (std::size_t k = 0; k < states; ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    double lo = ref.front()[i], hi = lo, deviation = 0;
    for (std::size_t r = 0; r < ref.size(); ++r) {
      lo = std::min(lo, ref[r][i]);
      hi = std::max(hi, ref[r][i]);
      deviation = std::max(deviation, std::abs(rows.states[r][k] - ref[r][i]));
    }
    worst = std::max(worst, deviation / std::max(hi - lo, 1e-12));
  }
  return worst;
}

}  // namespace kausal

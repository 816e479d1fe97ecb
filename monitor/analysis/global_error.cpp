#include "monitor/analysis/global_error.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "integrator/ode_method.hpp"
#include "reference/cvode_reference.hpp"
#include "system/composite_model.hpp"

namespace kausal {
namespace {

// The most reference points a partition alone is measured against (16 MB for a partition of
// one state): two per step.
constexpr std::uint64_t kMostGridPoints = 2'000'001;

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

// The largest deviation of each of the states [offset, offset + size) from the reference's,
// relative to its range in the reference (states[r][k] is state offset + k at row r).
std::vector<double> relative_deviations(const std::vector<Vector>& ref,
                                        const std::vector<std::vector<double>>& states,
                                        std::size_t offset, std::size_t size) {
  std::vector<double> out;
  for (std::size_t k = 0; k < size; ++k) {
    const auto i = static_cast<Eigen::Index>(offset + k);
    double lo = ref.front()[i], hi = lo, deviation = 0;
    for (std::size_t r = 0; r < ref.size(); ++r) {
      lo = std::min(lo, ref[r][i]);
      hi = std::max(hi, ref[r][i]);
      deviation = std::max(deviation, std::abs(states[r][k] - ref[r][i]));
    }
    out.push_back(deviation / std::max(hi - lo, 1e-12));
  }
  return out;
}

// A partition's model with its open inputs read from the reference: the monolithic model's
// outputs at the reference state of the time asked, which must lie on the grid of half steps
// the reference was computed on (every stage of kausal's methods does).
class ExactInputs final : public RightHandSide {
 public:
  ExactInputs(const Model& partition, const Model& whole, std::vector<Eigen::Index> sources,
              const std::vector<Vector>& grid, double t0, double spacing)
      : partition_(partition),
        whole_(whole),
        sources_(std::move(sources)),
        grid_(grid),
        t0_(t0),
        spacing_(spacing),
        u_(static_cast<Eigen::Index>(sources_.size())),
        y_(static_cast<Eigen::Index>(whole.output_size())) {}
  void derivative(double t, VectorView x, VectorOut dx) override {
    partition_.derivative(t, x, inputs_at(t), dx);
  }
  void jacobian(double t, VectorView x, MatrixOut J) override {
    partition_.jacobian(t, x, inputs_at(t), J);
  }

 private:
  const Vector& inputs_at(double t) {
    const double k = std::round((t - t0_) / spacing_);
    if (k < 0 || k >= static_cast<double>(grid_.size()) ||
        std::abs(t - (t0_ + k * spacing_)) > 1e-6 * spacing_)
      throw SimulationError("a partition alone was asked for its inputs at t = " +
                            std::to_string(t) + ", off the reference's grid");
    whole_.output(t, grid_[static_cast<std::size_t>(k)], y_);
    for (std::size_t c = 0; c < sources_.size(); ++c)
      u_[static_cast<Eigen::Index>(c)] = y_[sources_[c]];
    return u_;
  }

  const Model& partition_;
  const Model& whole_;
  std::vector<Eigen::Index> sources_;  // per open input: the whole's output that drives it
  const std::vector<Vector>& grid_;
  double t0_, spacing_;
  Vector u_, y_;
};

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
  const std::vector<double> each = state_errors(trajectory_csv);
  return *std::max_element(each.begin(), each.end());
}

std::vector<double> ReferenceAnswer::state_errors(const std::filesystem::path& trajectory_csv) {
  const auto states = static_cast<std::size_t>(build_monolithic_model(s_)->initial_state().size());
  const Rows rows = read_rows(trajectory_csv, states);
  if (rows.times.empty()) throw InputError(trajectory_csv.string() + ": no rows");
  return relative_deviations(at(rows.times), rows.states, 0, states);
}

ReferenceAnswer::AloneErrors ReferenceAnswer::alone_errors() {
  const auto whole = build_monolithic_model(s_);
  const std::vector<std::string>& outputs = whole->signature().outputs;
  const std::vector<StateBlock> blocks = partition_blocks(s_);
  const std::vector<std::string>& names = whole->signature().states;
  AloneErrors errors;
  for (std::size_t p = 0; p < s_.partitions.size(); ++p) {
    const PartitionSpec& spec = s_.partitions[p];
    const auto model = build_partition_model(s_, p);
    std::vector<Eigen::Index> sources;
    for (std::size_t c : partition_inputs(s_, p)) {
      const CouplingSpec& link = s_.couplings[c];
      const SubsystemSpec& from = s_.subsystems[link.from];
      const std::string name = from.name + "." + from.signature.outputs[link.from_output];
      const auto at = std::find(outputs.begin(), outputs.end(), name);
      if (at == outputs.end())
        throw InputError(s_.file + ": the monolithic model has no output " + name);
      sources.push_back(at - outputs.begin());
    }
    if (model->input_size() != sources.size())
      throw InputError(s_.file + ": partition '" + spec.name +
                       "' has inputs that no coupling feeds (event inputs): it cannot be "
                       "measured alone against the reference");
    // The reference at every half step: the times of every stage of kausal's methods (up to
    // kMostGridPoints of them; a partition with more steps gets NaN, "not measured").
    const StateBlock& b = blocks[p];
    errors.emplace_back();
    if (2 * spec.steps + 1 > kMostGridPoints) {
      for (std::size_t k = 0; k < b.size; ++k)
        errors.back().emplace_back(names[b.offset + k], std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const double spacing = spec.h / 2;
    std::vector<double> grid_times;
    for (std::uint64_t k = 0; k <= 2 * spec.steps; ++k)
      grid_times.push_back(s_.t0() + static_cast<double>(k) * spacing);
    std::vector<Vector> grid;
    const auto f = [&](double t, const Vector& x, Vector& dx) {
      whole->derivative(t, x, Vector(), dx);
    };
    try {
      grid = reference::cvode_reference(f, whole->initial_state(), s_.t0(), grid_times);
    } catch (const std::runtime_error& e) {
      throw SimulationError(s_.file + ": the CVODE reference failed: " + e.what());
    }
    ExactInputs rhs(*model, *whole, sources, grid, s_.t0(), spacing);
    OdeStepper stepper(spec.method, model->state_size(), model->blocks(), spec.newton);
    Vector x = model->initial_state();
    std::vector<double> times;
    std::vector<std::vector<double>> states;
    const std::uint64_t every = std::max<std::uint64_t>(1, s_.output_ticks / spec.ticks_per_step);
    for (std::uint64_t n = 0;; ++n) {
      if (n % every == 0) {
        times.push_back(grid_times[2 * n]);
        states.emplace_back(x.data(), x.data() + x.size());
      }
      if (n == spec.steps) break;
      stepper.step(rhs, grid_times[2 * n], spec.h, x);
    }
    const std::vector<Vector>& ref = at(times);
    const std::vector<double> each = relative_deviations(ref, states, b.offset, b.size);
    for (std::size_t k = 0; k < each.size(); ++k)
      errors.back().emplace_back(names[b.offset + k], each[k]);
  }
  return errors;
}

}  // namespace kausal

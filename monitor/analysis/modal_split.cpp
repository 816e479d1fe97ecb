#include "monitor/analysis/modal_split.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "common/text_table.hpp"
#include "monitor/analysis/load_balance.hpp"
#include "monitor/analysis/partition_analysis.hpp"

namespace kausal {
namespace {

constexpr double unbounded = std::numeric_limits<double>::infinity();

// y ↦ M y by M's non-zero entries, row by row: the right side the operations are counted on.
class SparseLinear final : public RightHandSide {
 public:
  explicit SparseLinear(const Matrix& m) : size_(m.rows()) {
    rows_.resize(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c)
        if (m(r, c) != 0) rows_[static_cast<std::size_t>(r)].push_back({c, m(r, c)});
  }
  void derivative(double, VectorView x, VectorOut dx) override {
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      double sum = 0;
      for (const Entry& e : rows_[r]) sum += e.value * x[e.column];
      dx[static_cast<Eigen::Index>(r)] = sum;
    }
  }
  void jacobian(double, VectorView, MatrixOut J) override {
    for (std::size_t r = 0; r < rows_.size(); ++r)
      for (const Entry& e : rows_[r]) J(static_cast<Eigen::Index>(r), e.column) = e.value;
  }
  Eigen::Index size() const { return size_; }

 private:
  struct Entry {
    Eigen::Index column;
    double value;
  };
  Eigen::Index size_;
  std::vector<std::vector<Entry>> rows_;
};

std::vector<std::size_t> nonzeros_per_row(const Matrix& m) {
  std::vector<std::size_t> k(static_cast<std::size_t>(m.rows()), 0);
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      if (m(r, c) != 0) ++k[static_cast<std::size_t>(r)];
  return k;
}

// The real block of a mode: [λ] or [[a, b], [−b, a]].
Matrix block_of(const Mode& mode) {
  if (mode.states == 1) return Matrix::Constant(1, 1, mode.lambda.real());
  const double a = mode.lambda.real(), b = mode.lambda.imag();
  Matrix m(2, 2);
  m << a, b, -b, a;
  return m;
}

// The block-diagonal matrix of a part's modes.
Matrix part_matrix(const ModalSplit& split, const ModalPart& part) {
  Matrix m =
      Matrix::Zero(static_cast<Eigen::Index>(part.states), static_cast<Eigen::Index>(part.states));
  Eigen::Index at = 0;
  for (std::size_t k : part.modes) {
    const Matrix b = block_of(split.modes[k]);
    m.block(at, at, b.rows(), b.cols()) = b;
    at += b.rows();
  }
  return m;
}

// The largest stable step over some eigenvalues (growing modes set none).
double stable_step(OdeMethod method, const std::vector<std::complex<double>>& lambdas) {
  double h = unbounded;
  for (const auto& l : lambdas)
    if (l.real() <= 0) h = std::min(h, stable_step_limit(method, l));
  return h;
}

ModalPart part_of(const ModalSplit& split, std::vector<std::size_t> modes, OdeMethod method) {
  ModalPart p;
  p.modes = std::move(modes);
  std::vector<std::complex<double>> lambdas;
  p.slowest = unbounded;
  for (std::size_t k : p.modes) {
    const Mode& m = split.modes[k];
    p.states += m.states;
    lambdas.push_back(m.lambda);
    p.slowest = std::min(p.slowest, std::abs(m.lambda));
    p.fastest = std::max(p.fastest, std::abs(m.lambda));
  }
  const std::vector<std::size_t> rows = nonzeros_per_row(part_matrix(split, p));
  p.nonzeros = std::accumulate(rows.begin(), rows.end(), std::size_t{0});
  p.h = stable_step(method, lambdas);
  p.flops_per_step = flops_per_step(method, rows);
  return p;
}

std::string shown(double v, int digits = 3) {
  if (std::isinf(v)) return "any";
  std::ostringstream out;
  out.precision(digits);
  out << v;
  return out.str();
}

std::string lambda_text(const Mode& m) {
  if (m.states == 1) return shown(m.lambda.real());
  return shown(m.lambda.real()) + " ± " + shown(m.lambda.imag()) + "i";
}

std::string range_text(const ModalPart& p) {
  return p.slowest == p.fastest ? shown(p.slowest) : shown(p.slowest) + "–" + shown(p.fastest);
}

// A step's time as a fixed cost plus a cost per operation, fitted by least squares over the
// measured parts: what the count leaves out (the stepper's own work per step) shows as the
// fixed cost.
std::string fixed_cost_note(const ModalSplit& split) {
  std::vector<const ModalPart*> parts = {&split.whole};
  for (const ModalPart& g : split.groups) parts.push_back(&g);
  std::erase_if(parts, [](const ModalPart* p) { return !(p->step_us > 0); });
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const ModalPart* p : parts) {
    n += 1;
    sx += p->flops_per_step;
    sy += p->step_us;
    sxx += p->flops_per_step * p->flops_per_step;
    sxy += p->flops_per_step * p->step_us;
  }
  const double spread = n * sxx - sx * sx;
  if (n < 2 || !(spread > 0)) return {};
  const double per_flop = (n * sxy - sx * sy) / spread, fixed = (sy - per_flop * sx) / n;
  return "fit: a step took about " + shown(1000 * fixed) + " ns + " + shown(1000 * per_flop) +
         " ns per counted operation here (least squares over the rows): the fixed part is the "
         "stepper's own work, which the count leaves out\n";
}

}  // namespace

double flops_per_step(OdeMethod method, const std::vector<std::size_t>& nonzeros_per_row) {
  double f = 0;
  for (std::size_t k : nonzeros_per_row)
    if (k > 0) f += 2.0 * static_cast<double>(k) - 1;
  const auto n = static_cast<double>(nonzeros_per_row.size());
  switch (method) {
    case OdeMethod::euler:
      return f + 2 * n;
    case OdeMethod::rk3:
      return 3 * f + 11 * n;
    case OdeMethod::rk4:
      return 4 * f + 13 * n;
    default:
      throw std::invalid_argument(std::string("the operations are counted for euler, rk3 and "
                                              "rk4, not ") +
                                  std::string(ode_method_name(method)));
  }
}

namespace {

// A's modes by |λ| ascending and T, their real basis in that order.
void real_modal_form(const Matrix& A, ModalSplit& split) {
  const Eigen::EigenSolver<Matrix> solver(A, true);
  if (solver.info() != Eigen::Success)
    throw std::invalid_argument("the eigenvalues of the Jacobian did not converge");
  const auto values = solver.eigenvalues();
  const auto vectors = solver.eigenvectors();
  const double scale = std::max(1.0, values.cwiseAbs().maxCoeff());
  std::vector<Mode> modes;
  std::vector<std::vector<Vector>> columns;  // T's columns of each mode
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    const std::complex<double> l = values[k];
    if (std::abs(l.imag()) <= 1e-12 * scale) {
      modes.push_back({{l.real(), 0.0}, 1});
      columns.push_back({vectors.col(k).real()});
    } else if (l.imag() > 0) {
      modes.push_back({l, 2});
      columns.push_back({vectors.col(k).real(), vectors.col(k).imag()});
    }
  }
  std::vector<std::size_t> order(modes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(modes[a].lambda) < std::abs(modes[b].lambda);
  });
  split.basis = Matrix::Zero(A.rows(), A.cols());
  Eigen::Index column = 0;
  for (std::size_t k : order) {
    split.modes.push_back(modes[k]);
    for (const Vector& c : columns[k]) {
      if (column == A.cols()) break;
      split.basis.col(column++) = c;
    }
  }
  if (column != A.cols())
    throw std::invalid_argument("the Jacobian's complex eigenvalues do not come in pairs");
  const Eigen::JacobiSVD<Matrix> svd(split.basis);
  const auto sigma = svd.singularValues();
  split.condition = sigma(sigma.size() - 1) > 0 ? sigma(0) / sigma(sigma.size() - 1) : unbounded;
  for (std::size_t k : nonzeros_per_row(split.basis))
    if (k > 0) split.output_flops += 2.0 * static_cast<double>(k) - 1;
}

// The modes cut into `groups` at the largest ratios between neighbouring |λ| (the earliest
// on a tie).
void group_by_frequency(ModalSplit& split, std::size_t groups) {
  if (groups < 1 || groups > split.modes.size())
    throw std::invalid_argument("--modes " + std::to_string(groups) + ": the model has " +
                                counted(split.modes.size(), "mode") +
                                " (a complex pair is one): give 1 to " +
                                std::to_string(split.modes.size()));
  std::vector<std::size_t> gaps(split.modes.size() - 1);
  std::iota(gaps.begin(), gaps.end(), 0);
  const auto ratio = [&](std::size_t i) {
    return std::abs(split.modes[i + 1].lambda) /
           std::max(std::abs(split.modes[i].lambda), std::numeric_limits<double>::min());
  };
  std::stable_sort(gaps.begin(), gaps.end(),
                   [&](std::size_t a, std::size_t b) { return ratio(a) > ratio(b); });
  std::vector<std::size_t> cuts(gaps.begin(), gaps.begin() + static_cast<long>(groups - 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(split.modes.size() - 1);
  std::size_t first = 0;
  for (std::size_t last : cuts) {
    std::vector<std::size_t> members(last - first + 1);
    std::iota(members.begin(), members.end(), first);
    split.groups.push_back(part_of(split, members, split.method));
    first = last + 1;
  }
}

}  // namespace

ModalSplit split_modes(const Matrix& A, std::size_t groups, OdeMethod method) {
  if (A.rows() != A.cols() || A.rows() == 0)
    throw std::invalid_argument("the Jacobian is not a non-empty square matrix");
  if (!A.allFinite()) throw std::invalid_argument("the Jacobian has entries that are not finite");
  flops_per_step(method, {});  // the method is one the operations are counted for
  ModalSplit split;
  split.method = method;
  real_modal_form(A, split);
  group_by_frequency(split, groups);
  std::vector<std::complex<double>> all;
  for (const Mode& m : split.modes) all.push_back(m.lambda);
  const std::vector<std::size_t> rows = nonzeros_per_row(A);
  split.whole.states = static_cast<std::size_t>(A.rows());
  split.whole.nonzeros = std::accumulate(rows.begin(), rows.end(), std::size_t{0});
  split.whole.h = stable_step(method, all);
  split.whole.flops_per_step = flops_per_step(method, rows);
  split.whole.slowest = std::abs(split.modes.front().lambda);
  split.whole.fastest = std::abs(split.modes.back().lambda);
  return split;
}

void measure_modal_split(const Matrix& A, ModalSplit& split, std::chrono::milliseconds budget) {
  // From all ones, at most 2,000 steps at a time: decaying modes never reach the subnormal
  // numbers that would slow the arithmetic down.
  const auto measure = [&](const Matrix& m, ModalPart& part) {
    if (!(part.h > 0 && part.h < 1e300)) return;
    SparseLinear f(m);
    OdeStepper stepper(split.method, static_cast<std::size_t>(m.rows()));
    const Vector x0 = Vector::Ones(m.rows());
    const auto until = std::chrono::steady_clock::now() + budget;
    double sum = 0;
    int runs = 0;
    do {
      stepper.restart();
      sum += step_cost_us(stepper, f, x0, part.h, 2000, budget);
      ++runs;
    } while (std::chrono::steady_clock::now() < until);
    part.step_us = sum / runs;
  };
  measure(A, split.whole);
  for (ModalPart& g : split.groups) measure(part_matrix(split, g), g);
}

std::string format_modal_split(const ModalSplit& split, double output_interval) {
  std::ostringstream out;
  std::size_t pairs = 0;
  for (const Mode& m : split.modes) pairs += m.states == 2;
  out << "modes: the Jacobian in real modal form (eigenvector condition " << shown(split.condition)
      << "): " << counted(pairs, "oscillating pair") << ", "
      << counted(split.modes.size() - pairs, "real mode") << "\n";
  std::vector<std::vector<std::string>> modes = {{"mode", "lambda 1/s", "|lambda| 1/s", "group"}};
  for (std::size_t g = 0; g < split.groups.size(); ++g)
    for (std::size_t k : split.groups[g].modes)
      modes.push_back({std::to_string(k + 1), lambda_text(split.modes[k]),
                       shown(std::abs(split.modes[k].lambda)), std::to_string(g + 1)});
  out << format_table(modes, {Align::left, Align::right, Align::right, Align::right}) << "\n";

  const bool measured = split.whole.step_us > 0;
  std::vector<std::vector<std::string>> rows = {
      {"part", "modes", "states", "|lambda| 1/s", "stable h <= s", "FLOP/step", "FLOP per sim. s"}};
  if (measured) rows.front().insert(rows.front().end(), {"µs per sim. s", "ns/FLOP"});
  const auto row = [&](const std::string& name, const std::string& count, const ModalPart& p) {
    std::vector<std::string> r = {name,
                                  count,
                                  std::to_string(p.states),
                                  range_text(p),
                                  p.h == 0 ? "none" : shown(p.h),
                                  shown(p.flops_per_step, 4),
                                  shown(p.flops_per_second(), 4)};
    if (measured)
      r.insert(r.end(),
               {shown(p.us_per_second(), 4),
                p.flops_per_second() > 0 ? shown(1000 * p.us_per_second() / p.flops_per_second())
                                         : "-"});
    rows.push_back(r);
  };
  row("as it is", "all", split.whole);
  double flops = 0, us = 0;
  for (std::size_t g = 0; g < split.groups.size(); ++g) {
    row("group " + std::to_string(g + 1), std::to_string(split.groups[g].modes.size()),
        split.groups[g]);
    flops += split.groups[g].flops_per_second();
    us += split.groups[g].us_per_second();
  }
  out << std::string(ode_method_name(split.method))
      << " on the linear(ised) model, each part at its largest stable step: the model as it is "
         "against its modes in "
      << counted(split.groups.size(), "group") << " by frequency\n"
      << format_table(rows, {Align::left, Align::right, Align::right, Align::right, Align::right,
                             Align::right, Align::right, Align::right, Align::right});
  if (flops > 0 && split.whole.flops_per_second() > 0) {
    out << "estimate: the groups need " << shown(split.whole.flops_per_second() / flops)
        << "× fewer operations per simulated second than the model as it is";
    if (measured && us > 0) {
      const double gain = split.whole.us_per_second() / us;
      out << "; measured: "
          << (gain >= 1 ? shown(gain) + "× less time" : shown(1 / gain) + "× more time");
    }
    out << "\n";
  }
  if (measured) out << fixed_cost_note(split);
  if (output_interval > 0)
    out << "plus x = T z at each output row: " << shown(split.output_flops, 4) << " FLOP ("
        << shown(split.output_flops / output_interval, 4)
        << " per simulated second at the output interval " << shown(output_interval) << " s)\n";
  std::size_t growing = 0;
  for (const Mode& m : split.modes) growing += m.lambda.real() > 0;
  if (growing > 0)
    out << "note: " << counted(growing, "growing mode")
        << " (Re lambda > 0) set no step limit: their growth is the model's\n";
  if (split.condition > 1e8)
    out << "warning: the eigenvectors are nearly dependent (condition " << shown(split.condition)
        << "): the modal form loses about " << shown(std::log10(split.condition), 2)
        << " of the 16 digits; decoupling this model is not advisable\n";
  return out.str();
}

}  // namespace kausal

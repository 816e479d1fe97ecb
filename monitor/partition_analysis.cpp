#include "monitor/partition_analysis.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace kausal {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

void check_arguments(const Matrix& J, const std::vector<StateBlock>& blocks,
                     const std::vector<double>& h_per_block) {
  if (J.rows() != J.cols()) throw std::invalid_argument("partition analysis: J is not square");
  if (!h_per_block.empty() && h_per_block.size() != blocks.size())
    throw std::invalid_argument("partition analysis: one step per partition needed");
  for (const auto& b : blocks)
    if (b.size == 0 || b.offset + b.size > static_cast<std::size_t>(J.rows()))
      throw std::invalid_argument("partition analysis: partition '" + b.name +
                                  "' is empty or outside the Jacobian");
}

void eigen_diagnostics(const Matrix& block, PartitionDiagnostics& d) {
  Eigen::EigenSolver<Matrix> solver(block, false);
  const auto& values = solver.eigenvalues();
  d.eigenvalues.assign(values.data(), values.data() + values.size());
  double largest = 0;
  for (const auto& l : d.eigenvalues) largest = std::max(largest, std::abs(l));
  const double zero = 1e-12 * largest;
  d.min_abs_re = infinity;
  d.euler_h_max = infinity;
  for (const auto& l : d.eigenvalues) {
    const double re = l.real();
    if (std::abs(re) <= zero) {
      ++d.zero_real_parts;
      if (std::abs(l) > zero) ++d.undamped;
      continue;
    }
    if (re > 0)
      ++d.undamped;
    else
      d.euler_h_max = std::min(d.euler_h_max, -2 * re / std::norm(l));
    d.max_abs_re = std::max(d.max_abs_re, std::abs(re));
    d.min_abs_re = std::min(d.min_abs_re, std::abs(re));
  }
  if (d.min_abs_re == infinity) d.min_abs_re = 0;
  d.stiffness = d.min_abs_re > 0 ? d.max_abs_re / d.min_abs_re : 1;
}

// The columns of J outside the block, side by side.
Matrix rest_columns(const Matrix& J, const StateBlock& b) {
  const auto offset = static_cast<Eigen::Index>(b.offset);
  const auto size = static_cast<Eigen::Index>(b.size);
  const Eigen::Index rest = J.cols() - size;
  Matrix out(size, rest);
  out.leftCols(offset) = J.block(offset, 0, size, offset);
  out.rightCols(rest - offset) = J.block(offset, offset + size, size, rest - offset);
  return out;
}

double coupling_ratio(const Matrix& J, const StateBlock& b) {
  const Matrix rest = rest_columns(J, b);
  if (rest.size() == 0 || rest.isZero(0)) return 0;
  const auto offset = static_cast<Eigen::Index>(b.offset);
  const auto size = static_cast<Eigen::Index>(b.size);
  const Eigen::FullPivLU<Matrix> lu(J.block(offset, offset, size, size));
  if (!lu.isInvertible()) return infinity;
  return (lu.solve(rest)).cwiseAbs().rowwise().sum().maxCoeff();
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::vector<std::string> row_of(const PartitionDiagnostics& d) {
  const double low = d.min_abs_re, high = d.max_abs_re;
  return {d.name,
          std::to_string(d.size),
          number(d.stiffness),
          low == 0 && high == 0 ? "-" : number(-high) + " .. " + number(-low),
          number(d.euler_h_max),
          std::isnan(d.h) ? "-" : number(d.h),
          number(d.coupling_ratio)};
}

std::vector<std::string> notes_of(const PartitionDiagnostics& d) {
  std::vector<std::string> out;
  const std::string who = "partition " + d.name + ": ";
  if (d.warning)
    out.push_back("warning: " + who + "coupling ratio " + number(d.coupling_ratio) +
                  " >= 1 — the other partitions drive it more strongly than its own dynamics; "
                  "a split here needs small steps or a different cut");
  if (d.h_exceeds_euler)
    out.push_back("note: " + who + "h = " + number(d.h) + " exceeds the explicit Euler limit " +
                  number(d.euler_h_max) +
                  " (use a smaller step or an implicit/exponential method)");
  if (d.undamped)
    out.push_back("note: " + who + std::to_string(d.undamped) +
                  " undamped eigenvalue(s), Re >= 0 (explicit Euler grows them at any h)");
  return out;
}

}  // namespace

bool PartitionReport::any_warning() const {
  return std::any_of(partitions.begin(), partitions.end(), [](const auto& p) { return p.warning; });
}

PartitionReport analyze_partitions(const Matrix& J, const std::vector<StateBlock>& blocks,
                                   const std::vector<double>& h_per_block) {
  check_arguments(J, blocks, h_per_block);
  PartitionReport report;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    PartitionDiagnostics d;
    d.name = b.name;
    d.offset = b.offset;
    d.size = b.size;
    const auto offset = static_cast<Eigen::Index>(b.offset);
    const auto size = static_cast<Eigen::Index>(b.size);
    eigen_diagnostics(J.block(offset, offset, size, size), d);
    d.h = h_per_block.empty() ? std::nan("") : h_per_block[i];
    d.h_exceeds_euler = !std::isnan(d.h) && d.h >= d.euler_h_max;
    d.coupling_ratio = coupling_ratio(J, b);
    d.warning = d.coupling_ratio >= 1;
    report.partitions.push_back(std::move(d));
  }
  return report;
}

std::string format_partition_report(const PartitionReport& report) {
  std::vector<std::vector<std::string>> rows = {
      {"partition", "states", "stiffness", "Re(lambda) range", "Euler h_max", "h", "kappa"}};
  for (const auto& d : report.partitions) rows.push_back(row_of(d));
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) line += padded(r[c], widths[c] + 2);
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  for (const auto& d : report.partitions)
    for (const auto& note : notes_of(d)) out += note + "\n";
  return out;
}

}  // namespace kausal

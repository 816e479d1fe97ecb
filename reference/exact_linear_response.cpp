#include "reference/exact_linear_response.hpp"

#include <unsupported/Eigen/MatrixFunctions>

namespace kausal::reference {

std::vector<Vector> exact_linear_response(const Matrix& A, const Matrix& B, const Vector& u_const,
                                          const Vector& x0, const std::vector<double>& times) {
  const Eigen::Index n = A.rows();
  Matrix augmented = Matrix::Zero(n + 1, n + 1);
  augmented.topLeftCorner(n, n) = A;
  augmented.topRightCorner(n, 1) = B * u_const;
  Vector start(n + 1);
  start << x0, 1.0;  // the last component carries the constant input
  std::vector<Vector> out;
  out.reserve(times.size());
  for (double t : times) {
    const Matrix propagator = (augmented * t).exp();
    out.emplace_back((propagator * start).head(n));
  }
  return out;
}

}  // namespace kausal::reference

#pragma once
// The exact solution of a linear system with a constant input, ẋ = A x + B u, from the
// matrix exponential (Eigen's unsupported MatrixFunctions, Padé with scaling and squaring):
// an answer that needs no integrator at all.
#include <vector>

#include "system/model.hpp"

namespace kausal::reference {

// x(t) for each of `times` (measured from x(0) = x0). Uses the augmented matrix
// [[A, B u], [0, 0]], whose exponential holds e^{tA} x0 + ∫ e^{sA} ds B u in its columns,
// so A need not be invertible and is never inverted.
std::vector<Vector> exact_linear_response(const Matrix& A, const Matrix& B, const Vector& u_const,
                                          const Vector& x0, const std::vector<double>& times);

}  // namespace kausal::reference

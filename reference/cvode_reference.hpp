#pragma once
// Reference solutions from a trusted solver (docs/model.md §4): SUNDIALS CVODE, never the code
// under test. The settings are fixed here and recorded in the .cpp, so a reference value in
// a test is reproducible from its call: the call is "the command that produced the answer".
#include <functional>
#include <vector>

#include "system/model.hpp"

namespace kausal::reference {

using RightHandSide = std::function<void(double t, const Vector& x, Vector& dx)>;

// x at each of `times` (ascending, ≥ t0) of ẋ = f(t, x), x(t0) = x0. Throws
// std::runtime_error naming the CVODE flag (e.g. CV_TOO_MUCH_WORK) when CVODE fails.
std::vector<Vector> cvode_reference(RightHandSide f, Vector x0, double t0,
                                    const std::vector<double>& times, double rtol = 1e-10,
                                    double atol = 1e-12);

}  // namespace kausal::reference

#pragma once
// The Adams families of linear multistep methods (docs/model.md §4), of order k = 1..4:
//
//   Adams–Bashforth AB(k), explicit, k steps:
//     x_{n+1} = x_n + h/d · Σ_{j<k} b_j f_{n−j}
//   Adams–Moulton AM(k), implicit, k − 1 steps (AM1 is backward Euler, AM2 the trapezoidal
//   rule):
//     x_{n+1} = x_n + h/d · (β f_{n+1} + Σ_j c_j f_{n−j})
//   Adams–Bashforth–Moulton ABM(k) in P(EC)^M E mode: AB(k) predicts, then M times the
//   derivative at the prediction is evaluated and AM(k) corrects with it. The final E is
//   the next step's f_n (every step evaluates f at its start, so a state set from outside, a
//   rollback or an injected value is always stepped from its own derivative).
//
// The coefficients are kept as integer numerators over one denominator, the form the
// textbooks give: x + (h/d)·(Σ numerators·f) is what the steppers compute, so AB3 has the
// bits it had before the families existed.
#include <array>
#include <cstddef>
#include <optional>

#include "integrator/method.hpp"

namespace kausal {

enum class AdamsFamily { bashforth, moulton, predictor_corrector };

struct AdamsScheme {
  AdamsFamily family;
  int order;            // k, 1..4
  int corrections = 0;  // predictor_corrector: M of P(EC)^M E
};

// The scheme of an Adams method; nullopt for every other method.
std::optional<AdamsScheme> adams_scheme(OdeMethod m);

// h/d · Σ_j numerators[j] f_{n−j}, j < terms (f_n first).
struct ExplicitAdams {
  double denominator;
  std::array<double, 4> numerators;
  int terms;
};
// h/d · (implicit f_{n+1} + Σ_j numerators[j] f_{n−j}), j < terms (f_n first).
struct ImplicitAdams {
  double denominator;
  double implicit;
  std::array<double, 3> numerators;
  int terms;
};

ExplicitAdams bashforth(int order);
ImplicitAdams moulton(int order);

// The derivatives before f_n a scheme needs: AB(k) and ABM(k) k − 1, AM(k) k − 2 (at least 0).
std::size_t adams_history(const AdamsScheme& a);

}  // namespace kausal

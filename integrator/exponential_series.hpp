#pragma once
// The matrix function of the exponential method DRE0 (docs/model.md §4), without inverting A.
#include "system/model.hpp"

namespace kausal {

// A_D = A^{-1}(e^{hA} − I) = h·Σ_{k≥0} (hA)^k/(k+1)!, so that A·A_D + I = e^{hA}. A may be
// singular (then the series is the only meaning of A^{-1}(e^{hA} − I)).
//
// How: halve h s times until ‖hA‖₁/2^s ≤ 1/2, sum the series for τ = h/2^s to a fixed
// number of terms (enough for full double accuracy at that norm, and the same number every
// time so the result's bits depend on A and h only), then double back s times with
// D(2τ) = D(τ)(2I + A·D(τ)), which follows from e^{2τA} − I = (e^{τA} − I)(e^{τA} + I).
// Throws SimulationError if A or h is not finite.
Matrix phi1_times_h(const Matrix& A, double h);

// A_D and B_D = ∫_0^h e^{(h−s)A} s ds = h²·Σ_{k≥0} (hA)^k/(k+2)! (DRE1's ramp term) in one
// pass: the same halving and series for τ, then doubled back with
// B(2τ) = (2I + A·D(τ))·B(τ) + τ·D(τ) beside D(2τ) = D(τ)(2I + A·D(τ)). Its a_d has the bits
// of phi1_times_h(A, h). Throws SimulationError if A or h is not finite.
struct ExponentialMatrices {
  Matrix a_d, b_d;
};
ExponentialMatrices phi1_and_phi2(const Matrix& A, double h);

}  // namespace kausal

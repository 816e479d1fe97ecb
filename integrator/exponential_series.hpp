#pragma once
// The matrix function of the exponential method DRE0 (docs/model.md §4), without inverting A.
#include <optional>

#include "system/model.hpp"

namespace kausal {

// The terms phi1_times_h sums, whatever A and h: with ‖τA‖ ≤ 1/2 the first omitted one is at
// most 0.5^14/15! ≈ 5e-17 of the leading I.
inline constexpr int series_terms = 14;
// The halvings of h phi1_times_h makes before its series (each costs two matrix products
// when it doubles back): 0 while ‖hA‖₁ ≤ 1/2.
int series_halvings(const Matrix& A, double h);

// Clemens' A_D: the series h·Σ (hA)^k/(k+1)! summed as it stands, until a term is at most
// `epsilon` times the sum so far (1-norms): how many terms that takes (k + 1 for the last term
// k), and how far its sum is from phi1_times_h's (relative, 1-norm: with ‖hA‖ large the terms
// grow before they shrink, and cancellation eats the digits). nullopt beyond `most` terms.
struct UnscaledSeries {
  int terms = 0;
  double error = 0;
};
std::optional<UnscaledSeries> unscaled_series_terms(const Matrix& A, double h, double epsilon,
                                                    int most = 1000);

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

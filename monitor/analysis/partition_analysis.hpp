#pragma once
// Diagnostics of a partitioned model from its Jacobian (docs/model.md §4; `kausal analyze`):
// per partition, its eigenvalues (growing ones marked), how stiff it is, the largest step
// its own integration method takes on it stably, and how strongly the other partitions
// drive it. These numbers decide whether a partition is sensible and which step each part can
// take (docs/adding-a-model.md).
//
// Coupling ratio, our reading of the criterion of the partitioned-simulation source
// (docs/benchmarks.md): for partition i with diagonal block
// A_ii and the rows of i against every other state A_i,rest,
//   κ_i = ‖A_ii⁻¹ A_i,rest‖_∞
// is the contraction factor of block-Jacobi iteration on the linearised system: how much a
// change in the other partitions' states moves partition i's quasi-steady state, relative to
// its own dynamics. κ_i < 1 for every i means the partition converges when each part is
// solved with the others' values held (the waveform-relaxation / pDRE0 view); κ_i ≥ 1 means
// the coupling dominates the part's own dynamics and the cut goes through a strong link, so
// a warning is raised. When A_ii is singular (numerically, by full-pivot LU) κ_i is reported
// as infinite unless partition i has no coupling at all (then 0).
#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "integrator/exponential_series.hpp"
#include "integrator/ode_method.hpp"
#include "system/model.hpp"
#include "system/state_block.hpp"

namespace kausal {

// How a partition steps: its integration method and step.
struct PartitionStepping {
  OdeMethod method = OdeMethod::euler;
  double h = 0;
};

// The largest h for which h·λ stays in the stability region of `method` (from 0 along the
// ray through λ): the step below which the method keeps the mode of eigenvalue λ bounded.
//   euler |1 + z| <= 1; rk3, rk4 |R(z)| <= 1 with R the Taylor polynomial of e^z of
//   order 3, 4; ab3 every root ζ of ζ³ − ζ² = (z/12)(23ζ² − 16ζ + 5) has |ζ| <= 1.
// Infinite for backward_euler (A-stable) and the exponential methods (exact on linear
// dynamics), and for an eigenvalue 0. Only for Re λ <= 0 (a growing mode is the model's,
// not the method's); 0 when no step is stable (euler on an imaginary λ).
double stable_step_limit(OdeMethod method, std::complex<double> lambda);

struct PartitionDiagnostics {
  std::string name;
  std::size_t offset = 0, size = 0;
  std::vector<std::complex<double>> eigenvalues;  // of the diagonal block A_ii
  // Signed: the smallest and largest Re λ (a positive one is a growing mode; one that is
  // zero by the rule below is 0).
  double min_re = 0, max_re = 0;
  // Over the eigenvalues whose real part is not zero (|Re λ| > 1e-9 · max |λ|; a zero
  // eigenvalue or a purely imaginary pair has no time scale of decay): largest and smallest
  // |Re λ| and their ratio, the stiffness. With no such eigenvalue all three are 0 and the
  // stiffness is reported as 1.
  double max_abs_re = 0, min_abs_re = 0, stiffness = 1;
  std::size_t zero_real_parts = 0;
  std::size_t unstable = 0;  // Re λ > 0 (not zero): the linearised partition grows by itself
  std::size_t undamped = 0;  // Re λ zero, λ not: oscillates without decay
  // How the partition steps (unknown when none was given), and the largest stable step of
  // its method: min over its eigenvalues with Re λ <= 0 of stable_step_limit (NaN unknown).
  std::optional<OdeMethod> method;
  double h = 0;  // NaN when unknown
  double h_max = 0;
  bool h_exceeds_limit = false;  // h >= h_max
  double coupling_ratio = 0;     // κ_i, see above
  bool warning = false;          // κ_i >= 1
  // An exponential method: how its A_D is summed for A_ii and h (docs/benchmarks.md C), by
  // kausal (series_terms after this many halvings) and by Clemens' unscaled series to each of
  // kSeriesEpsilons (nullopt: not within 1000 terms).
  std::optional<int> halvings;
  std::vector<std::optional<UnscaledSeries>> unscaled_terms;
};

inline constexpr double kSeriesEpsilons[] = {1e-4, 1e-8, 1e-12};

struct PartitionReport {
  std::vector<PartitionDiagnostics> partitions;
  bool any_warning() const;
};

// J: the Jacobian of the whole coupled model (square); blocks: the partitions as ranges of
// its states (need not cover all states; those outside every block count as "rest");
// stepping: the method and step of each partition, or empty. Throws std::invalid_argument
// for mismatched sizes or a block outside J.
PartitionReport analyze_partitions(const Matrix& J, const std::vector<StateBlock>& blocks,
                                   const std::vector<PartitionStepping>& stepping);

// An aligned table, one line per partition, then one line per warning and per note.
std::string format_partition_report(const PartitionReport& report);

}  // namespace kausal

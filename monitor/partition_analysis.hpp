#pragma once
// Diagnostics of a partitioned model from its Jacobian (design.md §4; `kausal analyze`):
// per partition, how stiff it is, the largest step explicit Euler takes on it stably, and how
// strongly the other partitions drive it. These are the numbers Clemens (1993) uses to
// decide whether a partition is sensible and which step each part can take.
//
// Coupling ratio, our reading of Clemens' criterion: for partition i with diagonal block
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
#include <string>
#include <vector>

#include "system/model.hpp"
#include "system/state_block.hpp"

namespace kausal {

struct PartitionDiagnostics {
  std::string name;
  std::size_t offset = 0, size = 0;
  std::vector<std::complex<double>> eigenvalues;  // of the diagonal block A_ii
  // Over the eigenvalues whose real part is not zero (|Re λ| > 1e-12 · max |λ|; a zero
  // eigenvalue or a purely imaginary pair has no time scale of decay): largest and smallest
  // |Re λ| and their ratio, the stiffness. With no such eigenvalue all three are 0 and the
  // stiffness is reported as 1.
  double max_abs_re = 0, min_abs_re = 0, stiffness = 1;
  std::size_t zero_real_parts = 0;
  // Explicit Euler is stable for h < euler_h_max = min over Re λ < 0 of −2 Re λ / |λ|²
  // (infinite if there is none). An undamped eigenvalue — Re λ > 0, or a purely imaginary
  // pair — grows under Euler at any h (counted here); a zero eigenvalue (an integrator
  // state, a position without a spring) is neutral and only counted in zero_real_parts.
  double euler_h_max = 0;
  std::size_t undamped = 0;
  double h = 0;                  // the step of this partition (NaN when none was given)
  bool h_exceeds_euler = false;  // h ≥ euler_h_max
  double coupling_ratio = 0;     // κ_i, see above
  bool warning = false;          // κ_i ≥ 1
};

struct PartitionReport {
  std::vector<PartitionDiagnostics> partitions;
  bool any_warning() const;
};

// J: the Jacobian of the whole coupled model (square); blocks: the partitions as ranges of
// its states (need not cover all states; those outside every block count as "rest");
// h_per_block: the step of each partition, or empty. Throws std::invalid_argument for
// mismatched sizes or a block outside J.
PartitionReport analyze_partitions(const Matrix& J, const std::vector<StateBlock>& blocks,
                                   const std::vector<double>& h_per_block);

// An aligned table, one line per partition, then one line per warning and per note.
std::string format_partition_report(const PartitionReport& report);

}  // namespace kausal

#pragma once
// Modal decoupling and its cost (`kausal analyze --modes K`; docs/experiments.md, "Modes:
// decoupled by frequency"). The Jacobian A of the coupled model at one point is brought to
// real modal form, z = T⁻¹ x with T the eigenvectors (a real eigenvalue's vector, the real and
// imaginary parts of a complex pair's): z' = Λ z with Λ block diagonal, a 1×1 block λ per
// real eigenvalue and a 2×2 block [[a, b], [−b, a]] per pair a ± ib. Each block evolves by
// itself, so the modes can be grouped into K partitions by frequency |λ| (cut at the K − 1
// largest ratios between neighbouring |λ|), and each partition can take the largest step its
// method is stable at for its own modes, where the model as it stands takes the smallest step
// any mode allows.
//
// The cost per step is counted in floating-point operations of the method on a linear right
// side y ↦ M y stored by its non-zero entries: f costs Σ over the rows with k ≥ 1 entries of
// (2k − 1), and the stage combinations cost 2 (Euler), 11 (RK3) or 13 (RK4) per state, as
// the steppers compute them (integrator/stepper.hpp, integrator/ode_method.cpp). The same
// right sides are then stepped by kausal's own stepper and timed, so the estimate can be held
// against the measured cost (ns per counted operation should come out alike for every row).
#include <chrono>
#include <complex>
#include <string>
#include <vector>

#include "integrator/ode_method.hpp"
#include "system/model.hpp"

namespace kausal {

struct Mode {
  std::complex<double> lambda;  // Im λ >= 0: a pair is given by its upper member
  std::size_t states = 1;       // 1 (real) or 2 (a pair)
};

// A set of modes stepped together (or, for the model as it stands, every state).
struct ModalPart {
  std::vector<std::size_t> modes;  // indices into ModalSplit::modes (none for the whole)
  std::size_t states = 0;
  std::size_t nonzeros = 0;         // of its right side's matrix
  double slowest = 0, fastest = 0;  // |λ| over its modes, 1/s
  double h = 0;                     // the largest stable step of the method (inf: any)
  double flops_per_step = 0;
  double flops_per_second() const { return h > 0 && h < 1e300 ? flops_per_step / h : 0; }
  double step_us = 0;  // measured: one step by kausal's stepper (0: not measured)
  double us_per_second() const { return h > 0 && h < 1e300 ? step_us / h : 0; }
};

struct ModalSplit {
  OdeMethod method = OdeMethod::rk4;
  std::vector<Mode> modes;        // by |λ| ascending
  ModalPart whole;                // the model as it stands: every state at the smallest step
  std::vector<ModalPart> groups;  // slowest first
  Matrix basis;                   // T: x = T z, the modes' columns in the order of `modes`
  double condition = 1;           // of T: large means the modes are nearly dependent
  double output_flops = 0;        // x = T z for one output row
};

// Floating-point operations of one step of `method` (euler, rk3, rk4) on y' = M y with the
// given count of non-zero entries per row. std::invalid_argument for another method.
double flops_per_step(OdeMethod method, const std::vector<std::size_t>& nonzeros_per_row);

// A's modes in K groups (1 <= K <= the number of modes; std::invalid_argument otherwise, or
// for a method other than euler, rk3, rk4, or a non-square or non-finite A).
ModalSplit split_modes(const Matrix& A, std::size_t groups, OdeMethod method);

// Steps the whole and each group by kausal's stepper for about `budget` each and fills in
// step_us.
void measure_modal_split(const Matrix& A, ModalSplit& split, std::chrono::milliseconds budget);

// The table: per mode, then per group against the whole, and what the split saves.
std::string format_modal_split(const ModalSplit& split, double output_interval);

}  // namespace kausal

#pragma once
// The co-simulation master's stand-in for a partition that cannot repeat a step (an FMU
// without get/set state; docs/cosimulation.md, "Surrogates"): a linear model of how the
// partition's outputs at the end of a macro step move with its inputs there, fitted over the
// last accepted steps.
//
// Both sides are measured against the extrapolation the master makes from the history alone:
// e_u, how far each input as finally used at T + H lies from its extrapolation, and e_y, how
// far each output came out from its own. The surrogate is e_y ≈ D e_u, with D the
// least-squares fit over the last `window` steps (ridge-regularised, so that it stays defined
// with fewer steps than inputs or with inputs that never moved: D is then 0 and the surrogate
// is the extrapolation). Its prediction of an output is the output's extrapolation plus
// D e_u for the inputs the master is about to give the partition.
#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace kausal {

class LinearSurrogate {
 public:
  // `inputs` and `outputs` are the partition's coupled inputs and outputs; window ≥ 1.
  // std::invalid_argument otherwise.
  LinearSurrogate(std::size_t inputs, std::size_t outputs, std::size_t window = 8);

  std::size_t inputs() const { return inputs_; }
  std::size_t outputs() const { return outputs_; }
  std::size_t samples() const { return samples_.size(); }

  // One accepted step: its input deviations e_u and output deviations e_y (sizes inputs()
  // and outputs(); std::invalid_argument otherwise). Non-finite values are not learned from.
  void learn(std::span<const double> input_deviation, std::span<const double> output_deviation);

  // D e_u: how far the outputs are expected to lie from their extrapolations when the inputs
  // lie e_u from theirs.
  std::vector<double> correction(std::span<const double> input_deviation) const;

  // The fitted D, row-major (outputs × inputs).
  const std::vector<double>& gains() const { return gains_; }

 private:
  void fit();

  struct Sample {
    std::vector<double> input, output;
  };
  std::size_t inputs_, outputs_, window_;
  std::deque<Sample> samples_;
  std::vector<double> gains_;
};

}  // namespace kausal

#pragma once
// The System component without transport: one configured model, Calc counting, busy time,
// and checks on every value that arrives from outside. SystemServant and the in-process
// link both wrap this.
#include <memory>
#include <span>
#include <string>

#include "common/activity_clock.hpp"
#include "system/model.hpp"
#include "system/model_change.hpp"

namespace kausal {

class SystemCore {
 public:
  explicit SystemCore(std::string name) : name_(std::move(name)) {}

  // Throws ModelError naming the bad parameter, or a size beyond limits::max_model_size.
  // Returns the state size.
  std::size_t configure(const std::string& model, const Parameters& parameters);
  // A model built elsewhere (a partition's composite); returns the state size.
  std::size_t configure(std::unique_ptr<Model> model);
  void handle_event(const Event& event, std::span<double> x);
  // A partition's constant input or parameter changes from change.from on (ModelError for a
  // model that is not a partition, or a change it refuses).
  void change(const ModelChange& change);

  // The model API (docs/model.md §4), every value checked before the model sees it.
  const Model& model() const { return configured(); }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx);
  void output(double t, VectorView x, VectorOut y);
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J);
  void indicators(double t, VectorView x, VectorView u, VectorOut g);
  void on_crossing(std::size_t indicator, double t, VectorOut x);
  void completed_step(double t, VectorOut x);
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x);
  Bytes save_internal();
  // The bytes may come from the wire or a checkpoint: at most limits::max_internal_bytes.
  void restore_internal(std::span<const std::uint8_t> bytes);

  const std::string& name() const { return name_; }
  ActivityTotals totals() const { return clock_.totals(); }
  const ActivityTrace& trace() const { return clock_.trace(); }

 private:
  const Model& configured() const;
  void check_state(std::span<const double> x, const char* what) const;
  void check_inputs(VectorView u) const;
  void check_input_derivatives(VectorView u, MatrixView du) const;
  // Runs a model call, naming this System in a ModelError the model throws.
  template <typename Call>
  void guarded(ActivityCall name, Call&& call);

  std::string name_;
  std::unique_ptr<Model> model_;
  ActivityClock clock_;
};

}  // namespace kausal

#pragma once
// An Integrator's System in the same process: a direct call, no transport.
#include "integrator/model_link.hpp"
#include "system/system_core.hpp"

namespace kausal {

class LocalModelLink final : public ModelLink {
 public:
  explicit LocalModelLink(SystemCore& system) : system_(system) {}
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) override {
    system_.derivative(t, x, u, dx);
  }
  void output(double t, VectorView x, VectorOut y) override { system_.output(t, x, y); }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) override {
    system_.jacobian(t, x, u, J);
  }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) override {
    system_.indicators(t, x, u, g);
  }
  void on_crossing(std::size_t indicator, double t, VectorOut x) override {
    system_.on_crossing(indicator, t, x);
  }
  void completed_step(double t, VectorOut x) override { system_.completed_step(t, x); }
  void handle_event(const Event& event, std::span<double> x) override {
    system_.handle_event(event, x);
  }
  void change(const ModelChange& change) override { system_.change(change); }
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) override {
    system_.step(t, h, u, du, x);
  }
  Bytes save_internal() override { return system_.save_internal(); }
  void restore_internal(std::span<const std::uint8_t> bytes) override {
    system_.restore_internal(bytes);
  }

 private:
  SystemCore& system_;
};

}  // namespace kausal

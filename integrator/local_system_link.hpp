#pragma once
// An Integrator's System in the same process: a direct call, no transport.
#include "integrator/system_link.hpp"
#include "system/system_core.hpp"

namespace kausal {

class LocalSystemLink final : public SystemLink {
 public:
  explicit LocalSystemLink(SystemCore& system) : system_(system) {}
  void calc(double t, std::span<const double> x, std::span<double> dx) override {
    system_.calc(t, x, dx);
  }
  void handle_event(const Event& event, std::span<double> x) override {
    system_.handle_event(event, x);
  }

 private:
  SystemCore& system_;
};

}  // namespace kausal

#pragma once
// How an Integrator reaches its System: directly in one process, or over CORBA.
#include <span>

#include "system/model.hpp"

namespace kausal {

class SystemLink {
 public:
  virtual ~SystemLink() = default;
  virtual void calc(double t, std::span<const double> x, std::span<double> dx) = 0;
  virtual void handle_event(const Event& event, std::span<double> x) = 0;
};

}  // namespace kausal

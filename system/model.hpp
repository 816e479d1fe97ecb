#pragma once
// The model API seen by Systems: equations and event handlers, no CORBA, threads or I/O.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kausal {

using Parameters = std::vector<std::pair<std::string, double>>;

struct Event {
  std::string kind;
  std::uint64_t step = 0;
  double t = 0;
  std::vector<double> data;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::size_t state_size() const = 0;
  // dx/dt at (t, x): one "Calc" of the thesis.
  virtual void calc(double t, std::span<const double> x, std::span<double> dx) const = 0;
  // Applies an event to x in place. Throws ModelError for an event kind it does not know.
  virtual void handle_event(const Event& event, std::span<double> x) const = 0;
};

// Builds a model by registered name from named parameters; throws ModelError naming the
// parameter that is missing, unknown or out of range.
std::unique_ptr<Model> make_model(const std::string& component, const std::string& name,
                                  const Parameters& parameters);

}  // namespace kausal

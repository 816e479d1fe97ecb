// Every model kausal ships, registered by name. Adding a model: write its file in this
// folder with a register_<name>(ModelRegistry&) function, add it to system/CMakeLists.txt
// and one line below (docs/adding-a-model.md).
#include "system/model_registry.hpp"
#include "system/pendulum.hpp"

namespace kausal {

const ModelRegistry& model_registry() {
  static const ModelRegistry registry = [] {
    ModelRegistry r;
    register_pendulum(r);
    return r;
  }();
  return registry;
}

}  // namespace kausal

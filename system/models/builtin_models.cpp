// Every model kausal ships, registered by name. Adding a model: write its file in this
// folder with a register_<name>(ModelRegistry&) function, add it to system/CMakeLists.txt
// and one line below (docs/adding-a-model.md).
#include "system/model_registry.hpp"
#include "system/models/actuator.hpp"
#include "system/models/bouncing_ball.hpp"
#include "system/models/eigenvalue_jump.hpp"
#include "system/models/load.hpp"
#include "system/models/orifice_chamber.hpp"
#include "system/models/oscillator_mass.hpp"
#include "system/models/sampled_pi.hpp"
#include "system/models/synchronous_machine.hpp"
#include "system/models/turbine.hpp"
#include "system/models/water_tank.hpp"
#include "system/models/wear.hpp"
#include "system/pendulum.hpp"

namespace kausal {

const ModelRegistry& model_registry() {
  static const ModelRegistry registry = [] {
    ModelRegistry r;
    register_pendulum(r);
    register_orifice_chamber(r);
    register_synchronous_machine(r);
    register_turbine(r);
    register_actuator(r);
    register_load(r);
    register_oscillator_mass(r);
    register_bouncing_ball(r);
    register_water_tank(r);
    register_sampled_pi(r);
    register_wear(r);
    register_eigenvalue_jump(r);
    return r;
  }();
  return registry;
}

}  // namespace kausal

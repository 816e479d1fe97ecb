// kausal-integrator: one Integrator servant per process (docs/model.md §5).
#include "idl/component_process.hpp"
#include "integrator/integrator_servant.hpp"

int main(int argc, char** argv) {
  return kausal::run_component_process(argc, argv, "integrator",
                                       [](const std::string& name, kausal::OrbRuntime& orb) {
                                         return new kausal::IntegratorServant(name, orb);
                                       });
}

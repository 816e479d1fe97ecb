// kausal-pendulum: the System and the Integrator of one pendulum in one process (the
// pendulum layout, docs/architecture.md). The Integrator calls its System through the
// System's object reference, as across processes; the collocated POA makes that call a
// plain virtual call.
#include "idl/component_process.hpp"
#include "integrator/integrator_servant.hpp"
#include "system/system_servant.hpp"

int main(int argc, char** argv) {
  using kausal::OrbRuntime;
  return kausal::run_components_process(
      argc, argv, "pendulum",
      {{"system", [](const std::string& name,
                     OrbRuntime& orb) { return new kausal::SystemServant(name, orb); }},
       {"integrator", [](const std::string& name, OrbRuntime& orb) {
          return new kausal::IntegratorServant(name, orb);
        }}});
}

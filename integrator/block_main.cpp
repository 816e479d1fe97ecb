// kausal-block: one block of a chain's pendulums per process (--layout block-processes:K,
// docs/architecture.md "Blocks").
#include "idl/component_process.hpp"
#include "integrator/block_servant.hpp"

int main(int argc, char** argv) {
  return kausal::run_component_process(argc, argv, "block",
                                       [](const std::string& name, kausal::OrbRuntime& orb) {
                                         return new kausal::BlockServant(name, orb);
                                       });
}

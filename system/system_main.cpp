// kausal-system: one System servant per process (docs/model.md §5).
#include "idl/component_process.hpp"
#include "system/system_servant.hpp"

int main(int argc, char** argv) {
  return kausal::run_component_process(argc, argv, "system",
                                       [](const std::string& name, kausal::OrbRuntime& orb) {
                                         return new kausal::SystemServant(name, orb);
                                       });
}

// kausal-event-group: one discrete-event group per process (docs/events.md, "Process layout").
#include "idl/component_process.hpp"
#include "integrator/events/event_group_servant.hpp"

int main(int argc, char** argv) {
  return kausal::run_component_process(argc, argv, "event-group",
                                       [](const std::string& name, kausal::OrbRuntime& orb) {
                                         return new kausal::EventGroupServant(name, orb);
                                       });
}

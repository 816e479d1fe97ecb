#pragma once
// The main() shared by kausal-system and kausal-integrator: parse the common options,
// start the ORB, activate one servant, print its object reference on stdout (the launcher
// reads it), serve until shutdown.
#include <functional>
#include <string>

#include "idl/orb_runtime.hpp"

namespace kausal {

using ServantFactory =
    std::function<PortableServer::ServantBase*(const std::string& name, OrbRuntime& orb)>;

int run_component_process(int argc, char** argv, const std::string& role,
                          const ServantFactory& make_servant);

}  // namespace kausal

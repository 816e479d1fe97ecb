#pragma once
// The main() shared by the component executables (kausal-system, kausal-integrator,
// kausal-pendulum): parse the common options, start the ORB, activate the servants, print
// their object references on stdout, one a line in the order given (the launcher reads
// them), serve until shutdown.
#include <functional>
#include <string>
#include <vector>

#include "idl/orb_runtime.hpp"

namespace kausal {

using ServantFactory =
    std::function<PortableServer::ServantBase*(const std::string& name, OrbRuntime& orb)>;

struct HostedRole {
  std::string role;  // "system", "integrator": the default name, e.g. system
  ServantFactory make_servant;
};

// One servant in the root POA.
int run_component_process(int argc, char** argv, const std::string& role,
                          const ServantFactory& make_servant);

// Several servants in one process (`--name` given once per role, in order), activated in a
// collocated POA: calls between them through their object references take the local
// shortcut (see CollocatedAdapter).
int run_components_process(int argc, char** argv, const std::string& what,
                           const std::vector<HostedRole>& roles);

}  // namespace kausal

#pragma once
// `kausal node --name NAME --naming REF`: the per-host agent of multi-host runs.
#include <string>

#include "idl/orb_runtime.hpp"

namespace CLI {
class App;
}

namespace kausal {

struct NodeOptions {
  std::string name;
  std::string naming;    // corbaloc::HOST:PORT/NameService
  std::string work_dir;  // empty: a fresh one under /tmp
  OrbSettings orb;       // --host, --tls-*, --link-delay, call timeout of the node itself
};

void add_node_options(CLI::App& cmd, NodeOptions& options);
// Serves until SIGINT/SIGTERM or Node::shutdown; ends everything it started. Throws
// kausal::Error (bad options, naming service unreachable, name taken).
int node_command(const NodeOptions& options);

}  // namespace kausal

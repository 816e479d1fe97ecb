#pragma once
// A deployment file (TOML): which node agent starts which component process, where the
// naming service is, where the monitor serves (docs/multi-host.md).
//
//   naming = "corbaloc::10.0.0.1:2809/NameService"   # optional; --naming wins
//   monitor_host = "10.0.0.1"                        # optional; --host wins
//   [[node]]
//   name = "alpha"
//   components = ["pendulum-1", "system-2", "integrator-*"]
//
// A component process goes to the first [[node]] (in file order) with a pattern (exact or
// shell glob: * ? [..]) that matches the process's name or one of the components it hosts.
#include <optional>
#include <string>
#include <vector>

namespace kausal {

struct NodeRule {
  std::string node;
  std::vector<std::string> patterns;
  int line = 0;
};

struct DeployFile {
  std::string file;
  std::string naming;        // empty: --naming must be given
  std::string monitor_host;  // empty: --host (default 127.0.0.1)
  std::vector<NodeRule> nodes;

  // The node that starts `process` (hosting `components`). InputError naming the file if no
  // [[node]] takes it.
  const NodeRule& node_for(const std::string& process,
                           const std::vector<std::string>& components) const;
  std::vector<std::string> node_names() const;
};

// Whether `name` may name a node, run, process or component: 1-64 of [A-Za-z0-9._-], not "."
// or "..". Keeps the paths and command lines a node builds from names harmless.
bool plain_name(const std::string& name);

// Reads and checks the file: "file:line: what is wrong" (InputError) for bad TOML, unknown
// keys, a node without a name or components, a name twice, a name that is not plain.
// The file must be a regular file of at most 16 MiB (input_file.hpp).
DeployFile load_deploy_file(const std::string& file);
// The same from text (the fuzzer); `file` names it in messages.
DeployFile parse_deploy_file(const std::string& text, const std::string& file);

}  // namespace kausal

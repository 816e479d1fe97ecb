#include "idl/component_process.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>

#include "common/errors.hpp"
#include "common/help_formatter.hpp"
#include "idl/component_servant.hpp"

namespace kausal {

unsigned reported_interface_version() {
  if (const char* v = std::getenv("KAUSAL_TEST_INTERFACE_VERSION"))
    return static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  return idl::INTERFACE_VERSION;
}

namespace {

int serve_components(int argc, char** argv, const std::string& what,
                     const std::vector<HostedRole>& roles, bool collocated) {
  std::string about;
  for (const auto& r : roles) about += (about.empty() ? "" : " and ") + r.role;
  CLI::App app{"kausal " + what + " process (" + about +
               "). Started by `kausal run`, which reads the object references this process "
               "prints on stdout; not meant to be run by hand."};
  app.formatter(std::make_shared<HelpFormatter>());
  std::vector<std::string> names;
  for (const auto& r : roles) names.push_back(r.role);
  OrbSettings orb_settings;
  app.add_option(
      "--name", names,
      "component name used in messages, e.g. " + roles.front().role + "-3" +
          (roles.size() > 1 ? "; once per hosted component, in the order " + about : ""));
  add_orb_options(app, orb_settings);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  if (names.size() != roles.size()) {
    std::cerr << "kausal " << what << ": --name is needed once per component (" << about << ")\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  // The monitor ends its components; Ctrl-C in the terminal is the monitor's business.
  std::signal(SIGINT, SIG_IGN);
  std::string failing = names.front();
  try {
    OrbRuntime orb(orb_settings);
    std::unique_ptr<CollocatedAdapter> adapter;
    if (collocated)
      adapter = std::make_unique<CollocatedAdapter>(orb, collocated_shortcut_enabled());
    std::vector<std::string> iors;
    for (std::size_t k = 0; k < roles.size(); ++k) {
      failing = names[k];
      // Ours until activated; then the POA holds it and this reference goes.
      const PortableServer::ServantBase_var servant = roles[k].make_servant(names[k], orb);
      iors.push_back(adapter ? adapter->activate(servant) : orb.activate(servant));
    }
    for (const auto& ior : iors) std::cout << ior << '\n';
    std::cout << std::flush;
    orb.run();
  } catch (const CORBA::Exception& e) {
    std::cerr << failing << ": CORBA " << e._name() << '\n';
    return static_cast<int>(ExitCode::peer_failure);
  } catch (const InputError& e) {
    // Bad TLS files and the like: bad input, not a simulation that failed.
    std::cerr << failing << ": " << e.what() << '\n';
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    std::cerr << failing << ": " << e.what() << '\n';
    return static_cast<int>(ExitCode::simulation_failed);
  }
  return 0;
}

}  // namespace

int run_component_process(int argc, char** argv, const std::string& role,
                          const ServantFactory& make_servant) {
  return serve_components(argc, argv, role, {{role, make_servant}}, false);
}

int run_components_process(int argc, char** argv, const std::string& what,
                           const std::vector<HostedRole>& roles) {
  return serve_components(argc, argv, what, roles, true);
}

}  // namespace kausal

#include "idl/component_process.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "idl/component_servant.hpp"
#include "system/errors.hpp"

namespace kausal {

unsigned reported_interface_version() {
  if (const char* v = std::getenv("KAUSAL_TEST_INTERFACE_VERSION"))
    return static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  return idl::INTERFACE_VERSION;
}

std::string local_host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

int run_component_process(int argc, char** argv, const std::string& role,
                          const ServantFactory& make_servant) {
  CLI::App app{"kausal " + role +
               " component. Started by `kausal run`, which reads the object "
               "reference this process prints on stdout; not meant to be run by hand."};
  std::string name = role;
  OrbSettings orb_settings;
  app.add_option("--name", name, "component name used in messages, e.g. " + role + "-3");
  app.add_option("--host", orb_settings.host, "address of the TCP endpoint")->capture_default_str();
  app.add_option("--unix-socket", orb_settings.unix_socket, "path of a Unix-socket endpoint");
  app.add_option("--call-timeout-ms", orb_settings.call_timeout_ms,
                 "timeout of calls this component makes")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3'600'000u));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  // The monitor ends its components; Ctrl-C in the terminal is the monitor's business.
  std::signal(SIGINT, SIG_IGN);
  try {
    OrbRuntime orb(orb_settings);
    PortableServer::ServantBase* servant = make_servant(name, orb);
    const std::string ior = orb.activate(servant);
    servant->_remove_ref();  // the POA owns it now
    std::cout << ior << std::endl;
    orb.run();
  } catch (const CORBA::Exception& e) {
    std::cerr << name << ": CORBA " << e._name() << '\n';
    return static_cast<int>(ExitCode::peer_failure);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << '\n';
    return static_cast<int>(ExitCode::simulation_failed);
  }
  return 0;
}

}  // namespace kausal

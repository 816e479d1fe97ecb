// tls_probe: a CORBA client for the TLS tests (omniORB allows one ORB per process, so each
// client configuration is its own process).
//   tls_probe IOR [--tls-ca F --tls-cert F]      calls info() on the Participant
//   tls_probe --corbaloc HOST:PORT [...]         asks the ORB at HOST:PORT (plain GIOP over
//                                                TCP) whether an object exists
// Exit 0: the server's ORB answered; 3: a CORBA system exception (its name on stdout);
// 2: bad options or TLS files.
#include <CLI/CLI.hpp>
#include <iostream>

#include "common/errors.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"

namespace {

int call_info(kausal::OrbRuntime& orb, const std::string& ior) {
  CORBA::Object_var obj = orb.resolve(ior);
  kausal::idl::Participant_var p = kausal::idl::Participant::_narrow(obj);
  kausal::idl::ComponentInfo_var info = p->info();
  std::cout << "answered: " << info->name.in() << "\n";
  return 0;
}

// Any object key will do: a plain-TCP ORB answers "no such object", which is an answer.
int ask_existence(kausal::OrbRuntime& orb, const std::string& address) {
  CORBA::Object_var obj = orb.resolve("corbaloc:iiop:1.2@" + address + "/kausal-tls-probe");
  const bool missing = obj->_non_existent();
  std::cout << "answered: " << (missing ? "no such object" : "object exists") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"TLS test client"};
  std::string ior, corbaloc;
  kausal::OrbSettings settings;
  settings.serve = false;
  app.add_option("ior", ior, "stringified object reference of a Participant");
  app.add_option("--corbaloc", corbaloc, "HOST:PORT of an ORB to ask over plain TCP");
  app.add_option("--tls-ca", settings.tls.ca_file);
  app.add_option("--tls-cert", settings.tls.cert_file);
  CLI11_PARSE(app, argc, argv);
  try {
    kausal::OrbRuntime orb(settings);
    return corbaloc.empty() ? call_info(orb, ior) : ask_existence(orb, corbaloc);
  } catch (const CORBA::SystemException& e) {
    std::cout << "refused: CORBA " << e._name() << " minor " << e.minor() << "\n";
    return 3;
  } catch (const kausal::Error& e) {
    std::cout << "error: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  }
}

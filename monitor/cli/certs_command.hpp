#pragma once
// kausal certs: a test CA and per-host certificates for TLS between kausal processes
// (docs/tls.md), made by running the openssl command-line tool.
#include <filesystem>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kausal {

struct CertsOptions {
  std::filesystem::path dir;
  std::vector<std::string> hosts;
  unsigned days = 365;
  std::string openssl = "openssl";  // the tool, found on PATH
};

// Registers `certs` as a subcommand of `app`, its options filling `options`.
CLI::App* add_certs_command(CLI::App& app, CertsOptions& options);

// Creates DIR/ca.pem and DIR/ca.key unless ca.pem is there already, then DIR/NAME.pem
// (certificate + private key) for every host NAME, replacing an older one. Throws InputError
// for bad names or an unusable DIR, Error(simulation_failed) with openssl's stderr when
// openssl fails. Returns the exit code (0).
int certs_command(const CertsOptions& options);

// Whether `name` is an IPv4 or IPv6 address (then the certificate also names it as IP).
bool is_ip_address(const std::string& name);

}  // namespace kausal

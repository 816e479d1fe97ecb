#include "monitor/cli/certs_command.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "common/errors.hpp"

namespace kausal {

namespace fs = std::filesystem;

namespace {

constexpr const char* kKeyType = "rsa:2048";

// NAME becomes a file name and a subject: letters, digits and . - _ : only (':' for IPv6).
void check_host_name(const std::string& name) {
  const bool chars_ok = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == ':';
  });
  if (name.empty() || name.size() > 253 || !chars_ok || name[0] == '-' || name[0] == '.')
    throw InputError("command line: --host '" + name +
                     "' is not a host name or address (letters, digits, . - _ :)");
  // DIR/NAME.pem must never replace DIR/ca.pem, the certificate every process trusts (nor on
  // a file system that ignores case).
  if (strcasecmp(name.c_str(), "ca") == 0)
    throw InputError("command line: --host '" + name +
                     "' would write its certificate to ca.pem, the CA's own file: give the "
                     "host's full name or address instead");
}

// Runs openssl with `args`; its stderr is the error message if it fails.
void run_openssl(const std::string& openssl, const std::vector<std::string>& args) {
  int err_pipe[2];
  if (pipe(err_pipe) != 0) throw Error(ExitCode::simulation_failed, "certs: cannot make a pipe");
  std::vector<std::string> storage{openssl};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    throw Error(ExitCode::simulation_failed, "certs: cannot start " + openssl);
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(err_pipe[0]);
    execvp(argv[0], argv.data());
    const std::string why = "cannot run " + openssl + ": " + std::strerror(errno) +
                            " (scripts/install-deps.sh installs openssl)\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  close(err_pipe[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = read(err_pipe[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    err.append(buf, static_cast<std::size_t>(n));
  }
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(ExitCode::simulation_failed, "certs: openssl " + args.front() + " failed:\n" + err);
}

// A private scratch directory inside DIR (same file system: results are renamed into
// place, so DIR never holds a half-written key), removed whatever happens.
class ScratchDir {
 public:
  explicit ScratchDir(const fs::path& dir) {
    std::string tmpl = (dir / ".kausal-certs-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw InputError("certs: cannot write in " + dir.string() + ": " + std::strerror(errno));
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void prepare_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir) || access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError("certs: " + dir.string() + " is not a directory this user can write" +
                     (ec ? " (" + ec.message() + ")" : ""));
}

void install(const fs::path& from, const fs::path& to, fs::perms mode) {
  fs::permissions(from, mode);
  fs::rename(from, to);
}

void make_ca(const CertsOptions& o, const fs::path& scratch) {
  run_openssl(o.openssl, {"req", "-x509", "-newkey", kKeyType, "-nodes", "-sha256", "-keyout",
                          (scratch / "ca.key").string(), "-out", (scratch / "ca.pem").string(),
                          "-days", std::to_string(o.days), "-subj", "/CN=kausal test CA", "-addext",
                          "basicConstraints=critical,CA:TRUE", "-addext",
                          "keyUsage=critical,keyCertSign,cRLSign"});
  install(scratch / "ca.key", o.dir / "ca.key", fs::perms::owner_read | fs::perms::owner_write);
  install(scratch / "ca.pem", o.dir / "ca.pem",
          fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
              fs::perms::others_read);
  std::cout << "created " << (o.dir / "ca.pem").string() << " (test CA certificate) and "
            << (o.dir / "ca.key").string() << " (its private key)\n";
}

// Serial numbers must differ between certificates of one CA; random ones need no state.
std::string random_serial() {
  std::random_device rd;
  std::ostringstream s;
  s << "0x" << std::hex << (((static_cast<std::uint64_t>(rd()) << 31) ^ rd()) | 1);
  return s.str();
}

std::string extensions(const std::string& host) {
  std::string alt = "DNS:" + host;
  if (is_ip_address(host)) alt += ",IP:" + host;
  // Both serverAuth and clientAuth: every kausal process is client and server.
  return "basicConstraints=critical,CA:FALSE\n"
         "keyUsage=critical,digitalSignature,keyEncipherment\n"
         "extendedKeyUsage=serverAuth,clientAuth\n"
         "subjectAltName=" +
         alt + "\n";
}

void make_host_cert(const CertsOptions& o, const fs::path& scratch, const std::string& host) {
  const fs::path key = scratch / "host.key", csr = scratch / "host.csr", crt = scratch / "host.crt",
                 ext = scratch / "host.ext", pem = scratch / "host.pem";
  std::ofstream(ext) << extensions(host);
  run_openssl(o.openssl, {"req", "-new", "-newkey", kKeyType, "-nodes", "-keyout", key.string(),
                          "-out", csr.string(), "-subj", "/CN=" + host});
  run_openssl(o.openssl,
              {"x509", "-req", "-in", csr.string(), "-CA", (o.dir / "ca.pem").string(), "-CAkey",
               (o.dir / "ca.key").string(), "-set_serial", random_serial(), "-days",
               std::to_string(o.days), "-sha256", "-extfile", ext.string(), "-out", crt.string()});
  {
    // Created 0600 before the key goes in.
    const int fd = open(pem.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) throw InputError("certs: cannot write " + pem.string());
    close(fd);
    std::ofstream out(pem, std::ios::binary | std::ios::trunc);
    out << std::ifstream(crt).rdbuf() << std::ifstream(key).rdbuf();
  }
  const fs::path target = o.dir / (host + ".pem");
  install(pem, target, fs::perms::owner_read | fs::perms::owner_write);
  std::cout << "created " << target.string() << " (certificate for " << host
            << " signed by the test CA, with its private key)\n";
}

}  // namespace

bool is_ip_address(const std::string& name) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

CLI::App* add_certs_command(CLI::App& app, CertsOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "certs",
      "make a TEST certificate authority and per-host certificates for TLS between kausal "
      "processes (--tls-ca/--tls-cert, docs/tls.md). Creates DIR/ca.pem (the CA certificate, "
      "given to every process as --tls-ca) and DIR/ca.key (the CA's private key, mode 0600) "
      "unless DIR/ca.pem exists already, and for every --host NAME DIR/NAME.pem: a certificate "
      "for NAME (subject CN and subjectAltName DNS:NAME, plus IP:NAME for an address) signed by "
      "the CA, followed by its unencrypted private key (mode 0600; pass it as --tls-cert). An "
      "existing DIR/NAME.pem is replaced; NAME 'ca' is refused (DIR/ca.pem is the CA's). Runs the "
      "openssl tool. This is a test CA for a lab "
      "or a closed cluster: its key sits unencrypted next to the certificates; use your own "
      "PKI for anything else");
  cmd->add_option("dir", o.dir, "directory for the files (created if missing)")->required();
  cmd->add_option("--host", o.hosts,
                  "host name or address a certificate is for (repeat: one file per host)")
      ->required();
  cmd->add_option("--days", o.days, "validity of new certificates, in days")
      ->capture_default_str()
      ->check(CLI::Range(1u, 36'500u));
  cmd->footer(
      "Exit codes: 0 ok, 1 openssl failed (its messages follow), 2 bad arguments or a "
      "directory that cannot be written.");
  return cmd;
}

int certs_command(const CertsOptions& o) {
  for (const auto& host : o.hosts) check_host_name(host);
  prepare_dir(o.dir);
  const ScratchDir scratch(o.dir);
  if (!fs::exists(o.dir / "ca.pem"))
    make_ca(o, scratch.path());
  else if (access((o.dir / "ca.key").c_str(), R_OK) != 0)
    throw InputError("certs: " + (o.dir / "ca.pem").string() + " exists but " +
                     (o.dir / "ca.key").string() +
                     " cannot be read: without the CA's key no certificate can be signed");
  for (const auto& host : o.hosts) make_host_cert(o, scratch.path(), host);
  return 0;
}

}  // namespace kausal

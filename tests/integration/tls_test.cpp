// TLS between kausal processes (docs/tls.md): `kausal certs` makes a test CA and host
// certificates, runs with TLS give the sequential digest, and a TLS process answers only
// clients holding a certificate from its CA, over giop:ssl only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <set>

#include "kausal_process.hpp"
#include "monitor/core/capabilities.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

// `kausal certs DIR --host H...`; its exit code.
int make_certs(const fs::path& dir, const std::vector<std::string>& hosts, const fs::path& work,
               std::string* err = nullptr) {
  std::vector<std::string> args{"certs", dir.string()};
  for (const auto& h : hosts) args.insert(args.end(), {"--host", h});
  return run_kausal(args, work, err, 60s);
}

std::vector<std::string> tls_args(const fs::path& ca, const fs::path& cert) {
  return {"--tls-ca", ca.string(), "--tls-cert", cert.string()};
}

// Ports of the TCP sockets `pid` listens on (IPv4 and IPv6), from /proc.
std::vector<unsigned> listening_ports(pid_t pid) {
  std::set<std::string> inodes;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code ec;
    const std::string target = fs::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<unsigned> ports;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
      f >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode))  // 0A: LISTEN
        ports.push_back(std::stoul(local.substr(local.rfind(':') + 1), nullptr, 16));
    }
  }
  return ports;
}

// A component process started by the test itself, serving until the test ends it by PID.
struct ServedSystem {
  fs::path dir;
  std::unique_ptr<KausalProcess> process;
  std::string ior;

  ServedSystem(const fs::path& where, const std::vector<std::string>& extra) : dir(where) {
    fs::create_directories(dir);
    std::vector<std::string> args{"--name", "system-1", "--host", "127.0.0.1"};
    args.insert(args.end(), extra.begin(), extra.end());
    process = std::make_unique<KausalProcess>(args, dir, std::map<std::string, std::string>{},
                                              "kausal-system");
    // Its first stdout line is its object reference (a deadline, not an assertion on time).
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline && process->wait(0ms) == std::nullopt) {
      const std::string out = process->out();
      if (const auto nl = out.find('\n'); nl != std::string::npos) {
        ior = out.substr(0, nl);
        return;
      }
      std::this_thread::sleep_for(20ms);
    }
  }
};

struct ProbeResult {
  int code;
  std::string out;
};

// One tls_probe process (its own ORB) in its own directory.
ProbeResult probe(const fs::path& dir, const std::vector<std::string>& args) {
  fs::create_directories(dir);
  KausalProcess p(args, dir, {}, "tls_probe");
  const auto code = p.wait(30s);
  return {code.value_or(-1), p.out() + p.err()};
}

std::string run_openssl(const std::string& args) {
  std::string out;
  if (FILE* f = popen(("openssl " + args + " 2>&1").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    pclose(f);
  }
  return out;
}

unsigned file_mode(const fs::path& p) {
  struct stat st {};
  stat(p.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(TlsCerts, MakesCaAndHostCertificatesSignedByIt) {
  TempDir dir;
  const fs::path certs = dir / "certs";
  std::string err;
  ASSERT_EQ(make_certs(certs, {"monitor", "127.0.0.1"}, dir.path(), &err), 0) << err;
  for (const char* f : {"ca.pem", "ca.key", "monitor.pem", "127.0.0.1.pem"})
    EXPECT_TRUE(fs::exists(certs / f)) << f;
  EXPECT_EQ(file_mode(certs / "ca.key"), 0600u);
  EXPECT_EQ(file_mode(certs / "monitor.pem"), 0600u);
  // Nothing left over from the work in progress.
  EXPECT_EQ(std::distance(fs::directory_iterator(certs), fs::directory_iterator()), 4);

  const std::string ca = (certs / "ca.pem").string();
  EXPECT_NE(
      run_openssl("verify -CAfile " + ca + " " + (certs / "monitor.pem").string()).find(": OK"),
      std::string::npos);
  const std::string monitor = run_openssl("x509 -noout -subject -ext subjectAltName -in " +
                                          (certs / "monitor.pem").string());
  EXPECT_NE(monitor.find("CN = monitor"), std::string::npos) << monitor;
  EXPECT_NE(monitor.find("DNS:monitor"), std::string::npos) << monitor;
  EXPECT_EQ(monitor.find("IP Address"), std::string::npos) << monitor;
  const std::string ip =
      run_openssl("x509 -noout -ext subjectAltName -in " + (certs / "127.0.0.1.pem").string());
  EXPECT_NE(ip.find("IP Address:127.0.0.1"), std::string::npos) << ip;
  // The key is in the same file, and it is the certificate's.
  EXPECT_EQ(run_openssl("x509 -noout -pubkey -in " + (certs / "monitor.pem").string()),
            run_openssl("pkey -pubout -in " + (certs / "monitor.pem").string()));

  // A second call reuses the CA: old certificates stay valid.
  const std::string ca_before = read_file(certs / "ca.pem");
  ASSERT_EQ(make_certs(certs, {"node-b"}, dir.path(), &err), 0) << err;
  EXPECT_EQ(read_file(certs / "ca.pem"), ca_before);
  EXPECT_NE(
      run_openssl("verify -CAfile " + ca + " " + (certs / "node-b.pem").string()).find(": OK"),
      std::string::npos);
}

TEST(TlsCerts, BadArgumentsAreBadInput) {
  TempDir dir;
  std::string err;
  EXPECT_EQ(run_kausal({"certs", (dir / "c").string()}, dir.path(), &err), 2) << err;
  EXPECT_EQ(make_certs(dir / "c", {"bad/name"}, dir.path(), &err), 2);
  EXPECT_NE(err.find("bad/name"), std::string::npos) << err;
  dir.write("a-file", "x");
  EXPECT_EQ(make_certs(dir / "a-file" / "sub", {"h"}, dir.path(), &err), 2);
  EXPECT_NE(err.find("a-file"), std::string::npos) << err;
}

TEST(TlsOptions, MissingCaFileIsBadInputNamingIt) {
  TempDir dir;
  std::string err;
  ASSERT_EQ(make_certs(dir / "certs", {"monitor"}, dir.path(), &err), 0) << err;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 0.1"}});
  const std::string missing = (dir / "nowhere" / "ca.pem").string();
  std::vector<std::string> args{"run",        file.string(),
                                "--method",   "conservative",
                                "--out",      (dir / "out").string(),
                                "--tls-ca",   missing,
                                "--tls-cert", (dir / "certs" / "monitor.pem").string()};
  EXPECT_EQ(run_kausal(args, dir.path(), &err), 2) << err;
  EXPECT_NE(err.find("--tls-ca"), std::string::npos) << err;
  EXPECT_NE(err.find(missing), std::string::npos) << err;

  // A component process says the same, with the same exit code.
  ServedSystem system(dir / "system", tls_args(missing, dir / "certs" / "monitor.pem"));
  EXPECT_EQ(system.process->wait(10s), std::optional<int>(2));
  EXPECT_NE(system.process->err().find("--tls-ca " + missing), std::string::npos)
      << system.process->err();
}

// Every model kind (a short thesis chain, the two-mass partitioned model, the same under the
// co-simulation master, PHOLD's event groups in processes, the machines and their repair
// crew, events crossing between processes): each method the capability
// table gives the kind, over TLS, gives the sequential digest.
struct TlsCase {
  std::string file;
  ModelKind kind;
  std::string name;
};
class TlsRun : public ::testing::TestWithParam<TlsCase> {};

TEST_P(TlsRun, EveryMethodGivesTheSequentialDigest) {
  TempDir dir;
  const fs::path certs = dir / "certs";
  std::string err;
  ASSERT_EQ(make_certs(certs, {"monitor", "node-b"}, dir.path(), &err), 0) << err;
  const TlsCase& c = GetParam();
  const auto file =
      c.kind == ModelKind::chain
          ? scenario_variant(c.file, dir.path(), {{"duration = 20.0", "duration = 1.0"}})
          : scenario_variant(c.file, dir.path(), {});
  auto run = [&](const std::string& method, bool tls) {
    const fs::path out = dir / method;
    std::vector<std::string> args{"run", file.string(), "--method", method, "--out", out.string()};
    if (tls) {
      const auto t = tls_args(certs / "ca.pem", certs / "monitor.pem");
      args.insert(args.end(), t.begin(), t.end());
      // Event groups run as processes only in this layout (the default runs them here).
      if (c.kind == ModelKind::events) args.insert(args.end(), {"--layout", "process"});
    }
    EXPECT_EQ(run_kausal(args, dir.path(), &err), 0) << method << ": " << err;
    return read_json(out / "summary.json");
  };
  const auto sequential = run("sequential", false);
  std::set<SyncMethod> methods;
  for (const auto& [method, guarantee] : methods_of(c.kind))
    if (method != SyncMethod::sequential) methods.insert(method);
  EXPECT_GE(methods.size(), 1u);
  for (const SyncMethod m : methods) {
    const std::string method(to_string(m));
    const auto s = run(method, true);
    EXPECT_EQ(s["status"], "completed") << method;
    EXPECT_EQ(s["trajectory_sha256"], sequential["trajectory_sha256"]) << method;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryModelKind, TlsRun,
    ::testing::Values(TlsCase{"thesis.toml", ModelKind::chain, "Chain"},
                      TlsCase{"two-mass.toml", ModelKind::partitioned, "Partitioned"},
                      TlsCase{"two-mass-master.toml", ModelKind::master, "Master"},
                      TlsCase{"phold.toml", ModelKind::events, "Events"},
                      TlsCase{"machines-repair.toml", ModelKind::hybrid, "Hybrid"}),
    [](const auto& test) { return test.param.name; });

// kausal inject and kausal tick without the run's TLS options said the run had ended; with
// them they talk to it like to a plain run.
TEST(TlsClients, InjectAndTickTalkToATlsRunWithItsCaAndSayTlsWhenNotGivenIt) {
  TempDir dir;
  const fs::path certs = dir / "certs";
  std::string err;
  ASSERT_EQ(make_certs(certs, {"monitor", "operator"}, dir.path(), &err), 0) << err;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 30.0"}});
  const fs::path out = dir / "ticked";
  std::vector<std::string> args{"run",       file.string(), "--method",         "conservative",
                                "--layout",  "pendulum",    "--external-clock", "--out",
                                out.string()};
  const auto monitor_tls = tls_args(certs / "ca.pem", certs / "monitor.pem");
  args.insert(args.end(), monitor_tls.begin(), monitor_tls.end());
  KausalProcess run(args, dir.path());
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(fs::exists(out / "clock.ior") && fs::exists(out / "operator.ior")) && !run.wait(0ms))
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(fs::exists(out / "operator.ior")) << run.err();

  EXPECT_EQ(run_kausal({"tick", out.string(), "--count", "3"}, dir.path(), &err), 3);
  EXPECT_NE(err.find("or it uses TLS: give the run's --tls-ca and a --tls-cert from its CA"),
            std::string::npos)
      << err;
  EXPECT_EQ(run_kausal({"inject", out.string(), "read", "phi_1"}, dir.path(), &err), 3);
  EXPECT_NE(err.find("or it uses TLS"), std::string::npos) << err;

  const auto client_tls = tls_args(certs / "ca.pem", certs / "operator.pem");
  std::vector<std::string> tick{"tick", out.string(), "--count", "3"};
  tick.insert(tick.end(), client_tls.begin(), client_tls.end());
  EXPECT_EQ(run_kausal(tick, dir.path(), &err), 0) << err;
  std::vector<std::string> read{"inject", out.string(), "read", "phi_1"};
  read.insert(read.end(), client_tls.begin(), client_tls.end());
  std::string said;
  EXPECT_EQ(run_kausal(read, dir.path(), &said), 0) << said;
  std::vector<std::string> stop{"inject", out.string(), "stop"};
  stop.insert(stop.end(), client_tls.begin(), client_tls.end());
  EXPECT_EQ(run_kausal(stop, dir.path(), &said), 0) << said;
  // The stop takes effect at the next boundary: tick on until the run has ended there (the
  // tick after it finds no run: exit 3). The run's clock and operator go while these calls
  // arrive: the monitor once deleted their servants with a call still in them (exit 139).
  std::vector<std::string> rest{"tick", out.string(), "--all"};
  rest.insert(rest.end(), client_tls.begin(), client_tls.end());
  EXPECT_EQ(run_kausal(rest, dir.path(), &err, 120s), 3) << err;
  EXPECT_EQ(run.wait(60s), std::optional<int>(130)) << run.err();
  EXPECT_EQ(read_json(out / "summary.json")["status"], "interrupted");
}

// Certificates for the server (127.0.0.1) and a client, and an unrelated CA's.
struct TwoCas {
  TempDir dir;
  fs::path good = dir / "good", other = dir / "other";
  TwoCas() {
    std::string err;
    EXPECT_EQ(make_certs(good, {"127.0.0.1", "client"}, dir.path(), &err), 0) << err;
    EXPECT_EQ(make_certs(other, {"intruder"}, dir.path(), &err), 0) << err;
  }
};

TEST(TlsServant, OnlyClientsWithACertificateFromItsCaCanCall) {
  TwoCas cas;
  ServedSystem system(cas.dir / "system",
                      tls_args(cas.good / "ca.pem", cas.good / "127.0.0.1.pem"));
  ASSERT_FALSE(system.ior.empty()) << system.process->err();
  // giop:ssl only: one listening socket, no plain TCP endpoint beside it.
  const auto ports = listening_ports(system.process->pid());
  ASSERT_EQ(ports.size(), 1u);
  const fs::path probes = cas.dir / "probes";

  // Control: a client with a certificate from the server's CA gets an answer.
  const auto valid =
      probe(probes / "valid", {system.ior, "--tls-ca", (cas.good / "ca.pem").string(), "--tls-cert",
                               (cas.good / "client.pem").string()});
  EXPECT_EQ(valid.code, 0) << valid.out;
  EXPECT_NE(valid.out.find("answered: system-1"), std::string::npos) << valid.out;

  // (a) no TLS at all: through the object reference, and plain GIOP straight at the port.
  const auto plain = probe(probes / "plain", {system.ior});
  EXPECT_EQ(plain.code, 3) << plain.out;
  const auto raw = probe(probes / "raw", {"--corbaloc", "127.0.0.1:" + std::to_string(ports[0])});
  EXPECT_EQ(raw.code, 3) << raw.out;

  // (b) a certificate from another CA: with that CA only, and trusting the server's CA (so
  // only the server's check of the client certificate can refuse it).
  const auto foreign =
      probe(probes / "foreign", {system.ior, "--tls-ca", (cas.other / "ca.pem").string(),
                                 "--tls-cert", (cas.other / "intruder.pem").string()});
  EXPECT_EQ(foreign.code, 3) << foreign.out;
  const auto impostor =
      probe(probes / "impostor", {system.ior, "--tls-ca", (cas.good / "ca.pem").string(),
                                  "--tls-cert", (cas.other / "intruder.pem").string()});
  EXPECT_EQ(impostor.code, 3) << impostor.out;

  // The refusals cost the server nothing: it still answers a valid client.
  const auto again =
      probe(probes / "again", {system.ior, "--tls-ca", (cas.good / "ca.pem").string(), "--tls-cert",
                               (cas.good / "client.pem").string()});
  EXPECT_EQ(again.code, 0) << again.out;
}

// The other direction, and the control for the plain-GIOP probe above: a server without TLS
// answers plain GIOP, and a TLS client refuses to call it.
TEST(TlsServant, PlainServerAnswersPlainClientsButNotTlsClients) {
  TwoCas cas;
  ServedSystem system(cas.dir / "system", {});
  ASSERT_FALSE(system.ior.empty()) << system.process->err();
  const auto ports = listening_ports(system.process->pid());
  ASSERT_EQ(ports.size(), 1u);
  const fs::path probes = cas.dir / "probes";

  const auto plain = probe(probes / "plain", {system.ior});
  EXPECT_EQ(plain.code, 0) << plain.out;
  const auto raw = probe(probes / "raw", {"--corbaloc", "127.0.0.1:" + std::to_string(ports[0])});
  EXPECT_EQ(raw.code, 0) << raw.out;
  const auto tls = probe(probes / "tls", {system.ior, "--tls-ca", (cas.good / "ca.pem").string(),
                                          "--tls-cert", (cas.good / "client.pem").string()});
  EXPECT_EQ(tls.code, 3) << tls.out;
}

}  // namespace
}  // namespace kausal::testing

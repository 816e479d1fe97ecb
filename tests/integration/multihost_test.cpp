// Multi-host runs: omniNames, kausal node agents and the monitor as real processes. On
// loopback: the faults a user meets first (naming service unreachable, unknown node, version
// mismatch, bad deployment files). Across network namespaces joined by veth pairs (root
// only; CI runs as root): the thesis under every method, a slow link, a node killed mid-run.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <set>

#include "idl/naming.hpp"
#include "monitor/deploy/process_deployment.hpp"
#include "tests/integration/kausal_process.hpp"
#include "tests/integration/network_lab.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

const std::string kKausal = std::string(KAUSAL_BIN_DIR) + "/kausal";

// A TCP port on 127.0.0.1 that nothing listens on right now.
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

std::string corbaloc(const std::string& address, int port) {
  return "corbaloc::" + address + ":" + std::to_string(port) + "/NameService";
}

std::size_t lines_of(const fs::path& file) {
  const std::string text = read_file(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// ---- loopback: one naming service, nodes on 127.0.0.1 ----

class LoopbackNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = free_port();
    fs::create_directories(dir_ / "names");
    names_ = std::make_unique<LabProcess>(omninames_command("127.0.0.1", port_, dir_ / "names"),
                                          dir_.path(), "omninames");
    // omniNames is ready once its port answers.
    for (int k = 0; k < 200 && !port_open(); ++k) std::this_thread::sleep_for(20ms);
    ASSERT_TRUE(port_open()) << names_->err();
  }

  bool port_open() const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool open = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return open;
  }

  // A node agent; with `hidden`, in a mount namespace of its own where that directory is an
  // empty tmpfs: a host that has not the monitor's files (pid() is the agent: sh execs it).
  // `extra`: more of its options (TLS).
  std::unique_ptr<LabProcess> node(const std::string& name,
                                   const std::map<std::string, std::string>& env = {},
                                   const fs::path& hidden = {},
                                   const std::vector<std::string>& extra = {}) {
    std::vector<std::string> command{
        kKausal,    "node",   "--name",     name,
        "--naming", naming(), "--work-dir", (dir_ / ("work-" + name)).string()};
    command.insert(command.end(), extra.begin(), extra.end());
    if (!hidden.empty())
      command.insert(command.begin(),
                     {"unshare", "--mount", "sh", "-c", "mount -t tmpfs none \"$0\" && exec \"$@\"",
                      hidden.string()});
    auto p = std::make_unique<LabProcess>(command, dir_.path(), "node-" + name, "", "", env);
    EXPECT_TRUE(p->wait_for_output("registered as kausal/" + name, 10s)) << p->err();
    return p;
  }

  std::string naming() const { return corbaloc("127.0.0.1", port_); }

  fs::path deploy(const std::string& text) const {
    const fs::path file = dir_ / "deploy.toml";
    std::ofstream(file) << text;
    return file;
  }

  // Runs `scenario` here sequentially and then with `args` on the nodes as `deployment`
  // places them; requires the same digest and returns which node ran each component (the
  // monitor: ""). `out` is the deployed run's directory.
  std::map<std::string, std::string> deployed_run(const fs::path& scenario,
                                                  const fs::path& deployment,
                                                  std::vector<std::string> args,
                                                  const fs::path& out) {
    std::string err;
    EXPECT_EQ(
        run_kausal({"run", scenario.string(), "--out", (dir_ / "seq").string()}, dir_.path(), &err),
        0)
        << err;
    args.insert(args.begin(), {"run", scenario.string()});
    args.insert(args.end(),
                {"--deploy", deployment.string(), "--naming", naming(), "--out", out.string()});
    EXPECT_EQ(run_kausal(args, dir_.path(), &err), 0) << err;
    const auto seq = read_json(dir_ / "seq/summary.json");
    const auto deployed = read_json(out / "summary.json");
    EXPECT_EQ(deployed["trajectory_sha256"], seq["trajectory_sha256"]);
    EXPECT_EQ(deployed["deployment"], deployment.string());
    std::map<std::string, std::string> node_of;
    for (const auto& c : deployed["components"]) node_of[c["name"]] = c["node"];
    return node_of;
  }

  TempDir dir_;
  int port_ = 0;
  std::unique_ptr<LabProcess> names_;
};

TEST_F(LoopbackNodes, DeployedRunGivesTheSequentialDigestAndSaysWhereEachComponentRan) {
  auto alpha = node("alpha");
  auto beta = node("beta");
  const fs::path d = deploy(
      "[[node]]\nname = \"alpha\"\ncomponents = [\"pendulum-1\", \"pendulum-2\"]\n"
      "[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n");
  const fs::path short_thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 0.5"}});
  auto node_of = deployed_run(short_thesis, d, {"--method", "optimistic", "--layout", "pendulum"},
                              dir_ / "opt");
  EXPECT_EQ(node_of["monitor"], "");
  EXPECT_EQ(node_of["system-1"], "alpha");
  EXPECT_EQ(node_of["integrator-2"], "alpha");
  EXPECT_EQ(node_of["system-3"], "beta");
  EXPECT_EQ(node_of["integrator-5"], "beta");
  // Their logs were collected into the run directory; the nodes ended what they started.
  EXPECT_TRUE(fs::exists(dir_ / "opt/logs/pendulum-4.log"));
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  EXPECT_TRUE(children_of(beta->pid()).empty());
}

// A partitioned model on nodes: its partitions' components go where the file says. The same
// partitions coupled freely and under the co-simulation master; and a hybrid model (docs/
// events.md, "Across the boundary"), the level switch in the monitor, its crossings and the
// valve's commands crossing between the nodes' processes, under both methods.
TEST_F(LoopbackNodes, DeployedPartitionedModelsGiveTheSequentialDigestFreeUnderTheMasterAndHybrid) {
  auto alpha = node("alpha");
  auto beta = node("beta");
  struct Case {
    const char* file;
    const char* method;
    std::string first, second;  // the partitions: the first on alpha, the second on beta
  };
  const Case cases[] = {{"two-mass.toml", "conservative", "mass1", "mass2"},
                        {"two-mass-master.toml", "conservative", "mass1", "mass2"},
                        {"two-tanks-level-switch.toml", "conservative", "upper", "lower"},
                        {"two-tanks-level-switch.toml", "optimistic", "upper", "lower"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + c.method);
    const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"system-" + c.first +
                              "\", \"integrator-" + c.first +
                              "\"]\n[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n");
    fs::remove_all(dir_ / "seq");  // deployed_run's sequential reference, once per case
    const fs::path out = dir_ / (std::string(c.file) + "-" + c.method);
    auto node_of = deployed_run(scenario(c.file), d, {"--method", c.method}, out);
    EXPECT_EQ(node_of["system-" + c.first], "alpha");
    EXPECT_EQ(node_of["integrator-" + c.first], "alpha");
    EXPECT_EQ(node_of["system-" + c.second], "beta");
    EXPECT_EQ(node_of["integrator-" + c.second], "beta");
    const auto sequential = read_json(dir_ / "seq" / "summary.json");
    if (sequential.contains("events")) {  // the hybrid model: the same events crossed
      EXPECT_EQ(read_json(out / "summary.json")["events"]["crossings"],
                sequential["events"]["crossings"]);
    }
  }
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  EXPECT_TRUE(children_of(beta->pid()).empty());
}

// FMUs and a model built out of tree on a node whose host has not their files (a mount
// namespace hides their directory): in a TLS run the monitor sends each System the node
// started its FMUs' archives and its model library, and the run gives the sequential digest
// under both methods. (A plain run sends none: code from a caller nobody authenticated is
// never loaded, HostileCalls.PartitionSizes...)
TEST_F(LoopbackNodes, FmusAndModelLibrariesRunOnANodeWhoseHostHasNotTheirFilesInATlsRun) {
  if (geteuid() != 0) GTEST_SKIP() << "a mount namespace needs root (CI runs as root)";
  const fs::path fmus = dir_ / "monitor-only";
  fs::create_directories(fmus);
  std::string text = read_file(kScenarios / "fmu-coupled.toml");
  for (const char* fmu : {"stair_integral.fmu", "integrator.fmu"}) {
    fs::copy_file(fs::path(KAUSAL_BIN_DIR) / ".." / "fmus" / fmu, fmus / fmu);
    const std::string shipped = "\"../build/fmus/" + std::string(fmu);
    text.replace(text.find(shipped), shipped.size(), "\"" + (fmus / fmu).string());
  }
  // A spring from a model library, driven by the tank's level.
  const fs::path library = fmus / "libkausal_test_spring.so";
  fs::copy_file(
      fs::path(KAUSAL_BIN_DIR) / ".." / "tests" / "model_library" / "libkausal_test_spring.so",
      library);
  text += "\n[[subsystem]]\nname = \"spring\"\nmodel = \"test_spring\"\nlibrary = \"" +
          library.string() +
          "\"\nintegrator = \"rk4\"\nh = 0.01\n"
          "\n[[coupling]]\nfrom = \"tank.level\"\nto = \"spring.force\"\n";
  write_file(dir_ / "fmus-elsewhere.toml", text);
  ASSERT_EQ(run_kausal({"certs", (dir_ / "certs").string(), "--host", "monitor", "--host", "alpha"},
                       dir_.path()),
            0);
  const std::string ca = (dir_ / "certs/ca.pem").string();
  auto alpha =
      node("alpha", {}, fmus, {"--tls-ca", ca, "--tls-cert", (dir_ / "certs/alpha.pem").string()});
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  for (const std::string method : {"conservative", "optimistic"}) {
    fs::remove_all(dir_ / "seq");
    auto node_of = deployed_run(
        dir_ / "fmus-elsewhere.toml", d,
        {"--method", method, "--tls-ca", ca, "--tls-cert", (dir_ / "certs/monitor.pem").string()},
        dir_ / ("fmus-" + method));
    EXPECT_EQ(node_of["system-sum"], "alpha") << method;
    EXPECT_EQ(node_of["system-stair"], "alpha") << method;
    EXPECT_EQ(node_of["system-spring"], "alpha") << method;
  }
  EXPECT_TRUE(children_of(alpha->pid()).empty());
}

// Discrete-event groups on nodes (docs/events.md, "Process layout"): each group's process
// goes where the file says, events go between the nodes' processes, one digest.
TEST_F(LoopbackNodes, DeployedEventGroupsGiveTheSequentialDigest) {
  auto alpha = node("alpha");
  auto beta = node("beta");
  const fs::path d = deploy(
      "[[node]]\nname = \"alpha\"\ncomponents = [\"event-group-0\"]\n"
      "[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n");
  for (const char* method : {"conservative", "optimistic"}) {
    fs::remove_all(dir_ / "seq");  // deployed_run's sequential reference, once per method
    deployed_run(scenario("three-components.toml"), d, {"--method", method, "--layout", "process"},
                 dir_ / method);
    const auto summary = read_json(dir_ / method / "summary.json");
    ASSERT_EQ(summary["components"].size(), 3u);
    EXPECT_EQ(summary["components"][0]["node"], "alpha") << summary["components"].dump();
    EXPECT_EQ(summary["components"][1]["node"], "beta");
    EXPECT_EQ(summary["components"][2]["node"], "beta");
    EXPECT_TRUE(fs::exists(dir_ / method / "logs/event-group-2.log"));
  }
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  EXPECT_TRUE(children_of(beta->pid()).empty());
}

// Blocks of a chain as processes on nodes: each block goes where the file says, every method
// gives the sequential digest.
TEST_F(LoopbackNodes, DeployedBlocksGiveTheSequentialDigestOnTheirNodes) {
  auto alpha = node("alpha");
  auto beta = node("beta");
  const fs::path d = deploy(
      "[[node]]\nname = \"alpha\"\ncomponents = [\"block-1\"]\n"
      "[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n");
  const fs::path chain = scenario("large.toml");
  for (const std::vector<std::string>& method :
       {std::vector<std::string>{"--method", "conservative"},
        {"--method", "conservative", "--guarantee", "lookahead"},
        {"--method", "optimistic"}}) {
    fs::remove_all(dir_ / "seq");
    std::vector<std::string> args = method;
    args.insert(args.end(), {"--layout", "block-processes:3"});
    const fs::path out = dir_ / ("blocks-" + method.back());
    auto node_of = deployed_run(chain, d, args, out);
    EXPECT_EQ(node_of["block-1"], "alpha") << method.back();
    EXPECT_EQ(node_of["block-2"], "beta") << method.back();
    EXPECT_EQ(node_of["block-3"], "beta") << method.back();
    EXPECT_TRUE(fs::exists(out / "logs/block-1.log"));
  }
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  EXPECT_TRUE(children_of(beta->pid()).empty());
}

TEST_F(LoopbackNodes, MonitorKilledMidRunTheNodeEndsItsProcesses) {
  auto alpha = node("alpha");
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  KausalProcess run({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                     d.string(), "--naming", naming(), "--out", (dir_ / "r").string()},
                    dir_.path());
  for (int k = 0; k < 500 && lines_of(dir_ / "r/trajectory.csv") < 3; ++k)
    std::this_thread::sleep_for(20ms);
  ASSERT_EQ(children_of(alpha->pid()).size(), 10u) << run.err();
  kill(run.pid(), SIGKILL);  // no chance to release anything
  run.wait(10s);
  // The node notices the lost lease within a few pings (a bound, not a measurement).
  for (int k = 0; k < 500 && !children_of(alpha->pid()).empty(); ++k)
    std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  EXPECT_NE(alpha->out().find("is gone; ending its processes"), std::string::npos) << alpha->out();
}

// Whether process `pid` has ended (gone, or a zombie its stopped parent cannot reap).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

// A node agent stopped (SIGSTOP) while its components run: they go on and the run completes,
// but its end asked the node about each process several times, one call timeout each (about
// 100 s for ten processes), and ended none of them. Now the first question the node leaves
// unanswered marks it lost: the run's end costs about one call timeout, and the monitor tells
// the node's components to end itself.
TEST_F(LoopbackNodes, AStoppedNodeAgentCostsTheRunsEndOneCallTimeoutAndItsProcessesEnd) {
  auto alpha = node("alpha");
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  const fs::path thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 3.0"}});
  KausalProcess run(
      {"run", thesis.string(), "--method", "conservative", "--deploy", d.string(), "--naming",
       naming(), "--call-timeout", "1000", "--out", (dir_ / "r").string()},
      dir_.path());
  for (int k = 0; k < 500 && lines_of(dir_ / "r/trajectory.csv") < 3; ++k)
    std::this_thread::sleep_for(20ms);
  const auto components = children_of(alpha->pid());
  ASSERT_EQ(components.size(), 10u) << run.err();
  kill(alpha->pid(), SIGSTOP);
  const auto stopped = std::chrono::steady_clock::now();
  const auto code = run.wait(180s);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  std::vector<pid_t> left;
  for (const auto& [pid, command] : components)
    if (!ended(pid)) left.push_back(pid);
  kill(alpha->pid(), SIGCONT);
  EXPECT_EQ(code, std::optional<int>(0)) << run.err();
  const auto summary = read_json(dir_ / "r/summary.json");
  EXPECT_EQ(summary["status"], "completed");
  // The components' figures come from the components, not from their lost node.
  for (const auto& c : summary["components"]) {
    if (c["name"] != "monitor") {
      EXPECT_TRUE(c["reachable"].get<bool>()) << c["name"];
    }
  }
  // The rest of the run plus one node call (2 s here) and the components' 2 s to end: a
  // bound, not a measurement (ten processes cost 80 s before).
  EXPECT_LT(took, 40.0);
  EXPECT_TRUE(left.empty()) << left.size() << " of the node's processes still run";
}

// A soak, in CI's budget (about 100 s, mostly waiting: other tests run beside it): the two
// tanks paced at 4 simulated seconds per wall second on a node agent (150 s in all), with an
// operator's set every 3 s for 90 s; the node agent stopped for 15 s and continued meanwhile
// (its components go on: it is not on the data path); then, about 360 simulated seconds in
// (a minute before the run's end, for a loaded machine's slower sets), one Integrator
// killed: the run ends with exit 3 and no process left,
// `--resume` continues it on the node to the end, and `--replay` of what was recorded (every set
// once) gives the same digest without a node, unpaced.
TEST_F(LoopbackNodes, SoakAPacedRunWithSetsAStoppedNodeAndAKilledIntegratorResumesToItsDigest) {
  auto alpha = node("alpha");
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  const fs::path out = dir_ / "soak";
  KausalProcess run({"run", scenario("two-tanks.toml"), "--method", "conservative", "--realtime",
                     "4", "--skip-feasibility-check", "--deploy", d.string(), "--naming", naming(),
                     "--call-timeout", "1000", "--out", out.string()},
                    dir_.path());
  for (int k = 0; k < 1000 && !fs::exists(out / "operator.ior"); ++k)
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(fs::exists(out / "operator.ior")) << run.err();
  constexpr int kSets = 30;
  // A set every 3 s from here on, however long each `kausal inject` takes on a loaded host:
  // the kill must come before the paced run's end.
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kSets; ++k) {
    std::this_thread::sleep_until(start + 3s * (k + 1));
    if (k == 5) {
      ASSERT_EQ(kill(alpha->pid(), SIGSTOP), 0);
    } else if (k == 10) {
      ASSERT_EQ(kill(alpha->pid(), SIGCONT), 0);
    }
    std::string err;
    const std::string inflow = std::to_string(0.01 + 0.001 * k);
    ASSERT_EQ(
        run_kausal({"inject", out.string(), "set", "upper.inflow", inflow}, dir_.path(), &err), 0)
        << "set " << k << ": " << err << run.err();
  }
  const auto components = children_of(alpha->pid());
  std::optional<pid_t> victim;
  for (const auto& [pid, command] : components)
    if (command.find("--name integrator-lower ") != std::string::npos) victim = pid;
  ASSERT_TRUE(victim) << components.size() << " processes on the node";
  ASSERT_EQ(kill(*victim, SIGKILL), 0);
  EXPECT_EQ(run.wait(60s), std::optional<int>(3)) << run.err();
  EXPECT_NE(run.err().find("integrator-lower"), std::string::npos) << run.err();
  for (int k = 0; k < 500 && !children_of(alpha->pid()).empty(); ++k)
    std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(children_of(alpha->pid()).empty()) << "the failed run left processes on the node";

  std::string err;
  ASSERT_EQ(
      run_kausal({"run", "--resume", out.string(), "--deploy", d.string(), "--naming", naming()},
                 dir_.path(), &err, 120s),
      0)
      << err;
  const auto resumed = read_json(out / "summary.json");
  EXPECT_EQ(resumed["status"], "completed");
  EXPECT_FALSE(resumed["resumed_from"].empty());
  for (const auto& c : resumed["components"]) {
    if (c["name"] != "monitor") {
      EXPECT_EQ(c["node"], "alpha") << c["name"];
    }
  }
  const std::string recorded = read_file(out / "injections.jsonl");
  EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), kSets) << recorded;
  KausalProcess replay({"run", "--replay", out.string()}, dir_.path());
  EXPECT_EQ(replay.wait(120s), std::optional<int>(0)) << replay.err();
  EXPECT_NE(replay.out().find("the same digest"), std::string::npos)
      << replay.out() << replay.err();
  EXPECT_TRUE(children_of(alpha->pid()).empty());
}

// A node agent serves whoever reaches it: a request it cannot serve (an executable that is no
// kausal component, a name that is no plain name, counts and timeouts that do not fit, a run
// or process it does not have) is a ProtocolViolation naming what is wrong, and it serves
// the next request; shutdown ends it.
// Hostile calls: Node::info Node::start Node::processes Node::log Node::stop Node::finish
// Hostile calls: Node::ping Node::shutdown
TEST_F(LoopbackNodes, ANodeRefusesRequestsItCannotServeAndServesTheNext) {
  auto alpha = node("alpha");
  OrbRuntime& orb = monitor_orb(1000);
  NamingService names(orb, naming());
  const CORBA::Object_var obj = names.resolve_node("alpha");
  const idl::Node_var n = idl::Node::_narrow(obj);
  omniORB::setClientCallTimeout(n, 15000);  // start waits for the process
  const auto request = [] {
    idl::ProcessRequest r;
    r.run = "run-1";
    r.process = "system-1";
    r.executable = "kausal-system";
    r.names.length(1);
    r.names[0] = "system-1";
    r.cpu = -1;
    r.call_timeout_ms = 1000;
    r.link_delay_us = 0;
    r.startup_timeout_ms = 10000;
    r.owner = idl::Lease::_nil();
    return r;
  };
  const auto refused = [&](const idl::ProcessRequest& r) {
    try {
      idl::StringSeq_var iors = n->start(r);
    } catch (const idl::ProtocolViolation& e) {
      return std::string(e.reason.in());
    }
    return std::string("started");
  };
  idl::ProcessRequest r = request();
  r.executable = "/bin/sh";
  EXPECT_NE(refused(r).find("is not a kausal component executable"), std::string::npos);
  r = request();
  r.process = "../../etc";
  EXPECT_NE(refused(r).find("is not a plain name"), std::string::npos);
  r = request();
  r.run = "run 1; rm -rf /";
  EXPECT_NE(refused(r).find("is not a plain name"), std::string::npos);
  r = request();
  r.names.length(3);
  EXPECT_NE(refused(r).find("not 3"), std::string::npos);
  r = request();
  r.call_timeout_ms = 0;
  EXPECT_NE(refused(r).find("must be positive"), std::string::npos);
  idl::ProcessStatusSeq_var none = n->processes("no-such-run");
  EXPECT_EQ(none->length(), 0u);
  EXPECT_THROW(CORBA::String_var(n->log("no-such-run", "system-1", 4'294'967'295u)),
               idl::ProtocolViolation);
  n->stop("no-such-run", "system-1", 4'294'967'295u);  // nothing to stop: at once
  n->finish("no-such-run", 4'294'967'295u);

  // It still serves: a real start, a second start of the same process refused, a finish.
  EXPECT_EQ(refused(request()), "started");
  EXPECT_NE(refused(request()).find("already started"), std::string::npos);
  idl::ProcessStatusSeq_var one = n->processes("run-1");
  ASSERT_EQ(one->length(), 1u);
  EXPECT_TRUE(one[0].running);
  n->finish("run-1", 500);
  EXPECT_TRUE(children_of(alpha->pid()).empty());
  idl::NodeInfo_var info = n->info();
  EXPECT_EQ(info->interface_version, idl::INTERFACE_VERSION);
  n->ping();
  n->shutdown();
  EXPECT_TRUE(alpha->wait(10s).has_value()) << alpha->err();
}

TEST_F(LoopbackNodes, UnknownNodeIsBadInputListingTheRegisteredOnes) {
  auto alpha = node("alpha");
  const fs::path d = deploy("[[node]]\nname = \"gamma\"\ncomponents = [\"*\"]\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                        d.string(), "--naming", naming(), "--out", (dir_ / "r").string()},
                       dir_.path(), &err),
            2);
  EXPECT_NE(err.find("node 'gamma' is not registered"), std::string::npos) << err;
  EXPECT_NE(err.find("registered: alpha"), std::string::npos) << err;
  EXPECT_NE(err.find("deploy.toml:1"), std::string::npos) << err;
}

TEST_F(LoopbackNodes, NodeOfAnotherInterfaceVersionIsRefusedWithExitFour) {
  auto old = node("old", {{"KAUSAL_TEST_INTERFACE_VERSION", "4"}});
  const fs::path d =
      deploy("naming = \"" + naming() + "\"\n[[node]]\nname = \"old\"\ncomponents = [\"*\"]\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                        d.string(), "--out", (dir_ / "r").string()},
                       dir_.path(), &err),
            4);
  EXPECT_NE(err.find("node old speaks interface version 4"), std::string::npos) << err;
  EXPECT_TRUE(children_of(old->pid()).empty());  // nothing was started
}

TEST_F(LoopbackNodes, NodeNameTakenByARunningNodeIsRefused) {
  auto alpha = node("alpha");
  LabProcess again({kKausal, "node", "--name", "alpha", "--naming", naming()}, dir_.path(),
                   "again");
  EXPECT_EQ(again.wait(10s), 2);
  EXPECT_NE(again.err().find("already registered"), std::string::npos) << again.err();
  // A node that went away leaves a stale entry; a new node of that name replaces it.
  alpha->end(SIGKILL);
  auto back = node("alpha");
  EXPECT_TRUE(back->wait_for_output("registered", 1s));
}

TEST_F(LoopbackNodes, StoppedNodeUnregisters) {
  auto alpha = node("alpha");
  alpha->end(SIGTERM);
  EXPECT_EQ(alpha->wait(5s), 0);
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                        d.string(), "--naming", naming(), "--out", (dir_ / "r").string()},
                       dir_.path(), &err),
            2);
  EXPECT_NE(err.find("registered: none"), std::string::npos) << err;
}

TEST_F(LoopbackNodes, TlsNodesServeOnlyMonitorsWithACertificateFromTheirCa) {
  ASSERT_EQ(run_kausal({"certs", (dir_ / "certs").string(), "--host", "monitor", "--host", "alpha"},
                       dir_.path()),
            0);
  const std::string ca = (dir_ / "certs/ca.pem").string();
  auto alpha = std::make_unique<LabProcess>(
      std::vector<std::string>{kKausal, "node", "--name", "alpha", "--naming", naming(), "--tls-ca",
                               ca, "--tls-cert", (dir_ / "certs/alpha.pem").string(), "--work-dir",
                               (dir_ / "work-alpha").string()},
      dir_.path(), "node-alpha");
  ASSERT_TRUE(alpha->wait_for_output("registered", 10s)) << alpha->err();
  const fs::path d = deploy("[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  const fs::path short_thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 0.3"}});
  std::string err;
  ASSERT_EQ(
      run_kausal({"run", short_thesis.string(), "--out", (dir_ / "seq").string()}, dir_.path()), 0);
  EXPECT_EQ(run_kausal({"run", short_thesis.string(), "--method", "conservative", "--deploy",
                        d.string(), "--naming", naming(), "--tls-ca", ca, "--tls-cert",
                        (dir_ / "certs/monitor.pem").string(), "--out", (dir_ / "tls").string()},
                       dir_.path(), &err),
            0)
      << err;
  EXPECT_EQ(read_json(dir_ / "tls/summary.json")["trajectory_sha256"],
            read_json(dir_ / "seq/summary.json")["trajectory_sha256"]);
  // Without a certificate the monitor cannot even ask the node who it is.
  EXPECT_EQ(run_kausal({"run", short_thesis.string(), "--method", "conservative", "--deploy",
                        d.string(), "--naming", naming(), "--out", (dir_ / "plain").string()},
                       dir_.path(), &err),
            3);
  EXPECT_NE(err.find("node alpha"), std::string::npos) << err;
}

TEST(MultiHostFaults, NamingServiceUnreachableIsAPeerFailure) {
  TempDir dir;
  dir.write("deploy.toml", "[[node]]\nname = \"alpha\"\ncomponents = [\"*\"]\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                        (dir / "deploy.toml").string(), "--naming",
                        corbaloc("127.0.0.1", free_port()), "--out", (dir / "r").string()},
                       dir.path(), &err),
            3);
  EXPECT_NE(err.find("naming service corbaloc::127.0.0.1"), std::string::npos) << err;
  LabProcess node(
      {kKausal, "node", "--name", "alpha", "--naming", corbaloc("127.0.0.1", free_port())},
      dir.path(), "node");
  EXPECT_EQ(node.wait(20s), 3);
  EXPECT_NE(node.err().find("naming service"), std::string::npos) << node.err();
}

TEST(MultiHostFaults, BadDeploymentFilesAndOptionsNameWhatIsWrong) {
  TempDir dir;
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases{
      {"[[node]]\nname = \"a\"\ncomponents = [\"*\"]\nport = 3\n", "deploy.toml:4: unknown key"},
      {"[[node]]\nname = \"a\"\n", "deploy.toml:1: node[0].components must be"},
      {"[[node]]\nname = \"a/b\"\ncomponents = [\"*\"]\n", "plain name"},
      {"[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n[[node]]\nname = \"a\"\ncomponents = "
       "[\"x\"]\n",
       "listed twice"},
      {"naming = 3\n[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n", "naming must be a string"},
      {"", "needs [[node]] tables"},
      {"[[node]]\nname = \"a\"\ncomponents = [\"system-*\"]\n", "no [[node]] takes process"},
  };
  for (const auto& c : cases) {
    dir.write("deploy.toml", c.text);
    std::string err;
    EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy",
                          (dir / "deploy.toml").string(), "--naming",
                          corbaloc("127.0.0.1", free_port()), "--out", (dir / "r").string()},
                         dir.path(), &err),
              c.expected == "no [[node]] takes process" ? 3 : 2)
        << c.text;
    if (c.expected != "no [[node]] takes process") {
      EXPECT_NE(err.find(c.expected), std::string::npos) << c.text << "\n" << err;
    }
  }
  dir.write("deploy.toml", "[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n");
  const std::string d = (dir / "deploy.toml").string();
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--deploy", d},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("--deploy needs --naming"), std::string::npos) << err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "conservative", "--layout",
                        "single", "--deploy", d, "--naming", "corbaloc::127.0.0.1:1/NameService"},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("single layout"), std::string::npos) << err;
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--method", "sequential", "--deploy", d,
                        "--naming", "corbaloc::127.0.0.1:1/NameService"},
                       dir.path(), &err),
            2);
  EXPECT_EQ(run_kausal({"run", scenario("thesis.toml"), "--naming", "corbaloc::x:1/NameService"},
                       dir.path(), &err),
            2);
  EXPECT_EQ(
      run_kausal({"run", scenario("thesis.toml"), "--link-delay", "2 parsecs"}, dir.path(), &err),
      2);
  EXPECT_NE(err.find("--link-delay"), std::string::npos) << err;
}

// ---- separate network stacks: namespaces joined by veth pairs through a bridge ----

class NetworkNamespaces : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root (CI runs as root)";
    lab_ = std::make_unique<NetworkLab>(std::vector<std::string>{"head", "alpha", "beta"},
                                        dir_.path());
    fs::create_directories(dir_ / "names");
    names_ = std::make_unique<LabProcess>(omninames_command(address("head"), 2809, dir_ / "names"),
                                          dir_.path(), "omninames", lab_->netns("head"), "head");
    bool up = false;
    for (int k = 0; k < 50 && !up; ++k) {
      up = lab_->listening("alpha", address("head"), 2809);
      if (!up) std::this_thread::sleep_for(100ms);
    }
    ASSERT_TRUE(up) << "omniNames did not come up: " << names_->err();
    for (const std::string name : {"alpha", "beta"}) {
      nodes_[name] = std::make_unique<LabProcess>(
          std::vector<std::string>{kKausal, "node", "--name", name, "--naming", naming(), "--host",
                                   address(name), "--work-dir", (dir_ / name).string()},
          dir_.path(), "node-" + name, lab_->netns(name), name);
      ASSERT_TRUE(nodes_[name]->wait_for_output("registered", 15s)) << nodes_[name]->err();
    }
    std::ofstream(dir_ / "deploy.toml")
        << "naming = \"" << naming() << "\"\nmonitor_host = \"" << address("head")
        << "\"\n[[node]]\nname = \"alpha\"\ncomponents = [\"*-1\", \"*-2\", \"*-3\"]\n"
        << "[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n";
  }

  std::string address(const std::string& host) const { return lab_->address(host); }
  std::string naming() const { return corbaloc(address("head"), 2809); }

  // The monitor runs on the head host, in its namespace.
  std::unique_ptr<LabProcess> monitor(std::vector<std::string> args, const std::string& label) {
    args.insert(args.begin(), kKausal);
    return std::make_unique<LabProcess>(args, dir_.path(), label, lab_->netns("head"), "head");
  }

  // Declared in this order so that they go in the reverse one: processes before the lab.
  TempDir dir_;
  std::unique_ptr<NetworkLab> lab_;
  std::unique_ptr<LabProcess> names_;
  std::map<std::string, std::unique_ptr<LabProcess>> nodes_;
};

TEST_F(NetworkNamespaces, ThesisAcrossThreeHostsGivesTheSequentialDigestUnderEveryMethod) {
  // Its first 4 s: the impacts run along the whole row by then (a fifth of the time).
  const fs::path thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 4.0"}});
  auto compare = monitor({"compare", thesis.string(), "--deploy", (dir_ / "deploy.toml").string(),
                          "--out", (dir_ / "cmp").string()},
                         "compare");
  ASSERT_EQ(compare->wait(300s), 0) << compare->err();
  const auto sequential = read_json(dir_ / "cmp/sequential/summary.json");
  EXPECT_GT(sequential["collisions"].get<int>(), 20);
  for (const std::string m : {"conservative-step", "conservative-lookahead", "optimistic"}) {
    const auto summary = read_json(dir_ / "cmp" / m / "summary.json");
    EXPECT_EQ(summary["trajectory_sha256"], sequential["trajectory_sha256"]) << m;
    EXPECT_EQ(summary["collisions"], sequential["collisions"]) << m;
    for (const auto& c : summary["components"]) {
      const std::string name = c["name"];
      if (name == "monitor") {
        EXPECT_EQ(c["host"], "head");
        continue;
      }
      // Pendulums 1-3 on alpha, 4-5 on beta: each in its own namespace and host name.
      const bool on_alpha = name.back() <= '3';
      EXPECT_EQ(c["node"], on_alpha ? "alpha" : "beta") << m << " " << name;
      EXPECT_EQ(c["host"], on_alpha ? "alpha" : "beta") << m << " " << name;
    }
  }
}

TEST_F(NetworkNamespaces, LinkDelaySlowsEveryMessageAndLeavesTheDigestAlone) {
  const fs::path short_thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 0.2"}});
  auto seq = monitor(
      {"run", short_thesis.string(), "--method", "sequential", "--out", (dir_ / "seq").string()},
      "seq");
  ASSERT_EQ(seq->wait(60s), 0) << seq->err();
  const auto reference = read_json(dir_ / "seq/summary.json")["trajectory_sha256"];
  std::ostringstream table;
  table << "method        delay  wall s\n";
  for (const std::string method : {"conservative", "optimistic"}) {
    for (const std::string delay : {"0", "2ms"}) {
      const fs::path out = dir_ / (method + "-" + delay);
      auto run =
          monitor({"run", short_thesis.string(), "--method", method, "--deploy",
                   (dir_ / "deploy.toml").string(), "--link-delay", delay, "--out", out.string()},
                  method + delay);
      ASSERT_EQ(run->wait(120s), 0) << run->err();
      const auto summary = read_json(out / "summary.json");
      EXPECT_EQ(summary["trajectory_sha256"], reference) << method << " " << delay;
      const double wall = summary["wall_s"];
      table << method << "  " << delay << "  " << wall << "\n";
      RecordProperty(method + "_" + delay + "_wall_s", std::to_string(wall));
      // Not a speed assertion but a causal floor: a conservative step needs the monitor's
      // request and the Integrator's reply, each held back 2 ms.
      if (method == "conservative" && delay == "2ms") {
        EXPECT_GE(wall, 200 * 0.004) << "the link delay was not applied";
      }
    }
  }
  std::ofstream(dir_ / "latency.txt") << table.str();
  std::cout << table.str() << std::flush;
}

// Blocks as processes on two hosts, with and without a link delay: each block on its host,
// the sequential digest for every method. (bench/blocks_hosts.sh measures the same setting.)
TEST_F(NetworkNamespaces, BlocksOnTwoHostsGiveTheSequentialDigestWithAndWithoutALinkDelay) {
  std::ofstream(dir_ / "blocks.toml")
      << "naming = \"" << naming() << "\"\nmonitor_host = \"" << address("head")
      << "\"\n[[node]]\nname = \"alpha\"\ncomponents = [\"block-1\"]\n"
      << "[[node]]\nname = \"beta\"\ncomponents = [\"*\"]\n";
  const fs::path chain =
      scenario_variant("large.toml", dir_.path(), {{"duration = 20.0", "duration = 0.2"}});
  auto seq = monitor(
      {"run", chain.string(), "--method", "sequential", "--out", (dir_ / "seq").string()}, "seq");
  ASSERT_EQ(seq->wait(60s), 0) << seq->err();
  const auto reference = read_json(dir_ / "seq/summary.json");
  for (const std::string guarantee : {"step", "lookahead"}) {
    for (const std::string delay : {"0", "2ms"}) {
      const fs::path out = dir_ / (guarantee + "-" + delay);
      auto run =
          monitor({"run", chain.string(), "--method", "conservative", "--guarantee", guarantee,
                   "--layout", "block-processes:2", "--deploy", (dir_ / "blocks.toml").string(),
                   "--link-delay", delay, "--out", out.string()},
                  guarantee + delay);
      ASSERT_EQ(run->wait(120s), 0) << run->err();
      const auto summary = read_json(out / "summary.json");
      EXPECT_EQ(summary["trajectory_sha256"], reference["trajectory_sha256"]) << out;
      for (const auto& c : summary["components"]) {
        if (c["role"] == "block") {
          EXPECT_EQ(c["host"], c["name"] == "block-1" ? "alpha" : "beta") << out;
        }
      }
      // A causal floor, not a speed assertion: step by step, every step is a call to each
      // block and its reply, each held back 2 ms.
      if (guarantee == "step" && delay == "2ms") {
        EXPECT_GE(summary["wall_s"].get<double>(),
                  static_cast<double>(reference["steps"].get<std::uint64_t>()) * 0.004);
      }
    }
  }
}

TEST_F(NetworkNamespaces, NodeKilledMidRunExitsThreeNamingTheHostAndResumeReachesTheSameDigest) {
  // 6 s of the thesis: the node is killed within its first steps, and the resumed run goes on
  // through the impacts that travel the whole row.
  const fs::path thesis =
      scenario_variant("thesis.toml", dir_.path(), {{"duration = 20.0", "duration = 6.0"}});
  auto run = monitor({"run", thesis.string(), "--method", "conservative", "--deploy",
                      (dir_ / "deploy.toml").string(), "--out", (dir_ / "run").string()},
                     "run");
  // Some committed rows on disk first (header + at least two).
  for (int k = 0; k < 500 && lines_of(dir_ / "run/trajectory.csv") < 3; ++k)
    std::this_thread::sleep_for(20ms);
  ASSERT_GE(lines_of(dir_ / "run/trajectory.csv"), 3u) << run->err();
  nodes_["beta"]->end(SIGKILL);  // its component processes die with it
  const auto code = run->wait(60s);
  ASSERT_TRUE(code.has_value()) << "the monitor did not notice the lost node";
  EXPECT_EQ(*code, 3) << run->err();
  const std::string err = run->err();
  EXPECT_NE(err.find("node beta"), std::string::npos) << err;
  EXPECT_TRUE(
      err.find("system-4") != std::string::npos || err.find("integrator-4") != std::string::npos ||
      err.find("system-5") != std::string::npos || err.find("integrator-5") != std::string::npos)
      << err;
  const auto summary = read_json(dir_ / "run/summary.json");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_EQ(summary["exit_code"], 3);
  EXPECT_GE(lines_of(dir_ / "run/trajectory.csv"), 3u);
  // The node that survived ended the processes of the failed run.
  EXPECT_TRUE(children_of(nodes_["alpha"]->pid()).empty());

  // Bring the host back and continue from the last committed state: the digest of an
  // uninterrupted run.
  nodes_["beta"] = std::make_unique<LabProcess>(
      std::vector<std::string>{kKausal, "node", "--name", "beta", "--naming", naming(), "--host",
                               address("beta"), "--work-dir", (dir_ / "beta-again").string()},
      dir_.path(), "node-beta-again", lab_->netns("beta"), "beta");
  ASSERT_TRUE(nodes_["beta"]->wait_for_output("registered", 15s)) << nodes_["beta"]->err();
  auto resumed = monitor(
      {"run", "--resume", (dir_ / "run").string(), "--deploy", (dir_ / "deploy.toml").string()},
      "resumed");
  ASSERT_EQ(resumed->wait(120s), 0) << resumed->err();
  auto seq = monitor({"run", thesis.string(), "--out", (dir_ / "seq").string()}, "seq");
  ASSERT_EQ(seq->wait(60s), 0) << seq->err();
  const auto done = read_json(dir_ / "run/summary.json");
  EXPECT_EQ(done["trajectory_sha256"], read_json(dir_ / "seq/summary.json")["trajectory_sha256"]);
  EXPECT_EQ(done["resumes"], 1);
  EXPECT_EQ(read_file(dir_ / "run/trajectory.csv"), read_file(dir_ / "seq/trajectory.csv"));
}

}  // namespace
}  // namespace kausal::testing

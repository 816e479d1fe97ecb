#pragma once
// Runs real processes for the integration tests (the kausal CLI and its executables, or any
// command, also inside a network namespace): output to files, exit status with a deadline,
// the processes they started found through /proc. Every process a test starts is ended by
// PID when the test leaves, whatever happened.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/temp_dir.hpp"

namespace kausal::testing {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json read_json(const fs::path& p) {
  return nlohmann::json::parse(read_file(p));
}

// PIDs of the processes whose parent is `parent`, with their command lines.
inline std::map<pid_t, std::string> children_of(pid_t parent) {
  std::map<pid_t, std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // Fields after the ")" that closes the command name: state, ppid, ...
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    for (auto& c : cmdline)
      if (c == '\0') c = ' ';
    found[static_cast<pid_t>(std::stoi(name))] = cmdline;
  }
  return found;
}

inline bool process_exists(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  // A zombie no longer runs; it only waits for its parent to reap it.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || line.size() < close + 3 || line[close + 2] != 'Z';
}

// Waits up to `timeout` for child `pid` to exit and reaps it: its exit code (128 + the
// signal if one ended it), kept in `status`; nothing if it is still running.
inline std::optional<int> wait_for_exit(pid_t pid, std::optional<int>& status,
                                        std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!status) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status;
}

// Any command (omniNames, kausal node, kausal run), with stdout and stderr in LABEL.out and
// LABEL.err in `dir`, optionally inside a network namespace under its own host name (its own
// UTS namespace). Ended by PID, with everything it started, when the test leaves.
class LabProcess {
 public:
  // Runs argv; with a namespace, as `ip netns exec NS unshare --uts sh -c 'hostname H; exec
  // argv'`: every step execs in place, so pid() is the command itself.
  LabProcess(const std::vector<std::string>& command, const fs::path& dir, const std::string& label,
             const std::string& netns = "", const std::string& hostname = "",
             const std::map<std::string, std::string>& env = {})
      : stdout_(dir / (label + ".out")), stderr_(dir / (label + ".err")) {
    std::vector<std::string> storage;
    if (!netns.empty())
      storage = {"ip",    "netns",   "exec",
                 netns,   "unshare", "--uts",
                 "sh",    "-c",      "hostname \"$0\" && exec \"$@\"",
                 hostname};
    storage.insert(storage.end(), command.begin(), command.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      // An empty value removes the variable (a child without DISPLAY, say).
      for (const auto& [k, v] : env)
        v.empty() ? unsetenv(k.c_str()) : setenv(k.c_str(), v.c_str(), 1);
      // dup2, not freopen: freopen would flush the test's unwritten stdout a second time.
      const int out = open(stdout_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = open(stderr_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      execvp(argv[0], argv.data());
      _exit(127);
    }
  }
  ~LabProcess() { end(SIGKILL); }
  LabProcess(const LabProcess&) = delete;
  LabProcess& operator=(const LabProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Sends `signal` to it (after its children, which it might otherwise restart) and reaps it.
  void end(int signal) {
    if (status_) return;
    for (const auto& [pid, cmd] : children_of(pid_)) kill(pid, SIGKILL);
    kill(pid_, signal);
    wait(std::chrono::seconds(5));
    if (!status_) {
      kill(pid_, SIGKILL);
      wait(std::chrono::seconds(5));
    }
  }

  std::optional<int> wait(std::chrono::milliseconds timeout) {
    return wait_for_exit(pid_, status_, timeout);
  }

  // Waits until its stdout contains `text`; false if it exits or the time runs out first.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (out().find(text) != std::string::npos) return true;
      if (wait(std::chrono::milliseconds(0))) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  std::string out() const { return read_file(stdout_); }
  std::string err() const { return read_file(stderr_); }

 private:
  pid_t pid_ = -1;
  fs::path stdout_, stderr_;
  std::optional<int> status_;
};

// Runs a command to its end (at most `timeout`); its exit code, -1 if it had to be killed.
inline int run_command(const std::vector<std::string>& command, const fs::path& dir,
                       std::string* err = nullptr,
                       std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  LabProcess p(command, dir, "command");
  const auto code = p.wait(timeout);
  if (err) *err = p.err();
  return code.value_or(-1);
}

// The kausal CLI (or another kausal executable), with stdout and stderr in PROGRAM.out and
// PROGRAM.err in `dir`.
class KausalProcess : public LabProcess {
 public:
  KausalProcess(const std::vector<std::string>& args, const fs::path& dir,
                const std::map<std::string, std::string>& env = {},
                const std::string& program = "kausal")
      : LabProcess(command(program, args), dir, label(program), "", "", env) {}

  // The PID of the child process started with `--name <component>`, waiting for it.
  std::optional<pid_t> component_pid(const std::string& component,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& [pid, cmd] : children_of(pid()))
        if (cmd.find("--name " + component + " ") != std::string::npos) return pid;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

 private:
  // Each process its own files (kausal.3.out, kausal.3.err): a run's output stays readable
  // after other commands (inject, tick) ran in the same directory.
  static std::string label(const std::string& program) {
    static std::atomic<unsigned> started{0};
    return program + "." + std::to_string(++started);
  }
  static std::vector<std::string> command(const std::string& program,
                                          const std::vector<std::string>& args) {
    std::vector<std::string> out{std::string(KAUSAL_BIN_DIR) + "/" + program};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
};

// ---- connection floods (hostile_calls_test, realtime_cli_test) ----

// The TCP port a process listens on (its only listening TCP socket), from /proc; 0 if none.
inline int listening_port(pid_t pid) {
  std::set<std::string> sockets;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code ec;
    const std::string target = fs::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0)
      sockets.insert(target.substr(8, target.size() - 9));
  }
  std::ifstream tcp("/proc/" + std::to_string(pid) + "/net/tcp");
  std::string line;
  std::getline(tcp, line);  // the header
  while (std::getline(tcp, line)) {
    std::istringstream row(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >>
        inode;
    if (state == "0A" && sockets.count(inode))
      return std::stoi(local.substr(local.find(':') + 1), nullptr, 16);
  }
  return 0;
}

// Resident memory of a process in MiB (VmRSS), 0 if it is gone.
inline double resident_mib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

// A process's threads (/proc/PID/status), 0 if it is gone.
inline int thread_count(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return 0;
}

// `connections` TCP connections to 127.0.0.1:port, held until end() or destruction: every
// second one silent, the others having sent a GIOP 1.2 Request header that announces a
// 1,000-byte body which never comes (slowloris). Raises this process's limit of open files
// to its hard limit first; possible() is false when that is too low for the flood.
class ConnectionFlood {
 public:
  ConnectionFlood(int port, int connections) {
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) != 0) return;
    if (files.rlim_max != RLIM_INFINITY && files.rlim_max < static_cast<rlim_t>(connections) + 256)
      return;
    files.rlim_cur = files.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &files) != 0) return;
    possible_ = true;
    const char header[] = {'G', 'I', 'O', 'P', 1, 2, 1, 0, static_cast<char>(0xe8), 3, 0, 0};
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int k = 0; k < connections; ++k) {
      const int s = socket(AF_INET, SOCK_STREAM, 0);
      if (s < 0) break;
      if (connect(s, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
        close(s);  // a full accept queue refuses some: the flood is what got in
        continue;
      }
      if (k % 2 == 1) (void)!send(s, header, sizeof header, MSG_NOSIGNAL);
      sockets_.push_back(s);
    }
  }
  ~ConnectionFlood() { end(); }
  ConnectionFlood(const ConnectionFlood&) = delete;
  ConnectionFlood& operator=(const ConnectionFlood&) = delete;

  bool possible() const { return possible_; }
  std::size_t size() const { return sockets_.size(); }
  void end() {
    for (int s : sockets_) close(s);
    sockets_.clear();
  }

 private:
  bool possible_ = false;
  std::vector<int> sockets_;
};

// Runs kausal to completion (at most `timeout`) and returns its exit code (-1 on timeout).
inline int run_kausal(const std::vector<std::string>& args, const fs::path& dir,
                      std::string* err = nullptr,
                      std::chrono::milliseconds timeout = std::chrono::seconds(100)) {
  KausalProcess p(args, dir);
  const auto code = p.wait(timeout);
  if (err) *err = p.err();
  return code.value_or(-1);
}

// The shipped scenarios, and one of them by name.
inline const fs::path kScenarios = fs::path(KAUSAL_SOURCE_DIR) / "scenarios";
inline std::string scenario(const std::string& name) {
  return (kScenarios / name).string();
}

inline void write_file(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

inline void expect_all_gone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) EXPECT_FALSE(process_exists(pid)) << "process " << pid << " left behind";
}

// How long after a component of any kind (a System, an Integrator, a block, an event group)
// stops answering a run has ended with exit 3: it is found within the call timeout + 1 s
// (docs/architecture.md, "Liveness"), and the run ends within its 2 s grace for the others;
// 2 s more for a loaded machine.
inline double liveness_bound_s(double call_timeout_s) {
  return call_timeout_s + 1 + 2 + 2;
}

// What a finished `kausal run` left: its summary.json, its PID and what it printed.
struct Finished {
  nlohmann::json summary;
  pid_t kausal_pid = -1;
  std::string text;
};

// `kausal run SCENARIO --out OUT METHOD...` in `dir`: expects exit 0 within 120 s and no
// child process left behind.
inline Finished run_ok(const fs::path& scenario, const std::vector<std::string>& method,
                       const fs::path& out, const TempDir& dir,
                       const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> args = {"run", scenario.string(), "--out", out.string()};
  args.insert(args.end(), method.begin(), method.end());
  KausalProcess p(args, dir.path(), env);
  const auto code = p.wait(std::chrono::seconds(120));
  EXPECT_EQ(code, 0) << p.err();
  if (code != 0) return {};
  EXPECT_TRUE(children_of(p.pid()).empty());
  return {read_json(out / "summary.json"), p.pid(), p.out()};
}

// `kausal ARGS` in `dir`, ARGS naming --out: expects exit 0 within 120 s and returns the
// summary.json it wrote.
inline nlohmann::json run_summary(const std::vector<std::string>& args, const fs::path& dir) {
  std::string err;
  EXPECT_EQ(run_kausal(args, dir, &err, std::chrono::seconds(120)), 0) << err;
  const auto at = std::find(args.begin(), args.end(), "--out");
  if (at == args.end() || at + 1 == args.end()) {
    ADD_FAILURE() << "run_summary: the arguments name no --out";
    return {};
  }
  return read_json(fs::path(*(at + 1)) / "summary.json");
}

// A shipped scenario with some top-level TOML lines replaced (e.g. a longer duration).
inline fs::path scenario_variant(const std::string& shipped, const fs::path& dir,
                                 const std::map<std::string, std::string>& replace) {
  std::string text = read_file(kScenarios / shipped);
  for (const auto& [from, to] : replace) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  // The copy lives elsewhere: the FMUs a shipped scenario names beside the build are named
  // by their absolute path, in the build these tests belong to.
  const std::string fmus = "\"../build/fmus/";
  const std::string built = "\"" + std::string(KAUSAL_BIN_DIR) + "/../fmus/";
  for (auto at = text.find(fmus); at != std::string::npos; at = text.find(fmus, at))
    text.replace(at, fmus.size(), built);
  const fs::path out = dir / ("variant-" + shipped);
  std::ofstream(out) << text;
  return out;
}

}  // namespace kausal::testing

#pragma once
// Processes of the multi-host tests: any command (omniNames, kausal node, kausal run), with
// stdout and stderr in files, optionally inside a network namespace under its own host name
// (its own UTS namespace). Ended by PID, with everything it started, when the test leaves.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/kausal_process.hpp"

namespace kausal::testing {

class LabProcess {
 public:
  // Runs argv; with a namespace, as `ip netns exec NS unshare --uts sh -c 'hostname H; exec
  // argv'`: every step execs in place, so pid() is the command itself.
  LabProcess(const std::vector<std::string>& command, const fs::path& dir, const std::string& label,
             const std::string& netns = "", const std::string& hostname = "",
             const std::vector<std::pair<std::string, std::string>>& env = {})
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
      for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
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

// omniNames serving on ADDRESS:PORT only, its log in `dir`.
inline std::vector<std::string> omninames_command(const std::string& address, int port,
                                                  const fs::path& log_dir) {
  return {"omniNames",
          "-start",
          std::to_string(port),
          "-logdir",
          log_dir.string(),
          "-ORBendPoint",
          "giop:tcp:" + address + ":" + std::to_string(port)};
}

}  // namespace kausal::testing

#pragma once
// A child process started by the launcher: its own process group (Ctrl-C in the terminal
// reaches only the monitor, which ends its children itself), killed by the kernel if the
// launcher dies (PR_SET_PDEATHSIG), stdout on a pipe, stderr into a log file. The
// destructor always ends and reaps it.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "monitor/core/process_handle.hpp"

namespace kausal {

class ChildProcess : public ProcessHandle {
 public:
  // Throws std::system_error if it cannot be started. A cpu >= 0 pins the process (all of
  // its threads) to that CPU.
  ChildProcess(std::string name, const std::filesystem::path& executable,
               const std::vector<std::string>& args, const std::filesystem::path& log_file,
               int cpu = -1);
  ~ChildProcess() override;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line the child writes on stdout, or nothing if it does not arrive in time or
  // the child closes stdout (exits) first.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  // True while the process has not exited (reaps it when it has). Thread-safe with respect
  // to other ChildProcess objects, not to itself.
  bool running() override;
  // "exited with code 3", "killed by signal 9", or "running".
  std::string status() override;
  // Waits up to `timeout` for the process to exit by itself; true if it did.
  // SIGTERM, wait up to `grace`, then SIGKILL; always reaps.
  void stop(std::chrono::milliseconds grace) override;

  const std::string& name() const override { return name_; }
  pid_t pid() const { return pid_; }
  long process_id() const override { return pid_; }
  const std::filesystem::path& log_file() const { return log_file_; }
  std::string log_location() const override { return log_file_.string(); }

 private:
  std::string name_;
  std::filesystem::path log_file_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string buffered_;
  std::optional<int> wait_status_;
};

}  // namespace kausal

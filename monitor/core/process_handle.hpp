#pragma once
// A component process as the launcher sees it, wherever it runs: a child of this process
// (ChildProcess) or a process a node agent started on another host (RemoteProcess).
#include <chrono>
#include <string>
#include <thread>

namespace kausal {

class ProcessHandle {
 public:
  virtual ~ProcessHandle() = default;

  virtual const std::string& name() const = 0;
  virtual long process_id() const = 0;
  // True while it has not exited. A remote process whose node cannot be asked counts as
  // ended (status() says why).
  virtual bool running() = 0;
  // "running", "exited with code 3", "killed by signal 9", "lost with node alpha (...)".
  virtual std::string status() = 0;
  // Waits up to `timeout` for it to exit by itself, asking running() every poll_period();
  // true if it did.
  bool wait_for_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (running()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(poll_period());
    }
    return true;
  }
  // SIGTERM, up to `grace`, then SIGKILL.
  virtual void stop(std::chrono::milliseconds grace) = 0;
  // Where its log is, for messages: a path on this host, or "node alpha: /tmp/...".
  virtual std::string log_location() const = 0;
  // The node agent it runs under; empty for a child of this process.
  virtual std::string node() const { return {}; }

 protected:
  // How often wait_for_exit asks: a child's state is a system call away, a remote one a call.
  virtual std::chrono::milliseconds poll_period() const { return std::chrono::milliseconds(5); }
};

}  // namespace kausal

#include "monitor/core/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <thread>
#include <vector>

namespace kausal {

namespace {

// What the child of start_child() needs, prepared before it exists: it may allocate nothing.
struct ChildStart {
  char* const* argv;
  int stdout_fd;
  int log_fd;
  pid_t parent;
  const cpu_set_t* affinity;  // null: not pinned
  sigset_t mask;              // the launcher's signal mask, restored before exec
};

// The child, on a stack of its own and the launcher's memory, until it execs: system calls
// only. The monitor's signal handlers are reset first (every signal is blocked until then),
// so that none of them runs on the borrowed memory.
int exec_child(void* arg) {
  const auto& start = *static_cast<const ChildStart*>(arg);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action {};
    if (sigaction(sig, nullptr, &action) == 0 && action.sa_handler != SIG_IGN &&
        action.sa_handler != SIG_DFL) {
      action.sa_handler = SIG_DFL;
      sigaction(sig, &action, nullptr);
    }
  }
  sigprocmask(SIG_SETMASK, &start.mask, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != start.parent) _exit(127);  // the launcher died before prctl took effect
  setpgid(0, 0);
  if (start.affinity) sched_setaffinity(0, sizeof *start.affinity, start.affinity);
  dup2(start.stdout_fd, STDOUT_FILENO);
  dup2(start.log_fd, STDERR_FILENO);
  execv(start.argv[0], start.argv);
  _exit(127);
}

// Starts argv with its stdout and stderr on the two descriptors: the child's pid, or -1 with
// errno set. The child borrows the launcher's memory until it execs (CLONE_VM | CLONE_VFORK,
// as posix_spawn does; posix_spawn itself cannot set the parent-death signal or the
// affinity): fork copied the page tables of the monitor and took copy-on-write faults after
// it, each flushing the other CPUs' TLBs while the monitor's threads ran; a component
// process now starts about 8 ms of CPU cheaper on the 2-CPU machine (docs/performance.md,
// "Build and test times").
pid_t start_child(char* const* argv, int stdout_fd, int log_fd, int cpu) {
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  if (cpu >= 0) CPU_SET(cpu, &affinity);
  ChildStart start{argv, stdout_fd, log_fd, getpid(), cpu >= 0 ? &affinity : nullptr, {}};
  std::vector<char> stack(64 * 1024);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &start.mask);
  const pid_t pid =
      clone(exec_child, stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  const int error = errno;
  pthread_sigmask(SIG_SETMASK, &start.mask, nullptr);
  errno = error;
  return pid;
}

}  // namespace

ChildProcess::ChildProcess(std::string name, const std::filesystem::path& executable,
                           const std::vector<std::string>& args,
                           const std::filesystem::path& log_file, int cpu)
    : name_(std::move(name)), log_file_(log_file) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    close(out[0]);
    close(out[1]);
    throw std::system_error(errno, std::generic_category(), "cannot create " + log_file.string());
  }
  std::vector<std::string> argv_storage{executable.string()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = start_child(argv.data(), out[1], log, cpu);
  const int error = errno;
  close(out[1]);
  close(log);
  if (pid_ < 0) {
    close(out[0]);
    throw std::system_error(error, std::generic_category(), "clone");
  }
  stdout_fd_ = out[0];
}

ChildProcess::~ChildProcess() {
  stop(std::chrono::milliseconds(0));
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || stdout_fd_ < 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = read(stdout_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // closed: the child exited (or closed stdout)
      close(stdout_fd_);
      stdout_fd_ = -1;
      continue;
    }
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

bool ChildProcess::running() {
  if (wait_status_ || pid_ <= 0) return false;
  int st = 0;
  const pid_t r = waitpid(pid_, &st, WNOHANG);
  if (r == pid_) wait_status_ = st;
  return !wait_status_;
}

std::string ChildProcess::status() {
  if (running()) return "running";
  if (!wait_status_) return "not started";
  const int st = *wait_status_;
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return "killed by signal " + std::to_string(WTERMSIG(st));
  return "ended";
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return;
  if (grace.count() > 0) {
    kill(pid_, SIGTERM);
    kill(pid_, SIGCONT);  // a stopped process must run to act on SIGTERM
    if (wait_for_exit(grace)) return;
  }
  kill(pid_, SIGKILL);
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  wait_status_ = st;
}

}  // namespace kausal

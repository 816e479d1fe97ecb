#pragma once
// What `kausal node` does on its host, without the CORBA around it: start kausal's component
// executables on request, as its own children, grouped by run; report how they are; end
// them. Nothing here takes a command from the wire: the node builds every command line
// itself from checked names.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "idl/orb_runtime.hpp"
#include "monitor/core/child_process.hpp"

namespace kausal {

struct StartRequest {
  std::string run;                 // groups processes: finish(run) ends them all
  std::string process;             // "system-1", "pendulum-3"
  std::string executable;          // kausal-system | kausal-integrator | kausal-pendulum
  std::vector<std::string> names;  // hosted components, in the order they print references
  int cpu = -1;                    // -1: the OS places it; else CPU cpu mod cpus()
  unsigned call_timeout_ms = 3000;
  unsigned link_delay_us = 0;
  std::chrono::milliseconds startup_timeout{10000};
};

struct ProcessState {
  std::string process;
  long pid = 0;
  bool running = false;
  std::string status;
  std::string log_file;
};

class NodeAgent {
 public:
  // transport: how the processes it starts serve (address, TLS); the call timeout and link
  // delay come with each request. work_dir holds one directory per run (logs, sockets).
  NodeAgent(std::string name, std::filesystem::path bin_dir, std::filesystem::path work_dir,
            OrbSettings transport);
  // Ends every process it started.
  ~NodeAgent();
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  // Starts the process and waits for its object references. ProtocolError for a request
  // that is not allowed; PeerError (naming the process, with the end of its log) if it does
  // not start in time.
  std::vector<std::string> start(const StartRequest& request);
  std::vector<ProcessState> processes(const std::string& run);
  // The last max_bytes of a process's log. ProtocolError if there is no such process.
  std::string log_tail(const std::string& run, const std::string& process, std::size_t max_bytes);
  void stop(const std::string& run, const std::string& process, std::chrono::milliseconds grace);
  // Ends every process of the run and forgets it (its logs stay in work_dir).
  void finish(const std::string& run, std::chrono::milliseconds grace);

  const std::string& name() const { return name_; }
  const OrbSettings& transport() const { return transport_; }
  unsigned cpus() const { return static_cast<unsigned>(cpus_.size()); }

 private:
  void check(const StartRequest& request) const;
  std::vector<std::string> arguments(const StartRequest& request,
                                     const std::filesystem::path& run_dir) const;
  // Runs f on the spawner thread. A child is tied to the thread that forked it
  // (PR_SET_PDEATHSIG fires when that thread ends): never fork from a request thread, which
  // ends with its connection.
  void on_spawner(const std::function<void()>& f);
  void spawner_loop();

  std::string name_;
  std::filesystem::path bin_dir_, work_dir_;
  OrbSettings transport_;
  std::vector<int> cpus_;
  std::mutex mutex_;  // guards runs_ and every ChildProcess in it
  std::map<std::string, std::map<std::string, std::shared_ptr<ChildProcess>>> runs_;

  std::mutex spawn_mutex_;
  std::condition_variable spawn_cv_;
  std::deque<std::function<void()>> spawn_queue_;
  bool spawner_done_ = false;
  std::thread spawner_;
};

}  // namespace kausal

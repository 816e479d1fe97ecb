#include "monitor/node/node_agent.hpp"

#include <fstream>
#include <future>
#include <set>

#include "common/errors.hpp"
#include "monitor/scenario/deploy_file.hpp"
#include "monitor/sync/fan_out.hpp"

namespace kausal {

namespace {

const std::set<std::string> kExecutables{"kausal-system", "kausal-integrator", "kausal-pendulum",
                                         "kausal-event-group", "kausal-block"};

std::size_t hosted_count(const std::string& executable) {
  return executable == "kausal-pendulum" ? 2 : 1;
}

std::string tail_of(const std::filesystem::path& file, std::size_t max_bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max_bytes)
                                  ? size - static_cast<std::streamoff>(max_bytes)
                                  : 0;
  in.seekg(from);
  std::string out(static_cast<std::size_t>(size - from), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  return out;
}

}  // namespace

NodeAgent::NodeAgent(std::string name, std::filesystem::path bin_dir,
                     std::filesystem::path work_dir, OrbSettings transport)
    : name_(std::move(name)),
      bin_dir_(std::move(bin_dir)),
      work_dir_(std::move(work_dir)),
      transport_(std::move(transport)),
      cpus_(available_cpus()) {
  spawner_ = std::thread([this] { spawner_loop(); });
}

NodeAgent::~NodeAgent() {
  {
    std::lock_guard lock(mutex_);
    for (auto& [run, processes] : runs_)
      for (auto& [process, child] : processes) child->stop(std::chrono::milliseconds(0));
  }
  {
    std::lock_guard lock(spawn_mutex_);
    spawner_done_ = true;
  }
  spawn_cv_.notify_all();
  spawner_.join();
  // The children are destroyed (reaped) with runs_.
}

void NodeAgent::spawner_loop() {
  std::unique_lock lock(spawn_mutex_);
  for (;;) {
    spawn_cv_.wait(lock, [this] { return spawner_done_ || !spawn_queue_.empty(); });
    if (spawn_queue_.empty()) return;
    auto task = std::move(spawn_queue_.front());
    spawn_queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

void NodeAgent::on_spawner(const std::function<void()>& f) {
  std::packaged_task<void()> task(f);
  auto done = task.get_future();
  {
    std::lock_guard lock(spawn_mutex_);
    spawn_queue_.emplace_back([&task] { task(); });
  }
  spawn_cv_.notify_one();
  done.get();  // rethrows what f threw
}

void NodeAgent::check(const StartRequest& r) const {
  auto refuse = [&](const std::string& why) { throw ProtocolError("node " + name_, why); };
  if (!plain_name(r.run)) refuse("run id '" + r.run + "' is not a plain name");
  if (!plain_name(r.process)) refuse("process name '" + r.process + "' is not a plain name");
  if (!kExecutables.count(r.executable))
    refuse("'" + r.executable + "' is not a kausal component executable");
  if (r.names.size() != hosted_count(r.executable))
    refuse(r.executable + " hosts " + std::to_string(hosted_count(r.executable)) +
           " component(s), not " + std::to_string(r.names.size()));
  for (const auto& n : r.names)
    if (!plain_name(n)) refuse("component name '" + n + "' is not a plain name");
  if (r.call_timeout_ms == 0 || r.startup_timeout.count() <= 0)
    refuse("call and startup timeouts must be positive");
}

std::vector<std::string> NodeAgent::arguments(const StartRequest& r,
                                              const std::filesystem::path& run_dir) const {
  std::vector<std::string> args;
  for (const auto& n : r.names) args.insert(args.end(), {"--name", n});
  OrbSettings child = transport_;
  child.call_timeout_ms = r.call_timeout_ms;
  child.link_delay_us = r.link_delay_us;
  for (const auto& a : orb_arguments(child)) args.push_back(a);
  if (unix_sockets_allowed(child))
    args.insert(args.end(), {"--unix-socket", (run_dir / (r.process + ".sock")).string()});
  return args;
}

std::vector<std::string> NodeAgent::start(const StartRequest& r) {
  check(r);
  const std::filesystem::path run_dir = work_dir_ / r.run;
  {
    std::lock_guard lock(mutex_);
    if (runs_[r.run].count(r.process))
      throw ProtocolError("node " + name_,
                          "process '" + r.process + "' already started in run " + r.run);
  }
  std::filesystem::create_directories(run_dir);
  const int cpu = r.cpu < 0 || cpus_.empty() ? -1 : cpus_[r.cpu % cpus_.size()];
  std::shared_ptr<ChildProcess> child;
  on_spawner([&] {
    child =
        std::make_shared<ChildProcess>(r.process, bin_dir_ / r.executable, arguments(r, run_dir),
                                       run_dir / (r.process + ".log"), cpu);
  });
  std::vector<std::string> iors;
  const auto deadline = std::chrono::steady_clock::now() + r.startup_timeout;
  for (std::size_t k = 0; k < r.names.size(); ++k) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const auto ior = child->read_line(std::max(left, std::chrono::milliseconds(1)));
    if (!ior || ior->rfind("IOR:", 0) != 0) {
      child->stop(std::chrono::milliseconds(0));
      throw PeerError(r.names[k], "did not start on node " + name_ + " (" + child->status() +
                                      "); log " + child->log_file().string() + ":\n" +
                                      tail_of(child->log_file(), 2000));
    }
    iors.push_back(*ior);
  }
  std::lock_guard lock(mutex_);
  runs_[r.run][r.process] = child;
  return iors;
}

std::vector<ProcessState> NodeAgent::processes(const std::string& run) {
  std::vector<ProcessState> out;
  std::lock_guard lock(mutex_);
  auto it = runs_.find(run);
  if (it == runs_.end()) return out;
  for (auto& [process, child] : it->second)
    out.push_back(
        {process, child->pid(), child->running(), child->status(), child->log_file().string()});
  return out;
}

std::string NodeAgent::log_tail(const std::string& run, const std::string& process,
                                std::size_t max_bytes) {
  std::filesystem::path file;
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(run);
    if (it == runs_.end() || !it->second.count(process))
      throw ProtocolError("node " + name_, "no process '" + process + "' in run '" + run + "'");
    file = it->second[process]->log_file();
  }
  return tail_of(file, max_bytes);
}

void NodeAgent::stop(const std::string& run, const std::string& process,
                     std::chrono::milliseconds grace) {
  // Under the lock: processes() may be asking the same child how it is.
  std::lock_guard lock(mutex_);
  auto it = runs_.find(run);
  if (it == runs_.end() || !it->second.count(process)) return;
  it->second[process]->stop(grace);
}

void NodeAgent::finish(const std::string& run, std::chrono::milliseconds grace) {
  std::map<std::string, std::shared_ptr<ChildProcess>> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(run);
    if (it == runs_.end()) return;
    ended = std::move(it->second);
    runs_.erase(it);
  }
  for (auto& [process, child] : ended) child->stop(grace);
}

}  // namespace kausal

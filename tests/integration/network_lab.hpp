#pragma once
// Separate network stacks for the multi-host tests: one network namespace per host, each
// joined by a veth pair to a bridge in a hub namespace, on the test's own subnet. Nothing
// is added to the machine's own network stack. The namespaces (and with them the veth pairs
// and the bridge) are deleted when the lab goes, and leftovers of labs whose test process
// died are removed when a new lab starts.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/integration/kausal_process.hpp"

namespace kausal::testing {

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

class NetworkLab {
 public:
  // hosts: short names ("naming", "alpha", ...); each gets 10.231.0.(k+1)/24.
  NetworkLab(const std::vector<std::string>& hosts, const fs::path& dir) : dir_(dir) {
    remove_stale_labs();
    prefix_ = "ksl" + std::to_string(getpid());
    try {
      ip({"netns", "add", hub()});
      in(hub(), {"ip", "link", "set", "lo", "up"});
      in(hub(), {"ip", "link", "add", "br0", "type", "bridge"});
      in(hub(), {"ip", "link", "set", "br0", "up"});
      for (std::size_t k = 0; k < hosts.size(); ++k) add_host(hosts[k], k);
    } catch (...) {
      remove();
      throw;
    }
  }
  ~NetworkLab() { remove(); }
  NetworkLab(const NetworkLab&) = delete;
  NetworkLab& operator=(const NetworkLab&) = delete;

  const std::string& address(const std::string& host) const { return addresses_.at(host); }
  std::string netns(const std::string& host) const { return prefix_ + "-" + host; }

  // Runs `command` inside the host's namespace and waits for it; its exit code.
  int in(const std::string& ns, const std::vector<std::string>& command) {
    std::vector<std::string> full{"ip", "netns", "exec", ns};
    full.insert(full.end(), command.begin(), command.end());
    return checked(full);
  }

  // Whether something accepts TCP connections on address:port, seen from inside `host`.
  bool listening(const std::string& host, const std::string& address, int port) {
    std::vector<std::string> probe{"ip",
                                   "netns",
                                   "exec",
                                   netns(host),
                                   "bash",
                                   "-c",
                                   "exec 3<>/dev/tcp/" + address + "/" + std::to_string(port)};
    return run_command(probe, dir_, nullptr, std::chrono::seconds(5)) == 0;
  }

 private:
  std::string hub() const { return prefix_ + "-hub"; }

  void add_host(const std::string& host, std::size_t k) {
    const std::string ns = netns(host);
    const std::string inner = prefix_.substr(3) + "h" + std::to_string(k);  // <= 15 chars
    const std::string outer = prefix_.substr(3) + "b" + std::to_string(k);
    const std::string address = "10.231.0." + std::to_string(k + 1);
    ip({"netns", "add", ns});
    ip({"link", "add", inner, "netns", ns, "type", "veth", "peer", "name", outer, "netns", hub()});
    in(ns, {"ip", "link", "set", "lo", "up"});
    in(ns, {"ip", "addr", "add", address + "/24", "dev", inner});
    in(ns, {"ip", "link", "set", inner, "up"});
    in(hub(), {"ip", "link", "set", outer, "master", "br0"});
    in(hub(), {"ip", "link", "set", outer, "up"});
    addresses_[host] = address;
    hosts_.push_back(host);
  }

  void ip(const std::vector<std::string>& args) {
    std::vector<std::string> full{"ip"};
    full.insert(full.end(), args.begin(), args.end());
    checked(full);
  }

  int checked(const std::vector<std::string>& command) {
    std::string err;
    const int code = run_command(command, dir_, &err);
    if (code != 0) {
      std::string text;
      for (const auto& c : command) text += c + " ";
      throw std::runtime_error("network lab: '" + text + "' failed (" + std::to_string(code) +
                               "): " + err);
    }
    return code;
  }

  void remove() {
    for (const auto& host : hosts_) run_command({"ip", "netns", "del", netns(host)}, dir_);
    hosts_.clear();
    run_command({"ip", "netns", "del", hub()}, dir_);
  }

  // Namespaces named ksl<PID>-... whose test process no longer exists.
  static void remove_stale_labs() {
    const fs::path run_dir = "/run/netns";
    if (!fs::exists(run_dir)) return;
    for (const auto& entry : fs::directory_iterator(run_dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("ksl", 0) != 0) continue;
      const auto dash = name.find('-');
      if (dash == std::string::npos) continue;
      const pid_t owner = static_cast<pid_t>(std::atol(name.substr(3, dash - 3).c_str()));
      if (owner > 0 && kill(owner, 0) == 0) continue;
      TempDir scratch;
      run_command({"ip", "netns", "del", name}, scratch.path());
    }
  }

  fs::path dir_;
  std::string prefix_;
  std::vector<std::string> hosts_;
  std::map<std::string, std::string> addresses_;
};

}  // namespace kausal::testing

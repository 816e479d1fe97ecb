#pragma once
// The platform of the kausal command (monitor/deploy/run_platform.hpp): components as processes
// (or collocated servants) over the ORB, started here or, with a deployment file, by the
// node agents it names; runs shown in kausal-animation when one is open.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "idl/orb_runtime.hpp"
#include "monitor/deploy/animation_process.hpp"
#include "monitor/deploy/component_set.hpp"
#include "monitor/deploy/node_directory.hpp"
#include "monitor/deploy/run_platform.hpp"
#include "monitor/scenario/deploy_file.hpp"

namespace kausal {

struct PlatformOptions {
  std::filesystem::path bin_dir;  // where kausal-system, kausal-integrator, ... are
  // How the monitor serves and every process of a run talks (host, link delay, TLS).
  OrbSettings transport;
  unsigned call_timeout_ms = 3000;  // between components; the monitor waits 1 s longer
  std::chrono::milliseconds startup_timeout{10000};
  std::size_t max_processes = kDefaultMaxProcesses;
  // With a deployment file: the components start on the node agents it names, found in
  // this naming service.
  std::optional<DeployFile> deploy_file;
  std::string naming;
};

class ProcessPlatform final : public RunPlatform {
 public:
  explicit ProcessPlatform(PlatformOptions options);
  ~ProcessPlatform() override;
  ProcessPlatform(const ProcessPlatform&) = delete;
  ProcessPlatform& operator=(const ProcessPlatform&) = delete;

  // The monitor's ORB, created on first use and kept until exit (omniORB allows one per
  // process). The monitor serves too: Integrators deliver their batches to its StateSink.
  OrbRuntime& orb();
  // Runs are shown in `animation` from now on (null: no longer); it must outlive the runs.
  void show_in(AnimationProcess* animation) { animation_ = animation; }

  // Pairs in the layout placing.layout (servants here in the single layout), blocks and
  // event groups as processes (ProcessDeployment).
  std::unique_ptr<Deployment> place(const ComponentPlan& plan, const Placing& placing) override;
  std::unique_ptr<LiveFeed> show(const ViewLayout& layout, const std::string& label,
                                 const std::vector<std::string>& strips, Deployment* deployment,
                                 const StepClock* clock) override;
  // Serves the clock as idl::Clock and writes its reference to out_dir/clock.ior (removed
  // when the handle goes).
  std::shared_ptr<void> serve_clock(StepClock& clock,
                                    const std::filesystem::path& out_dir) override;
  std::shared_ptr<void> serve_operator(Operator& op, const std::filesystem::path& out_dir) override;

 private:
  LaunchOptions launch_options(const Placing& placing);
  // Null without a deployment file. Otherwise resolves every node of the file (once) and
  // checks that each can reach the monitor; every deployment gets its own run id.
  std::shared_ptr<const RemotePlacement> remote_placement();

  PlatformOptions options_;
  std::filesystem::path socket_dir_;
  std::unique_ptr<OrbRuntime> orb_;
  std::shared_ptr<NodeDirectory> nodes_;
  AnimationProcess* animation_ = nullptr;
};

}  // namespace kausal

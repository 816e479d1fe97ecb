#include "monitor/deploy/cosim_process_deployment.hpp"

#include <map>

#include "idl/partition_convert.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/deploy/partition_sink_servant.hpp"

namespace kausal {

// A partition as the monitor drives it: its Integrator's partition calls; its System
// configured.
class CosimProcessDeployment::Port final : public PartitionPort {
 public:
  Port(const LaunchedComponent& system, const LaunchedComponent& integrator,
       idl::PartitionSink_ptr sink, std::size_t steps_per_batch, const Heartbeat* heartbeat)
      : name_(integrator.name),
        system_name_(system.name),
        integrator_(narrow<idl::Integrator>(integrator.name, integrator.ref)),
        system_(narrow<idl::System>(system.name, system.ref)),
        sink_(idl::PartitionSink::_duplicate(sink)),
        steps_per_batch_(static_cast<CORBA::ULong>(steps_per_batch)),
        heartbeat_(heartbeat) {}

  const std::string& name() const override { return name_; }
  void provide(const std::vector<ChannelSample>& samples) override {
    const idl::ChannelSampleSeq seq = to_idl(samples);
    Heartbeat::call(heartbeat_, name_, [&] { integrator_->provide(seq); });
  }
  void start() override {
    Heartbeat::call(heartbeat_, name_,
                    [&] { integrator_->start_partition(sink_, steps_per_batch_); });
  }
  CoupledStats stats() override {
    return from_idl(
        Heartbeat::call(heartbeat_, name_, [&] { return integrator_->partition_stats(); }));
  }

  void configure(const CompositeRecipe& recipe, const CoupledConfig& config) {
    const idl::MemberSetupSeq members = to_idl(recipe.members);
    const idl::DirectLinkSeq links = to_idl(recipe.links);
    const idl::ConstantInputSeq constants = to_idl(recipe.constants);
    const CORBA::ULong n = call_peer(
        system_name_, [&] { return system_->configure_partition(members, links, constants); });
    if (n != static_cast<std::size_t>(config.x0.size())) {
      std::string reason = "configured a state of ";
      reason += std::to_string(n) + " values, the plan has " + std::to_string(config.x0.size());
      throw ProtocolError(system_name_, reason);
    }
    const idl::PartitionSetup setup = to_idl(config, system_.in());
    call_peer(name_, [&] { integrator_->initialise_partition(setup); });
  }

 private:
  std::string name_;
  std::string system_name_;
  idl::Integrator_var integrator_;
  idl::System_var system_;
  idl::PartitionSink_var sink_;
  CORBA::ULong steps_per_batch_;
  const Heartbeat* heartbeat_;  // null in the single layout
};

CosimProcessDeployment::CosimProcessDeployment(const CosimScenario& s, const CosimPlan& plan,
                                               OrbRuntime& orb, const LaunchOptions& options,
                                               std::size_t steps_per_batch)
    : orb_(orb), components_(orb, options.layout) {
  try {
    std::vector<ComponentPair> pairs;
    for (std::size_t p = 0; p < s.partitions.size(); ++p) {
      const std::string& name = s.partitions[p].name;
      const int cpu = options.cpus.empty() ? -1 : options.cpus[p % options.cpus.size()];
      pairs.push_back({"system-" + name, "integrator-" + name, "pair-" + name, cpu});
    }
    components_.start(pairs, options);
    heartbeat_ = watch_components(components_, options, [inbox = inbox_](std::exception_ptr e) {
      inbox->push({0, {}, e});
    });
    set_up(s, plan, steps_per_batch);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

CosimProcessDeployment::~CosimProcessDeployment() {
  release();
}

PartitionPort& CosimProcessDeployment::partition(std::size_t p) {
  return *ports_.at(p);
}

void CosimProcessDeployment::shutdown() {
  heartbeat_.reset();  // components about to exit are no failure
  components_.shutdown();
}

void CosimProcessDeployment::release() {
  heartbeat_.reset();
  ports_.clear();
  components_.release();
  if (sink_servant_) orb_.deactivate(sink_servant_);
  sink_servant_ = nullptr;
}

void CosimProcessDeployment::set_up(const CosimScenario& s, const CosimPlan& plan,
                                    std::size_t steps_per_batch) {
  std::map<std::string, std::size_t> index_of;
  std::vector<PartitionSinkServant::Shape> shapes;
  for (std::size_t p = 0; p < plan.configs.size(); ++p) {
    index_of[components_.integrator(p).name] = p;
    shapes.push_back(
        {static_cast<std::size_t>(plan.configs[p].x0.size()), plan.configs[p].output_size});
  }
  auto* sink = new PartitionSinkServant(inbox_, std::move(index_of), std::move(shapes));
  const std::string sink_ior = orb_.activate(sink);
  sink->_remove_ref();  // the POA owns it now
  sink_servant_ = sink;
  CORBA::Object_var sink_obj = orb_.resolve(sink_ior);
  sink_ = idl::PartitionSink::_narrow(sink_obj);

  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    auto port = std::make_unique<Port>(components_.system(p), components_.integrator(p), sink_.in(),
                                       steps_per_batch, heartbeat_.get());
    port->configure(partition_recipe(s, p), plan.configs[p]);
    ports_.push_back(std::move(port));
  }
}

OrbRuntime& monitor_orb(unsigned call_timeout_ms) {
  static const std::unique_ptr<OrbRuntime> orb = [&] {
    OrbSettings settings;
    settings.call_timeout_ms = call_timeout_ms + 1000;
    return std::make_unique<OrbRuntime>(settings);
  }();
  return *orb;
}

std::unique_ptr<CosimDeployment> launch_cosim_processes(const CosimScenario& s,
                                                        const CosimPlan& plan,
                                                        const LaunchOptions& options) {
  return launch_cosim_processes(s, plan, options, monitor_orb(options.call_timeout_ms));
}

std::unique_ptr<CosimDeployment> launch_cosim_processes(const CosimScenario& s,
                                                        const CosimPlan& plan,
                                                        const LaunchOptions& options,
                                                        OrbRuntime& orb) {
  return std::make_unique<CosimProcessDeployment>(s, plan, orb, options);
}

}  // namespace kausal

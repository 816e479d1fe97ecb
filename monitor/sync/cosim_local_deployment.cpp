#include "monitor/sync/cosim_local_deployment.hpp"

#include "integrator/local_model_link.hpp"
#include "system/system_core.hpp"

namespace kausal {

class CosimLocalDeployment::Part final : public PartitionPort, private OutputSink {
 public:
  Part(const CosimScenario& s, const CosimPlan& plan, std::size_t p, PartitionInbox& inbox,
       std::size_t steps_per_batch)
      : index_(p),
        inbox_(inbox),
        steps_per_batch_(steps_per_batch),
        system_("system-" + s.partitions[p].name),
        link_(system_) {
    system_.configure(build_partition_model(s, p));
    integrator_ = std::make_unique<CoupledIntegrator>(plan.configs[p], link_);
  }
  ~Part() override { runner_.reset(); }

  const std::string& name() const override { return integrator_->name(); }
  void provide(const std::vector<ChannelSample>& samples) override { runner_->provide(samples); }
  void start() override {
    runner_ = std::make_unique<CoupledRunner>(*integrator_, static_cast<OutputSink&>(*this),
                                              steps_per_batch_);
  }
  CoupledStats stats() override { return runner_ ? runner_->stats() : integrator_->stats(); }
  std::vector<ComponentReport> reports() const {
    ComponentReport sys{
        system_.name(), ComponentRole::system, "", 0, true, system_.totals(), -1, {}, 0, {}};
    ComponentReport in{integrator_->name(),
                       ComponentRole::integrator,
                       "",
                       0,
                       true,
                       integrator_->totals(),
                       -1,
                       {},
                       0,
                       {}};
    return {sys, in};
  }

 private:
  void deliver(const OutputBatch& batch) override { inbox_.push({index_, batch, nullptr}); }
  void fail(std::exception_ptr error) override { inbox_.push({index_, {}, error}); }

  std::size_t index_;
  PartitionInbox& inbox_;
  std::size_t steps_per_batch_;
  SystemCore system_;
  LocalModelLink link_;
  std::unique_ptr<CoupledIntegrator> integrator_;
  std::unique_ptr<CoupledRunner> runner_;
};

CosimLocalDeployment::CosimLocalDeployment(const CosimScenario& s, const CosimPlan& plan,
                                           std::size_t steps_per_batch) {
  for (std::size_t p = 0; p < s.partitions.size(); ++p)
    parts_.push_back(std::make_unique<Part>(s, plan, p, inbox_, steps_per_batch));
}

CosimLocalDeployment::~CosimLocalDeployment() = default;

PartitionPort& CosimLocalDeployment::partition(std::size_t p) {
  return *parts_.at(p);
}

std::vector<ComponentReport> CosimLocalDeployment::reports() {
  std::vector<ComponentReport> out;
  for (const auto& part : parts_)
    for (auto& r : part->reports()) out.push_back(std::move(r));
  return out;
}

}  // namespace kausal

#include "monitor/local_deployment.hpp"

#include <unistd.h>

namespace kausal {

std::string system_name(std::size_t i) {
  return "system-" + std::to_string(i + 1);
}
std::string integrator_name(std::size_t i) {
  return "integrator-" + std::to_string(i + 1);
}

struct LocalDeployment::Pendulum final : IntegratorPort {
  SystemCore system;
  LocalSystemLink link;
  Integrator integrator;

  Pendulum(const Scenario& s, std::size_t i)
      : system(system_name(i)),
        link(system),
        integrator(IntegratorConfig{integrator_name(i),
                                    s.method,
                                    s.t0(),
                                    s.h,
                                    {s.initial[i].begin(), s.initial[i].end()}},
                   link) {
    system.configure("pendulum", to_parameters(s.chain.pendulums[i]));
  }
  const std::string& name() const override { return integrator.name(); }
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    return integrator.advance(guarantee, gvt);
  }
  std::vector<double> apply_event(const Event& event) override {
    return integrator.apply_event(event);
  }
};

LocalDeployment::LocalDeployment(const Scenario& s) {
  for (std::size_t i = 0; i < s.pendulums(); ++i)
    parts_.push_back(std::make_unique<Pendulum>(s, i));
}

LocalDeployment::~LocalDeployment() = default;

IntegratorPort& LocalDeployment::integrator(std::size_t i) {
  return *parts_.at(i);
}

std::vector<ComponentReport> LocalDeployment::reports() {
  std::vector<ComponentReport> out;
  const long pid = static_cast<long>(getpid());
  for (auto& p : parts_) {
    out.push_back({p->integrator.name(), "integrator", "local", pid, true, p->integrator.totals()});
    out.push_back({p->system.name(), "system", "local", pid, true, p->system.totals()});
  }
  return out;
}

}  // namespace kausal

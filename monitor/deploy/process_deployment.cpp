#include "monitor/deploy/process_deployment.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "idl/composite_convert.hpp"
#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/deploy/block_processes.hpp"
#include "monitor/deploy/event_group_deployment.hpp"
#include "monitor/deploy/state_sink_servant.hpp"

namespace kausal {
namespace {

// An Integrator as the monitor drives it. A call that fails while the heartbeat has found a
// stopped component fails with the heartbeat's verdict.
class CorbaIntegratorPort final : public IntegratorPort {
 public:
  CorbaIntegratorPort(std::string name, idl::Integrator_ptr ref, idl::StateSink_ptr sink,
                      const Heartbeat* heartbeat)
      : name_(std::move(name)),
        ref_(idl::Integrator::_duplicate(ref)),
        sink_(idl::StateSink::_duplicate(sink)),
        heartbeat_(heartbeat) {}
  const std::string& name() const override { return name_; }
  // One call computes for a bounded time (common/request_limits.hpp) and answers with the
  // steps it took: a long grant takes several calls, each well within the call timeout.
  // A continuation that fails after steps arrived (the Integrator answers a failure after the
  // steps it took with the next call): those steps are returned, the failure with the next
  // advance.
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    StateBatch all = advance_once(guarantee, gvt);
    for (std::uint64_t got = all.count(); got > 0 && all.first_step + all.count() <= guarantee;) {
      StateBatch more;
      try {
        more = advance_once(guarantee, gvt);
      } catch (...) {
        failure_ = std::current_exception();
        return all;
      }
      got = more.count();
      if (got > 0 && (more.first_step != all.first_step + all.count() || more.epoch != all.epoch ||
                      more.state_size != all.state_size || more.output_size != all.output_size))
        throw ProtocolError(name_, "answered a continued advance with states from step " +
                                       std::to_string(more.first_step) + ", expected step " +
                                       std::to_string(all.first_step + all.count()));
      all.states.insert(all.states.end(), more.states.begin(), more.states.end());
      all.outputs.insert(all.outputs.end(), more.outputs.begin(), more.outputs.end());
      if (got == 0) continue;
      // What a resume needs belongs to the last step: the continuation's.
      all.memory = std::move(more.memory);
      all.indicators = std::move(more.indicators);
      all.internal = std::move(more.internal);
    }
    return all;
  }
  void start(std::size_t batch_size, std::uint64_t window, std::uint64_t released) override {
    call([&] { ref_->start(sink_, static_cast<CORBA::ULong>(batch_size), window, released); });
  }
  void release(std::uint64_t state) override {
    call([&] { ref_->release(state); });
  }
  void provide(const std::vector<ChannelSample>& samples) override {
    const idl::ChannelSampleSeq seq = to_idl(samples);
    call([&] { ref_->provide(seq); });
  }
  void provide_predictions(const std::vector<ChannelPrediction>& predictions) override {
    const idl::ChannelPredictionSeq seq = to_idl(predictions);
    call([&] { ref_->provide_predictions(seq); });
  }
  void schedule(const std::vector<ArrivingEvent>& events) override {
    const idl::ArrivingEventSeq seq = to_idl(events);
    call([&] { ref_->schedule(seq); });
  }
  std::vector<double> apply_event(const Event& event) override {
    const idl::Event e = to_idl(event);
    idl::DoubleSeq_var x = call([&] { return ref_->apply_event(e); });
    return to_vector(x.in());
  }
  void change(const ModelChange& change) override {
    const idl::ModelChange c = to_idl(change);
    call([&] { ref_->change(c); });
  }
  RollbackResult rollback(std::uint64_t step) override {
    const idl::RollbackResult r = call([&] { return ref_->rollback(step); });
    return {r.epoch, r.discarded_steps, r.wasted_derivative_calls};
  }
  void commit(std::uint64_t gvt) override {
    call([&] { ref_->commit(gvt); });
  }
  IntegratorStats stats() override {
    return from_idl(call([&] { return ref_->statistics(); }));
  }

 private:
  StateBatch advance_once(std::uint64_t guarantee, std::uint64_t gvt) {
    idl::StateBatch_var b = call([&] { return ref_->advance(guarantee, gvt); });
    return from_idl(b.in());
  }

  template <typename F>
  auto call(F&& f) -> decltype(f()) {
    return Heartbeat::call(heartbeat_, name_, std::forward<F>(f));
  }

  std::string name_;
  idl::Integrator_var ref_;
  idl::StateSink_var sink_;
  const Heartbeat* heartbeat_;  // null in the single layout
  std::exception_ptr failure_;  // a continuation's, after steps advance() returned
};

// The bytes of the file at `path` (an FMU archive, a model library: `what`), to ship to a
// System on a node's host; none (the System opens the path there) for one larger than
// limits::max_shipped_archive_bytes.
Bytes file_to_ship(const std::string& path, const std::string& what) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error && size > limits::max_shipped_archive_bytes) return {};
  std::ifstream in(path, std::ios::binary);
  Bytes bytes(error ? 0 : static_cast<std::size_t>(size));
  if (error || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw InputError(path + ": cannot read the " + what + " to send it to the node that runs it");
  return bytes;
}

// The System as its recipe says; its state size must be the plan's. With `ship_files` (a
// System a node started, in a TLS run) it gets its FMUs' archives and model libraries as
// bytes: their paths are the monitor's host's.
void configure_system(const std::string& name, idl::System_ptr system, const SystemRecipe& recipe,
                      std::size_t state_size, bool ship_files) {
  CORBA::ULong n = 0;
  if (const auto* one = std::get_if<ModelRecipe>(&recipe)) {
    const idl::ParameterSeq params = to_idl(one->parameters);
    n = call_peer(name, [&] { return system->configure(one->model.c_str(), params); });
  } else {
    CompositeRecipe composite = std::get<CompositeRecipe>(recipe);
    if (ship_files)
      for (MemberRecipe& member : composite.members) {
        if (member.model == "fmu")
          member.fmu.archive_bytes = file_to_ship(member.fmu.archive, "FMU");
        if (!member.library.empty())
          member.library_bytes = file_to_ship(member.library, "model library");
      }
    const idl::MemberSetupSeq members = to_idl(composite.members);
    const idl::DirectLinkSeq links = to_idl(composite.links);
    const idl::ConstantInputSeq constants = to_idl(composite.constants);
    const idl::HeldInputSeq held = to_idl(composite.held);
    n = call_peer(name,
                  [&] { return system->configure_partition(members, links, constants, held); });
  }
  if (n == state_size) return;
  std::string reason = "configured a state of ";
  reason += std::to_string(n) + " values, the plan has " + std::to_string(state_size);
  throw ProtocolError(name, reason);
}

// The partitions partition i's routes feed, by their Integrators' references (the direct
// data path: started, its Integrator provides their samples itself).
idl::ConsumerSeq consumers_of(const std::vector<Route>& routes,
                              const std::vector<idl::Integrator_var>& integrators,
                              const std::vector<std::string>& names) {
  std::map<std::size_t, std::vector<Route>> by_consumer;
  for (const Route& r : routes) by_consumer[r.consumer].push_back(r);
  idl::ConsumerSeq out;
  out.length(wire_size(by_consumer.size()));
  CORBA::ULong k = 0;
  for (const auto& [q, rs] : by_consumer) {
    idl::Consumer& c = out[k++];
    c.name = names.at(q).c_str();
    c.ref = idl::Integrator::_duplicate(integrators.at(q).in());
    c.routes.length(wire_size(rs.size()));
    for (CORBA::ULong j = 0; j < c.routes.length(); ++j)
      c.routes[j] = {wire_size(rs[j].channel), wire_size(rs[j].output),
                     rs[j].producer_steps_per_sample};
  }
  return out;
}

}  // namespace

ProcessDeployment::ProcessDeployment(const ComponentPlan& plan, OrbRuntime& orb,
                                     const LaunchOptions& options)
    : orb_(orb), components_(orb, options.layout) {
  try {
    if (!plan.pairs.empty()) start_pairs(plan.pairs, options);
    if (!plan.blocks.empty()) blocks_ = std::make_unique<BlockProcesses>(plan.blocks, orb, options);
    if (plan.event_groups) groups_ = place_event_group_processes(*plan.event_groups, orb, options);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

void ProcessDeployment::start_pairs(const DeploymentPlan& plan, const LaunchOptions& options) {
  std::vector<ComponentPair> pairs;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int cpu = options.cpus.empty() ? -1 : options.cpus[i % options.cpus.size()];
    pairs.push_back({plan[i].system, plan[i].integrator, plan[i].process, cpu});
  }
  components_.start(pairs, options);
  heartbeat_ = watch_components(components_, options,
                                [inbox = inbox_](std::exception_ptr e) { inbox->fail(e); });
  set_up(plan, options.tls.enabled());
}

ProcessDeployment::~ProcessDeployment() {
  release();
}

void ProcessDeployment::release() {
  groups_.reset();
  blocks_.reset();
  heartbeat_.reset();
  ports_.clear();
  components_.release();
  if (sink_servant_.in()) orb_.deactivate(sink_servant_);
  sink_servant_ = nullptr;  // the POA drops its own reference once its calls have ended
}

void ProcessDeployment::set_up(const DeploymentPlan& plan, bool tls) {
  std::map<std::string, StateSinkServant::Sender> senders;
  for (std::size_t i = 0; i < plan.size(); ++i)
    senders[plan[i].integrator] = {i, static_cast<std::size_t>(plan[i].config.x0.size()),
                                   plan[i].config.output_size};
  sink_servant_ = new StateSinkServant(inbox_, std::move(senders));
  CORBA::Object_var sink_obj = orb_.resolve(orb_.activate(sink_servant_));
  sink_ = idl::StateSink::_narrow(sink_obj);

  std::vector<idl::Integrator_var> integrators;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const LaunchedComponent& integ = components_.named(plan[i].integrator);
    integrators.push_back(narrow<idl::Integrator>(integ.name, integ.ref));
    names.push_back(integ.name);
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    LaunchedComponent& sys = components_.named(plan[i].system);
    idl::System_var system = narrow<idl::System>(sys.name, sys.ref);
    configure_system(sys.name, system.in(), plan[i].recipe,
                     static_cast<std::size_t>(plan[i].config.x0.size()), tls && !sys.node.empty());
    idl::IntegratorSetup setup = to_idl(plan[i].config, system.in());
    setup.consumers = consumers_of(plan[i].routes, integrators, names);
    call_peer(names[i], [&] { integrators[i]->set_up(setup); });
    ports_.push_back(std::make_unique<CorbaIntegratorPort>(names[i], integrators[i].in(),
                                                           sink_.in(), heartbeat_.get()));
  }
}

std::vector<ComponentReport> ProcessDeployment::reports() {
  return components_.reports();
}

void ProcessDeployment::show_activity_in(const std::string& view) {
  CORBA::Object_var object = orb_.resolve(view);
  idl::Animation_var animation =
      call_peer("animation", [&] { return idl::Animation::_narrow(object); });
  components_.observe(animation.in());
}

std::vector<std::string> ProcessDeployment::component_names() const {
  return components_.names();
}

void ProcessDeployment::shutdown() {
  heartbeat_.reset();  // components about to exit are no failure
  components_.shutdown();
  if (blocks_) blocks_->shutdown();
}

std::string ProcessDeployment::post_mortem() {
  return components_.post_mortem() + (blocks_ ? blocks_->post_mortem() : "");
}

OrbRuntime& monitor_orb(unsigned call_timeout_ms) {
  static const std::unique_ptr<OrbRuntime> orb = [&] {
    OrbSettings settings;
    settings.call_timeout_ms = call_timeout_ms + 1000;
    return std::make_unique<OrbRuntime>(settings);
  }();
  return *orb;
}

}  // namespace kausal

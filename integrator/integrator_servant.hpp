#pragma once
// The Integrator servant: the plain Integrator on the wire, calling its System's model API
// over CORBA. Once started, a Worker steps it and ships its final steps to the monitor's
// StateSink. The same servant serves every model kind.
#include <atomic>
#include <memory>

#include "idl/component_servant.hpp"
#include "integrator/integrator.hpp"
#include "integrator/integrator_access.hpp"
#include "integrator/route.hpp"
#include "integrator/routing_sink.hpp"

namespace kausal {

class IntegratorServant final : public ComponentServant<POA_kausal::idl::Integrator> {
 public:
  IntegratorServant(const std::string& name, OrbRuntime& orb);
  ~IntegratorServant() override;

  void set_up(const idl::IntegratorSetup& setup) override;
  idl::StateBatch* advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) override;
  void start(idl::StateSink_ptr sink, CORBA::ULong batch_size, CORBA::ULongLong window,
             CORBA::ULongLong released) override;
  void release(CORBA::ULongLong state) override;
  void provide(const idl::ChannelSampleSeq& samples) override;
  void provide_predictions(const idl::ChannelPredictionSeq& predictions) override;
  idl::DoubleSeq* apply_event(const idl::Event& event) override;
  void schedule(const idl::ArrivingEventSeq& events) override;
  void change(const idl::ModelChange& change) override;
  idl::RollbackResult rollback(CORBA::ULongLong step) override;
  void commit(CORBA::ULongLong gvt) override;
  idl::IntegratorStats statistics() override;

  // The partitions this one feeds (set_up's consumers): the direct data path.
  struct Consumers {
    std::vector<std::string> names;
    std::vector<idl::Integrator_var> refs;
    std::vector<Route> routes;  // Route::consumer indexes names and refs
  };

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return *trace_.load(); }

 private:
  // (Qualified: inside this class, plain `Integrator` names the CORBA skeleton base.)
  kausal::Integrator& set_up_one();
  // Runs f on the set-up Integrator under its lock (through the worker once started).
  template <typename F>
  auto with_integrator(F&& f) -> decltype(f(std::declval<kausal::Integrator&>()));
  // Which of the monitor's sink and the consumers live in this process (single layout).
  ReceiversHere receivers_here(idl::StateSink_ptr sink);

  std::unique_ptr<ModelLink> link_;
  std::unique_ptr<kausal::Integrator> integrator_;
  Consumers consumers_;
  std::unique_ptr<BatchSink> monitor_sink_;
  std::unique_ptr<BatchSink> sink_;  // the consumers and monitor_sink_ (routing_sink.hpp)
  ActivityTrace no_trace_;           // before set_up()
  std::atomic<const ActivityTrace*> trace_{&no_trace_};  // the Integrator's, read without the lock
  IntegratorAccess access_;  // last: the worker's thread ends before the rest goes
};

}  // namespace kausal

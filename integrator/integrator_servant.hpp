#pragma once
// The Integrator servant: the plain Integrator on the wire, calling its System over CORBA;
// in optimistic runs a RunAhead worker steps it and ships batches to the monitor. In
// partition mode (partitioned models) it hosts a CoupledIntegrator instead, calling its
// System's model API over CORBA, stepped by a CoupledRunner that ships final steps to the
// monitor's PartitionSink.
#include <atomic>
#include <memory>
#include <mutex>

#include "idl/component_servant.hpp"
#include "integrator/coupled_runner.hpp"
#include "integrator/integrator.hpp"
#include "integrator/run_ahead.hpp"

namespace kausal {

class IntegratorServant final : public ComponentServant<POA_kausal::idl::Integrator> {
 public:
  IntegratorServant(const std::string& name, OrbRuntime& orb);
  ~IntegratorServant() override;

  void initialise(const idl::IntegratorSetup& setup) override;
  idl::StateBatch* advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) override;
  idl::DoubleSeq* apply_event(const idl::Event& event) override;
  void run_ahead(idl::StateSink_ptr sink, CORBA::ULong batch_size, CORBA::ULongLong window,
                 CORBA::ULongLong last_step) override;
  idl::RollbackResult rollback(CORBA::ULongLong step) override;
  void commit(CORBA::ULongLong gvt) override;

  void initialise_partition(const idl::PartitionSetup& setup) override;
  void provide(const idl::ChannelSampleSeq& samples) override;
  void start_partition(idl::PartitionSink_ptr sink, CORBA::ULong steps_per_batch) override;
  idl::PartitionStats partition_stats() override;

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return *trace_.load(); }

 private:
  // (Qualified: inside this class, plain `Integrator` names the CORBA skeleton base.)
  kausal::Integrator& initialised();
  // Runs f on the initialised Integrator under its lock (through the worker if running).
  template <typename F>
  auto with_integrator(F&& f) -> decltype(f(std::declval<kausal::Integrator&>()));

  std::mutex mutex_;
  std::unique_ptr<ModelLink> link_;
  std::unique_ptr<kausal::Integrator> integrator_;
  std::unique_ptr<BatchSink> sink_;
  // Partition mode: runner_ after what its worker uses, so that it is joined first.
  std::unique_ptr<CoupledIntegrator> coupled_;
  std::unique_ptr<OutputSink> outputs_;
  std::unique_ptr<CoupledRunner> runner_;
  std::unique_ptr<RunAhead> running_;       // last: its worker ends before the rest goes
  std::atomic<RunAhead*> active_{nullptr};  // running_, for readers outside the lock
  ActivityTrace no_trace_;                  // before initialise()
  std::atomic<const ActivityTrace*> trace_{&no_trace_};  // the Integrator's, read without the lock
};

}  // namespace kausal

#pragma once
// The monitor's StateSink: optimistic Integrators deliver their batches (and worker
// failures) here; the servant only enqueues them into the deployment's inbox, so that a
// delivery never waits for anything the monitor thread does.
#include <map>
#include <memory>
#include <string>

#include "idl/kausal.hh"
#include "monitor/sync/batch_inbox.hpp"

namespace kausal {

class StateSinkServant final : public POA_kausal::idl::StateSink {
 public:
  // first_step: the run's step at which the Integrators' own step count began (0, or where a
  // resumed run continues); added to every step number that arrives.
  StateSinkServant(std::shared_ptr<BatchInbox> inbox, std::map<std::string, std::size_t> index_of,
                   std::uint64_t first_step = 0);
  void deliver(const char* component, const idl::StateBatch& batch) override;
  void fail(const char* sender, CORBA::ULong epoch, CORBA::ULongLong step, const char* kind,
            const char* origin, const char* reason) override;

 private:
  std::size_t index_of(const char* component) const;

  std::shared_ptr<BatchInbox> inbox_;  // shared: a call may still be running as the run ends
  std::map<std::string, std::size_t> index_of_;
  std::uint64_t first_step_;
};

}  // namespace kausal

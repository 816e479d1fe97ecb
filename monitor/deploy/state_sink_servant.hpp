#pragma once
// The monitor's StateSink: every Integrator that steps on its own delivers its batches (and
// its worker's failures) here. The servant checks what arrives against the sender's shape
// and only enqueues it into the deployment's inbox, so that a delivery never waits for
// anything the monitor thread does. A batch that does not fit its sender becomes a failure
// of the run naming the sender; a stranger is refused (ProtocolViolation) and changes
// nothing.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "idl/kausal.hh"
#include "monitor/sync/batch_inbox.hpp"

namespace kausal {

class StateSinkServant final : public POA_kausal::idl::StateSink {
 public:
  struct Sender {
    std::size_t index = 0;  // the source number in the inbox
    std::size_t state_size = 0;
    std::size_t output_size = 0;
  };
  // senders: by Integrator name.
  StateSinkServant(std::shared_ptr<BatchInbox> inbox, std::map<std::string, Sender> senders);
  void deliver(const char* sender, const idl::StateBatch& batch) override;
  void fail(const char* sender, CORBA::ULong epoch, CORBA::ULongLong step, const char* kind,
            const char* origin, const char* reason) override;

 private:
  const Sender& sender_of(const char* name) const;
  // Why the batch does not fit its sender, or "" if it does.
  static std::string misfit(const Sender& want, const idl::StateBatch& batch);

  std::shared_ptr<BatchInbox> inbox_;  // shared: a call may still be running as the run ends
  std::map<std::string, Sender> senders_;
};

}  // namespace kausal

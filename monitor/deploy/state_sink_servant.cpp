#include "monitor/deploy/state_sink_servant.hpp"

#include <cmath>

#include "common/request_limits.hpp"
#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

StateSinkServant::StateSinkServant(std::shared_ptr<BatchInbox> inbox,
                                   std::map<std::string, Sender> senders)
    : inbox_(std::move(inbox)), senders_(std::move(senders)) {}

const StateSinkServant::Sender& StateSinkServant::sender_of(const char* name) const {
  const auto it = senders_.find(name);
  if (it == senders_.end())
    throw idl::ProtocolViolation(
        "monitor", (std::string("delivery from unknown component '") + name + "'").c_str());
  return it->second;
}

std::string StateSinkServant::misfit(const Sender& want, const idl::StateBatch& b) {
  std::string why;
  if (b.state_size != want.state_size || b.output_size != want.output_size) {
    why = "sent steps of ";
    why += std::to_string(b.state_size) + " states and " + std::to_string(b.output_size) +
           " outputs, expected " + std::to_string(want.state_size) + " and " +
           std::to_string(want.output_size);
    return why;
  }
  const std::size_t steps = want.state_size ? b.states.length() / want.state_size : 0;
  if (steps == 0 || steps * want.state_size != b.states.length() ||
      b.outputs.length() != steps * want.output_size) {
    why = "sent a batch of ";
    why += std::to_string(b.states.length()) + " states and " + std::to_string(b.outputs.length()) +
           " outputs (not whole steps)";
    return why;
  }
  // Whole derivatives, at most as many as the Adams methods keep (ab4: three).
  const bool memory_fits = b.memory.past.length() % want.state_size == 0 &&
                           b.memory.past.length() <= max_history_length * want.state_size;
  if (!memory_fits || b.indicators.length() > limits::max_model_size)
    return "sent a stepper memory or event indicators that do not fit its state";
  if (b.internal.length() > limits::max_internal_bytes)
    return "sent an internal state of " + std::to_string(b.internal.length()) +
           " bytes, more than " + std::to_string(limits::max_internal_bytes);
  return "";
}

void StateSinkServant::deliver(const char* sender, const idl::StateBatch& batch) {
  const Sender& from = sender_of(sender);
  std::exception_ptr failure;
  if (const std::string why = misfit(from, batch); !why.empty())
    failure = std::make_exception_ptr(ProtocolError(sender, why));
  else if (!all_finite(batch.states) || !all_finite(batch.outputs) ||
           !all_finite(batch.memory.past) || !std::isfinite(batch.memory.h) ||
           !all_finite(batch.indicators))
    failure = std::make_exception_ptr(ModelError(sender, "sent non-finite values"));
  if (failure) {
    inbox_->push({from.index, StateBatch::empty_at(batch.epoch, batch.first_step), failure,
                  batch.first_step});
    return;
  }
  inbox_->push({from.index, from_idl(batch), nullptr});
}

void StateSinkServant::fail(const char* sender, CORBA::ULong epoch, CORBA::ULongLong step,
                            const char* kind, const char* origin, const char* reason) {
  const Sender& from = sender_of(sender);
  const std::string k = kind;
  std::exception_ptr failure;
  if (k != "model" && k != "peer" && k != "protocol")
    failure = std::make_exception_ptr(ProtocolError(
        sender, "reported a failure of unknown kind '" + k + "': " + std::string(reason)));
  else
    failure = failure_from_report({k, origin, reason});
  inbox_->push({from.index, StateBatch::empty_at(epoch, step), failure, step});
}

}  // namespace kausal

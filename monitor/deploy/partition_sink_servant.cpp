#include "monitor/deploy/partition_sink_servant.hpp"

#include <cmath>

#include "idl/partition_convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {
namespace {

bool all_finite(const idl::DoubleSeq& values) {
  for (CORBA::ULong k = 0; k < values.length(); ++k)
    if (!std::isfinite(values[k])) return false;
  return true;
}

}  // namespace

PartitionSinkServant::PartitionSinkServant(std::shared_ptr<PartitionInbox> inbox,
                                           std::map<std::string, std::size_t> index_of,
                                           std::vector<Shape> shapes)
    : inbox_(std::move(inbox)), index_of_(std::move(index_of)), shapes_(std::move(shapes)) {}

std::optional<std::size_t> PartitionSinkServant::partition_of(const char* sender) {
  const auto it = index_of_.find(sender);
  if (it != index_of_.end()) return it->second;
  std::string reason = "a delivery from unknown component '";
  reason += std::string(sender) + "'";
  inbox_->push({0, {}, std::make_exception_ptr(ProtocolError("monitor", reason))});
  return std::nullopt;
}

std::string PartitionSinkServant::misfit(std::size_t p, const idl::OutputBatch& b) const {
  const Shape& want = shapes_[p];
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
  return "";
}

void PartitionSinkServant::deliver_outputs(const char* sender, const idl::OutputBatch& batch) {
  const auto p = partition_of(sender);
  if (!p) return;
  if (const std::string why = misfit(*p, batch); !why.empty()) {
    inbox_->push({*p, {}, std::make_exception_ptr(ProtocolError(sender, why))});
    return;
  }
  if (!all_finite(batch.states) || !all_finite(batch.outputs)) {
    inbox_->push({*p, {}, std::make_exception_ptr(ModelError(sender, "sent non-finite values"))});
    return;
  }
  inbox_->push({*p, from_idl(batch), nullptr});
}

void PartitionSinkServant::fail_partition(const char* sender, const char* kind, const char* origin,
                                          const char* reason) {
  const auto p = partition_of(sender);
  if (!p) return;
  const std::string k = kind;
  if (k != "model" && k != "peer" && k != "protocol") {
    std::string why = "reported a failure of unknown kind '";
    why += k + "': " + reason;
    inbox_->push({*p, {}, std::make_exception_ptr(ProtocolError(sender, why))});
    return;
  }
  inbox_->push({*p, {}, failure_from_report({k, origin, reason})});
}

}  // namespace kausal

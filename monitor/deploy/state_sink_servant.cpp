#include "monitor/deploy/state_sink_servant.hpp"

#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

StateSinkServant::StateSinkServant(std::shared_ptr<BatchInbox> inbox,
                                   std::map<std::string, std::size_t> index_of,
                                   std::uint64_t first_step)
    : inbox_(std::move(inbox)), index_of_(std::move(index_of)), first_step_(first_step) {}

std::size_t StateSinkServant::index_of(const char* component) const {
  const auto it = index_of_.find(component);
  if (it == index_of_.end())
    throw idl::ProtocolViolation(
        "monitor", (std::string("delivery from unknown component '") + component + "'").c_str());
  return it->second;
}

void StateSinkServant::deliver(const char* component, const idl::StateBatch& batch) {
  StateBatch b = from_idl(batch);
  b.first_step += first_step_;
  inbox_->push({index_of(component), std::move(b), nullptr});
}

void StateSinkServant::fail(const char* sender, CORBA::ULong epoch, CORBA::ULongLong step,
                            const char* kind, const char* origin, const char* reason) {
  const std::uint64_t at = step + first_step_;
  inbox_->push({index_of(sender), StateBatch{epoch, at, 0, {}},
                failure_from_report({kind, origin, reason}), at});
}

}  // namespace kausal

#include "integrator/block_servant.hpp"

#include "idl/block_convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

void BlockServant::set_up(const idl::BlockSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    core_.set_up(from_idl(setup, name()));
    core_.clock().count_request();
  });
}

idl::BlockSteps* BlockServant::advance(const idl::BlockAdvance& request) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    core_.clock().count_request();
    const BlockReply reply = core_.advance(from_idl(request, name()));
    calc_calls_ = reply.calc_calls;
    return to_idl(reply);
  });
}

ActivityTotals BlockServant::totals() {
  std::lock_guard lock(mutex_);
  ActivityTotals t = core_.clock().totals();
  t.calc_calls = calc_calls_;
  return t;
}

}  // namespace kausal

#include "integrator/block_servant.hpp"

#include "idl/block_convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

void BlockServant::set_up(const idl::BlockSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    core_.set_up(from_idl(setup, name()));
  });
}

idl::BlockSteps* BlockServant::advance(const idl::BlockAdvance& request) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return to_idl(core_.advance(from_idl(request, name())));
  });
}

ActivityTotals BlockServant::totals() {
  return core_.totals();
}

}  // namespace kausal

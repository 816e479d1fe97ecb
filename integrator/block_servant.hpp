#pragma once
// The Block servant (kausal-block, --layout block-processes:K): a BlockCore behind the
// wire. Calls are taken one at a time; every failure leaves as an IDL exception naming the
// block (idl/wire_errors.hpp).
#include <mutex>

#include "idl/component_servant.hpp"
#include "integrator/block_core.hpp"

namespace kausal {

class BlockServant final : public ComponentServant<POA_kausal::idl::Block> {
 public:
  BlockServant(const std::string& name, OrbRuntime& orb)
      : ComponentServant(name, "block", orb), core_(name) {}
  ~BlockServant() override { stop_feed(); }

  void set_up(const idl::BlockSetup& setup) override;
  idl::BlockSteps* advance(const idl::BlockAdvance& request) override;

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return core_.trace(); }

 private:
  std::mutex mutex_;  // one call at a time
  BlockCore core_;
};

}  // namespace kausal

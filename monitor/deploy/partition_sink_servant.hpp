#pragma once
// The monitor's PartitionSink: each partition's Integrator delivers its final steps (and the
// failure that stopped it) here; the servant checks what arrives and only enqueues it into
// the deployment's inbox, so a delivery never waits for the monitor thread. A batch that
// does not fit its partition becomes a failure of the run naming the sender.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idl/kausal.hh"
#include "monitor/sync/partition_port.hpp"

namespace kausal {

class PartitionSinkServant final : public POA_kausal::idl::PartitionSink {
 public:
  struct Shape {
    std::size_t state_size = 0;
    std::size_t output_size = 0;
  };
  // index_of: sender (Integrator name) → partition; shapes: per partition.
  PartitionSinkServant(std::shared_ptr<PartitionInbox> inbox,
                       std::map<std::string, std::size_t> index_of, std::vector<Shape> shapes);
  void deliver_outputs(const char* sender, const idl::OutputBatch& batch) override;
  void fail_partition(const char* sender, const char* kind, const char* origin,
                      const char* reason) override;

 private:
  // The partition of `sender`; pushes a failure and returns nothing for a stranger.
  std::optional<std::size_t> partition_of(const char* sender);
  // Why the batch does not fit partition p, or "" if it does.
  std::string misfit(std::size_t p, const idl::OutputBatch& batch) const;

  std::shared_ptr<PartitionInbox> inbox_;  // shared: a call may still run as the run ends
  std::map<std::string, std::size_t> index_of_;
  std::vector<Shape> shapes_;
};

}  // namespace kausal

#pragma once
// The monitor's view of the partitions of a coupled model: the same driver runs them in this
// process (cosim_local_deployment) or in other processes over CORBA.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "integrator/coupled_integrator.hpp"
#include "monitor/run/run_result.hpp"

namespace kausal {

struct PartitionDelivery {
  std::size_t partition = 0;
  OutputBatch batch;           // empty when failure is set
  std::exception_ptr failure;  // the partition stopped on this error
};

// Thread-safe: partitions push from their threads, the monitor pops in its own.
class PartitionInbox {
 public:
  void push(PartitionDelivery d) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(d));
    }
    cv_.notify_one();
  }
  std::optional<PartitionDelivery> pop(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, timeout, [&] { return !items_.empty(); })) return std::nullopt;
    PartitionDelivery d = std::move(items_.front());
    items_.pop_front();
    return d;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<PartitionDelivery> items_;
};

class PartitionPort {
 public:
  virtual ~PartitionPort() = default;
  virtual const std::string& name() const = 0;
  // Samples of this partition's input channels, in order per channel.
  virtual void provide(const std::vector<ChannelSample>& samples) = 0;
  // From now on the partition steps by itself; its final steps arrive in the inbox.
  virtual void start() = 0;
  virtual CoupledStats stats() = 0;
};

// The partitions of one scenario, configured and ready at step 0 (not started). A deployment
// whose components can die or stop on their own watches them and puts the first failure
// into its inbox.
class CosimDeployment {
 public:
  virtual ~CosimDeployment() = default;
  virtual std::size_t size() const = 0;
  virtual PartitionPort& partition(std::size_t p) = 0;
  virtual PartitionInbox& inbox() = 0;
  virtual std::vector<ComponentReport> reports() = 0;
};

}  // namespace kausal

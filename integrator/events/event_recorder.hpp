#pragma once
// The committed result of a discrete-event run (docs/events.md): per component, a SHA-256
// over its committed events in the order it processed them — time (IEEE double), the
// component, the event kind (uint32), the payload (double), little-endian — and the run's
// digest, a SHA-256 over the components' hex digests in component order. Each component is
// committed by one thread, so the recorder needs no lock; the digest is the same whatever
// the method, the number of groups or the placement. A group in a process of its own
// records its components only and hands their digests to the monitor, which combines them.
#include <memory>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "integrator/events/event_group.hpp"

namespace kausal {

// The run's digest from the components' hex digests, in component order.
std::string combine_component_digests(const std::vector<std::string>& components);

class EventRecorder final : public des::CommitSink {
 public:
  // What a component's digest hashes per committed event.
  static constexpr std::uint64_t record_bytes = 24;

  explicit EventRecorder(std::size_t components);
  void committed(des::ComponentId component, const des::Event& event) override;
  // The hex digest of one component's committed events so far.
  std::string component_digest(des::ComponentId component) const;
  // The run's digest: every component's, in component order.
  std::string digest() const;
  // Every component's running digest, to continue from (checkpoint.json), and back.
  std::vector<Sha256::Midstate> midstates() const;
  // Throws InputError for a count that is not the components' or an inconsistent midstate.
  void restore(const std::vector<Sha256::Midstate>& midstates);
  void restore(des::ComponentId component, const Sha256::Midstate& midstate);

 private:
  std::vector<std::unique_ptr<Sha256>> sha_;
};

}  // namespace kausal

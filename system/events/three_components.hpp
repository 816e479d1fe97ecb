#pragma once
// A teaching example of three discrete-event components (docs/events.md), small enough to
// follow event by event:
//
//          a_12 (0.5)          a_23 (1.0)
//     K1 ─────────────▶ K2 ─────────────▶ K3
//      ▲ │                                 ▲ │
//      │ └──────────── a_13 (2.0) ─────────┘ │
//      └──────────────── a_31 (0.25) ────────┘
//
// The dependencies a_ij are the links K1→K2, K2→K3, K3→K1 and K1→K3, each with its own
// lookahead l_ij (the defaults are drawn above): every event i sends j is at least l_ij
// later than the event that caused it. No other pair is linked, and no event is ever sent
// over a pair that is not.
//
// K1, the source, generates jobs with `generate` events to itself at exponentially
// distributed gaps whose mean, the current interval, it keeps in its state. It sends every
// job to K2 after l_12 — except every `direct_every`-th job, which goes straight to K3
// after l_13 — with the job's creation time as the payload.
// K2 is a FIFO single server: a job waits until the previous one is done, is served for
// l_23 + Exp(service_mean − l_23) and leaves for K3 when done. K2 computes the departure on
// arrival, so it needs no events to itself, and the delay (wait + service) is at least l_23.
// K3 counts the jobs, direct and through K2, and returns each one's latency (now − creation
// time) to K1 in an `ack` after l_31.
// K1 closes the loop: an ack with a latency above `target_latency` lengthens the interval
// by the factor 1 + gain, any other shortens it by that factor, within [min_interval,
// max_interval]. The generation rate thus settles where K2 is loaded just enough that
// typical latencies straddle the target.
//
// K1's own `generate` events are the one self-link; their gaps can be arbitrarily short, so
// its lookahead is 0. That costs nothing: a component is never split from itself.
// Everything random comes from the component's own stream, so a run is deterministic given
// the seed.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct ThreeComponentsParameters {
  double lookahead_12 = 0.5;      // K1 → K2: the transfer time of a job
  double lookahead_23 = 1.0;      // K2 → K3: K2's minimum service time
  double lookahead_31 = 0.25;     // K3 → K1: the transfer time of an acknowledgement
  double lookahead_13 = 2.0;      // K1 → K3: the transfer time of a direct job
  double initial_interval = 1.0;  // K1's mean gap between jobs at time 0
  double min_interval = 0.25;     // bounds of the adapted interval
  double max_interval = 4.0;
  double service_mean = 1.25;      // K2's mean service time (at least lookahead_23)
  std::uint32_t direct_every = 4;  // every n-th job goes to K3 directly (1: all of them)
  double target_latency = 3.0;     // the latency K1 steers towards
  double gain = 0.1;               // relative change of the interval per acknowledgement
  std::uint64_t seed = 1;
};

class ThreeComponents final : public EventModel {
 public:
  // Components.
  static constexpr ComponentId k1 = 0, k2 = 1, k3 = 2;
  // Event kinds.
  static constexpr std::uint32_t generate = 0;  // K1 → K1: create the next job
  static constexpr std::uint32_t job = 1;       // K1 → K2, K1 → K3, K2 → K3
  static constexpr std::uint32_t ack = 2;       // K3 → K1: a job's latency
  // Indices into the components' values.
  enum K1Value : std::uint32_t { k1_interval = 0, k1_generated = 1, k1_acks = 2, k1_values = 3 };
  // k2_busy_until: when the job last accepted will be done (and arrive at K3).
  enum K2Value : std::uint32_t { k2_busy_until = 0, k2_jobs = 1, k2_wait = 2, k2_values = 3 };
  enum K3Value : std::uint32_t {
    k3_from_k2 = 0,
    k3_direct = 1,
    k3_latency = 2,  // sum of the latencies
    k3_values = 3,
  };

  // Throws InputError naming the parameter when a value is out of range.
  explicit ThreeComponents(const ThreeComponentsParameters& parameters);
  std::string name() const override { return "three-components"; }
  std::size_t components() const override { return 3; }
  std::string component_name(ComponentId id) const override;
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext& context) const override;
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  const ThreeComponentsParameters& parameters() const { return p_; }

 private:
  void handle_k1(const Event& event, EventContext& context) const;
  void handle_k2(const Event& event, EventContext& context) const;
  void handle_k3(const Event& event, EventContext& context) const;
  void schedule_generate(EventContext& context) const;
  ThreeComponentsParameters p_;
};

}  // namespace kausal::des

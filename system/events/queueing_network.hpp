#pragma once
// A closed queueing network (docs/events.md): `servers` FIFO single-server queues and a
// fixed population of jobs, `jobs` per server at time 0, that never enter or leave.
//
// A server that starts a service draws its length, minimum + Exp(mean − minimum), and
// schedules a `departure` to itself. At the departure the job leaves and travels to the
// next server, which it reaches as an `arrival` after a transfer time equal to the minimum
// service time. The next server is the same one with probability `stay`, else (routing
// `random_other`) one of the other servers drawn uniformly, or (routing `ring`) the server
// after it, modulo `servers`.
//
// Lookahead: every event a server sends, to itself or to another, is at least the minimum
// service time later — departures because no service is shorter, arrivals because that is
// the transfer time — so every link, the self-link included, has that lookahead. A minimum
// of 0 is allowed: conservative runs then need DeadlockPolicy::recover.
//
// Jobs are indistinguishable, so a server's queue is a count: the number of jobs at it,
// waiting or in service. The time-weighted integral of that count gives the mean queue
// length (mean_queue_length below).
#include <cstdint>
#include <span>

#include "system/events/event_model.hpp"

namespace kausal::des {

enum class QueueRouting {
  random_other,  // leave to an other server drawn uniformly
  ring,          // leave to server (i + 1) mod servers
};

struct QueueingNetworkParameters {
  std::uint32_t servers = 16;
  std::uint32_t jobs = 2;        // jobs per server at time 0 (total: servers * jobs)
  double mean_service = 1.0;     // mean service time, minimum included
  double minimum_service = 0.5;  // smallest service time = transfer time = lookahead
  double stay = 0.25;            // probability that a job returns to the same server
  QueueRouting routing = QueueRouting::random_other;
  std::uint64_t seed = 1;
};

class QueueingNetwork final : public EventModel {
 public:
  // Event kinds.
  static constexpr std::uint32_t arrival = 0;
  static constexpr std::uint32_t departure = 1;
  // Indices into a server's values.
  enum Value : std::uint32_t {
    queue_length = 0,  // jobs at the server, the one in service included
    busy = 1,          // 1 while a job is in service (a departure is scheduled), else 0
    served = 2,        // departures so far
    arrivals = 3,      // arrivals so far
    queue_area = 4,    // integral of queue_length over time, up to last_change
    last_change = 5,   // time of the last event
    value_count = 6,
  };

  // Throws InputError naming the parameter when a value is out of range.
  explicit QueueingNetwork(const QueueingNetworkParameters& parameters);
  std::string name() const override { return "queueing-network"; }
  std::size_t components() const override { return p_.servers; }
  std::string component_name(ComponentId id) const override;
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext& context) const override;
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  const QueueingNetworkParameters& parameters() const { return p_; }

  // The time-averaged number of jobs at a server over [0, now], from its values.
  static double mean_queue_length(std::span<const double> values, double now);

 private:
  void start_service(EventContext& context) const;
  ComponentId next_server(EventContext& context) const;
  // Adds the area under the queue length since the last change.
  static void advance_clock(EventContext& context);
  QueueingNetworkParameters p_;
};

}  // namespace kausal::des

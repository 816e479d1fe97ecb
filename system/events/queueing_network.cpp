#include "system/events/queueing_network.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

QueueingNetwork::QueueingNetwork(const QueueingNetworkParameters& parameters) : p_(parameters) {
  const auto check = [](bool ok, const char* what) {
    if (!ok) throw InputError(std::string("queueing-network: ") + what);
  };
  check(p_.servers >= 1, "servers must be at least 1");
  check(std::isfinite(p_.mean_service) && p_.mean_service > 0,
        "mean_service must be finite and positive");
  check(std::isfinite(p_.minimum_service) && p_.minimum_service >= 0,
        "minimum_service must be finite and >= 0");
  check(p_.minimum_service <= p_.mean_service, "minimum_service must not exceed mean_service");
  check(std::isfinite(p_.stay) && p_.stay >= 0 && p_.stay <= 1, "stay must be between 0 and 1");
  check(p_.routing == QueueRouting::random_other || p_.routing == QueueRouting::ring,
        "routing must be random_other or ring");
}

std::string QueueingNetwork::component_name(ComponentId id) const {
  return "server-" + std::to_string(id);
}

std::string QueueingNetwork::kind_name(std::uint32_t kind) const {
  if (kind == arrival) return "arrival";
  if (kind == departure) return "departure";
  return EventModel::kind_name(kind);
}

std::optional<double> QueueingNetwork::lookahead(ComponentId from, ComponentId to) const {
  if (from >= p_.servers || to >= p_.servers) return std::nullopt;
  // Every server schedules its own departures, so the self-link always exists.
  if (from == to) return p_.minimum_service;
  // Declaring only the links that are used keeps conservative groups from waiting on
  // servers that can never send them anything.
  if (p_.stay >= 1) return std::nullopt;
  if (p_.routing == QueueRouting::ring && to != (from + 1) % p_.servers) return std::nullopt;
  return p_.minimum_service;
}

ComponentState QueueingNetwork::initial_state(ComponentId id) const {
  ComponentState state{std::vector<double>(value_count, 0.0), RandomStream(p_.seed, id), 0};
  state.values[queue_length] = p_.jobs;
  return state;
}

void QueueingNetwork::start(EventContext& context) const {
  if (context.value(queue_length) > 0) start_service(context);
}

void QueueingNetwork::advance_clock(EventContext& context) {
  const double elapsed = context.now() - context.value(last_change);
  context.set_value(queue_area, context.value(queue_area) + context.value(queue_length) * elapsed);
  context.set_value(last_change, context.now());
}

void QueueingNetwork::start_service(EventContext& context) const {
  // minimum + Exp(mean − minimum) is never below the minimum, the self-link's lookahead.
  const double service =
      p_.minimum_service + context.random().exponential(p_.mean_service - p_.minimum_service);
  context.set_value(busy, 1);
  context.send(context.component(), service, departure, service);
}

ComponentId QueueingNetwork::next_server(EventContext& context) const {
  const ComponentId self = context.component();
  if (p_.servers == 1) return self;
  // Draw only when the outcome is open, so that stay = 0 or 1 do not consume numbers.
  if (p_.stay >= 1 || (p_.stay > 0 && context.random().uniform() <= p_.stay)) return self;
  if (p_.routing == QueueRouting::ring) return (self + 1) % p_.servers;
  // Uniform over the servers - 1 others: draw among them and skip over `self`.
  const auto other = static_cast<ComponentId>(context.random().below(p_.servers - 1));
  return other >= self ? other + 1 : other;
}

void QueueingNetwork::handle(const Event& event, EventContext& context) const {
  advance_clock(context);
  if (event.kind == arrival) {
    context.set_value(queue_length, context.value(queue_length) + 1);
    context.set_value(arrivals, context.value(arrivals) + 1);
    if (context.value(busy) == 0) start_service(context);
    return;
  }
  if (event.kind != departure)
    throw ModelError(component_name(context.component()), "unknown event " + kind_name(event.kind));
  const double served_now = context.value(served) + 1;
  context.set_value(queue_length, context.value(queue_length) - 1);
  context.set_value(served, served_now);
  // The transfer time equals the minimum service time: the lookahead of every link.
  context.send(next_server(context), p_.minimum_service, arrival, served_now);
  if (context.value(queue_length) > 0)
    start_service(context);
  else
    context.set_value(busy, 0);
}

double QueueingNetwork::mean_queue_length(std::span<const double> values, double now) {
  if (!(now > 0)) return values[queue_length];
  const double area = values[queue_area] + values[queue_length] * (now - values[last_change]);
  return area / now;
}

}  // namespace kausal::des

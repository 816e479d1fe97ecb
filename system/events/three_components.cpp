#include "system/events/three_components.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

ThreeComponents::ThreeComponents(const ThreeComponentsParameters& parameters) : p_(parameters) {
  const auto check = [](bool ok, const char* what) {
    if (!ok) throw InputError(std::string("three-components: ") + what);
  };
  const auto time = [](double t) { return std::isfinite(t) && t >= 0; };
  check(time(p_.lookahead_12), "lookahead_12 must be finite and >= 0");
  check(time(p_.lookahead_23), "lookahead_23 must be finite and >= 0");
  check(time(p_.lookahead_31), "lookahead_31 must be finite and >= 0");
  check(time(p_.lookahead_13), "lookahead_13 must be finite and >= 0");
  check(std::isfinite(p_.min_interval) && p_.min_interval > 0,
        "min_interval must be finite and positive");
  check(std::isfinite(p_.max_interval) && p_.max_interval >= p_.min_interval,
        "max_interval must be finite and at least min_interval");
  check(p_.initial_interval >= p_.min_interval && p_.initial_interval <= p_.max_interval,
        "initial_interval must be between min_interval and max_interval");
  check(std::isfinite(p_.service_mean) && p_.service_mean >= p_.lookahead_23,
        "service_mean must be finite and at least lookahead_23");
  check(p_.direct_every >= 1, "direct_every must be at least 1");
  check(time(p_.target_latency), "target_latency must be finite and >= 0");
  check(std::isfinite(p_.gain) && p_.gain >= 0, "gain must be finite and >= 0");
}

std::string ThreeComponents::component_name(ComponentId id) const {
  // (append, not "K" + ...: GCC 12 at -O3 warns of an overlapping copy in operator+.)
  if (id <= k3) return std::string("K").append(std::to_string(id + 1));
  return EventModel::component_name(id);
}

std::string ThreeComponents::kind_name(std::uint32_t kind) const {
  switch (kind) {
    case generate:
      return "generate";
    case job:
      return "job";
    case ack:
      return "ack";
    default:
      return EventModel::kind_name(kind);
  }
}

std::optional<double> ThreeComponents::lookahead(ComponentId from, ComponentId to) const {
  if (from == k1 && to == k1) return 0.0;  // generate: exponential gaps, no lower bound
  if (from == k1 && to == k2) return p_.lookahead_12;
  if (from == k2 && to == k3) return p_.lookahead_23;
  if (from == k3 && to == k1) return p_.lookahead_31;
  if (from == k1 && to == k3) return p_.lookahead_13;
  return std::nullopt;
}

ComponentState ThreeComponents::initial_state(ComponentId id) const {
  ComponentState state{{}, RandomStream(p_.seed, id), 0};
  switch (id) {
    case k1:
      state.values.assign(k1_values, 0.0);
      state.values[k1_interval] = p_.initial_interval;
      break;
    case k2:
      state.values.assign(k2_values, 0.0);
      break;
    default:
      state.values.assign(k3_values, 0.0);
      break;
  }
  return state;
}

void ThreeComponents::schedule_generate(EventContext& context) const {
  context.send(k1, context.random().exponential(context.value(k1_interval)), generate);
}

void ThreeComponents::start(EventContext& context) const {
  // Only the source acts on its own; K2 and K3 wait for jobs.
  if (context.component() == k1) schedule_generate(context);
}

void ThreeComponents::handle(const Event& event, EventContext& context) const {
  switch (context.component()) {
    case k1:
      handle_k1(event, context);
      break;
    case k2:
      handle_k2(event, context);
      break;
    default:
      handle_k3(event, context);
      break;
  }
}

void ThreeComponents::handle_k1(const Event& event, EventContext& context) const {
  if (event.kind == generate) {
    const double number = context.value(k1_generated) + 1;
    context.set_value(k1_generated, number);
    // The payload is the creation time, from which K3 measures the latency.
    if (std::fmod(number, p_.direct_every) == 0)
      context.send(k3, p_.lookahead_13, job, context.now());
    else
      context.send(k2, p_.lookahead_12, job, context.now());
    schedule_generate(context);
    return;
  }
  if (event.kind != ack)
    throw ModelError(component_name(k1), "unexpected event " + kind_name(event.kind));
  // Multiplicative steps keep the interval positive and treat fast and slow rates alike.
  const double factor = event.value > p_.target_latency ? 1 + p_.gain : 1 / (1 + p_.gain);
  context.set_value(k1_interval, std::clamp(context.value(k1_interval) * factor, p_.min_interval,
                                            p_.max_interval));
  context.set_value(k1_acks, context.value(k1_acks) + 1);
}

void ThreeComponents::handle_k2(const Event& event, EventContext& context) const {
  if (event.kind != job)
    throw ModelError(component_name(k2), "unexpected event " + kind_name(event.kind));
  const double wait = std::max(0.0, context.value(k2_busy_until) - context.now());
  const double service =
      p_.lookahead_23 + context.random().exponential(p_.service_mean - p_.lookahead_23);
  // wait >= 0 and service >= l_23, so the sum is too, even rounded; the departure time
  // is computed as send() computes the event's time, so that the next job queues behind
  // exactly this one.
  const double delay = wait + service;
  context.send(k3, delay, job, event.value);
  context.set_value(k2_busy_until, context.now() + delay);
  context.set_value(k2_jobs, context.value(k2_jobs) + 1);
  context.set_value(k2_wait, context.value(k2_wait) + wait);
}

void ThreeComponents::handle_k3(const Event& event, EventContext& context) const {
  if (event.kind != job)
    throw ModelError(component_name(k3), "unexpected event " + kind_name(event.kind));
  const double latency = context.now() - event.value;
  const auto counter = event.key.source == k2 ? k3_from_k2 : k3_direct;
  context.set_value(counter, context.value(counter) + 1);
  context.set_value(k3_latency, context.value(k3_latency) + latency);
  context.send(k1, p_.lookahead_31, ack, latency);
}

}  // namespace kausal::des

#include "system/events/phold.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

Phold::Phold(const PholdParameters& parameters) : p_(parameters) {
  const auto check = [](bool ok, const char* what) {
    if (!ok) throw InputError(std::string("phold: ") + what);
  };
  check(p_.components >= 1, "components must be at least 1");
  check(p_.population >= 1, "population must be at least 1");
  check(std::isfinite(p_.remote) && p_.remote >= 0 && p_.remote <= 1,
        "remote must be between 0 and 1");
  check(std::isfinite(p_.lookahead) && p_.lookahead >= 0, "lookahead must be finite and >= 0");
  check(std::isfinite(p_.mean) && p_.mean >= p_.lookahead,
        "mean must be finite and at least the lookahead");
  check(p_.mean > 0, "mean must be positive");
}

ComponentState Phold::initial_state(ComponentId id) const {
  return ComponentState{{}, RandomStream(p_.seed, id), 0};
}

void Phold::schedule(EventContext& context) const {
  RandomStream& random = context.random();
  const double delay = p_.lookahead + random.exponential(p_.mean - p_.lookahead);
  ComponentId to = context.component();
  if (p_.remote > 0 && random.uniform() <= p_.remote)
    to = static_cast<ComponentId>(random.below(p_.components));
  context.send(to, delay);
}

void Phold::start(EventContext& context) const {
  for (std::uint32_t n = 0; n < p_.population; ++n) schedule(context);
}

void Phold::handle(const Event&, EventContext& context) const {
  schedule(context);
}

}  // namespace kausal::des

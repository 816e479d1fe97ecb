/* Bouncing ball: h' = v, v' = g; at impact (h <= 0 while falling) v := -e v, h := 0; when the
 * rebound speed e|v| is below v_min the ball rests (h = v = 0 from then on). One event
 * indicator: h. Value references (Real): 0 h, 1 der(h), 2 v, 3 der(v), 4 g, 5 e, 6 v_min. */
#include "fmu_frame.h"

enum { H, DER_H, V, DER_V, G, E, V_MIN, N_REALS };
enum { AT_REST }; /* internal[] */

static const unsigned char real_kind[N_REALS] = {FMU_EXACT,     FMU_CALCULATED, FMU_EXACT,
                                                 FMU_CALCULATED, FMU_PARAMETER, FMU_PARAMETER,
                                                 FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {H, V};
static const fmi2ValueReference derivative_vr[] = {DER_H, DER_V};

static void start(fmu_data* d) {
  d->r[H] = 1.0;
  d->r[V] = 0.0;
  d->r[G] = -9.81;
  d->r[E] = 0.7;
  d->r[V_MIN] = 0.1;
}

static void compute(fmu_data* d) {
  const int rest = d->internal[AT_REST];
  d->r[DER_H] = rest ? 0.0 : d->r[V];
  d->r[DER_V] = rest ? 0.0 : d->r[G];
}

static void indicators(const fmu_data* d, fmi2Real z[]) { z[0] = d->r[H]; }

static void event(fmu_data* d, fmi2Boolean* states_changed) {
  if (!d->internal[AT_REST] && d->r[H] <= 0.0 && d->r[V] < 0.0) {
    const fmi2Real rebound = -d->r[E] * d->r[V];
    d->r[H] = 0.0;
    if (rebound < d->r[V_MIN]) {
      d->r[V] = 0.0;
      d->internal[AT_REST] = 1;
    } else {
      d->r[V] = rebound;
    }
    *states_changed = fmi2True;
  }
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .real_kind = real_kind,
    .n_states = 2,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .n_indicators = 1,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
    .indicators = indicators,
    .event = event,
};

/* Sampler (FMI 3.0 only: it has Clocks): a first-order plant x' = -a x + u under a sampled
 * proportional controller. The constant input Clock `sample` (every 0.1 s from t = 0) sets
 * u = k (ref - x); the countdown input Clock `watchdog` ticks every `patience` seconds (the
 * FMU says so after each of its ticks) and counts its ticks in alarms. u and alarms are
 * clocked outputs: read while their Clock ticks, held by the importer in between. Between two
 * samples x = u/a + (x_k - u/a) e^(-a (t - t_k)): an importer that activates the Clock at
 * every tick reproduces the recurrence x_(k+1) = u_k/a + (x_k - u_k/a) e^(-0.1 a) (to the
 * integrator's error), one that misses or repeats a tick does not. Model exchange and
 * co-simulation (with event mode: the importer ends a communication step at every tick).
 * Value references (frame): Real 0 x, 1 der(x), 2 u, 3 a, 4 k, 5 ref, 6 y, 7 patience;
 * Integer 0 alarms; Clocks (3.0) 400 sample, 401 watchdog. */
#include "fmu_frame.h"

enum { X, DER_X, U, A, K, REF, Y, PATIENCE, N_REALS };
enum { ALARMS, N_INTEGERS };
enum { SAMPLE, WATCHDOG, N_CLOCKS };
enum { WATCHDOG_RESET }; /* internal: its next interval not yet told */

static const unsigned char real_kind[N_REALS] = {FMU_EXACT,     FMU_CALCULATED, FMU_CALCULATED,
                                                 FMU_PARAMETER, FMU_PARAMETER,  FMU_PARAMETER,
                                                 FMU_CALCULATED, FMU_PARAMETER};
static const unsigned char integer_kind[N_INTEGERS] = {FMU_CALCULATED};
static const fmi2ValueReference state_vr[] = {X};
static const fmi2ValueReference derivative_vr[] = {DER_X};
static const unsigned clock_vr[N_CLOCKS] = {400, 401};

static void start(fmu_data* d) {
  d->r[X] = 0.0;
  d->r[A] = 1.0;
  d->r[K] = 2.0;
  d->r[REF] = 1.0;
  d->r[PATIENCE] = 0.35;
  d->internal[WATCHDOG_RESET] = 1; /* the first interval is told in initialization mode */
}

static void compute(fmu_data* d) {
  d->r[DER_X] = -d->r[A] * d->r[X] + d->r[U];
  d->r[Y] = d->r[X];
}

static void clock_tick(fmu_data* d, size_t k) {
  if (k == SAMPLE) {
    d->r[U] = d->r[K] * (d->r[REF] - d->r[X]);
  } else {
    d->i[ALARMS] += 1;
    d->internal[WATCHDOG_RESET] = 1;
  }
}

static int clock_interval(fmu_data* d, size_t k, fmi2Real* interval) {
  if (k == SAMPLE) {
    *interval = 0.1;
    return 1;
  }
  *interval = d->r[PATIENCE];
  if (!d->internal[WATCHDOG_RESET]) return 1;
  d->internal[WATCHDOG_RESET] = 0;
  return 2;
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .n_integers = N_INTEGERS,
    .real_kind = real_kind,
    .integer_kind = integer_kind,
    .n_states = 1,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
    .has_event_mode = 1,
    .n_clocks = N_CLOCKS,
    .clock_vr = clock_vr,
    .clock_tick = clock_tick,
    .clock_interval = clock_interval,
};

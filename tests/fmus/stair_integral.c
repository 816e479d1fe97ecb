/* Stair integral: a discrete Integer output counter (start 1) that increases by 1 at the time
 * events t = 1, 2, 3, ... and a continuous state area with der(area) = counter (start 0).
 * With the parameter stop_at > 0 it asks to end the simulation once counter reaches stop_at
 * (terminateSimulation; in co-simulation fmi2DoStep answers fmi2Discard and fmi2Terminated).
 * Value references: Real 0 area, 1 der(area); Integer 0 counter, 1 stop_at. */
#include "fmu_frame.h"

#include <math.h>

enum { AREA, DER_AREA, N_REALS };
enum { COUNTER, STOP_AT, N_INTEGERS };

static const unsigned char real_kind[N_REALS] = {FMU_EXACT, FMU_CALCULATED};
static const unsigned char integer_kind[N_INTEGERS] = {FMU_EXACT, FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {AREA};
static const fmi2ValueReference derivative_vr[] = {DER_AREA};

static void start(fmu_data* d) {
  d->r[AREA] = 0.0;
  d->i[COUNTER] = 1;
  d->i[STOP_AT] = 0;
}

/* The first time event: the first whole second after the start time. */
static void initialize(fmu_data* d) {
  d->next_event_defined = fmi2True;
  d->next_event_time = floor(d->time) + 1.0;
}

static void compute(fmu_data* d) { d->r[DER_AREA] = (fmi2Real)d->i[COUNTER]; }

static void event(fmu_data* d, fmi2Boolean* states_changed) {
  (void)states_changed; /* only the discrete counter changes */
  /* reached the time event (a tolerance for an importer that lands a rounding error short) */
  while (d->next_event_defined && d->time >= d->next_event_time - 1e-9) {
    d->i[COUNTER] += 1;
    d->next_event_time += 1.0;
  }
  if (d->i[STOP_AT] > 0 && d->i[COUNTER] >= d->i[STOP_AT]) d->terminate = fmi2True;
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
    .initialize = initialize,
    .compute = compute,
    .event = event,
};

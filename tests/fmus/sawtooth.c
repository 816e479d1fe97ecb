/* Sawtooth: x' = rate, and a step event after every `every`-th completed integrator step
 * resets x to 0. The FMU counts the steps it is told of (fmi2CompletedIntegratorStep; FMI
 * 3.0: fmi3CompletedIntegratorStep) in its Integer output steps, part of its saved state: an
 * importer that tells it of a step twice, or restores an earlier state without its count,
 * moves the resets. Model exchange only.
 * Value references: Real 0 x, 1 der(x), 2 rate; Integer 0 steps, 1 every. */
#include "fmu_frame.h"

enum { X, DER_X, RATE, N_REALS };
enum { STEPS, EVERY, N_INTEGERS };
enum { RESET_PENDING }; /* internal: the step event asked for, not yet taken */

static const unsigned char real_kind[N_REALS] = {FMU_EXACT, FMU_CALCULATED, FMU_PARAMETER};
static const unsigned char integer_kind[N_INTEGERS] = {FMU_CALCULATED, FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {X};
static const fmi2ValueReference derivative_vr[] = {DER_X};

static void start(fmu_data* d) {
  d->r[X] = 0.0;
  d->r[RATE] = 1.0;
  d->i[STEPS] = 0;
  d->i[EVERY] = 8;
}

static void compute(fmu_data* d) { d->r[DER_X] = d->r[RATE]; }

static void step_completed(fmu_data* d, fmi2Boolean* enter_event_mode) {
  d->i[STEPS] += 1;
  if (d->i[EVERY] > 0 && d->i[STEPS] % d->i[EVERY] == 0) d->internal[RESET_PENDING] = 1;
  *enter_event_mode = d->internal[RESET_PENDING] ? fmi2True : fmi2False;
}

static void event(fmu_data* d, fmi2Boolean* states_changed) {
  if (!d->internal[RESET_PENDING]) return;
  d->internal[RESET_PENDING] = 0;
  d->r[X] = 0.0;
  *states_changed = fmi2True;
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 0,
    .n_reals = N_REALS,
    .n_integers = N_INTEGERS,
    .real_kind = real_kind,
    .integer_kind = integer_kind,
    .n_states = 1,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .start = start,
    .compute = compute,
    .event = event,
    .step_completed = step_completed,
};

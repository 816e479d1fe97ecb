/* Staircase: a signal source without continuous states (model exchange with events only,
 * FMI 2.0 allows it). The Integer output level starts at 0 and rises by 1 at the time events
 * t = period, 2 period, ...; the Real output signal = height * level. A state event of time
 * alone (indicator t - switch_at) sets the Boolean output switched. The String parameter
 * direction ("up" or "down") says which way the level goes; the String output label says
 * where it stands ("level 3").
 * Value references: Real 0 signal, 1 period, 2 height, 3 switch_at; Integer 0 level;
 * Boolean 0 switched; String 0 direction, 1 label. */
#include "fmu_frame.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { SIGNAL, PERIOD, HEIGHT, SWITCH_AT, N_REALS };
enum { LEVEL, N_INTEGERS };
enum { SWITCHED, N_BOOLEANS };
enum { DIRECTION, LABEL, N_STRINGS };
enum { EVENTS_DONE }; /* internal: how many time events have passed */

static const unsigned char real_kind[N_REALS] = {FMU_CALCULATED, FMU_PARAMETER, FMU_PARAMETER,
                                                 FMU_PARAMETER};
static const unsigned char integer_kind[N_INTEGERS] = {FMU_CALCULATED};
static const unsigned char boolean_kind[N_BOOLEANS] = {FMU_CALCULATED};
static const unsigned char string_kind[N_STRINGS] = {FMU_PARAMETER, FMU_CALCULATED};

/* +1 per event going up, -1 going down (any other direction counts as up). */
static fmi2Integer rise(const fmu_data* d) { return strcmp(d->s[DIRECTION], "down") == 0 ? -1 : 1; }

static void start(fmu_data* d) {
  d->r[PERIOD] = 1.0;
  d->r[HEIGHT] = 1.0;
  d->r[SWITCH_AT] = 1e9;
  d->i[LEVEL] = 0;
  d->b[SWITCHED] = fmi2False;
  strcpy(d->s[DIRECTION], "up");
}

/* Event k is at k * period exactly (no sum of periods drifting). */
static void schedule(fmu_data* d) {
  d->next_event_defined = fmi2True;
  d->next_event_time = (fmi2Real)(d->internal[EVENTS_DONE] + 1) * d->r[PERIOD];
}

static void initialize(fmu_data* d) {
  d->internal[EVENTS_DONE] = (fmi2Integer)floor(d->time / d->r[PERIOD]);
  d->i[LEVEL] = rise(d) * d->internal[EVENTS_DONE];
  d->b[SWITCHED] = d->time >= d->r[SWITCH_AT] ? fmi2True : fmi2False;
  schedule(d);
}

static void compute(fmu_data* d) {
  d->r[SIGNAL] = d->r[HEIGHT] * (fmi2Real)d->i[LEVEL];
  snprintf(d->s[LABEL], FMU_STRING_BYTES, "level %d", (int)d->i[LEVEL]);
}

static void indicators(const fmu_data* d, fmi2Real z[]) { z[0] = d->time - d->r[SWITCH_AT]; }

static void event(fmu_data* d, fmi2Boolean* states_changed) {
  (void)states_changed; /* no continuous states */
  /* reached the time event (a tolerance for an importer that lands a rounding error short) */
  while (d->time >= d->next_event_time - 1e-9) {
    d->internal[EVENTS_DONE] += 1;
    d->i[LEVEL] += rise(d);
    schedule(d);
  }
  if (d->time >= d->r[SWITCH_AT]) d->b[SWITCHED] = fmi2True;
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .n_integers = N_INTEGERS,
    .n_booleans = N_BOOLEANS,
    .n_strings = N_STRINGS,
    .real_kind = real_kind,
    .integer_kind = integer_kind,
    .boolean_kind = boolean_kind,
    .string_kind = string_kind,
    .n_states = 0,
    .n_indicators = 1,
    .max_substep = 1e-2,
    .start = start,
    .initialize = initialize,
    .compute = compute,
    .indicators = indicators,
    .event = event,
};

/* Text reader: a co-simulation FMU with a String input. It reads the last whole number in its
 * input text ("level 3" gives 3, a text without digits 0) as the Real output number, counts
 * the text's bytes in the Integer output length, and integrates the number: area' = number.
 * Coupled to the staircase's label it computes what the integrator computes from its level.
 * Value references: Real 0 number, 1 area, 2 der(area); Integer 0 length; String 0 text. */
#include "fmu_frame.h"

#include <string.h>

enum { NUMBER, AREA, DER_AREA, N_REALS };
enum { LENGTH, N_INTEGERS };
enum { TEXT, N_STRINGS };

static const unsigned char real_kind[N_REALS] = {FMU_CALCULATED, FMU_EXACT, FMU_CALCULATED};
static const unsigned char integer_kind[N_INTEGERS] = {FMU_CALCULATED};
static const unsigned char string_kind[N_STRINGS] = {FMU_INPUT};
static const fmi2ValueReference state_vr[] = {AREA};
static const fmi2ValueReference derivative_vr[] = {DER_AREA};

static void start(fmu_data* d) {
  d->r[AREA] = 0.0;
  strcpy(d->s[TEXT], "");
}

/* The last run of digits in the text, as a number (0 without one). */
static double last_number(const char* text) {
  double value = 0.0, run = 0.0;
  int in_run = 0;
  for (const char* c = text; *c; ++c) {
    if (*c >= '0' && *c <= '9') {
      run = (in_run ? run * 10.0 : 0.0) + (double)(*c - '0');
      in_run = 1;
    } else if (in_run) {
      value = run;
      in_run = 0;
    }
  }
  return in_run ? run : value;
}

static void compute(fmu_data* d) {
  d->r[NUMBER] = last_number(d->s[TEXT]);
  d->r[DER_AREA] = d->r[NUMBER];
  d->i[LENGTH] = (fmi2Integer)strlen(d->s[TEXT]);
}

const fmu_model fmu_the_model = {
    .model_exchange = 0,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .n_integers = N_INTEGERS,
    .n_strings = N_STRINGS,
    .real_kind = real_kind,
    .integer_kind = integer_kind,
    .string_kind = string_kind,
    .n_states = 1,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
};

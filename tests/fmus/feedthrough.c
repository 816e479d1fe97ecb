/* Feedthrough: y_real = u_real, y_int = u_int, y_bool = u_bool; no states.
 * Value references: Real 0 u_real, 1 y_real; Integer 0 u_int, 1 y_int; Boolean 0 u_bool,
 * 1 y_bool. */
#include "fmu_frame.h"

enum { U, Y, N };

static const unsigned char kind[N] = {FMU_INPUT, FMU_CALCULATED};

static void start(fmu_data* d) {
  d->r[U] = 0.0;
  d->i[U] = 0;
  d->b[U] = fmi2False;
}

static void compute(fmu_data* d) {
  d->r[Y] = d->r[U];
  d->i[Y] = d->i[U];
  d->b[Y] = d->b[U];
}

static int partial(const fmu_data* d, fmi2ValueReference unknown, fmi2ValueReference known,
                   fmi2Real* value) {
  (void)d;
  if (known != U || (unknown != U && unknown != Y)) return 0;
  *value = 1.0;
  return 1;
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N,
    .n_integers = N,
    .n_booleans = N,
    .real_kind = kind,
    .integer_kind = kind,
    .boolean_kind = kind,
    .n_states = 0,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
    .partial = partial,
};

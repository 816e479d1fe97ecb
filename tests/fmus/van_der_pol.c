/* Van der Pol oscillator: x0' = x1, x1' = mu ((1 - x0^2) x1) - x0. Value references (Real):
 * 0 x0, 1 der(x0), 2 x1, 3 der(x1), 4 mu; with VDP_FAILS_AT 5 fail_time, with VDP_CRASHES_AT
 * 5 crash_time.
 * Variants built from this source (compile definitions):
 *   VDP_FAILS_AT    every derivative evaluation at t >= fail_time logs and returns fmi2Error
 *   VDP_CRASHES_AT  every derivative evaluation at t >= crash_time calls abort()
 * and the frame's FMU_FRAME_NO_STATE, FMU_FRAME_BAD_SET_STATE, FMU_FRAME_OMIT_GET_DERIVATIVES. */
#include "fmu_frame.h"

#include <stdlib.h>

#if defined(VDP_FAILS_AT) && defined(VDP_CRASHES_AT)
#error "VDP_FAILS_AT and VDP_CRASHES_AT exclude each other"
#endif

enum { X0, DER_X0, X1, DER_X1, MU, LIMIT_TIME, N_REALS_MAX };
#if defined(VDP_FAILS_AT) || defined(VDP_CRASHES_AT)
#define N_REALS (LIMIT_TIME + 1)
#else
#define N_REALS LIMIT_TIME
#endif

static const unsigned char real_kind[N_REALS_MAX] = {FMU_EXACT,      FMU_CALCULATED, FMU_EXACT,
                                                     FMU_CALCULATED, FMU_PARAMETER,
                                                     FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {X0, X1};
static const fmi2ValueReference derivative_vr[] = {DER_X0, DER_X1};

static void start(fmu_data* d) {
  d->r[X0] = 2.0;
  d->r[X1] = 0.0;
  d->r[MU] = 1.0;
  d->r[LIMIT_TIME] = 0.5;
}

static void compute(fmu_data* d) {
  d->r[DER_X0] = d->r[X1];
  d->r[DER_X1] = d->r[MU] * ((1.0 - d->r[X0] * d->r[X0]) * d->r[X1]) - d->r[X0];
}

#if defined(VDP_FAILS_AT) || defined(VDP_CRASHES_AT)
static fmi2Status check(fmu_instance* c, const fmu_data* d, fmi2Real t) {
  if (t < d->r[LIMIT_TIME]) return fmi2OK;
#ifdef VDP_FAILS_AT
  fmu_log(c, fmi2Error, "logError", "fails_at: giving up at t=%g", t);
  return fmi2Error;
#else
  fmu_log(c, fmi2Error, "logError", "crashes_at: aborting the process at t=%g", t);
  abort();
#endif
}
#endif

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .real_kind = real_kind,
    .n_states = 2,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
#if defined(VDP_FAILS_AT) || defined(VDP_CRASHES_AT)
    .check = check,
#endif
};

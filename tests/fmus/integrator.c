/* Integrator: x' = u, outputs x and y = 2 x (no direct feedthrough from u).
 * Value references (Real): 0 u, 1 x, 2 der(x), 3 y.
 * Built with INTEGRATOR_SMOOTH_INPUTS (integrator_smooth, integrator_smooth_3): its
 * co-simulation interpolates u within a step (canInterpolateInputs; FMI 3.0: u an
 * intermediate input). */
#include "fmu_frame.h"

enum { U, X, DER_X, Y, N_REALS };

static const unsigned char real_kind[N_REALS] = {FMU_INPUT, FMU_EXACT, FMU_CALCULATED,
                                                 FMU_CALCULATED};
static const fmi2ValueReference state_vr[] = {X};
static const fmi2ValueReference derivative_vr[] = {DER_X};

static void start(fmu_data* d) {
  d->r[U] = 0.0;
  d->r[X] = 0.0;
}

static void compute(fmu_data* d) {
  d->r[DER_X] = d->r[U];
  d->r[Y] = 2.0 * d->r[X];
}

/* d unknown / d known for unknowns x, der(x), y and knowns u, x. */
static int partial(const fmu_data* d, fmi2ValueReference unknown, fmi2ValueReference known,
                   fmi2Real* value) {
  (void)d;
  if (known != U && known != X) return 0;
  switch (unknown) {
    case X: *value = known == X ? 1.0 : 0.0; return 1;
    case DER_X: *value = known == U ? 1.0 : 0.0; return 1;
    case Y: *value = known == X ? 2.0 : 0.0; return 1;
    default: return 0;
  }
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .real_kind = real_kind,
    .n_states = 1,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-3,
#ifdef INTEGRATOR_SMOOTH_INPUTS
    .interpolates_inputs = 1,
#endif
    .start = start,
    .compute = compute,
    .partial = partial,
};

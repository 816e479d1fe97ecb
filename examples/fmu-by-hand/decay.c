/* A hand-written FMI 2.0 FMU (docs/fmi.md, "An FMU written by hand"): exponential decay
 * der(x) = -k x, x(0) = 1, for model exchange and co-simulation. Only the model is here; the
 * 44 functions of FMI 2.0 come from the frame kausal's test FMUs share
 * (tests/fmus/fmu_frame.c), which build.sh compiles beside it.
 * Value references (Real): 0 x (output, the state), 1 der(x), 2 k (parameter). */
#include "fmu_frame.h"

enum { X, DER_X, K, N_REALS };

static const unsigned char real_kind[N_REALS] = {FMU_EXACT, FMU_CALCULATED, FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {X};
static const fmi2ValueReference derivative_vr[] = {DER_X};

static void start(fmu_data* d) {
  d->r[X] = 1.0;
  d->r[K] = 0.5;
}

static void compute(fmu_data* d) {
  d->r[DER_X] = -d->r[K] * d->r[X];
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .real_kind = real_kind,
    .n_states = 1,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-3, /* co-simulation: RK4 substeps of at most 1 ms */
    .start = start,
    .compute = compute,
};

/* One mass of the two-mass oscillator (benchmark E, docs/benchmarks.md), as kausal's native
 * model oscillator_mass (system/models/oscillator_mass.hpp) computes it:
 *   der(x) = v,  der(v) = (-k x - d v - kc (x - x_other) - dc (v - v_other)) / m.
 * Real references: 0 x, 1 der(x), 2 v, 3 der(v), 4 x_other, 5 v_other, 6 m, 7 k, 8 d, 9 kc,
 * 10 dc. Built without get/set state (FMU_FRAME_NO_STATE, xml/oscillator_mass_no_state.xml):
 * the partition the co-simulation master stands in for with a surrogate
 * (docs/cosimulation.md, "Surrogates"). */
#include "fmu_frame.h"

enum { OM_X, OM_DER_X, OM_V, OM_DER_V, OM_X_OTHER, OM_V_OTHER, OM_M, OM_K, OM_D, OM_KC, OM_DC, OM_N_REALS };

static const unsigned char real_kind[OM_N_REALS] = {
    FMU_EXACT,     FMU_CALCULATED, FMU_EXACT,     FMU_CALCULATED, FMU_INPUT,    FMU_INPUT,
    FMU_PARAMETER, FMU_PARAMETER,  FMU_PARAMETER, FMU_PARAMETER,  FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {OM_X, OM_V};
static const fmi2ValueReference derivative_vr[] = {OM_DER_X, OM_DER_V};

static void start(fmu_data* d) { d->r[OM_M] = 1.0; }

/* The native model's expression, term by term in its order: the same bits. */
static void compute(fmu_data* d) {
  const double* r = d->r;
  const double force = -r[OM_K] * r[OM_X] - r[OM_D] * r[OM_V] - r[OM_KC] * (r[OM_X] - r[OM_X_OTHER]) -
                       r[OM_DC] * (r[OM_V] - r[OM_V_OTHER]);
  d->r[OM_DER_X] = r[OM_V];
  d->r[OM_DER_V] = force / r[OM_M];
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 0,
    .n_reals = OM_N_REALS,
    .real_kind = real_kind,
    .n_states = 2,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .start = start,
    .compute = compute,
};

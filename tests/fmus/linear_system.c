/* A linear system with its states, matrix and outputs as arrays in FMI 3.0:
 *   der(x) = A x + b u,  y = x,  event indicators z = x,
 * A = [[0, 1], [-4, -0.4]] and b = [0, 1] by default (a damped oscillator driven by u), x(0) =
 * [1, 0]. The FMI 3.0 description (xml/linear_system_3.xml) declares x, der(x), A, b, y and z
 * as arrays sized by the structural parameter n = 2; the FMI 2.0 twin (xml/linear_system.xml)
 * names the same values one by one ("x[1]", ...). Real references: 0-1 x, 2-3 der(x), 4-7 A
 * (row-major), 8-9 b, 10 u, 11-12 y; integer 0 is n. Its Jacobian for the directional
 * derivatives. */
#include "fmu_frame.h"

enum { X1, X2, DX1, DX2, A11, A12, A21, A22, B1, B2, U, Y1, Y2, N_REALS };

static const unsigned char real_kind[N_REALS] = {
    FMU_EXACT,     FMU_EXACT,     FMU_CALCULATED, FMU_CALCULATED, FMU_PARAMETER,
    FMU_PARAMETER, FMU_PARAMETER, FMU_PARAMETER,  FMU_PARAMETER,  FMU_PARAMETER,
    FMU_INPUT,     FMU_CALCULATED, FMU_CALCULATED};
static const unsigned char integer_kind[1] = {FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {X1, X2};
static const fmi2ValueReference derivative_vr[] = {DX1, DX2};

static void start(fmu_data* d) {
  d->r[X1] = 1.0;
  d->r[A12] = 1.0;
  d->r[A21] = -4.0;
  d->r[A22] = -0.4;
  d->r[B2] = 1.0;
  d->i[0] = 2;
}

static void compute(fmu_data* d) {
  d->r[DX1] = d->r[A11] * d->r[X1] + d->r[A12] * d->r[X2] + d->r[B1] * d->r[U];
  d->r[DX2] = d->r[A21] * d->r[X1] + d->r[A22] * d->r[X2] + d->r[B2] * d->r[U];
  d->r[Y1] = d->r[X1];
  d->r[Y2] = d->r[X2];
}

static void indicators(const fmu_data* d, fmi2Real z[]) {
  z[0] = d->r[X1];
  z[1] = d->r[X2];
}

/* d unknown / d known for unknowns der(x), y and knowns x, u. */
static int partial(const fmu_data* d, fmi2ValueReference unknown, fmi2ValueReference known,
                   fmi2Real* value) {
  if (known != X1 && known != X2 && known != U) return 0;
  switch (unknown) {
    case DX1: *value = known == X1 ? d->r[A11] : known == X2 ? d->r[A12] : d->r[B1]; return 1;
    case DX2: *value = known == X1 ? d->r[A21] : known == X2 ? d->r[A22] : d->r[B2]; return 1;
    case Y1: *value = known == X1 ? 1.0 : 0.0; return 1;
    case Y2: *value = known == X2 ? 1.0 : 0.0; return 1;
    default: return 0;
  }
}

/* The FMI 3.0 arrays: x, der(x), b, y, z (the indicators, at 90) of 2 elements, A of 4. */
static size_t array_length(unsigned vr) {
  switch (vr) {
    case X1: case DX1: case B1: case Y1: case 90: return 2;
    case A11: return 4;
    default: return 1;
  }
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .n_integers = 1,
    .real_kind = real_kind,
    .integer_kind = integer_kind,
    .n_states = 2,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .n_indicators = 2,
    .max_substep = 1e-3,
    .start = start,
    .compute = compute,
    .indicators = indicators,
    .partial = partial,
    .array_length = array_length,
};

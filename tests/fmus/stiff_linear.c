/* Stiff linear system x' = A x, A = [[a11, 0], [a21, a22]] (defaults -1, 1, -1000), with its
 * Jacobian for fmi2GetDirectionalDerivative. Value references (Real): 0 x1, 1 der(x1), 2 x2,
 * 3 der(x2), 4 a11, 5 a21, 6 a22. */
#include "fmu_frame.h"

enum { X1, DER_X1, X2, DER_X2, A11, A21, A22, N_REALS };

static const unsigned char real_kind[N_REALS] = {FMU_EXACT,     FMU_CALCULATED, FMU_EXACT,
                                                 FMU_CALCULATED, FMU_PARAMETER, FMU_PARAMETER,
                                                 FMU_PARAMETER};
static const fmi2ValueReference state_vr[] = {X1, X2};
static const fmi2ValueReference derivative_vr[] = {DER_X1, DER_X2};

static void start(fmu_data* d) {
  d->r[X1] = 1.0;
  d->r[X2] = 0.0;
  d->r[A11] = -1.0;
  d->r[A21] = 1.0;
  d->r[A22] = -1000.0;
}

static void compute(fmu_data* d) {
  d->r[DER_X1] = d->r[A11] * d->r[X1];
  d->r[DER_X2] = d->r[A21] * d->r[X1] + d->r[A22] * d->r[X2];
}

/* d unknown / d known for unknowns x1, x2, der(x1), der(x2) and knowns x1, x2, a11, a21, a22. */
static int partial(const fmu_data* d, fmi2ValueReference unknown, fmi2ValueReference known,
                   fmi2Real* value) {
  const int known_ok = known == X1 || known == X2 || known == A11 || known == A21 || known == A22;
  if (!known_ok) return 0;
  switch (unknown) {
    case X1: *value = known == X1 ? 1.0 : 0.0; return 1;
    case X2: *value = known == X2 ? 1.0 : 0.0; return 1;
    case DER_X1:
      *value = known == X1 ? d->r[A11] : known == A11 ? d->r[X1] : 0.0;
      return 1;
    case DER_X2:
      *value = known == X1    ? d->r[A21]
               : known == X2  ? d->r[A22]
               : known == A21 ? d->r[X1]
               : known == A22 ? d->r[X2]
                              : 0.0;
      return 1;
    default: return 0;
  }
}

const fmu_model fmu_the_model = {
    .model_exchange = 1,
    .co_simulation = 1,
    .n_reals = N_REALS,
    .real_kind = real_kind,
    .n_states = 2,
    .state_vr = state_vr,
    .derivative_vr = derivative_vr,
    .max_substep = 1e-4, /* |a22| h = 0.1: RK4 well inside its stability region */
    .start = start,
    .compute = compute,
    .partial = partial,
};

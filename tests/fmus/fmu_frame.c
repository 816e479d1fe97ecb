/* The test FMUs' shared frame: every FMI 2.0 function, once, over the model table of
 * fmu_frame.h. Written for kausal's tests from the FMI 2.0 specification (no code from other
 * projects). Compile definitions:
 *   FMU_GUID, FMU_IDENTIFIER          the model's GUID and modelIdentifier (string literals)
 *   FMU_FRAME_NO_STATE                get/set/serialize FMU state return fmi2Error
 *   FMU_FRAME_BAD_SET_STATE           fmi2SetFMUstate returns fmi2OK and restores nothing
 *   FMU_FRAME_OMIT_GET_DERIVATIVES    the binary lacks fmi2GetDerivatives
 *   FMU_FRAME_BUILT_GUID              the GUID the binary was built with, when it is not
 *                                     the description's (fmi2Instantiate refuses)
 *   FMU_FRAME_INNER                   the fmi2* functions are not exported: an FMI 3.0 FMU,
 *                                     whose fmi3* functions (fmu_frame3.c) call them */
#include "fmu_frame.h"

#ifdef FMU_FRAME_BUILT_GUID
#define BUILT_GUID FMU_FRAME_BUILT_GUID
#else
#define BUILT_GUID FMU_GUID
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FMU_GUID
#error "FMU_GUID must be defined (the guid of modelDescription.xml)"
#endif
#ifndef FMU_IDENTIFIER
#error "FMU_IDENTIFIER must be defined (the modelIdentifier of modelDescription.xml)"
#endif

/* The exported functions are declared in fmu_frame.h. */

#define M fmu_the_model

/* ---- the state machine (FMI 2.0 §3.2.3 for model exchange, §4.2.4 for co-simulation) ---- */
enum {
  S_INSTANTIATED = 1 << 0,
  S_INIT = 1 << 1,
  S_CONTINUOUS = 1 << 2, /* model exchange: continuous-time mode */
  S_EVENT = 1 << 3,      /* model exchange: event mode */
  S_STEP_COMPLETE = 1 << 4,
  S_TERMINATED = 1 << 5
};
#define S_ANY (S_INSTANTIATED | S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE | S_TERMINATED)
#define S_INITIALIZED (S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE | S_TERMINATED)

enum { LOG_EVENTS = 1, LOG_WARNING = 2, LOG_ERROR = 4, LOG_ALL = 8 };
static const char* const category_names[] = {"logEvents", "logWarning", "logError", "logAll"};
#define N_CATEGORIES 4

struct fmu_instance {
  fmi2CallbackFunctions cb;
  void* (*alloc)(size_t, size_t);
  void (*release)(void*);
  char* name;
  fmi2Type kind;
  int mode;
  int logging_on;
  unsigned categories;
  fmu_data d;
  fmi2Boolean stop_time_defined;
  fmi2Real stop_time;
  /* Inputs within a co-simulation step (fmu_model.interpolates_inputs): the derivatives of
   * each real input (FMI 2.0, for the next step only), or the 3.0 face's hook. */
  fmi2Real input_derivative[FMU_MAX_REALS][FMU_MAX_INPUT_ORDER];
  int input_orders; /* the highest order given for the next step */
  fmi2Real step_start;
  int stepping; /* within fmi2DoStep */
  fmu_input_hook input_hook;
  void* input_hook_env;
};

/* What an fmi2FMUstate points to: the deep copy. */
typedef struct {
  char magic[8];
  fmi2Integer mode;
  fmu_data d;
} fmu_saved;

/* ---- logging ---- */

static void log_with(const fmi2CallbackFunctions* cb, const char* name, fmi2Status status,
                     const char* category, const char* format, va_list args) {
  char text[1024];
  char escaped[2048];
  size_t i, j = 0;
  if (!cb || !cb->logger) return;
  vsnprintf(text, sizeof text, format, args);
  /* The logger formats its message like printf: a '%' of ours must reach it as "%%". */
  for (i = 0; text[i] && j + 2 < sizeof escaped; ++i) {
    if (text[i] == '%') escaped[j++] = '%';
    escaped[j++] = text[i];
  }
  escaped[j] = '\0';
  cb->logger(cb->componentEnvironment, name, status, category, escaped);
}

static unsigned category_bit(const char* category) {
  unsigned k;
  for (k = 0; k < N_CATEGORIES; ++k)
    if (strcmp(category, category_names[k]) == 0) return 1u << k;
  return 0;
}

void fmu_log(fmu_instance* c, fmi2Status status, const char* category, const char* format, ...) {
  va_list args;
  if (!c) return;
  if (status == fmi2OK || status == fmi2Pending) {
    if (!c->logging_on) return;
    if (!(c->categories & (category_bit(category) | LOG_ALL))) return;
  }
  va_start(args, format);
  log_with(&c->cb, c->name, status, category, format, args);
  va_end(args);
}

static void log_to(const fmi2CallbackFunctions* cb, const char* name, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void log_to(const fmi2CallbackFunctions* cb, const char* name, const char* format, ...) {
  va_list args;
  va_start(args, format);
  log_with(cb, name, fmi2Error, "logError", format, args);
  va_end(args);
}

#define FAIL(c, ...)                                  \
  do {                                                \
    fmu_log((c), fmi2Error, "logError", __VA_ARGS__); \
    return fmi2Error;                                 \
  } while (0)

static const char* mode_name(int mode) {
  switch (mode) {
    case S_INSTANTIATED:
      return "instantiated";
    case S_INIT:
      return "initialization mode";
    case S_CONTINUOUS:
      return "continuous-time mode";
    case S_EVENT:
      return "event mode";
    case S_STEP_COMPLETE:
      return "step complete";
    case S_TERMINATED:
      return "terminated";
    default:
      return "unknown";
  }
}

/* The common entry check: a component, the right kind, an allowed state. */
static int enter(fmu_instance* c, const char* function, int allowed, int kinds) {
  if (!c) return 0;
  fmu_log(c, fmi2OK, "logAll", "%s", function);
  if (kinds == 1 && c->kind != fmi2ModelExchange) {
    fmu_log(c, fmi2Error, "logError", "%s: only for a model exchange instance", function);
    return 0;
  }
  if (kinds == 2 && c->kind != fmi2CoSimulation) {
    fmu_log(c, fmi2Error, "logError", "%s: only for a co-simulation instance", function);
    return 0;
  }
  if (!(c->mode & allowed)) {
    fmu_log(c, fmi2Error, "logError", "%s: not allowed in state '%s'", function,
            mode_name(c->mode));
    return 0;
  }
  return 1;
}
#define ENTER(c, fn, allowed) \
  if (!enter((fmu_instance*)(c), fn, allowed, 0)) return fmi2Error
#define ENTER_ME(c, fn, allowed) \
  if (!enter((fmu_instance*)(c), fn, allowed, 1)) return fmi2Error
#define ENTER_CS(c, fn, allowed) \
  if (!enter((fmu_instance*)(c), fn, allowed, 2)) return fmi2Error

static int null_array(fmu_instance* c, const char* function, const void* p, size_t n,
                      const char* what) {
  if (n > 0 && !p) {
    fmu_log(c, fmi2Error, "logError", "%s: %s is NULL", function, what);
    return 1;
  }
  return 0;
}

/* ---- model helpers ---- */

static void start_values(fmu_data* d) {
  memset(d, 0, sizeof *d);
  M.start(d);
  M.compute(d);
}

static void get_states(const fmu_data* d, fmi2Real x[]) {
  size_t k;
  for (k = 0; k < M.n_states; ++k) x[k] = d->r[M.state_vr[k]];
}

static void set_states(fmu_data* d, const fmi2Real x[]) {
  size_t k;
  for (k = 0; k < M.n_states; ++k) d->r[M.state_vr[k]] = x[k];
}

/* The model's event update (time events and state events), then the outputs again. */
static fmi2Boolean event_update(fmu_instance* c) {
  fmi2Boolean changed = fmi2False;
  double before = c->d.next_event_time;
  if (M.event) M.event(&c->d, &changed);
  M.compute(&c->d);
  if (changed)
    fmu_log(c, fmi2OK, "logEvents", "event at t=%.17g: continuous states changed", c->d.time);
  if (c->d.next_event_defined && c->d.next_event_time != before)
    fmu_log(c, fmi2OK, "logEvents", "t=%.17g: next time event at t=%.17g", c->d.time,
            c->d.next_event_time);
  return changed;
}

/* Derivatives at (t, x) with everything else from base. */
/* Input u at step_start + s from its derivatives there (Horner's form, the rounding the
 * importer's own evaluation has). */
static fmi2Real input_over_step(fmi2Real u, const fmi2Real derivative[], int orders, fmi2Real s) {
  fmi2Real factorial = 1.0, acc = 0.0;
  int k;
  for (k = 1; k <= orders; ++k) factorial *= (fmi2Real)k;
  for (k = orders; k >= 1; --k) {
    acc = derivative[k - 1] / factorial + s * acc;
    factorial /= (fmi2Real)k;
  }
  return u + s * acc;
}

/* Within a co-simulation step, the real inputs at time t into d (d's other values are the
 * base's): from the 3.0 face's hook, or extrapolated from their derivatives. */
static void inputs_at(fmu_instance* c, fmi2Real t, fmu_data* d) {
  size_t vr;
  if (!c->stepping || !M.interpolates_inputs) return;
  if (c->input_hook) c->input_hook(c->input_hook_env, t);
  for (vr = 0; vr < M.n_reals; ++vr) {
    if (M.real_kind[vr] != FMU_INPUT) continue;
    d->r[vr] = c->input_hook ? c->d.r[vr]
                             : input_over_step(d->r[vr], c->input_derivative[vr], c->input_orders,
                                               t - c->step_start);
  }
}

static fmi2Status derivatives_at(fmu_instance* c, const fmu_data* base, fmi2Real t,
                                 const fmi2Real x[], fmi2Real dx[]) {
  fmu_data tmp;
  size_t k;
  memcpy(&tmp, base, sizeof tmp);
  inputs_at(c, t, &tmp);
  tmp.time = t;
  set_states(&tmp, x);
  if (M.check) {
    fmi2Status s = M.check(c, base, t);
    if (s != fmi2OK) return s;
  }
  M.compute(&tmp);
  for (k = 0; k < M.n_states; ++k) dx[k] = tmp.r[M.derivative_vr[k]];
  return fmi2OK;
}

/* One classical Runge-Kutta step of length h from `from` into `to`. */
static fmi2Status rk4(fmu_instance* c, const fmu_data* from, fmi2Real h, fmu_data* to) {
  fmi2Real x0[FMU_MAX_STATES] = {0}, x[FMU_MAX_STATES] = {0};
  fmi2Real k1[FMU_MAX_STATES] = {0}, k2[FMU_MAX_STATES] = {0}, k3[FMU_MAX_STATES] = {0},
           k4[FMU_MAX_STATES] = {0};
  const fmi2Real t = from->time;
  const size_t n = M.n_states;
  size_t k;
  fmi2Status s;
  get_states(from, x0);
  if ((s = derivatives_at(c, from, t, x0, k1)) != fmi2OK) return s;
  for (k = 0; k < n; ++k) x[k] = x0[k] + 0.5 * h * k1[k];
  if ((s = derivatives_at(c, from, t + 0.5 * h, x, k2)) != fmi2OK) return s;
  for (k = 0; k < n; ++k) x[k] = x0[k] + 0.5 * h * k2[k];
  if ((s = derivatives_at(c, from, t + 0.5 * h, x, k3)) != fmi2OK) return s;
  for (k = 0; k < n; ++k) x[k] = x0[k] + h * k3[k];
  if ((s = derivatives_at(c, from, t + h, x, k4)) != fmi2OK) return s;
  for (k = 0; k < n; ++k) x[k] = x0[k] + h / 6.0 * (k1[k] + 2.0 * k2[k] + 2.0 * k3[k] + k4[k]);
  memcpy(to, from, sizeof *to);
  to->time = t + h;
  set_states(to, x);
  M.compute(to);
  return fmi2OK;
}

/* An indicator crossed zero from a ≠0 value (from 0 on is not a crossing: an event update
 * that puts the state on the surface does not trigger a second event). */
static int crossed(const fmu_data* a, const fmu_data* b) {
  fmi2Real za[FMU_MAX_INDICATORS], zb[FMU_MAX_INDICATORS];
  size_t k;
  if (M.n_indicators == 0 || !M.indicators) return 0;
  M.indicators(a, za);
  M.indicators(b, zb);
  for (k = 0; k < M.n_indicators; ++k)
    if ((za[k] > 0 && zb[k] <= 0) || (za[k] < 0 && zb[k] >= 0)) return 1;
  return 0;
}

/* ---- common functions (§2.1) ---- */

const char* fmi2GetTypesPlatform(void) {
  return "default";
}
const char* fmi2GetVersion(void) {
  return "2.0";
}

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean logging_on, size_t n_categories,
                               const fmi2String categories[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  unsigned mask = 0;
  ENTER(c, "fmi2SetDebugLogging", S_ANY);
  if (null_array(c, "fmi2SetDebugLogging", categories, n_categories, "categories"))
    return fmi2Error;
  for (k = 0; k < n_categories; ++k) {
    unsigned bit = categories[k] ? category_bit(categories[k]) : 0;
    if (!bit)
      FAIL(c, "fmi2SetDebugLogging: unknown log category '%s'",
           categories[k] ? categories[k] : "(null)");
    mask |= bit;
  }
  c->logging_on = logging_on ? 1 : 0;
  c->categories =
      n_categories == 0 ? (unsigned)(LOG_EVENTS | LOG_WARNING | LOG_ERROR | LOG_ALL) : mask;
  return fmi2OK;
}

static char* copy_string(fmu_instance* c, const char* s) {
  size_t n = strlen(s) + 1;
  char* p = (char*)c->alloc(n, 1);
  if (p) memcpy(p, s, n);
  return p;
}

fmi2Component fmi2Instantiate(fmi2String instance_name, fmi2Type kind, fmi2String guid,
                              fmi2String resource_location, const fmi2CallbackFunctions* functions,
                              fmi2Boolean visible, fmi2Boolean logging_on) {
  fmu_instance* c;
  const char* name = instance_name ? instance_name : "";
  void* (*alloc)(size_t, size_t) = calloc;
  void (*release)(void*) = free;
  (void)resource_location;
  (void)visible;
  if (!functions || !functions->logger) return NULL; /* nobody to tell */
  if (!instance_name || !*instance_name) {
    log_to(functions, name, "fmi2Instantiate: missing instance name");
    return NULL;
  }
  if (!guid || strcmp(guid, BUILT_GUID) != 0) {
    log_to(functions, name, "fmi2Instantiate: GUID '%s' does not match this FMU's '%s' (%s)",
           guid ? guid : "(null)", BUILT_GUID, FMU_IDENTIFIER);
    return NULL;
  }
  if ((kind == fmi2ModelExchange && !M.model_exchange) ||
      (kind == fmi2CoSimulation && !M.co_simulation) ||
      (kind != fmi2ModelExchange && kind != fmi2CoSimulation)) {
    log_to(functions, name, "fmi2Instantiate: %s does not support %s", FMU_IDENTIFIER,
           kind == fmi2ModelExchange  ? "model exchange"
           : kind == fmi2CoSimulation ? "co-simulation"
                                      : "this fmi2Type");
    return NULL;
  }
  if (functions->allocateMemory && functions->freeMemory) {
    alloc = functions->allocateMemory;
    release = functions->freeMemory;
  }
  c = (fmu_instance*)alloc(1, sizeof *c);
  if (!c) {
    log_to(functions, name, "fmi2Instantiate: out of memory");
    return NULL;
  }
  memset(c, 0, sizeof *c);
  c->cb = *functions;
  c->alloc = alloc;
  c->release = release;
  c->name = copy_string(c, name);
  if (!c->name) {
    log_to(functions, name, "fmi2Instantiate: out of memory");
    release(c);
    return NULL;
  }
  c->kind = kind;
  c->mode = S_INSTANTIATED;
  c->logging_on = logging_on ? 1 : 0;
  c->categories = LOG_EVENTS | LOG_WARNING | LOG_ERROR; /* "logAll" (every call) on request */
  start_values(&c->d);
  fmu_log(c, fmi2OK, "logAll", "fmi2Instantiate: %s (%s) as %s", FMU_IDENTIFIER, FMU_GUID,
          kind == fmi2ModelExchange ? "model exchange" : "co-simulation");
  return c;
}

void fmi2FreeInstance(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  if (!c) return;
  fmu_log(c, fmi2OK, "logAll", "fmi2FreeInstance");
  c->release(c->name);
  c->release(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean tolerance_defined,
                               fmi2Real tolerance, fmi2Real start_time,
                               fmi2Boolean stop_time_defined, fmi2Real stop_time) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)tolerance_defined;
  (void)tolerance;
  ENTER(c, "fmi2SetupExperiment", S_INSTANTIATED);
  if (stop_time_defined && stop_time < start_time)
    FAIL(c, "fmi2SetupExperiment: stop time %g before start time %g", stop_time, start_time);
  c->d.time = start_time;
  c->stop_time_defined = stop_time_defined ? fmi2True : fmi2False;
  c->stop_time = stop_time;
  return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2EnterInitializationMode", S_INSTANTIATED);
  c->mode = S_INIT;
  M.compute(&c->d);
  return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2ExitInitializationMode", S_INIT);
  if (M.initialize) M.initialize(&c->d);
  M.compute(&c->d);
  if (c->kind == fmi2ModelExchange) {
    c->mode = S_EVENT; /* the importer now calls fmi2NewDiscreteStates */
  } else {
    event_update(c); /* co-simulation: the initial event iteration is ours */
    c->mode = S_STEP_COMPLETE;
  }
  return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2Terminate", S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE);
  c->mode = S_TERMINATED;
  return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2Reset", S_ANY);
  start_values(&c->d);
  c->stop_time_defined = fmi2False;
  c->mode = S_INSTANTIATED;
  return fmi2OK;
}

/* ---- getting and setting values (§2.1.7) ---- */

static int bad_vr(fmu_instance* c, const char* function, fmi2ValueReference vr, size_t n) {
  if (vr >= n) {
    fmu_log(c, fmi2Error, "logError", "%s: unknown value reference %u", function, vr);
    return 1;
  }
  return 0;
}

static int may_set(fmu_instance* c, const char* function, unsigned char kind,
                   fmi2ValueReference vr) {
  const int before_init = c->mode & (S_INSTANTIATED | S_INIT);
  if (kind == FMU_INPUT) return 1;
  if ((kind == FMU_PARAMETER || kind == FMU_EXACT) && before_init) return 1;
  fmu_log(c, fmi2Error, "logError", "%s: value reference %u cannot be set %s", function, vr,
          kind == FMU_CALCULATED ? "(a calculated variable)"
                                 : "after initialization (a fixed parameter or start value)");
  return 0;
}

#define GET_SET_ARGS(fn) \
  if (null_array(c, fn, vr, n, "vr") || null_array(c, fn, value, n, "value")) return fmi2Error

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                       fmi2Real value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2GetReal", S_INITIALIZED);
  GET_SET_ARGS("fmi2GetReal");
  M.compute(&c->d);
  for (k = 0; k < n; ++k) {
    if (bad_vr(c, "fmi2GetReal", vr[k], M.n_reals)) return fmi2Error;
    value[k] = c->d.r[vr[k]];
  }
  return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                          fmi2Integer value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2GetInteger", S_INITIALIZED);
  GET_SET_ARGS("fmi2GetInteger");
  M.compute(&c->d);
  for (k = 0; k < n; ++k) {
    if (bad_vr(c, "fmi2GetInteger", vr[k], M.n_integers)) return fmi2Error;
    value[k] = c->d.i[vr[k]];
  }
  return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                          fmi2Boolean value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2GetBoolean", S_INITIALIZED);
  GET_SET_ARGS("fmi2GetBoolean");
  M.compute(&c->d);
  for (k = 0; k < n; ++k) {
    if (bad_vr(c, "fmi2GetBoolean", vr[k], M.n_booleans)) return fmi2Error;
    value[k] = c->d.b[vr[k]];
  }
  return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                         fmi2String value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2GetString", S_INITIALIZED);
  GET_SET_ARGS("fmi2GetString");
  M.compute(&c->d);
  for (k = 0; k < n; ++k) {
    if (bad_vr(c, "fmi2GetString", vr[k], M.n_strings)) return fmi2Error;
    value[k] = c->d.s[vr[k]]; /* valid until the next call on this instance */
  }
  return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2SetReal", S_INSTANTIATED | S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE);
  GET_SET_ARGS("fmi2SetReal");
  for (k = 0; k < n; ++k) /* all or nothing */
    if (bad_vr(c, "fmi2SetReal", vr[k], M.n_reals) ||
        !may_set(c, "fmi2SetReal", M.real_kind[vr[k]], vr[k]))
      return fmi2Error;
  for (k = 0; k < n; ++k) c->d.r[vr[k]] = value[k];
  M.compute(&c->d);
  return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                          const fmi2Integer value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2SetInteger", S_INSTANTIATED | S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE);
  GET_SET_ARGS("fmi2SetInteger");
  for (k = 0; k < n; ++k)
    if (bad_vr(c, "fmi2SetInteger", vr[k], M.n_integers) ||
        !may_set(c, "fmi2SetInteger", M.integer_kind[vr[k]], vr[k]))
      return fmi2Error;
  for (k = 0; k < n; ++k) c->d.i[vr[k]] = value[k];
  M.compute(&c->d);
  return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                          const fmi2Boolean value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2SetBoolean", S_INSTANTIATED | S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE);
  GET_SET_ARGS("fmi2SetBoolean");
  for (k = 0; k < n; ++k)
    if (bad_vr(c, "fmi2SetBoolean", vr[k], M.n_booleans) ||
        !may_set(c, "fmi2SetBoolean", M.boolean_kind[vr[k]], vr[k]))
      return fmi2Error;
  for (k = 0; k < n; ++k) c->d.b[vr[k]] = value[k] ? fmi2True : fmi2False;
  M.compute(&c->d);
  return fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                         const fmi2String value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER(c, "fmi2SetString", S_INSTANTIATED | S_INIT | S_CONTINUOUS | S_EVENT | S_STEP_COMPLETE);
  GET_SET_ARGS("fmi2SetString");
  for (k = 0; k < n; ++k) {
    if (bad_vr(c, "fmi2SetString", vr[k], M.n_strings) ||
        !may_set(c, "fmi2SetString", M.string_kind[vr[k]], vr[k]))
      return fmi2Error;
    if (!value[k]) FAIL(c, "fmi2SetString: value %u is NULL", (unsigned)k);
    if (strlen(value[k]) >= FMU_STRING_BYTES)
      FAIL(c, "fmi2SetString: value %u is longer than %d bytes", (unsigned)k, FMU_STRING_BYTES - 1);
  }
  for (k = 0; k < n; ++k) strcpy(c->d.s[vr[k]], value[k]);
  M.compute(&c->d);
  return fmi2OK;
}

/* ---- FMU state (§2.1.8) ---- */

#ifdef FMU_FRAME_NO_STATE
#define NO_STATE(c, fn) \
  FAIL(c, "%s: not supported (canGetAndSetFMUstate and canSerializeFMUstate are false)", fn)

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)state;
  ENTER(c, "fmi2GetFMUstate", S_ANY);
  NO_STATE(c, "fmi2GetFMUstate");
}
fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)state;
  ENTER(c, "fmi2SetFMUstate", S_ANY);
  NO_STATE(c, "fmi2SetFMUstate");
}
fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)state;
  ENTER(c, "fmi2FreeFMUstate", S_ANY);
  NO_STATE(c, "fmi2FreeFMUstate");
}
fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t* size) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)state;
  (void)size;
  ENTER(c, "fmi2SerializedFMUstateSize", S_ANY);
  NO_STATE(c, "fmi2SerializedFMUstateSize");
}
fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte serialized[],
                                 size_t size) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)state;
  (void)serialized;
  (void)size;
  ENTER(c, "fmi2SerializeFMUstate", S_ANY);
  NO_STATE(c, "fmi2SerializeFMUstate");
}
fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte serialized[], size_t size,
                                   fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)serialized;
  (void)size;
  (void)state;
  ENTER(c, "fmi2DeSerializeFMUstate", S_ANY);
  NO_STATE(c, "fmi2DeSerializeFMUstate");
}

#else /* FMU_FRAME_NO_STATE */

static const char saved_magic[8] = {'k', 'a', 'u', 's', 'F', 'M', 'U', 's'};
static const char serial_magic[8] = {'k', 'a', 'u', 's', 'S', 'E', 'R', '1'};
/* serialized layout: magic (8 bytes) | payload size (uint64) | guid hash (uint64) | fmu_saved */
#define SERIAL_HEADER 24u

static uint64_t guid_hash(void) {
  /* FNV-1a over the GUID: a serialized state of another model is rejected. */
  uint64_t h = 1469598103934665603ull;
  const char* p;
  for (p = FMU_GUID; *p; ++p) {
    h ^= (unsigned char)*p;
    h *= 1099511628211ull;
  }
  return h;
}

static int bad_saved(fmu_instance* c, const char* function, const fmu_saved* s) {
  if (!s) {
    fmu_log(c, fmi2Error, "logError", "%s: the FMU state is NULL", function);
    return 1;
  }
  if (memcmp(s->magic, saved_magic, sizeof saved_magic) != 0) {
    fmu_log(c, fmi2Error, "logError", "%s: not an FMU state of %s", function, FMU_IDENTIFIER);
    return 1;
  }
  return 0;
}

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  fmu_saved* s;
  ENTER(c, "fmi2GetFMUstate", S_ANY);
  if (!state) FAIL(c, "fmi2GetFMUstate: state is NULL");
  s = (fmu_saved*)*state;
  if (s) { /* the standard lets the importer pass a previous state to overwrite */
    if (bad_saved(c, "fmi2GetFMUstate", s)) return fmi2Error;
  } else {
    s = (fmu_saved*)c->alloc(1, sizeof *s);
    if (!s) FAIL(c, "fmi2GetFMUstate: out of memory");
    memset(s, 0, sizeof *s);
  }
  memcpy(s->magic, saved_magic, sizeof saved_magic);
  s->mode = c->mode;
  memcpy(&s->d, &c->d, sizeof s->d);
  *state = s;
  return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
  fmu_instance* c = (fmu_instance*)comp;
  const fmu_saved* s = (const fmu_saved*)state;
  ENTER(c, "fmi2SetFMUstate", S_ANY);
  if (bad_saved(c, "fmi2SetFMUstate", s)) return fmi2Error;
#ifdef FMU_FRAME_BAD_SET_STATE
  /* A buggy exporter: says fmi2OK, restores nothing. */
  return fmi2OK;
#else
  memcpy(&c->d, &s->d, sizeof c->d);
  return fmi2OK;
#endif
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2FreeFMUstate", S_ANY);
  if (!state) FAIL(c, "fmi2FreeFMUstate: state is NULL");
  if (*state) {
    if (bad_saved(c, "fmi2FreeFMUstate", (const fmu_saved*)*state)) return fmi2Error;
    memset(*state, 0, sizeof(fmu_saved));
    c->release(*state);
  }
  *state = NULL;
  return fmi2OK;
}

static size_t serialized_size(void) {
  return SERIAL_HEADER + sizeof(fmu_saved);
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t* size) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER(c, "fmi2SerializedFMUstateSize", S_ANY);
  if (bad_saved(c, "fmi2SerializedFMUstateSize", (const fmu_saved*)state)) return fmi2Error;
  if (!size) FAIL(c, "fmi2SerializedFMUstateSize: size is NULL");
  *size = serialized_size();
  return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte serialized[],
                                 size_t size) {
  fmu_instance* c = (fmu_instance*)comp;
  uint64_t payload = sizeof(fmu_saved), hash = guid_hash();
  ENTER(c, "fmi2SerializeFMUstate", S_ANY);
  if (bad_saved(c, "fmi2SerializeFMUstate", (const fmu_saved*)state)) return fmi2Error;
  if (!serialized) FAIL(c, "fmi2SerializeFMUstate: buffer is NULL");
  if (size != serialized_size())
    FAIL(c, "fmi2SerializeFMUstate: buffer of %zu bytes, the state needs %zu", size,
         serialized_size());
  memcpy(serialized, serial_magic, 8);
  memcpy(serialized + 8, &payload, 8);
  memcpy(serialized + 16, &hash, 8);
  memcpy(serialized + SERIAL_HEADER, state, sizeof(fmu_saved));
  return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte serialized[], size_t size,
                                   fmi2FMUstate* state) {
  fmu_instance* c = (fmu_instance*)comp;
  uint64_t payload, hash;
  fmu_saved* s;
  ENTER(c, "fmi2DeSerializeFMUstate", S_ANY);
  if (!serialized || !state) FAIL(c, "fmi2DeSerializeFMUstate: NULL argument");
  if (size != serialized_size())
    FAIL(c, "fmi2DeSerializeFMUstate: %zu bytes, a serialized state of %s has %zu", size,
         FMU_IDENTIFIER, serialized_size());
  memcpy(&payload, serialized + 8, 8);
  memcpy(&hash, serialized + 16, 8);
  if (memcmp(serialized, serial_magic, 8) != 0 || payload != sizeof(fmu_saved))
    FAIL(c, "fmi2DeSerializeFMUstate: not a serialized FMU state (bad header)");
  if (hash != guid_hash())
    FAIL(c, "fmi2DeSerializeFMUstate: serialized by another model (GUID differs)");
  if (memcmp(serialized + SERIAL_HEADER, saved_magic, sizeof saved_magic) != 0)
    FAIL(c, "fmi2DeSerializeFMUstate: corrupt payload");
  s = (fmu_saved*)*state;
  if (s) {
    if (bad_saved(c, "fmi2DeSerializeFMUstate", s)) return fmi2Error;
  } else {
    s = (fmu_saved*)c->alloc(1, sizeof *s);
    if (!s) FAIL(c, "fmi2DeSerializeFMUstate: out of memory");
  }
  memcpy(s, serialized + SERIAL_HEADER, sizeof *s);
  *state = s;
  return fmi2OK;
}
#endif /* FMU_FRAME_NO_STATE */

/* ---- directional derivatives (§2.1.9) ---- */

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference unknowns[],
                                        size_t n_unknowns, const fmi2ValueReference knowns[],
                                        size_t n_knowns, const fmi2Real dv_known[],
                                        fmi2Real dv_unknown[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t i, j;
  const char* fn = "fmi2GetDirectionalDerivative";
  ENTER(c, fn, S_INITIALIZED);
  if (!M.partial) FAIL(c, "%s: not supported (providesDirectionalDerivative=false)", fn);
  if (null_array(c, fn, unknowns, n_unknowns, "unknowns") ||
      null_array(c, fn, dv_unknown, n_unknowns, "dv_unknown") ||
      null_array(c, fn, knowns, n_knowns, "knowns") ||
      null_array(c, fn, dv_known, n_knowns, "dv_known"))
    return fmi2Error;
  M.compute(&c->d);
  for (i = 0; i < n_unknowns; ++i) {
    fmi2Real sum = 0.0;
    if (bad_vr(c, fn, unknowns[i], M.n_reals)) return fmi2Error;
    for (j = 0; j < n_knowns; ++j) {
      fmi2Real p;
      if (bad_vr(c, fn, knowns[j], M.n_reals)) return fmi2Error;
      if (!M.partial(&c->d, unknowns[i], knowns[j], &p))
        FAIL(c, "%s: no partial derivative of value reference %u by %u", fn, unknowns[i],
             knowns[j]);
      sum += p * dv_known[j];
    }
    dv_unknown[i] = sum;
  }
  return fmi2OK;
}

/* ---- model exchange (§3.2) ---- */

fmi2Status fmi2EnterEventMode(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2EnterEventMode", S_EVENT | S_CONTINUOUS);
  c->mode = S_EVENT;
  return fmi2OK;
}

/* What an event update reports (model exchange and co-simulation's event mode alike). */
static void tell_event_update(const fmu_instance* c, fmi2Boolean changed, fmi2EventInfo* info) {
  info->newDiscreteStatesNeeded = fmi2False; /* the models' updates need no iteration */
  info->terminateSimulation = c->d.terminate ? fmi2True : fmi2False;
  info->nominalsOfContinuousStatesChanged = fmi2False;
  info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
  info->nextEventTimeDefined = c->d.next_event_defined ? fmi2True : fmi2False;
  info->nextEventTime = c->d.next_event_defined ? c->d.next_event_time : 0.0;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo* info) {
  fmu_instance* c = (fmu_instance*)comp;
  fmi2Boolean changed;
  ENTER_ME(c, "fmi2NewDiscreteStates", S_EVENT);
  if (!info) FAIL(c, "fmi2NewDiscreteStates: eventInfo is NULL");
  changed = event_update(c);
  tell_event_update(c, changed, info);
  return fmi2OK;
}

/* ---- for the FMI 3.0 face: co-simulation's event mode and clocks ---- */

fmu_data* fmu_frame_data(fmi2Component comp) {
  return &((fmu_instance*)comp)->d;
}

int fmu_frame_in_event_mode(fmi2Component comp) {
  return ((fmu_instance*)comp)->mode == S_EVENT;
}

void fmu_frame_recompute(fmi2Component comp) {
  M.compute(&((fmu_instance*)comp)->d);
}

fmi2Status fmu_frame_cs_event_mode(fmi2Component comp, int into_event) {
  fmu_instance* c = (fmu_instance*)comp;
  if (into_event) {
    ENTER_CS(c, "fmi3EnterEventMode", S_STEP_COMPLETE);
    c->mode = S_EVENT;
  } else {
    ENTER_CS(c, "fmi3EnterStepMode", S_EVENT);
    c->mode = S_STEP_COMPLETE;
  }
  return fmi2OK;
}

fmi2Status fmu_frame_cs_update(fmi2Component comp, fmi2EventInfo* info) {
  fmu_instance* c = (fmu_instance*)comp;
  fmi2Boolean changed;
  ENTER_CS(c, "fmi3UpdateDiscreteStates", S_EVENT);
  changed = event_update(c);
  tell_event_update(c, changed, info);
  return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2EnterContinuousTimeMode", S_EVENT);
  c->mode = S_CONTINUOUS;
  return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp, fmi2Boolean no_set_fmu_state_prior,
                                       fmi2Boolean* enter_event_mode,
                                       fmi2Boolean* terminate_simulation) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)no_set_fmu_state_prior;
  ENTER_ME(c, "fmi2CompletedIntegratorStep", S_CONTINUOUS);
  if (!enter_event_mode || !terminate_simulation)
    FAIL(c, "fmi2CompletedIntegratorStep: NULL argument");
  *enter_event_mode = fmi2False;
  if (M.step_completed) M.step_completed(&c->d, enter_event_mode);
  *terminate_simulation = c->d.terminate ? fmi2True : fmi2False;
  return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real t) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2SetTime", S_EVENT | S_CONTINUOUS);
  c->d.time = t;
  return fmi2OK;
}

static int wrong_count(fmu_instance* c, const char* fn, size_t n, size_t expected, const void* p) {
  if (n != expected) {
    fmu_log(c, fmi2Error, "logError", "%s: n=%zu, the model has %zu", fn, n, expected);
    return 1;
  }
  return null_array(c, fn, p, n, "array");
}

fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t n) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2SetContinuousStates", S_CONTINUOUS);
  if (wrong_count(c, "fmi2SetContinuousStates", n, M.n_states, x)) return fmi2Error;
  set_states(&c->d, x);
  M.compute(&c->d);
  return fmi2OK;
}

#define S_ME_GETS (S_INIT | S_EVENT | S_CONTINUOUS | S_TERMINATED)

#ifndef FMU_FRAME_OMIT_GET_DERIVATIVES
fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real derivatives[], size_t n) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER_ME(c, "fmi2GetDerivatives", S_ME_GETS);
  if (wrong_count(c, "fmi2GetDerivatives", n, M.n_states, derivatives)) return fmi2Error;
  if (M.check) {
    fmi2Status s = M.check(c, &c->d, c->d.time);
    if (s != fmi2OK) return s;
  }
  M.compute(&c->d);
  for (k = 0; k < n; ++k) derivatives[k] = c->d.r[M.derivative_vr[k]];
  return fmi2OK;
}
#endif

fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real indicators[], size_t n) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2GetEventIndicators", S_ME_GETS);
  if (wrong_count(c, "fmi2GetEventIndicators", n, M.n_indicators, indicators)) return fmi2Error;
  if (n > 0) {
    M.compute(&c->d);
    M.indicators(&c->d, indicators);
  }
  return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t n) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_ME(c, "fmi2GetContinuousStates", S_ME_GETS);
  if (wrong_count(c, "fmi2GetContinuousStates", n, M.n_states, x)) return fmi2Error;
  get_states(&c->d, x);
  return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real nominals[], size_t n) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER_ME(c, "fmi2GetNominalsOfContinuousStates", S_INSTANTIATED | S_ME_GETS);
  if (wrong_count(c, "fmi2GetNominalsOfContinuousStates", n, M.n_states, nominals))
    return fmi2Error;
  for (k = 0; k < n; ++k) nominals[k] = 1.0;
  return fmi2OK;
}

/* ---- co-simulation (§4.2) ---- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  size_t k;
  ENTER_CS(c, "fmi2SetRealInputDerivatives", S_ANY);
  if (!M.interpolates_inputs)
    FAIL(c, "fmi2SetRealInputDerivatives: not supported (canInterpolateInputs=false)");
  if (n > 0 && (!vr || !order || !value)) FAIL(c, "fmi2SetRealInputDerivatives: NULL array");
  for (k = 0; k < n; ++k) {
    if (vr[k] >= M.n_reals || M.real_kind[vr[k]] != FMU_INPUT)
      FAIL(c, "fmi2SetRealInputDerivatives: value reference %u is not a real input",
           (unsigned)vr[k]);
    if (order[k] < 1 || order[k] > FMU_MAX_INPUT_ORDER)
      FAIL(c, "fmi2SetRealInputDerivatives: order %d is outside 1..%d", (int)order[k],
           FMU_MAX_INPUT_ORDER);
    if (!isfinite(value[k]))
      FAIL(c, "fmi2SetRealInputDerivatives: derivative %d of %u is not finite", (int)order[k],
           (unsigned)vr[k]);
  }
  for (k = 0; k < n; ++k) {
    c->input_derivative[vr[k]][order[k] - 1] = value[k];
    if (order[k] > c->input_orders) c->input_orders = order[k];
  }
  return fmi2OK;
}

void fmu_frame_set_input_hook(fmi2Component comp, fmu_input_hook hook, void* env) {
  fmu_instance* c = (fmu_instance*)comp;
  c->input_hook = hook;
  c->input_hook_env = env;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real value[]) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)vr;
  (void)n;
  (void)order;
  (void)value;
  ENTER_CS(c, "fmi2GetRealOutputDerivatives", S_ANY);
  FAIL(c, "fmi2GetRealOutputDerivatives: not supported (maxOutputDerivativeOrder=0)");
}

/* One sub-step from c->d of length h, or shorter when an indicator changes sign in it: then
 * the state event is located by bisection on the sub-step's length and the event update is
 * applied there. A time event (time_event: h ends on it) is applied at its exact time.
 * *full tells whether the whole h was taken. */
static fmi2Status sub_step(fmu_instance* c, fmi2Real h, int time_event, fmi2Real event_time,
                           int* full) {
  fmu_data end, probe;
  fmi2Status s;
  *full = 1;
  if ((s = rk4(c, &c->d, h, &end)) != fmi2OK) return s;
  if (crossed(&c->d, &end)) {
    /* lo: not crossed yet, hi: crossed; look for the earliest end on the far side */
    fmi2Real lo = 0.0, hi = h;
    int it;
    for (it = 0; it < 200 && hi - lo > 1e-15 * (1.0 + fabs(c->d.time)); ++it) {
      fmi2Real mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      if ((s = rk4(c, &c->d, mid, &probe)) != fmi2OK) return s;
      if (crossed(&c->d, &probe)) {
        hi = mid;
        memcpy(&end, &probe, sizeof end);
      } else {
        lo = mid;
      }
    }
    if (hi < h) {
      *full = 0;
      time_event = 0;
    }
    memcpy(&c->d, &end, sizeof end);
    if (time_event) c->d.time = event_time;
    event_update(c);
    return fmi2OK;
  }
  memcpy(&c->d, &end, sizeof end);
  if (time_event) {
    c->d.time = event_time; /* land exactly on it */
    event_update(c);
  }
  return fmi2OK;
}

static fmi2Status do_step(fmu_instance* c, fmi2Real current_time, fmi2Real step_size) {
  fmu_data before;
  fmi2Real t_end;
  long guard;
  memcpy(&before, &c->d, sizeof before);
  c->d.time = current_time;
  t_end = current_time + step_size;
  /* A time event that is due now (e.g. from a restored state). */
  if (c->d.next_event_defined && c->d.next_event_time <= c->d.time) event_update(c);
  for (guard = 0; c->d.time < t_end; ++guard) {
    const fmi2Real t = c->d.time;
    fmi2Real h = t_end - t;
    int last = 1, time_event = 0, full = 1;
    fmi2Status s;
    if (guard > 100000000L) {
      memcpy(&c->d, &before, sizeof before);
      FAIL(c, "fmi2DoStep: no progress at t=%.17g", t);
    }
    if (h > M.max_substep * (1.0 + 1e-9)) {
      h = M.max_substep;
      last = 0;
    }
    if (c->d.next_event_defined && c->d.next_event_time > t &&
        c->d.next_event_time <= t + h * (1.0 + 1e-12)) {
      h = c->d.next_event_time - t;
      time_event = 1;
      last = 0;
    }
    s = sub_step(c, h, time_event, time_event ? c->d.next_event_time : 0.0, &full);
    if (s != fmi2OK) {
      memcpy(&c->d, &before, sizeof before); /* the step did not happen */
      return s;
    }
    if (c->d.terminate) { /* the model asked to end: the step stops at that event */
      M.compute(&c->d);
      return fmi2Discard;
    }
    if (last && full) break; /* ends exactly on t_end, whatever the rounding of t + h */
  }
  c->d.time = t_end;
  M.compute(&c->d);
  return fmi2OK;
}

/* The step's inputs, changing within it where the model interpolates them; afterwards they are
 * the values set before it again (the 3.0 face's hook may have set others), and the
 * derivatives given for it are spent. */
fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real current_time, fmi2Real step_size,
                      fmi2Boolean no_set_fmu_state_prior) {
  fmu_instance* c = (fmu_instance*)comp;
  fmi2Real inputs[FMU_MAX_REALS];
  fmi2Status s;
  size_t vr;
  (void)no_set_fmu_state_prior;
  ENTER_CS(c, "fmi2DoStep", S_STEP_COMPLETE);
  if (!(step_size >= 0.0)) FAIL(c, "fmi2DoStep: negative step size %g", step_size);
  if (fabs(current_time - c->d.time) > 1e-9 * (1.0 + fabs(c->d.time)))
    FAIL(c, "fmi2DoStep: current time %.17g is not the FMU's time %.17g", current_time, c->d.time);
  memcpy(inputs, c->d.r, sizeof inputs);
  c->step_start = current_time;
  c->stepping = 1;
  s = do_step(c, current_time, step_size);
  c->stepping = 0;
  c->input_orders = 0;
  if (M.interpolates_inputs && c->input_hook) {
    for (vr = 0; vr < M.n_reals; ++vr)
      if (M.real_kind[vr] == FMU_INPUT) c->d.r[vr] = inputs[vr];
    M.compute(&c->d);
  }
  return s;
}

fmi2Status fmi2CancelStep(fmi2Component comp) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_CS(c, "fmi2CancelStep", S_ANY);
  FAIL(c, "fmi2CancelStep: not supported (fmi2DoStep never returns fmi2Pending)");
}

fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status* value) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_CS(c, "fmi2GetStatus", S_STEP_COMPLETE | S_TERMINATED);
  if (!value) FAIL(c, "fmi2GetStatus: value is NULL");
  if (s != fmi2DoStepStatus) FAIL(c, "fmi2GetStatus: status kind %d not supported", (int)s);
  *value = fmi2OK;
  return fmi2OK;
}

fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real* value) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_CS(c, "fmi2GetRealStatus", S_STEP_COMPLETE | S_TERMINATED);
  if (!value) FAIL(c, "fmi2GetRealStatus: value is NULL");
  if (s != fmi2LastSuccessfulTime)
    FAIL(c, "fmi2GetRealStatus: status kind %d not supported", (int)s);
  *value = c->d.time;
  return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Integer* value) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)value;
  ENTER_CS(c, "fmi2GetIntegerStatus", S_STEP_COMPLETE | S_TERMINATED);
  FAIL(c, "fmi2GetIntegerStatus: status kind %d not supported", (int)s);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Boolean* value) {
  fmu_instance* c = (fmu_instance*)comp;
  ENTER_CS(c, "fmi2GetBooleanStatus", S_STEP_COMPLETE | S_TERMINATED);
  if (!value) FAIL(c, "fmi2GetBooleanStatus: value is NULL");
  if (s != fmi2Terminated) FAIL(c, "fmi2GetBooleanStatus: status kind %d not supported", (int)s);
  *value = c->d.terminate ? fmi2True : fmi2False;
  return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s, fmi2String* value) {
  fmu_instance* c = (fmu_instance*)comp;
  (void)value;
  ENTER_CS(c, "fmi2GetStringStatus", S_STEP_COMPLETE | S_TERMINATED);
  FAIL(c, "fmi2GetStringStatus: status kind %d not supported", (int)s);
}

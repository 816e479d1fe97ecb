/* The test FMUs' FMI 3.0 face: every FMI 3.0 function kausal calls, over the FMI 2.0 frame
 * (fmu_frame.c, compiled with FMU_FRAME_INNER so that its fmi2* functions stay inside the
 * binary). One model source thus gives a 2.0 and a 3.0 FMU that compute the same numbers, and
 * a test can ask kausal for the same bits through either standard. Written for kausal's tests
 * from the FMI 3.0 specification; plain C99.
 *
 * FMI 3.0 gives every variable its own value reference; the frame has one space per type. The
 * 3.0 descriptions (xml/NAME_3.xml) use these ranges:
 *   0-89     Float64 (or Float32): the frame's real k at k
 *   90-99    the event indicators (local Float64), indicator k at 90 + k
 *   100-199  any integer type: the frame's integer k at 100 + k
 *   200-299  Boolean: the frame's boolean k at 200 + k
 *   300-399  String: the frame's string k at 300 + k
 *   400-409  Clocks: the model's clock k at clock_vr[k] (a model with clocks says which)
 *   999      the independent variable, time
 *
 * A model with `has_event_mode` may be instantiated for co-simulation with event mode (then it
 * is in event mode after initialization, and fmi3EnterEventMode, fmi3UpdateDiscreteStates and
 * fmi3EnterStepMode serve it); early return is accepted and never taken. A Clock activated by
 * fmi3SetClock ticks (its model partition runs) before the next value is read or at
 * fmi3UpdateDiscreteStates, which deactivates every Clock. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu_frame.h"
#include "system/fmu/fmi3.h"

#define FMU3_EXPORT __attribute__((visibility("default")))

/* Declared with the types of system/fmu/fmi3.h, so that a definition that does not match the
 * standard's signature fails to compile. */
FMU3_EXPORT fmi3GetVersionTYPE fmi3GetVersion;
FMU3_EXPORT fmi3SetDebugLoggingTYPE fmi3SetDebugLogging;
FMU3_EXPORT fmi3InstantiateModelExchangeTYPE fmi3InstantiateModelExchange;
FMU3_EXPORT fmi3InstantiateCoSimulationTYPE fmi3InstantiateCoSimulation;
FMU3_EXPORT fmi3FreeInstanceTYPE fmi3FreeInstance;
FMU3_EXPORT fmi3EnterInitializationModeTYPE fmi3EnterInitializationMode;
FMU3_EXPORT fmi3ExitInitializationModeTYPE fmi3ExitInitializationMode;
FMU3_EXPORT fmi3EnterEventModeTYPE fmi3EnterEventMode;
FMU3_EXPORT fmi3TerminateTYPE fmi3Terminate;
FMU3_EXPORT fmi3ResetTYPE fmi3Reset;
FMU3_EXPORT fmi3GetFloat32TYPE fmi3GetFloat32;
FMU3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
FMU3_EXPORT fmi3GetInt8TYPE fmi3GetInt8;
FMU3_EXPORT fmi3GetUInt8TYPE fmi3GetUInt8;
FMU3_EXPORT fmi3GetInt16TYPE fmi3GetInt16;
FMU3_EXPORT fmi3GetUInt16TYPE fmi3GetUInt16;
FMU3_EXPORT fmi3GetInt32TYPE fmi3GetInt32;
FMU3_EXPORT fmi3GetUInt32TYPE fmi3GetUInt32;
FMU3_EXPORT fmi3GetInt64TYPE fmi3GetInt64;
FMU3_EXPORT fmi3GetUInt64TYPE fmi3GetUInt64;
FMU3_EXPORT fmi3GetBooleanTYPE fmi3GetBoolean;
FMU3_EXPORT fmi3GetStringTYPE fmi3GetString;
FMU3_EXPORT fmi3SetFloat32TYPE fmi3SetFloat32;
FMU3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
FMU3_EXPORT fmi3SetInt8TYPE fmi3SetInt8;
FMU3_EXPORT fmi3SetUInt8TYPE fmi3SetUInt8;
FMU3_EXPORT fmi3SetInt16TYPE fmi3SetInt16;
FMU3_EXPORT fmi3SetUInt16TYPE fmi3SetUInt16;
FMU3_EXPORT fmi3SetInt32TYPE fmi3SetInt32;
FMU3_EXPORT fmi3SetUInt32TYPE fmi3SetUInt32;
FMU3_EXPORT fmi3SetInt64TYPE fmi3SetInt64;
FMU3_EXPORT fmi3SetUInt64TYPE fmi3SetUInt64;
FMU3_EXPORT fmi3SetBooleanTYPE fmi3SetBoolean;
FMU3_EXPORT fmi3SetStringTYPE fmi3SetString;
FMU3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
FMU3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
FMU3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
FMU3_EXPORT fmi3SerializedFMUStateSizeTYPE fmi3SerializedFMUStateSize;
FMU3_EXPORT fmi3SerializeFMUStateTYPE fmi3SerializeFMUState;
FMU3_EXPORT fmi3DeserializeFMUStateTYPE fmi3DeserializeFMUState;
FMU3_EXPORT fmi3GetDirectionalDerivativeTYPE fmi3GetDirectionalDerivative;
FMU3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
FMU3_EXPORT fmi3EnterContinuousTimeModeTYPE fmi3EnterContinuousTimeMode;
FMU3_EXPORT fmi3CompletedIntegratorStepTYPE fmi3CompletedIntegratorStep;
FMU3_EXPORT fmi3SetTimeTYPE fmi3SetTime;
FMU3_EXPORT fmi3SetContinuousStatesTYPE fmi3SetContinuousStates;
FMU3_EXPORT fmi3GetContinuousStateDerivativesTYPE fmi3GetContinuousStateDerivatives;
FMU3_EXPORT fmi3GetEventIndicatorsTYPE fmi3GetEventIndicators;
FMU3_EXPORT fmi3GetContinuousStatesTYPE fmi3GetContinuousStates;
FMU3_EXPORT fmi3GetNominalsOfContinuousStatesTYPE fmi3GetNominalsOfContinuousStates;
FMU3_EXPORT fmi3GetNumberOfEventIndicatorsTYPE fmi3GetNumberOfEventIndicators;
FMU3_EXPORT fmi3GetNumberOfContinuousStatesTYPE fmi3GetNumberOfContinuousStates;
FMU3_EXPORT fmi3EnterStepModeTYPE fmi3EnterStepMode;
FMU3_EXPORT fmi3DoStepTYPE fmi3DoStep;
FMU3_EXPORT fmi3SetClockTYPE fmi3SetClock;
FMU3_EXPORT fmi3GetIntervalDecimalTYPE fmi3GetIntervalDecimal;
FMU3_EXPORT fmi3GetShiftDecimalTYPE fmi3GetShiftDecimal;
FMU3_EXPORT fmi3SetIntervalDecimalTYPE fmi3SetIntervalDecimal;

/* The frame's FMI 2.0 functions are declared in fmu_frame.h (hidden in this binary). */

enum { VR_REAL = 0, VR_INDICATOR = 90, VR_INTEGER = 100, VR_BOOLEAN = 200, VR_STRING = 300 };

typedef struct {
  fmi2Component inner;
  fmi2CallbackFunctions cb; /* the frame keeps a copy; its environment is this shell */
  fmi3InstanceEnvironment env;
  fmi3LogMessageCallback log;
  int co_simulation, event_mode_used;
  fmi3IntermediateUpdateCallback intermediate_update; /* providesIntermediateUpdate */
  int activated[FMU_MAX_CLOCKS]; /* set by fmi3SetClock, its tick not yet run */
} shell;

/* FMI 3.0 logs a finished message; the frame's logger is printf-like. */
static void shell_logger(fmi2ComponentEnvironment env, fmi2String instance_name,
                         fmi2Status status, fmi2String category, fmi2String message, ...) {
  shell* s = (shell*)env;
  char text[1024];
  va_list args;
  (void)instance_name;
  if (!s || !s->log) return;
  va_start(args, message);
  vsnprintf(text, sizeof text, message ? message : "", args);
  va_end(args);
  s->log(s->env, (fmi3Status)status, category, text);
}

static fmi3Status fail(shell* s, const char* function, const char* what, fmi3ValueReference vr) {
  char text[256];
  snprintf(text, sizeof text, "%s: %s %u", function, what, (unsigned)vr);
  if (s && s->log) s->log(s->env, fmi3Error, "logError", text);
  return fmi3Error;
}

#define INNER(instance) (((shell*)(instance))->inner)

/* The frame's input hook: the importer sets the intermediate inputs for time t. */
static void ask_intermediate_inputs(void* env, fmi2Real t) {
  shell* s = (shell*)env;
  fmi3Boolean early = false;
  fmi3Float64 early_time = t;
  s->intermediate_update(s->env, t, true, false, false, false, &early, &early_time);
}

/* The model partitions of the Clocks activated since the last tick, run once. */
static void run_ticks(shell* s) {
  size_t k;
  int ran = 0;
  for (k = 0; k < fmu_the_model.n_clocks && k < FMU_MAX_CLOCKS; ++k)
    if (s->activated[k]) {
      s->activated[k] = 0;
      fmu_the_model.clock_tick(fmu_frame_data(s->inner), k);
      ran = 1;
    }
  if (ran) fmu_frame_recompute(s->inner);
}

static int clock_index(fmi3ValueReference vr) {
  size_t k;
  for (k = 0; k < fmu_the_model.n_clocks; ++k)
    if (fmu_the_model.clock_vr[k] == vr) return (int)k;
  return -1;
}

const char* fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean logging_on,
                               size_t n_categories, const fmi3String categories[]) {
  return (fmi3Status)fmi2SetDebugLogging(INNER(instance), logging_on, n_categories, categories);
}

static fmi3Instance instantiate(fmi2Type kind, fmi3String name, fmi3String token,
                                fmi3String resources, fmi3Boolean visible,
                                fmi3Boolean logging_on, fmi3InstanceEnvironment env,
                                fmi3LogMessageCallback log) {
  shell* s = (shell*)calloc(1, sizeof *s);
  if (!s) return NULL;
  s->env = env;
  s->log = log;
  s->cb.logger = shell_logger;
  s->cb.allocateMemory = calloc;
  s->cb.freeMemory = free;
  s->cb.componentEnvironment = s;
  s->inner = fmi2Instantiate(name, kind, token, resources, &s->cb, visible, logging_on);
  if (!s->inner) {
    free(s);
    return NULL;
  }
  return s;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token,
                                          fmi3String resources, fmi3Boolean visible,
                                          fmi3Boolean logging_on, fmi3InstanceEnvironment env,
                                          fmi3LogMessageCallback log) {
  return instantiate(fmi2ModelExchange, name, token, resources, visible, logging_on, env, log);
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging_on, fmi3Boolean event_mode_used, fmi3Boolean early_return_allowed,
    const fmi3ValueReference required_intermediate[], size_t n_required_intermediate,
    fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
    fmi3IntermediateUpdateCallback intermediate_update) {
  shell* s;
  size_t k;
  (void)early_return_allowed; /* accepted: this frame never returns early */
  /* Without has_event_mode the frame handles its events inside fmi3DoStep; intermediate
   * variables are the real inputs of a model that interpolates them. */
  if (event_mode_used && !fmu_the_model.has_event_mode) {
    if (log) log(env, fmi3Error, "logError",
                 "fmi3InstantiateCoSimulation: event mode (hasEventMode is false) is not supported");
    return NULL;
  }
  for (k = 0; k < n_required_intermediate; ++k) {
    const fmi3ValueReference vr = required_intermediate[k];
    /* the frame's reals are 3.0 references VR_REAL + k, VR_REAL being 0 */
    if (!fmu_the_model.interpolates_inputs || vr >= fmu_the_model.n_reals ||
        fmu_the_model.real_kind[vr] != FMU_INPUT) {
      if (log) log(env, fmi3Error, "logError",
                   "fmi3InstantiateCoSimulation: a required intermediate variable that is not "
                   "an intermediate input");
      return NULL;
    }
  }
  s = (shell*)instantiate(fmi2CoSimulation, name, token, resources, visible, logging_on, env, log);
  if (s) {
    s->co_simulation = 1;
    s->event_mode_used = event_mode_used;
    if (fmu_the_model.interpolates_inputs && intermediate_update) {
      s->intermediate_update = intermediate_update;
      fmu_frame_set_input_hook(s->inner, ask_intermediate_inputs, s);
    }
  }
  return s;
}

void fmi3FreeInstance(fmi3Instance instance) {
  if (!instance) return;
  fmi2FreeInstance(INNER(instance));
  free(instance);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean tolerance_defined,
                                       fmi3Float64 tolerance, fmi3Float64 start_time,
                                       fmi3Boolean stop_time_defined, fmi3Float64 stop_time) {
  const fmi2Status status = fmi2SetupExperiment(INNER(instance), tolerance_defined, tolerance,
                                                start_time, stop_time_defined, stop_time);
  if (status > fmi2Warning) return (fmi3Status)status;
  return (fmi3Status)fmi2EnterInitializationMode(INNER(instance));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  shell* s = (shell*)instance;
  const fmi2Status status = fmi2ExitInitializationMode(s->inner);
  /* Co-simulation with event mode leaves initialization in event mode, as model exchange. */
  if (status > fmi2Warning || !s->event_mode_used) return (fmi3Status)status;
  return (fmi3Status)fmu_frame_cs_event_mode(s->inner, 1);
}
fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  shell* s = (shell*)instance;
  if (!s->co_simulation) return (fmi3Status)fmi2EnterEventMode(s->inner);
  if (!s->event_mode_used) return fail(s, "fmi3EnterEventMode", "without eventModeUsed:", 0);
  return (fmi3Status)fmu_frame_cs_event_mode(s->inner, 1);
}
fmi3Status fmi3Terminate(fmi3Instance instance) {
  return (fmi3Status)fmi2Terminate(INNER(instance));
}
fmi3Status fmi3Reset(fmi3Instance instance) {
  return (fmi3Status)fmi2Reset(INNER(instance));
}

/* ---- values: each 3.0 reference to the frame's own, one at a time ---- */

static fmi3Status get_real(shell* s, const char* function, fmi3ValueReference vr, double* value) {
  run_ticks(s);
  if (vr >= VR_INDICATOR && vr < VR_INDICATOR + fmu_the_model.n_indicators) {
    fmi2Real z[FMU_MAX_INDICATORS] = {0};
    const fmi2Status status = fmi2GetEventIndicators(s->inner, z, fmu_the_model.n_indicators);
    *value = z[vr - VR_INDICATOR];
    return (fmi3Status)status;
  }
  if (vr >= VR_INDICATOR) return fail(s, function, "not a Float value reference:", vr);
  return (fmi3Status)fmi2GetReal(s->inner, &vr, 1, value);
}

static fmi3Status set_real(shell* s, const char* function, fmi3ValueReference vr, double value) {
  if (vr >= VR_INDICATOR) return fail(s, function, "not a settable Float value reference:", vr);
  return (fmi3Status)fmi2SetReal(s->inner, &vr, 1, &value);
}

static fmi3Status get_integer(shell* s, const char* function, fmi3ValueReference vr,
                              long long* value) {
  fmi2ValueReference inner = vr - VR_INTEGER;
  fmi2Integer v = 0;
  fmi2Status status;
  if (vr < VR_INTEGER || vr >= VR_BOOLEAN)
    return fail(s, function, "not an integer value reference:", vr);
  run_ticks(s);
  status = fmi2GetInteger(s->inner, &inner, 1, &v);
  *value = v;
  return (fmi3Status)status;
}

static fmi3Status set_integer(shell* s, const char* function, fmi3ValueReference vr,
                              long long value) {
  fmi2ValueReference inner = vr - VR_INTEGER;
  fmi2Integer v = (fmi2Integer)value;
  if (vr < VR_INTEGER || vr >= VR_BOOLEAN)
    return fail(s, function, "not an integer value reference:", vr);
  if (value != (long long)v) return fail(s, function, "value out of the frame's range at", vr);
  return (fmi3Status)fmi2SetInteger(s->inner, &inner, 1, &v);
}

/* How many values a 3.0 reference stands for (an array's, element e at the frame's vr + e). */
static size_t length_of(fmi3ValueReference vr) {
  return fmu_the_model.array_length ? fmu_the_model.array_length(vr) : 1;
}

#define SHELL_VALUES(Type, CType, Kind, Held)                                                  \
  fmi3Status fmi3Get##Type(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,    \
                           CType values[], size_t n_values) {                                 \
    size_t k, e, at = 0;                                                                       \
    for (k = 0; k < n; ++k)                                                                    \
      for (e = 0; e < length_of(vr[k]); ++e) {                                                 \
        Held v = 0;                                                                            \
        fmi3Status status;                                                                     \
        if (at == n_values)                                                                    \
          return fail((shell*)instance, "fmi3Get" #Type, "nValues too small at", vr[k]);       \
        status = get_##Kind((shell*)instance, "fmi3Get" #Type, vr[k] + e, &v);                 \
        if (status > fmi3Warning) return status;                                               \
        values[at++] = (CType)v;                                                               \
      }                                                                                        \
    if (at != n_values) return fail((shell*)instance, "fmi3Get" #Type, "nValues differs at", 0); \
    return fmi3OK;                                                                             \
  }                                                                                            \
  fmi3Status fmi3Set##Type(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,    \
                           const CType values[], size_t n_values) {                           \
    size_t k, e, at = 0;                                                                       \
    for (k = 0; k < n; ++k)                                                                    \
      for (e = 0; e < length_of(vr[k]); ++e) {                                                 \
        fmi3Status status;                                                                     \
        if (at == n_values)                                                                    \
          return fail((shell*)instance, "fmi3Set" #Type, "nValues too small at", vr[k]);       \
        status = set_##Kind((shell*)instance, "fmi3Set" #Type, vr[k] + e, (Held)values[at++]); \
        if (status > fmi3Warning) return status;                                               \
      }                                                                                        \
    if (at != n_values) return fail((shell*)instance, "fmi3Set" #Type, "nValues differs at", 0); \
    return fmi3OK;                                                                             \
  }

SHELL_VALUES(Float32, fmi3Float32, real, double)
SHELL_VALUES(Float64, fmi3Float64, real, double)
SHELL_VALUES(Int8, fmi3Int8, integer, long long)
SHELL_VALUES(UInt8, fmi3UInt8, integer, long long)
SHELL_VALUES(Int16, fmi3Int16, integer, long long)
SHELL_VALUES(UInt16, fmi3UInt16, integer, long long)
SHELL_VALUES(Int32, fmi3Int32, integer, long long)
SHELL_VALUES(UInt32, fmi3UInt32, integer, long long)
SHELL_VALUES(Int64, fmi3Int64, integer, long long)
SHELL_VALUES(UInt64, fmi3UInt64, integer, long long)

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                          fmi3Boolean values[], size_t n_values) {
  size_t k;
  if (n != n_values) return fail((shell*)instance, "fmi3GetBoolean", "nValues differs at", 0);
  run_ticks((shell*)instance);
  for (k = 0; k < n; ++k) {
    fmi2ValueReference inner = vr[k] - VR_BOOLEAN;
    fmi2Boolean v = fmi2False;
    fmi2Status status;
    if (vr[k] < VR_BOOLEAN || vr[k] >= VR_STRING)
      return fail((shell*)instance, "fmi3GetBoolean", "not a Boolean value reference:", vr[k]);
    status = fmi2GetBoolean(INNER(instance), &inner, 1, &v);
    if (status > fmi2Warning) return (fmi3Status)status;
    values[k] = v != fmi2False;
  }
  return fmi3OK;
}

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                          const fmi3Boolean values[], size_t n_values) {
  size_t k;
  if (n != n_values) return fail((shell*)instance, "fmi3SetBoolean", "nValues differs at", 0);
  for (k = 0; k < n; ++k) {
    fmi2ValueReference inner = vr[k] - VR_BOOLEAN;
    const fmi2Boolean v = values[k] ? fmi2True : fmi2False;
    fmi2Status status;
    if (vr[k] < VR_BOOLEAN || vr[k] >= VR_STRING)
      return fail((shell*)instance, "fmi3SetBoolean", "not a Boolean value reference:", vr[k]);
    status = fmi2SetBoolean(INNER(instance), &inner, 1, &v);
    if (status > fmi2Warning) return (fmi3Status)status;
  }
  return fmi3OK;
}

fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                         fmi3String values[], size_t n_values) {
  size_t k;
  if (n != n_values) return fail((shell*)instance, "fmi3GetString", "nValues differs at", 0);
  for (k = 0; k < n; ++k) {
    fmi2ValueReference inner = vr[k] - VR_STRING;
    fmi2Status status;
    if (vr[k] < VR_STRING || vr[k] >= VR_STRING + 100)
      return fail((shell*)instance, "fmi3GetString", "not a String value reference:", vr[k]);
    status = fmi2GetString(INNER(instance), &inner, 1, &values[k]);
    if (status > fmi2Warning) return (fmi3Status)status;
  }
  return fmi3OK;
}

fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                         const fmi3String values[], size_t n_values) {
  size_t k;
  if (n != n_values) return fail((shell*)instance, "fmi3SetString", "nValues differs at", 0);
  for (k = 0; k < n; ++k) {
    fmi2ValueReference inner = vr[k] - VR_STRING;
    fmi2Status status;
    if (vr[k] < VR_STRING || vr[k] >= VR_STRING + 100)
      return fail((shell*)instance, "fmi3SetString", "not a String value reference:", vr[k]);
    status = fmi2SetString(INNER(instance), &inner, 1, &values[k]);
    if (status > fmi2Warning) return (fmi3Status)status;
  }
  return fmi3OK;
}

/* ---- saved states: the frame's, unchanged ---- */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* state) {
  return (fmi3Status)fmi2GetFMUstate(INNER(instance), state);
}
fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState state) {
  return (fmi3Status)fmi2SetFMUstate(INNER(instance), state);
}
fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* state) {
  return (fmi3Status)fmi2FreeFMUstate(INNER(instance), state);
}
fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState state, size_t* size) {
  return (fmi3Status)fmi2SerializedFMUstateSize(INNER(instance), state, size);
}
fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState state, fmi3Byte bytes[],
                                 size_t size) {
  return (fmi3Status)fmi2SerializeFMUstate(INNER(instance), state, (fmi2Byte*)bytes, size);
}
fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte bytes[], size_t size,
                                   fmi3FMUState* state) {
  return (fmi3Status)fmi2DeSerializeFMUstate(INNER(instance), (const fmi2Byte*)bytes, size,
                                             state);
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t n_unknowns,
                                        const fmi3ValueReference knowns[], size_t n_knowns,
                                        const fmi3Float64 seed[], size_t n_seed,
                                        fmi3Float64 sensitivity[], size_t n_sensitivity) {
  /* Float references are the frame's own (0-89); an array's elements follow its reference. */
  fmi2ValueReference inner_unknowns[FMU_MAX_REALS], inner_knowns[FMU_MAX_REALS];
  size_t k, e, nu = 0, nk = 0;
  for (k = 0; k < n_unknowns; ++k)
    for (e = 0; e < length_of(unknowns[k]) && nu < FMU_MAX_REALS; ++e)
      inner_unknowns[nu++] = unknowns[k] + (fmi3ValueReference)e;
  for (k = 0; k < n_knowns; ++k)
    for (e = 0; e < length_of(knowns[k]) && nk < FMU_MAX_REALS; ++e)
      inner_knowns[nk++] = knowns[k] + (fmi3ValueReference)e;
  if (n_seed != nk || n_sensitivity != nu)
    return fail((shell*)instance, "fmi3GetDirectionalDerivative", "nSeed or nSensitivity", 0);
  return (fmi3Status)fmi2GetDirectionalDerivative(INNER(instance), inner_unknowns, nu,
                                                  inner_knowns, nk, seed, sensitivity);
}

/* ---- model exchange ---- */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* again,
                                    fmi3Boolean* terminate, fmi3Boolean* nominals_changed,
                                    fmi3Boolean* values_changed, fmi3Boolean* next_defined,
                                    fmi3Float64* next_time) {
  shell* s = (shell*)instance;
  fmi2EventInfo info;
  fmi2Status status;
  run_ticks(s); /* and every Clock is inactive again */
  status = s->co_simulation ? fmu_frame_cs_update(s->inner, &info)
                            : fmi2NewDiscreteStates(s->inner, &info);
  if (status > fmi2Warning) return (fmi3Status)status;
  *again = info.newDiscreteStatesNeeded != fmi2False;
  *terminate = info.terminateSimulation != fmi2False;
  *nominals_changed = info.nominalsOfContinuousStatesChanged != fmi2False;
  *values_changed = info.valuesOfContinuousStatesChanged != fmi2False;
  *next_defined = info.nextEventTimeDefined != fmi2False;
  *next_time = info.nextEventTime;
  return (fmi3Status)status;
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  return (fmi3Status)fmi2EnterContinuousTimeMode(INNER(instance));
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean no_set_prior,
                                       fmi3Boolean* enter_event_mode, fmi3Boolean* terminate) {
  fmi2Boolean enter = fmi2False, stop = fmi2False;
  const fmi2Status status = fmi2CompletedIntegratorStep(
      INNER(instance), no_set_prior ? fmi2True : fmi2False, &enter, &stop);
  *enter_event_mode = enter != fmi2False;
  *terminate = stop != fmi2False;
  return (fmi3Status)status;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
  return (fmi3Status)fmi2SetTime(INNER(instance), time);
}
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 x[], size_t n) {
  return (fmi3Status)fmi2SetContinuousStates(INNER(instance), x, n);
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 dx[], size_t n) {
  return (fmi3Status)fmi2GetDerivatives(INNER(instance), dx, n);
}
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 z[], size_t n) {
  return (fmi3Status)fmi2GetEventIndicators(INNER(instance), z, n);
}
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 x[], size_t n) {
  return (fmi3Status)fmi2GetContinuousStates(INNER(instance), x, n);
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t n) {
  return (fmi3Status)fmi2GetNominalsOfContinuousStates(INNER(instance), nominals, n);
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = fmu_the_model.n_indicators;
  return fmi3OK;
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = fmu_the_model.n_states;
  return fmi3OK;
}

/* ---- co-simulation ---- */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
  shell* s = (shell*)instance;
  /* without event mode the frame is in step mode after initialization */
  if (!s->event_mode_used) return fmi3OK;
  return (fmi3Status)fmu_frame_cs_event_mode(s->inner, 0);
}

/* FMI 2.0 ends a simulation by refusing the step (fmi2Discard) with fmi2Terminated; FMI 3.0 by
 * terminateSimulation with how far it got. */
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 t, fmi3Float64 h,
                      fmi3Boolean no_set_prior, fmi3Boolean* event_handling_needed,
                      fmi3Boolean* terminate, fmi3Boolean* early_return,
                      fmi3Float64* last_successful_time) {
  fmi2Boolean terminated = fmi2False;
  const fmi2Status status =
      fmi2DoStep(INNER(instance), t, h, no_set_prior ? fmi2True : fmi2False);
  *event_handling_needed = false;
  *early_return = false;
  *terminate = false;
  *last_successful_time = t + h;
  if (status != fmi2Discard) return (fmi3Status)status;
  if (fmi2GetBooleanStatus(INNER(instance), fmi2Terminated, &terminated) != fmi2OK ||
      !terminated)
    return fmi3Discard;
  *terminate = true;
  if (fmi2GetRealStatus(INNER(instance), fmi2LastSuccessfulTime, last_successful_time) != fmi2OK)
    *last_successful_time = t;
  return fmi3OK;
}

/* ---- clocks ---- */

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                        const fmi3Clock values[]) {
  shell* s = (shell*)instance;
  size_t k;
  if (!fmu_frame_in_event_mode(s->inner)) return fail(s, "fmi3SetClock", "not in event mode:", 0);
  for (k = 0; k < n; ++k) {
    const int clock = clock_index(vr[k]);
    if (clock < 0 || clock >= FMU_MAX_CLOCKS)
      return fail(s, "fmi3SetClock", "not a Clock value reference:", vr[k]);
    if (values[k]) s->activated[clock] = 1;
  }
  return fmi3OK;
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                  fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
  shell* s = (shell*)instance;
  size_t k;
  for (k = 0; k < n; ++k) {
    const int clock = clock_index(vr[k]);
    int qualifier;
    if (clock < 0 || !fmu_the_model.clock_interval)
      return fail(s, "fmi3GetIntervalDecimal", "no interval to tell for", vr[k]);
    qualifier = fmu_the_model.clock_interval(fmu_frame_data(s->inner), (size_t)clock, &intervals[k]);
    qualifiers[k] = qualifier == 2   ? fmi3IntervalChanged
                    : qualifier == 1 ? fmi3IntervalUnchanged
                                     : fmi3IntervalNotYetKnown;
  }
  return fmi3OK;
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                               fmi3Float64 shifts[]) {
  shell* s = (shell*)instance;
  size_t k;
  for (k = 0; k < n; ++k) {
    const int clock = clock_index(vr[k]);
    if (clock < 0) return fail(s, "fmi3GetShiftDecimal", "not a Clock value reference:", vr[k]);
    shifts[k] = fmu_the_model.clock_shift
                    ? fmu_the_model.clock_shift(fmu_frame_data(s->inner), (size_t)clock)
                    : 0.0;
  }
  return fmi3OK;
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                  const fmi3Float64 intervals[]) {
  shell* s = (shell*)instance;
  size_t k;
  for (k = 0; k < n; ++k)
    if (clock_index(vr[k]) < 0 || !(intervals[k] > 0))
      return fail(s, "fmi3SetIntervalDecimal", "not a Clock, or not a positive interval, at",
                  vr[k]);
  return fmi3OK; /* the models here take the description's interval */
}

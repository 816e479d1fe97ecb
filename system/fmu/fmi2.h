/* kausal's own declarations of the FMI 2.0 C API (types and function signatures), written
 * from the FMI 2.0 standard's specification (chapter 2.1 for the common part, 3.2 for model
 * exchange, 4.2 for co-simulation). Plain C so that both the importer (system/fmu) and the
 * test FMUs (tests/fmus) use the same declarations. Only the names the standard fixes are
 * kept; the platform type sizes are those of the standard's linux64 binaries. */
#ifndef KAUSAL_FMI2_H
#define KAUSAL_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types (§2.1.2) ---- */
typedef void* fmi2Component;
typedef void* fmi2ComponentEnvironment;
typedef void* fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char* fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
  fmi2DoStepStatus,
  fmi2PendingStatus,
  fmi2LastSuccessfulTime,
  fmi2Terminated
} fmi2StatusKind;

/* ---- callbacks the environment passes to fmi2Instantiate (§2.1.5) ---- */
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment env, fmi2String instance_name,
                                   fmi2Status status, fmi2String category, fmi2String message,
                                   ...);
typedef void* (*fmi2CallbackAllocateMemory)(size_t count, size_t size);
typedef void (*fmi2CallbackFreeMemory)(void* object);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment env, fmi2Status status);

typedef struct {
  fmi2CallbackLogger logger;
  fmi2CallbackAllocateMemory allocateMemory;
  fmi2CallbackFreeMemory freeMemory;
  fmi2StepFinished stepFinished;
  fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

/* ---- model exchange: what an event update reports (§3.2.2) ---- */
typedef struct {
  fmi2Boolean newDiscreteStatesNeeded;
  fmi2Boolean terminateSimulation;
  fmi2Boolean nominalsOfContinuousStatesChanged;
  fmi2Boolean valuesOfContinuousStatesChanged;
  fmi2Boolean nextEventTimeDefined;
  fmi2Real nextEventTime;
} fmi2EventInfo;

/* ---- function types, common to both kinds (§2.1) ---- */
typedef const char* fmi2GetTypesPlatformTYPE(void);
typedef const char* fmi2GetVersionTYPE(void);
typedef fmi2Status fmi2SetDebugLoggingTYPE(fmi2Component, fmi2Boolean logging_on,
                                           size_t n_categories, const fmi2String categories[]);
typedef fmi2Component fmi2InstantiateTYPE(fmi2String instance_name, fmi2Type kind,
                                          fmi2String guid, fmi2String resource_location,
                                          const fmi2CallbackFunctions* functions,
                                          fmi2Boolean visible, fmi2Boolean logging_on);
typedef void fmi2FreeInstanceTYPE(fmi2Component);
typedef fmi2Status fmi2SetupExperimentTYPE(fmi2Component, fmi2Boolean tolerance_defined,
                                           fmi2Real tolerance, fmi2Real start_time,
                                           fmi2Boolean stop_time_defined, fmi2Real stop_time);
typedef fmi2Status fmi2EnterInitializationModeTYPE(fmi2Component);
typedef fmi2Status fmi2ExitInitializationModeTYPE(fmi2Component);
typedef fmi2Status fmi2TerminateTYPE(fmi2Component);
typedef fmi2Status fmi2ResetTYPE(fmi2Component);
typedef fmi2Status fmi2GetRealTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                   fmi2Real value[]);
typedef fmi2Status fmi2GetIntegerTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                      fmi2Integer value[]);
typedef fmi2Status fmi2GetBooleanTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                      fmi2Boolean value[]);
typedef fmi2Status fmi2GetStringTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                     fmi2String value[]);
typedef fmi2Status fmi2SetRealTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                   const fmi2Real value[]);
typedef fmi2Status fmi2SetIntegerTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                      const fmi2Integer value[]);
typedef fmi2Status fmi2SetBooleanTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                      const fmi2Boolean value[]);
typedef fmi2Status fmi2SetStringTYPE(fmi2Component, const fmi2ValueReference vr[], size_t n,
                                     const fmi2String value[]);
typedef fmi2Status fmi2GetFMUstateTYPE(fmi2Component, fmi2FMUstate* state);
typedef fmi2Status fmi2SetFMUstateTYPE(fmi2Component, fmi2FMUstate state);
typedef fmi2Status fmi2FreeFMUstateTYPE(fmi2Component, fmi2FMUstate* state);
typedef fmi2Status fmi2SerializedFMUstateSizeTYPE(fmi2Component, fmi2FMUstate state,
                                                  size_t* size);
typedef fmi2Status fmi2SerializeFMUstateTYPE(fmi2Component, fmi2FMUstate state,
                                             fmi2Byte serialized[], size_t size);
typedef fmi2Status fmi2DeSerializeFMUstateTYPE(fmi2Component, const fmi2Byte serialized[],
                                               size_t size, fmi2FMUstate* state);
typedef fmi2Status fmi2GetDirectionalDerivativeTYPE(fmi2Component,
                                                    const fmi2ValueReference unknowns[],
                                                    size_t n_unknowns,
                                                    const fmi2ValueReference knowns[],
                                                    size_t n_knowns, const fmi2Real dv_known[],
                                                    fmi2Real dv_unknown[]);

/* ---- model exchange (§3.2) ---- */
typedef fmi2Status fmi2EnterEventModeTYPE(fmi2Component);
typedef fmi2Status fmi2NewDiscreteStatesTYPE(fmi2Component, fmi2EventInfo* info);
typedef fmi2Status fmi2EnterContinuousTimeModeTYPE(fmi2Component);
typedef fmi2Status fmi2CompletedIntegratorStepTYPE(fmi2Component,
                                                   fmi2Boolean no_set_fmu_state_prior,
                                                   fmi2Boolean* enter_event_mode,
                                                   fmi2Boolean* terminate_simulation);
typedef fmi2Status fmi2SetTimeTYPE(fmi2Component, fmi2Real time);
typedef fmi2Status fmi2SetContinuousStatesTYPE(fmi2Component, const fmi2Real x[], size_t n);
typedef fmi2Status fmi2GetDerivativesTYPE(fmi2Component, fmi2Real derivatives[], size_t n);
typedef fmi2Status fmi2GetEventIndicatorsTYPE(fmi2Component, fmi2Real indicators[], size_t n);
typedef fmi2Status fmi2GetContinuousStatesTYPE(fmi2Component, fmi2Real x[], size_t n);
typedef fmi2Status fmi2GetNominalsOfContinuousStatesTYPE(fmi2Component, fmi2Real nominals[],
                                                         size_t n);

/* ---- co-simulation (§4.2) ---- */
typedef fmi2Status fmi2SetRealInputDerivativesTYPE(fmi2Component, const fmi2ValueReference vr[],
                                                   size_t n, const fmi2Integer order[],
                                                   const fmi2Real value[]);
typedef fmi2Status fmi2GetRealOutputDerivativesTYPE(fmi2Component,
                                                    const fmi2ValueReference vr[], size_t n,
                                                    const fmi2Integer order[], fmi2Real value[]);
typedef fmi2Status fmi2DoStepTYPE(fmi2Component, fmi2Real current_time, fmi2Real step_size,
                                  fmi2Boolean no_set_fmu_state_prior);
typedef fmi2Status fmi2CancelStepTYPE(fmi2Component);
typedef fmi2Status fmi2GetStatusTYPE(fmi2Component, const fmi2StatusKind s, fmi2Status* value);
typedef fmi2Status fmi2GetRealStatusTYPE(fmi2Component, const fmi2StatusKind s,
                                         fmi2Real* value);
typedef fmi2Status fmi2GetIntegerStatusTYPE(fmi2Component, const fmi2StatusKind s,
                                            fmi2Integer* value);
typedef fmi2Status fmi2GetBooleanStatusTYPE(fmi2Component, const fmi2StatusKind s,
                                            fmi2Boolean* value);
typedef fmi2Status fmi2GetStringStatusTYPE(fmi2Component, const fmi2StatusKind s,
                                           fmi2String* value);

#ifdef __cplusplus
}
#endif

#endif /* KAUSAL_FMI2_H */

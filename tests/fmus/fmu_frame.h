/* The test FMUs' shared frame: one implementation of every FMI 2.0 function (fmu_frame.c) over
 * a per-model table (fmu_model) that each model source defines as `fmu_the_model`. Written for
 * kausal's tests from the FMI 2.0 specification; plain C99. Everything declared here has hidden
 * visibility (the FMUs are compiled with -fvisibility=hidden): only the fmi2* functions of
 * fmu_frame.c are exported. */
#ifndef KAUSAL_TEST_FMU_FRAME_H
#define KAUSAL_TEST_FMU_FRAME_H

#include "system/fmu/fmi2.h"

#define FMU_MAX_REALS 16
#define FMU_MAX_INTEGERS 8
#define FMU_MAX_BOOLEANS 8
#define FMU_MAX_STRINGS 4
#define FMU_STRING_BYTES 64 /* a string value's room, its terminating NUL included */
#define FMU_MAX_INTERNAL 4
#define FMU_MAX_STATES 4
#define FMU_MAX_INDICATORS 4

/* What a variable is, for the checks of fmi2SetReal/Integer/Boolean. */
enum {
  FMU_CALCULATED = 0, /* outputs computed from others, derivatives, locals: never set */
  FMU_PARAMETER = 1,  /* fixed parameter: set before fmi2ExitInitializationMode only */
  FMU_EXACT = 2,      /* state or output with initial="exact": set before ExitInitializationMode */
  FMU_INPUT = 3       /* input: set in any mode except terminated */
};

/* Everything that makes up the model's state: deep-copied by fmi2GetFMUstate, serialized
 * byte-for-byte. Values are indexed by value reference (one reference space per type). */
typedef struct {
  fmi2Real r[FMU_MAX_REALS];
  fmi2Integer i[FMU_MAX_INTEGERS];
  fmi2Boolean b[FMU_MAX_BOOLEANS];
  char s[FMU_MAX_STRINGS][FMU_STRING_BYTES];
  fmi2Integer internal[FMU_MAX_INTERNAL]; /* model-private discrete state (not exposed) */
  fmi2Real time;
  fmi2Real next_event_time;
  fmi2Boolean next_event_defined;
  fmi2Boolean terminate;
} fmu_data;

typedef struct fmu_instance fmu_instance;

typedef struct {
  int model_exchange; /* which kinds fmi2Instantiate accepts */
  int co_simulation;
  size_t n_reals, n_integers, n_booleans, n_strings; /* valid references are 0 .. n-1 */
  const unsigned char* real_kind; /* FMU_CALCULATED ... FMU_INPUT, per reference */
  const unsigned char* integer_kind;
  const unsigned char* boolean_kind;
  const unsigned char* string_kind;
  size_t n_states;
  const fmi2ValueReference* state_vr;      /* real reference of continuous state k */
  const fmi2ValueReference* derivative_vr; /* real reference of der(state k) */
  size_t n_indicators;
  fmi2Real max_substep; /* co-simulation: RK4 sub-steps are at most this long */
  /* co-simulation: the inputs change within a step. FMI 2.0: canInterpolateInputs (the
   * derivatives fmi2SetRealInputDerivatives gives, orders 1..FMU_MAX_INPUT_ORDER, extrapolate
   * each real input over the next step); FMI 3.0: providesIntermediateUpdate (the face's input
   * hook, fmu_frame_set_input_hook, asks for them at each RK4 stage). */
  int interpolates_inputs;
  /* start values (all of fmu_data is zero before); called at instantiation and fmi2Reset */
  void (*start)(fmu_data* d);
  /* at fmi2ExitInitializationMode (e.g. the first nextEventTime); may be NULL */
  void (*initialize)(fmu_data* d);
  /* derivatives and outputs from states, inputs, parameters and time */
  void (*compute)(fmu_data* d);
  /* event indicators (n_indicators of them); may be NULL when n_indicators == 0 */
  void (*indicators)(const fmu_data* d, fmi2Real z[]);
  /* event update (time events when d->time reached d->next_event_time, state events by the
   * model's own conditions); sets *states_changed; updates next_event_*. May be NULL. */
  void (*event)(fmu_data* d, fmi2Boolean* states_changed);
  /* at fmi2CompletedIntegratorStep (the states at the step's end are set); sets
   * *enter_event_mode for a step event. May be NULL (no step events). */
  void (*step_completed)(fmu_data* d, fmi2Boolean* enter_event_mode);
  /* partial derivative d unknown / d known at d (both real references): 1 and *value when the
   * pair is supported, 0 otherwise. NULL: no directional derivatives. */
  int (*partial)(const fmu_data* d, fmi2ValueReference unknown, fmi2ValueReference known,
                 fmi2Real* value);
  /* called before every derivative evaluation (fmi2GetDerivatives and the RK4 stages of
   * fmi2DoStep) at time t with the instance's data d; anything but fmi2OK aborts the call.
   * May be NULL. */
  fmi2Status (*check)(fmu_instance* c, const fmu_data* d, fmi2Real t);
  /* FMI 3.0 face only: how many elements the variable with 3.0 value reference vr has (an
   * array's elements are the frame's references vr, vr + 1, ...). NULL: every variable is a
   * scalar. */
  size_t (*array_length)(unsigned vr);
  /* FMI 3.0 face only: co-simulation with event mode (hasEventMode), and time-based input
   * Clocks. clock_vr[k] is Clock k's 3.0 value reference; clock_tick runs its model partition
   * once it was activated (fmi3SetClock), before its clocked variables are read or the event
   * iteration ends; clock_interval says the interval the FMU decides (intervals the
   * description gives need none) and returns 0 (not yet known), 1 (unchanged) or 2 (changed);
   * clock_shift NULL: 0. */
  int has_event_mode;
  size_t n_clocks;
  const unsigned* clock_vr;
  void (*clock_tick)(fmu_data* d, size_t k);
  int (*clock_interval)(fmu_data* d, size_t k, fmi2Real* interval);
  fmi2Real (*clock_shift)(const fmu_data* d, size_t k);
} fmu_model;

#define FMU_MAX_CLOCKS 4
#define FMU_MAX_INPUT_ORDER 3

/* For the FMI 3.0 face: within fmi2DoStep, before each evaluation of the derivatives at time
 * t, hook(env, t) sets the real inputs for t (fmi2SetReal; the intermediate update); the
 * inputs are put back as they were at the step's start when it ends. NULL: none. */
typedef void (*fmu_input_hook)(void* env, fmi2Real t);
void fmu_frame_set_input_hook(fmi2Component comp, fmu_input_hook hook, void* env);

/* For the FMI 3.0 face (fmu_frame3.c): the instance's data, and co-simulation's event mode
 * (into_event: from step mode into event mode; else back), its event update, and whether the
 * instance is in event mode. */
fmu_data* fmu_frame_data(fmi2Component comp);
fmi2Status fmu_frame_cs_event_mode(fmi2Component comp, int into_event);
fmi2Status fmu_frame_cs_update(fmi2Component comp, fmi2EventInfo* info);
int fmu_frame_in_event_mode(fmi2Component comp);
void fmu_frame_recompute(fmi2Component comp);

/* Every FMI 2.0 function of fmu_frame.c, declared with the type of system/fmu/fmi2.h so that a
 * definition that does not match the standard's signature fails to compile ("conflicting
 * types"). Exported, unless FMU_FRAME_INNER: then only fmu_frame3.c's FMI 3.0 functions, which
 * call these, are. */
#ifdef FMU_FRAME_INNER
#define FMU_EXPORT
#else
#define FMU_EXPORT __attribute__((visibility("default")))
#endif

FMU_EXPORT fmi2GetTypesPlatformTYPE fmi2GetTypesPlatform;
FMU_EXPORT fmi2GetVersionTYPE fmi2GetVersion;
FMU_EXPORT fmi2SetDebugLoggingTYPE fmi2SetDebugLogging;
FMU_EXPORT fmi2InstantiateTYPE fmi2Instantiate;
FMU_EXPORT fmi2FreeInstanceTYPE fmi2FreeInstance;
FMU_EXPORT fmi2SetupExperimentTYPE fmi2SetupExperiment;
FMU_EXPORT fmi2EnterInitializationModeTYPE fmi2EnterInitializationMode;
FMU_EXPORT fmi2ExitInitializationModeTYPE fmi2ExitInitializationMode;
FMU_EXPORT fmi2TerminateTYPE fmi2Terminate;
FMU_EXPORT fmi2ResetTYPE fmi2Reset;
FMU_EXPORT fmi2GetRealTYPE fmi2GetReal;
FMU_EXPORT fmi2GetIntegerTYPE fmi2GetInteger;
FMU_EXPORT fmi2GetBooleanTYPE fmi2GetBoolean;
FMU_EXPORT fmi2GetStringTYPE fmi2GetString;
FMU_EXPORT fmi2SetRealTYPE fmi2SetReal;
FMU_EXPORT fmi2SetIntegerTYPE fmi2SetInteger;
FMU_EXPORT fmi2SetBooleanTYPE fmi2SetBoolean;
FMU_EXPORT fmi2SetStringTYPE fmi2SetString;
FMU_EXPORT fmi2GetFMUstateTYPE fmi2GetFMUstate;
FMU_EXPORT fmi2SetFMUstateTYPE fmi2SetFMUstate;
FMU_EXPORT fmi2FreeFMUstateTYPE fmi2FreeFMUstate;
FMU_EXPORT fmi2SerializedFMUstateSizeTYPE fmi2SerializedFMUstateSize;
FMU_EXPORT fmi2SerializeFMUstateTYPE fmi2SerializeFMUstate;
FMU_EXPORT fmi2DeSerializeFMUstateTYPE fmi2DeSerializeFMUstate;
FMU_EXPORT fmi2GetDirectionalDerivativeTYPE fmi2GetDirectionalDerivative;
FMU_EXPORT fmi2EnterEventModeTYPE fmi2EnterEventMode;
FMU_EXPORT fmi2NewDiscreteStatesTYPE fmi2NewDiscreteStates;
FMU_EXPORT fmi2EnterContinuousTimeModeTYPE fmi2EnterContinuousTimeMode;
FMU_EXPORT fmi2CompletedIntegratorStepTYPE fmi2CompletedIntegratorStep;
FMU_EXPORT fmi2SetTimeTYPE fmi2SetTime;
FMU_EXPORT fmi2SetContinuousStatesTYPE fmi2SetContinuousStates;
#ifndef FMU_FRAME_OMIT_GET_DERIVATIVES
FMU_EXPORT fmi2GetDerivativesTYPE fmi2GetDerivatives;
#endif
FMU_EXPORT fmi2GetEventIndicatorsTYPE fmi2GetEventIndicators;
FMU_EXPORT fmi2GetContinuousStatesTYPE fmi2GetContinuousStates;
FMU_EXPORT fmi2GetNominalsOfContinuousStatesTYPE fmi2GetNominalsOfContinuousStates;
FMU_EXPORT fmi2SetRealInputDerivativesTYPE fmi2SetRealInputDerivatives;
FMU_EXPORT fmi2GetRealOutputDerivativesTYPE fmi2GetRealOutputDerivatives;
FMU_EXPORT fmi2DoStepTYPE fmi2DoStep;
FMU_EXPORT fmi2CancelStepTYPE fmi2CancelStep;
FMU_EXPORT fmi2GetStatusTYPE fmi2GetStatus;
FMU_EXPORT fmi2GetRealStatusTYPE fmi2GetRealStatus;
FMU_EXPORT fmi2GetIntegerStatusTYPE fmi2GetIntegerStatus;
FMU_EXPORT fmi2GetBooleanStatusTYPE fmi2GetBooleanStatus;
FMU_EXPORT fmi2GetStringStatusTYPE fmi2GetStringStatus;

/* Defined by each model source. */
extern const fmu_model fmu_the_model;

/* Logs through the environment's logger. Messages with status fmi2Warning or worse always
 * go out; fmi2OK messages only when debug logging is on for the category (or "logAll"). */
void fmu_log(fmu_instance* c, fmi2Status status, const char* category, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* KAUSAL_TEST_FMU_FRAME_H */

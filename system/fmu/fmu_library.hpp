#pragma once
// The shared object of an unpacked FMU, loaded and checked: every function kausal may call is
// resolved up front, so a missing one is the user's input error at load time rather than a
// null call in the middle of a run.
#include <atomic>
#include <filesystem>
#include <string>

#include "system/fmu/fmi2.h"
#include "system/fmu/fmi3.h"
#include "system/fmu/model_description.hpp"

namespace kausal::fmu {

// One pointer for every function type in fmi2.h; null where the FMU need not have it.
struct Fmi2Functions {
  // common (FMI 2.0 §2.1)
  fmi2GetTypesPlatformTYPE* get_types_platform = nullptr;
  fmi2GetVersionTYPE* get_version = nullptr;
  fmi2SetDebugLoggingTYPE* set_debug_logging = nullptr;
  fmi2InstantiateTYPE* instantiate = nullptr;
  fmi2FreeInstanceTYPE* free_instance = nullptr;
  fmi2SetupExperimentTYPE* setup_experiment = nullptr;
  fmi2EnterInitializationModeTYPE* enter_initialization_mode = nullptr;
  fmi2ExitInitializationModeTYPE* exit_initialization_mode = nullptr;
  fmi2TerminateTYPE* terminate = nullptr;
  fmi2ResetTYPE* reset = nullptr;
  fmi2GetRealTYPE* get_real = nullptr;
  fmi2GetIntegerTYPE* get_integer = nullptr;
  fmi2GetBooleanTYPE* get_boolean = nullptr;
  fmi2GetStringTYPE* get_string = nullptr;
  fmi2SetRealTYPE* set_real = nullptr;
  fmi2SetIntegerTYPE* set_integer = nullptr;
  fmi2SetBooleanTYPE* set_boolean = nullptr;
  fmi2SetStringTYPE* set_string = nullptr;
  // canGetAndSetFMUstate
  fmi2GetFMUstateTYPE* get_fmu_state = nullptr;
  fmi2SetFMUstateTYPE* set_fmu_state = nullptr;
  fmi2FreeFMUstateTYPE* free_fmu_state = nullptr;
  // canSerializeFMUstate
  fmi2SerializedFMUstateSizeTYPE* serialized_fmu_state_size = nullptr;
  fmi2SerializeFMUstateTYPE* serialize_fmu_state = nullptr;
  fmi2DeSerializeFMUstateTYPE* deserialize_fmu_state = nullptr;
  // providesDirectionalDerivative
  fmi2GetDirectionalDerivativeTYPE* get_directional_derivative = nullptr;
  // model exchange (§3.2)
  fmi2EnterEventModeTYPE* enter_event_mode = nullptr;
  fmi2NewDiscreteStatesTYPE* new_discrete_states = nullptr;
  fmi2EnterContinuousTimeModeTYPE* enter_continuous_time_mode = nullptr;
  fmi2CompletedIntegratorStepTYPE* completed_integrator_step = nullptr;
  fmi2SetTimeTYPE* set_time = nullptr;
  fmi2SetContinuousStatesTYPE* set_continuous_states = nullptr;
  fmi2GetDerivativesTYPE* get_derivatives = nullptr;
  fmi2GetEventIndicatorsTYPE* get_event_indicators = nullptr;
  fmi2GetContinuousStatesTYPE* get_continuous_states = nullptr;
  fmi2GetNominalsOfContinuousStatesTYPE* get_nominals_of_continuous_states = nullptr;
  // co-simulation (§4.2)
  fmi2SetRealInputDerivativesTYPE* set_real_input_derivatives = nullptr;
  fmi2GetRealOutputDerivativesTYPE* get_real_output_derivatives = nullptr;
  fmi2DoStepTYPE* do_step = nullptr;
  fmi2CancelStepTYPE* cancel_step = nullptr;
  fmi2GetStatusTYPE* get_status = nullptr;
  fmi2GetRealStatusTYPE* get_real_status = nullptr;
  fmi2GetIntegerStatusTYPE* get_integer_status = nullptr;
  fmi2GetBooleanStatusTYPE* get_boolean_status = nullptr;
  fmi2GetStringStatusTYPE* get_string_status = nullptr;
};

// The same for an FMI 3.0 binary: only the functions kausal calls (fmi3EnterStepMode and
// fmi3UpdateDiscreteStates in co-simulation only with event mode: without it a co-simulation
// FMU is in step mode once initialised).
struct Fmi3Functions {
  // common (FMI 3.0 §2.3)
  fmi3GetVersionTYPE* get_version = nullptr;
  fmi3SetDebugLoggingTYPE* set_debug_logging = nullptr;
  fmi3InstantiateModelExchangeTYPE* instantiate_model_exchange = nullptr;
  fmi3InstantiateCoSimulationTYPE* instantiate_co_simulation = nullptr;
  fmi3FreeInstanceTYPE* free_instance = nullptr;
  fmi3EnterInitializationModeTYPE* enter_initialization_mode = nullptr;
  fmi3ExitInitializationModeTYPE* exit_initialization_mode = nullptr;
  fmi3EnterEventModeTYPE* enter_event_mode = nullptr;
  fmi3TerminateTYPE* terminate = nullptr;
  fmi3ResetTYPE* reset = nullptr;
  fmi3GetFloat32TYPE* get_float32 = nullptr;
  fmi3GetFloat64TYPE* get_float64 = nullptr;
  fmi3GetInt8TYPE* get_int8 = nullptr;
  fmi3GetUInt8TYPE* get_uint8 = nullptr;
  fmi3GetInt16TYPE* get_int16 = nullptr;
  fmi3GetUInt16TYPE* get_uint16 = nullptr;
  fmi3GetInt32TYPE* get_int32 = nullptr;
  fmi3GetUInt32TYPE* get_uint32 = nullptr;
  fmi3GetInt64TYPE* get_int64 = nullptr;
  fmi3GetUInt64TYPE* get_uint64 = nullptr;
  fmi3GetBooleanTYPE* get_boolean = nullptr;
  fmi3GetStringTYPE* get_string = nullptr;
  fmi3SetFloat32TYPE* set_float32 = nullptr;
  fmi3SetFloat64TYPE* set_float64 = nullptr;
  fmi3SetInt8TYPE* set_int8 = nullptr;
  fmi3SetUInt8TYPE* set_uint8 = nullptr;
  fmi3SetInt16TYPE* set_int16 = nullptr;
  fmi3SetUInt16TYPE* set_uint16 = nullptr;
  fmi3SetInt32TYPE* set_int32 = nullptr;
  fmi3SetUInt32TYPE* set_uint32 = nullptr;
  fmi3SetInt64TYPE* set_int64 = nullptr;
  fmi3SetUInt64TYPE* set_uint64 = nullptr;
  fmi3SetBooleanTYPE* set_boolean = nullptr;
  fmi3SetStringTYPE* set_string = nullptr;
  // canGetAndSetFMUState, canSerializeFMUState, providesDirectionalDerivatives
  fmi3GetFMUStateTYPE* get_fmu_state = nullptr;
  fmi3SetFMUStateTYPE* set_fmu_state = nullptr;
  fmi3FreeFMUStateTYPE* free_fmu_state = nullptr;
  fmi3SerializedFMUStateSizeTYPE* serialized_fmu_state_size = nullptr;
  fmi3SerializeFMUStateTYPE* serialize_fmu_state = nullptr;
  fmi3DeserializeFMUStateTYPE* deserialize_fmu_state = nullptr;
  fmi3GetDirectionalDerivativeTYPE* get_directional_derivative = nullptr;
  // model exchange (§3.2)
  fmi3UpdateDiscreteStatesTYPE* update_discrete_states = nullptr;
  fmi3EnterContinuousTimeModeTYPE* enter_continuous_time_mode = nullptr;
  fmi3CompletedIntegratorStepTYPE* completed_integrator_step = nullptr;
  fmi3SetTimeTYPE* set_time = nullptr;
  fmi3SetContinuousStatesTYPE* set_continuous_states = nullptr;
  fmi3GetContinuousStateDerivativesTYPE* get_derivatives = nullptr;
  fmi3GetEventIndicatorsTYPE* get_event_indicators = nullptr;
  fmi3GetContinuousStatesTYPE* get_continuous_states = nullptr;
  fmi3GetNumberOfEventIndicatorsTYPE* get_number_of_event_indicators = nullptr;
  fmi3GetNumberOfContinuousStatesTYPE* get_number_of_continuous_states = nullptr;
  // co-simulation (§4.2)
  fmi3DoStepTYPE* do_step = nullptr;
  fmi3EnterStepModeTYPE* enter_step_mode = nullptr;  // hasEventMode
  // clocks (§2.2.9), when the description has any
  fmi3SetClockTYPE* set_clock = nullptr;
  fmi3GetIntervalDecimalTYPE* get_interval_decimal = nullptr;
  fmi3GetShiftDecimalTYPE* get_shift_decimal = nullptr;
  fmi3SetIntervalDecimalTYPE* set_interval_decimal = nullptr;
};

class FmuLibrary {
 public:
  // Loads <unpacked>/binaries/<platform>/<model_identifier>.so (RTLD_NOW | RTLD_LOCAL; the
  // platform is linux64 for FMI 2.0, x86_64-linux for 3.0) and resolves the functions this kind
  // needs: the common ones and the kind's (the standard requires the binary to export them
  // all), get/set/free FMU state only if canGetAndSetFMUstate, serialization only if
  // canSerializeFMUstate, the directional derivative only if provided. InputError, starting
  // with fmu_name: no binary for the platform (listing the platforms the FMU has), dlopen
  // failed, functions missing (all of them named), fmi2GetVersion() not "2.0" (fmi3GetVersion()
  // not "3.0"), fmi2GetTypesPlatform() not "default"; md's own InputError if it lacks `kind`.
  FmuLibrary(const std::filesystem::path& unpacked, const ModelDescription& md, FmuKind kind,
             const std::string& fmu_name);
  ~FmuLibrary();  // dlclose
  FmuLibrary(const FmuLibrary&) = delete;
  FmuLibrary& operator=(const FmuLibrary&) = delete;

  FmiVersion version() const { return version_; }
  const Fmi2Functions& fn() const { return fn_; }
  const Fmi3Functions& fn3() const { return fn3_; }
  FmuKind kind() const { return kind_; }
  const KindInterface& interface() const { return interface_; }
  const std::string& fmu_name() const { return fmu_name_; }
  const std::filesystem::path& binary() const { return binary_; }

  // fmi2Fatal means "irreparably corrupted for all FMU instances" (FMI 2.0 §2.1.3): once one
  // instance gets it, no instance of this library may call into the FMU again.
  bool fatal() const { return fatal_; }
  void mark_fatal() const { fatal_ = true; }

  // Instances alive, for canBeInstantiatedOnlyOncePerProcess (FmuInstance keeps the count).
  int instances() const { return instances_; }
  void count_instance(int delta) const { instances_ += delta; }

 private:
  void resolve(const std::string& so_name);
  void resolve_3(const std::string& so_name);
  void check_platform(const std::string& so_name) const;

  void* handle_ = nullptr;
  FmuKind kind_;
  FmiVersion version_;
  KindInterface interface_;
  std::string fmu_name_;
  bool clocks_ = false;
  std::filesystem::path binary_;
  Fmi2Functions fn_;
  Fmi3Functions fn3_;
  mutable std::atomic<bool> fatal_{false};
  mutable std::atomic<int> instances_{0};
};

}  // namespace kausal::fmu

#include "system/fmu/fmu_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace kausal::fmu {

namespace {

// The names in a directory of the unpacked FMU, sorted, or "none" (the platforms under
// binaries/, the files of one platform), for the message that a binary is missing.
std::string entries_of(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    names.push_back(e.path().filename().string());
  if (names.empty()) return "none";
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Looks functions up and collects every missing one by the reason it is needed, so one
// message names them all.
class Resolver {
 public:
  explicit Resolver(void* handle) : handle_(handle) {}

  template <typename Function>
  void get(Function*& slot, const char* name, const std::string& reason) {
    void* symbol = dlsym(handle_, name);
    // POSIX guarantees a function's dlsym address converts to a function pointer.
    slot = reinterpret_cast<Function*>(symbol);
    if (symbol) return;
    auto it = std::find_if(missing_.begin(), missing_.end(),
                           [&](const auto& m) { return m.first == reason; });
    if (it == missing_.end()) it = missing_.insert(missing_.end(), {reason, {}});
    it->second += (it->second.empty() ? "" : ", ") + std::string(name);
  }

  // "fmi2A, fmi2B (needed for model exchange); fmi2C (canGetAndSetFMUstate is true)"; empty if
  // none.
  std::string missing() const {
    std::string out;
    for (const auto& [reason, names] : missing_)
      out += (out.empty() ? "" : "; ") + names + " (" + reason + ")";
    return out;
  }

 private:
  void* handle_;
  std::vector<std::pair<std::string, std::string>> missing_;
};

void resolve_common(Resolver& r, Fmi2Functions& f, const std::string& need) {
  r.get(f.get_types_platform, "fmi2GetTypesPlatform", need);
  r.get(f.get_version, "fmi2GetVersion", need);
  r.get(f.set_debug_logging, "fmi2SetDebugLogging", need);
  r.get(f.instantiate, "fmi2Instantiate", need);
  r.get(f.free_instance, "fmi2FreeInstance", need);
  r.get(f.setup_experiment, "fmi2SetupExperiment", need);
  r.get(f.enter_initialization_mode, "fmi2EnterInitializationMode", need);
  r.get(f.exit_initialization_mode, "fmi2ExitInitializationMode", need);
  r.get(f.terminate, "fmi2Terminate", need);
  r.get(f.reset, "fmi2Reset", need);
  r.get(f.get_real, "fmi2GetReal", need);
  r.get(f.get_integer, "fmi2GetInteger", need);
  r.get(f.get_boolean, "fmi2GetBoolean", need);
  r.get(f.get_string, "fmi2GetString", need);
  r.get(f.set_real, "fmi2SetReal", need);
  r.get(f.set_integer, "fmi2SetInteger", need);
  r.get(f.set_boolean, "fmi2SetBoolean", need);
  r.get(f.set_string, "fmi2SetString", need);
}

void resolve_model_exchange(Resolver& r, Fmi2Functions& f, const std::string& need) {
  r.get(f.enter_event_mode, "fmi2EnterEventMode", need);
  r.get(f.new_discrete_states, "fmi2NewDiscreteStates", need);
  r.get(f.enter_continuous_time_mode, "fmi2EnterContinuousTimeMode", need);
  r.get(f.completed_integrator_step, "fmi2CompletedIntegratorStep", need);
  r.get(f.set_time, "fmi2SetTime", need);
  r.get(f.set_continuous_states, "fmi2SetContinuousStates", need);
  r.get(f.get_derivatives, "fmi2GetDerivatives", need);
  r.get(f.get_event_indicators, "fmi2GetEventIndicators", need);
  r.get(f.get_continuous_states, "fmi2GetContinuousStates", need);
  r.get(f.get_nominals_of_continuous_states, "fmi2GetNominalsOfContinuousStates", need);
}

void resolve_co_simulation(Resolver& r, Fmi2Functions& f, const std::string& need) {
  r.get(f.set_real_input_derivatives, "fmi2SetRealInputDerivatives", need);
  r.get(f.get_real_output_derivatives, "fmi2GetRealOutputDerivatives", need);
  r.get(f.do_step, "fmi2DoStep", need);
  r.get(f.cancel_step, "fmi2CancelStep", need);
  r.get(f.get_status, "fmi2GetStatus", need);
  r.get(f.get_real_status, "fmi2GetRealStatus", need);
  r.get(f.get_integer_status, "fmi2GetIntegerStatus", need);
  r.get(f.get_boolean_status, "fmi2GetBooleanStatus", need);
  r.get(f.get_string_status, "fmi2GetStringStatus", need);
}

void resolve_capabilities(Resolver& r, Fmi2Functions& f, const KindInterface& k) {
  if (k.can_get_and_set_fmu_state) {
    const std::string why = "canGetAndSetFMUstate is true";
    r.get(f.get_fmu_state, "fmi2GetFMUstate", why);
    r.get(f.set_fmu_state, "fmi2SetFMUstate", why);
    r.get(f.free_fmu_state, "fmi2FreeFMUstate", why);
  }
  if (k.can_serialize_fmu_state) {
    const std::string why = "canSerializeFMUstate is true";
    r.get(f.serialized_fmu_state_size, "fmi2SerializedFMUstateSize", why);
    r.get(f.serialize_fmu_state, "fmi2SerializeFMUstate", why);
    r.get(f.deserialize_fmu_state, "fmi2DeSerializeFMUstate", why);
  }
  if (k.provides_directional_derivative)
    r.get(f.get_directional_derivative, "fmi2GetDirectionalDerivative",
          "providesDirectionalDerivative is true");
}

void resolve_3(Resolver& r, Fmi3Functions& f, FmuKind kind, const KindInterface& k, bool clocks) {
  const std::string need = std::string("needed for ") + to_string(kind);
  r.get(f.get_version, "fmi3GetVersion", need);
  r.get(f.set_debug_logging, "fmi3SetDebugLogging", need);
  r.get(f.free_instance, "fmi3FreeInstance", need);
  r.get(f.enter_initialization_mode, "fmi3EnterInitializationMode", need);
  r.get(f.exit_initialization_mode, "fmi3ExitInitializationMode", need);
  r.get(f.enter_event_mode, "fmi3EnterEventMode", need);
  r.get(f.terminate, "fmi3Terminate", need);
  r.get(f.reset, "fmi3Reset", need);
  r.get(f.get_float32, "fmi3GetFloat32", need);
  r.get(f.get_float64, "fmi3GetFloat64", need);
  r.get(f.get_int8, "fmi3GetInt8", need);
  r.get(f.get_uint8, "fmi3GetUInt8", need);
  r.get(f.get_int16, "fmi3GetInt16", need);
  r.get(f.get_uint16, "fmi3GetUInt16", need);
  r.get(f.get_int32, "fmi3GetInt32", need);
  r.get(f.get_uint32, "fmi3GetUInt32", need);
  r.get(f.get_int64, "fmi3GetInt64", need);
  r.get(f.get_uint64, "fmi3GetUInt64", need);
  r.get(f.get_boolean, "fmi3GetBoolean", need);
  r.get(f.get_string, "fmi3GetString", need);
  r.get(f.set_float32, "fmi3SetFloat32", need);
  r.get(f.set_float64, "fmi3SetFloat64", need);
  r.get(f.set_int8, "fmi3SetInt8", need);
  r.get(f.set_uint8, "fmi3SetUInt8", need);
  r.get(f.set_int16, "fmi3SetInt16", need);
  r.get(f.set_uint16, "fmi3SetUInt16", need);
  r.get(f.set_int32, "fmi3SetInt32", need);
  r.get(f.set_uint32, "fmi3SetUInt32", need);
  r.get(f.set_int64, "fmi3SetInt64", need);
  r.get(f.set_uint64, "fmi3SetUInt64", need);
  r.get(f.set_boolean, "fmi3SetBoolean", need);
  r.get(f.set_string, "fmi3SetString", need);
  if (kind == FmuKind::model_exchange) {
    r.get(f.instantiate_model_exchange, "fmi3InstantiateModelExchange", need);
    r.get(f.update_discrete_states, "fmi3UpdateDiscreteStates", need);
    r.get(f.enter_continuous_time_mode, "fmi3EnterContinuousTimeMode", need);
    r.get(f.completed_integrator_step, "fmi3CompletedIntegratorStep", need);
    r.get(f.set_time, "fmi3SetTime", need);
    r.get(f.set_continuous_states, "fmi3SetContinuousStates", need);
    r.get(f.get_derivatives, "fmi3GetContinuousStateDerivatives", need);
    r.get(f.get_event_indicators, "fmi3GetEventIndicators", need);
    r.get(f.get_continuous_states, "fmi3GetContinuousStates", need);
    r.get(f.get_number_of_event_indicators, "fmi3GetNumberOfEventIndicators", need);
    r.get(f.get_number_of_continuous_states, "fmi3GetNumberOfContinuousStates", need);
  } else {
    r.get(f.instantiate_co_simulation, "fmi3InstantiateCoSimulation", need);
    r.get(f.do_step, "fmi3DoStep", need);
    if (k.has_event_mode) {
      const std::string why = "hasEventMode is true";
      r.get(f.enter_step_mode, "fmi3EnterStepMode", why);
      r.get(f.update_discrete_states, "fmi3UpdateDiscreteStates", why);
    }
  }
  if (clocks) {
    const std::string why = "needed for its Clocks";
    r.get(f.set_clock, "fmi3SetClock", why);
    r.get(f.get_interval_decimal, "fmi3GetIntervalDecimal", why);
    r.get(f.get_shift_decimal, "fmi3GetShiftDecimal", why);
    r.get(f.set_interval_decimal, "fmi3SetIntervalDecimal", why);
  }
  if (k.can_get_and_set_fmu_state) {
    const std::string why = "canGetAndSetFMUState is true";
    r.get(f.get_fmu_state, "fmi3GetFMUState", why);
    r.get(f.set_fmu_state, "fmi3SetFMUState", why);
    r.get(f.free_fmu_state, "fmi3FreeFMUState", why);
  }
  if (k.can_serialize_fmu_state) {
    const std::string why = "canSerializeFMUState is true";
    r.get(f.serialized_fmu_state_size, "fmi3SerializedFMUStateSize", why);
    r.get(f.serialize_fmu_state, "fmi3SerializeFMUState", why);
    r.get(f.deserialize_fmu_state, "fmi3DeserializeFMUState", why);
  }
  if (k.provides_directional_derivative)
    r.get(f.get_directional_derivative, "fmi3GetDirectionalDerivative",
          "providesDirectionalDerivatives is true");
}

// What a const char* function of the FMU returned, quoted, or "NULL".
std::string returned(const char* text) {
  return text ? "'" + std::string(text, strnlen(text, 64)) + "'" : "NULL";
}

}  // namespace

FmuLibrary::FmuLibrary(const std::filesystem::path& unpacked, const ModelDescription& md,
                       FmuKind kind, const std::string& fmu_name)
    : kind_(kind),
      version_(md.version),
      interface_(md.interface_of(kind)),
      fmu_name_(fmu_name),
      clocks_(!md.clocks.empty()) {
  // The platform's directory: FMI 2.0 names it linux64, FMI 3.0 by architecture and system.
  const std::string platform = version_ == FmiVersion::v3 ? "x86_64-linux" : "linux64";
  const std::string so_name = "binaries/" + platform + "/" + interface_.model_identifier + ".so";
  const auto platform_dir = unpacked / "binaries" / platform;
  binary_ = platform_dir / (interface_.model_identifier + ".so");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(binary_, ec)) {
    if (std::filesystem::is_directory(platform_dir, ec))
      throw InputError(
          fmu_name_ + ": binaries/" + platform + " has no " + interface_.model_identifier +
          ".so, the binary its modelIdentifier names (it has: " + entries_of(platform_dir) + ")");
    throw InputError(fmu_name_ + ": no " + platform + " binary: " + so_name +
                     " (the FMU has binaries for: " + entries_of(unpacked / "binaries") + ")");
  }
  // RTLD_LOCAL: two FMUs may export the same names; each handle must resolve its own.
  handle_ = dlopen(binary_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    throw InputError(fmu_name_ + ": dlopen failed: " + (why ? why : "unknown reason"));
  }
  try {
    if (version_ == FmiVersion::v3)
      resolve_3(so_name);
    else
      resolve(so_name);
    check_platform(so_name);
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

FmuLibrary::~FmuLibrary() {
  dlclose(handle_);
}

void FmuLibrary::resolve(const std::string& so_name) {
  Resolver r(handle_);
  const std::string need = std::string("needed for ") + to_string(kind_);
  resolve_common(r, fn_, need);
  if (kind_ == FmuKind::model_exchange)
    resolve_model_exchange(r, fn_, need);
  else
    resolve_co_simulation(r, fn_, need);
  resolve_capabilities(r, fn_, interface_);
  if (const std::string missing = r.missing(); !missing.empty())
    throw InputError(fmu_name_ + ": " + so_name + " lacks " + missing);
}

void FmuLibrary::resolve_3(const std::string& so_name) {
  Resolver r(handle_);
  kausal::fmu::resolve_3(r, fn3_, kind_, interface_, clocks_);
  if (const std::string missing = r.missing(); !missing.empty())
    throw InputError(fmu_name_ + ": " + so_name + " lacks " + missing);
}

void FmuLibrary::check_platform(const std::string& so_name) const {
  if (version_ == FmiVersion::v3) {
    // The header's version: "3.0", or a maintenance release's "3.0.x".
    const char* version = fn3_.get_version();
    const std::string_view v = version ? std::string_view(version, strnlen(version, 64)) : "";
    if (!version || !(v == "3.0" || v.starts_with("3.0.")))
      throw InputError(fmu_name_ + ": " + so_name + ": fmi3GetVersion() returned " +
                       returned(version) + ", not '3.0'");
    return;
  }
  const char* version = fn_.get_version();
  if (!version || std::strcmp(version, "2.0") != 0)
    throw InputError(fmu_name_ + ": " + so_name + ": fmi2GetVersion() returned " +
                     returned(version) + ", not '2.0'");
  const char* platform = fn_.get_types_platform();
  if (!platform || std::strcmp(platform, "default") != 0)
    throw InputError(fmu_name_ + ": " + so_name + ": fmi2GetTypesPlatform() returned " +
                     returned(platform) + ", not 'default' (kausal passes the standard types)");
}

}  // namespace kausal::fmu

#include "system/fmu/fmu_instance.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "common/errors.hpp"
#include "system/fmu/fmu_error.hpp"

// The callbacks the FMU calls: C functions, and nothing may leave them as an exception.
extern "C" {

static void kausal_fmu_logger(fmi2ComponentEnvironment env, fmi2String /*instance_name*/,
                              fmi2Status status, fmi2String category, fmi2String message, ...) {
  if (!env) return;  // an FMU that lost our environment pointer: nowhere to put the line
  char text[kausal::fmu::max_log_message];
  text[0] = '\0';
  if (message) {
    va_list args;
    va_start(args, message);
    const int n = std::vsnprintf(text, sizeof text, message, args);
    va_end(args);
    if (n < 0) std::snprintf(text, sizeof text, "%s", message);  // a format vsnprintf refused
  }
  try {
    static_cast<kausal::fmu::FmuInstance*>(env)->log(status, category, text);
  } catch (...) {
    // Out of memory or a throwing sink: losing a log line beats unwinding through the FMU.
  }
}

static void* kausal_fmu_allocate(size_t count, size_t size) {
  return calloc(count, size);
}
static void kausal_fmu_free(void* object) {
  free(object);
}

}  // extern "C"

namespace kausal::fmu {

std::string to_string(const LogLine& line) {
  return "[" + status_name(line.status) + "] " + line.category + ": " + line.message;
}

namespace {

// RFC 3986: everything but unreserved characters and the path's slashes is percent-encoded.
std::string file_uri(const std::filesystem::path& path) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (const unsigned char c : path.string()) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::unordered_set<unsigned> references_of(const ModelDescription& md,
                                           std::initializer_list<ValueType> types) {
  std::unordered_set<unsigned> out;
  for (const Variable& v : md.variables)
    for (ValueType t : types)
      if (v.type == t) out.insert(v.value_reference);
  return out;
}

const FmuLibrary& loaded(const std::shared_ptr<const FmuLibrary>& library) {
  if (!library) throw std::logic_error("FmuInstance without an FmuLibrary");
  return *library;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

}  // namespace

FmuInstance::FmuInstance(std::shared_ptr<const FmuLibrary> library, const ModelDescription& md,
                         FmuKind kind, const std::string& instance_name,
                         const std::filesystem::path& unpacked, LogSink sink)
    : library_(std::move(library)),
      fn_(loaded(library_).fn()),
      kind_(kind),
      fmu_name_(library_->fmu_name()),
      instance_name_(instance_name),
      guid_(md.guid),
      resource_location_(file_uri(std::filesystem::absolute(unpacked) / "resources")),
      states_(md.derivatives.size()),
      event_indicators_(md.event_indicators),
      references_{references_of(md, {ValueType::real}),
                  references_of(md, {ValueType::integer, ValueType::enumeration}),
                  references_of(md, {ValueType::boolean}), references_of(md, {ValueType::string})},
      sink_(std::move(sink)) {
  if (library_->kind() != kind)
    throw std::logic_error(fmu_name_ + ": instance of " + to_string(kind) +
                           " from a library loaded for " + to_string(library_->kind()));
  if (library_->interface().can_be_instantiated_only_once_per_process && library_->instances() > 0)
    throw InputError(fmu_name_ +
                     ": canBeInstantiatedOnlyOncePerProcess is true and the FMU has an "
                     "instance already (each instance needs its own unpacked copy)");
  if (library_->fatal())  // an instance of this library returned fmi2Fatal: all are corrupt
    throw FmuCallError::not_called("fmi2Instantiate", fmi2Fatal, time_, {});
  callbacks_ = {&kausal_fmu_logger, &kausal_fmu_allocate, &kausal_fmu_free, nullptr, this};
  component_ =
      fn_.instantiate(instance_name_.c_str(),
                      kind == FmuKind::model_exchange ? fmi2ModelExchange : fmi2CoSimulation,
                      guid_.c_str(), resource_location_.c_str(), &callbacks_, fmi2False, fmi2False);
  if (!component_) {
    const auto lines = log_lines();
    throw InputError(fmu_name_ + ": fmi2Instantiate returned NULL" +
                     (lines.empty() ? " (the FMU logged nothing)" : ": " + joined(lines)));
  }
  library_->count_instance(+1);
}

FmuInstance::~FmuInstance() {
  library_->count_instance(-1);
  if (health_ == Health::fatal || library_->fatal()) return;  // the standard allows no call
  try {
    fn_.free_instance(component_);
  } catch (...) {
    // Only our logger runs in here, and it does not throw; never let a destructor throw.
  }
}

void FmuInstance::log(fmi2Status status, const char* category, const char* message) {
  LogLine line{status, category ? category : "", message ? message : ""};
  if (log_.size() == kept_log_lines) log_.pop_front();
  log_.push_back(line);
  if (sink_) sink_(log_.back());
}

std::vector<std::string> FmuInstance::log_lines() const {
  std::vector<std::string> out;
  for (const LogLine& l : log_) out.push_back(to_string(l));
  return out;
}

void FmuInstance::ready(const char* function, bool allowed_after_error) const {
  if (health_ == Health::fatal || library_->fatal())
    throw FmuCallError::not_called(function, fmi2Fatal, time_, log_lines());
  if (health_ == Health::error && !allowed_after_error)
    throw FmuCallError::not_called(function, fmi2Error, time_, log_lines());
}

void FmuInstance::check(const char* function, fmi2Status status, const std::string& why) {
  switch (status) {
    case fmi2OK:
    case fmi2Warning:
      return;
    case fmi2Discard:
      break;  // the instance is still usable: the caller may retry with a smaller step
    case fmi2Fatal:
      health_ = Health::fatal;
      library_->mark_fatal();
      break;
    default:  // fmi2Error; fmi2Pending (kausal never asks for an asynchronous step); garbage
      health_ = Health::error;
      break;
  }
  throw FmuCallError(function, status, time_, log_lines(), status == fmi2Discard ? why : "");
}

template <typename Function>
Function* FmuInstance::need(Function* f, const char* function, const char* capability) const {
  if (!f)
    throw std::logic_error(fmu_name_ + ": " + function + " called, but the FMU lacks it (" +
                           capability + ")");
  return f;
}

void FmuInstance::check_references(std::span<const unsigned> vr,
                                   const std::unordered_set<unsigned>& known,
                                   ValueType type) const {
  for (unsigned r : vr)
    if (!known.count(r))
      throw std::invalid_argument(fmu_name_ + ": value reference " + std::to_string(r) +
                                  " is not a " + fmu::to_string(type) + " variable");
}

void FmuInstance::check_size(const char* function, std::size_t got, std::size_t expected) const {
  if (got != expected)
    throw std::invalid_argument(fmu_name_ + ": " + function + " with " + std::to_string(got) +
                                " values where " + std::to_string(expected) + " are needed");
}

void FmuInstance::setup_experiment(double start_time, std::optional<double> stop_time,
                                   std::optional<double> tolerance) {
  ready("fmi2SetupExperiment");
  time_ = start_time;
  check("fmi2SetupExperiment",
        fn_.setup_experiment(component_, tolerance ? fmi2True : fmi2False, tolerance.value_or(0),
                             start_time, stop_time ? fmi2True : fmi2False, stop_time.value_or(0)));
}

void FmuInstance::enter_initialization_mode() {
  ready("fmi2EnterInitializationMode");
  check("fmi2EnterInitializationMode", fn_.enter_initialization_mode(component_));
}

void FmuInstance::exit_initialization_mode() {
  ready("fmi2ExitInitializationMode");
  check("fmi2ExitInitializationMode", fn_.exit_initialization_mode(component_));
}

void FmuInstance::terminate() {
  ready("fmi2Terminate");
  check("fmi2Terminate", fn_.terminate(component_));
}

void FmuInstance::reset() {
  ready("fmi2Reset", true);
  check("fmi2Reset", fn_.reset(component_));
  health_ = Health::ok;
}

void FmuInstance::set_real(std::span<const unsigned> vr, std::span<const double> v) {
  check_size("fmi2SetReal", v.size(), vr.size());
  check_references(vr, references_.real, ValueType::real);
  ready("fmi2SetReal");
  if (vr.empty()) return;
  check("fmi2SetReal", fn_.set_real(component_, vr.data(), vr.size(), v.data()));
}

void FmuInstance::get_real(std::span<const unsigned> vr, std::span<double> v) {
  check_size("fmi2GetReal", v.size(), vr.size());
  check_references(vr, references_.real, ValueType::real);
  ready("fmi2GetReal");
  if (vr.empty()) return;
  check("fmi2GetReal", fn_.get_real(component_, vr.data(), vr.size(), v.data()));
}

void FmuInstance::set_integer(std::span<const unsigned> vr, std::span<const int> v) {
  check_size("fmi2SetInteger", v.size(), vr.size());
  check_references(vr, references_.integer, ValueType::integer);
  ready("fmi2SetInteger");
  if (vr.empty()) return;
  check("fmi2SetInteger", fn_.set_integer(component_, vr.data(), vr.size(), v.data()));
}

void FmuInstance::get_integer(std::span<const unsigned> vr, std::span<int> v) {
  check_size("fmi2GetInteger", v.size(), vr.size());
  check_references(vr, references_.integer, ValueType::integer);
  ready("fmi2GetInteger");
  if (vr.empty()) return;
  check("fmi2GetInteger", fn_.get_integer(component_, vr.data(), vr.size(), v.data()));
}

void FmuInstance::set_boolean(std::span<const unsigned> vr, std::span<const bool> v) {
  check_size("fmi2SetBoolean", v.size(), vr.size());
  check_references(vr, references_.boolean, ValueType::boolean);
  ready("fmi2SetBoolean");
  if (vr.empty()) return;
  std::vector<fmi2Boolean> values(v.begin(), v.end());
  check("fmi2SetBoolean", fn_.set_boolean(component_, vr.data(), vr.size(), values.data()));
}

void FmuInstance::set_string(std::span<const unsigned> vr, std::span<const std::string> v) {
  check_size("fmi2SetString", v.size(), vr.size());
  check_references(vr, references_.string, ValueType::string);
  ready("fmi2SetString");
  if (vr.empty()) return;
  std::vector<fmi2String> values;
  for (const std::string& text : v) values.push_back(text.c_str());
  check("fmi2SetString", fn_.set_string(component_, vr.data(), vr.size(), values.data()));
}

void FmuInstance::get_boolean(std::span<const unsigned> vr, std::span<bool> v) {
  check_size("fmi2GetBoolean", v.size(), vr.size());
  check_references(vr, references_.boolean, ValueType::boolean);
  ready("fmi2GetBoolean");
  if (vr.empty()) return;
  std::vector<fmi2Boolean> values(vr.size(), fmi2False);
  check("fmi2GetBoolean", fn_.get_boolean(component_, vr.data(), vr.size(), values.data()));
  for (std::size_t i = 0; i < values.size(); ++i) v[i] = values[i] != fmi2False;
}

void FmuInstance::set_time(double t) {
  auto* f = need(fn_.set_time, "fmi2SetTime", "model exchange only");
  ready("fmi2SetTime");
  time_ = t;
  check("fmi2SetTime", f(component_, t));
}

void FmuInstance::set_continuous_states(std::span<const double> x) {
  auto* f = need(fn_.set_continuous_states, "fmi2SetContinuousStates", "model exchange only");
  check_size("fmi2SetContinuousStates", x.size(), states_);
  ready("fmi2SetContinuousStates");
  if (x.empty()) return;
  check("fmi2SetContinuousStates", f(component_, x.data(), x.size()));
}

void FmuInstance::get_continuous_states(std::span<double> x) {
  auto* f = need(fn_.get_continuous_states, "fmi2GetContinuousStates", "model exchange only");
  check_size("fmi2GetContinuousStates", x.size(), states_);
  ready("fmi2GetContinuousStates");
  if (x.empty()) return;
  check("fmi2GetContinuousStates", f(component_, x.data(), x.size()));
}

void FmuInstance::get_derivatives(std::span<double> dx) {
  auto* f = need(fn_.get_derivatives, "fmi2GetDerivatives", "model exchange only");
  check_size("fmi2GetDerivatives", dx.size(), states_);
  ready("fmi2GetDerivatives");
  if (dx.empty()) return;
  check("fmi2GetDerivatives", f(component_, dx.data(), dx.size()));
}

void FmuInstance::get_event_indicators(std::span<double> g) {
  auto* f = need(fn_.get_event_indicators, "fmi2GetEventIndicators", "model exchange only");
  check_size("fmi2GetEventIndicators", g.size(), event_indicators_);
  ready("fmi2GetEventIndicators");
  if (g.empty()) return;
  check("fmi2GetEventIndicators", f(component_, g.data(), g.size()));
}

void FmuInstance::enter_event_mode() {
  auto* f = need(fn_.enter_event_mode, "fmi2EnterEventMode", "model exchange only");
  ready("fmi2EnterEventMode");
  check("fmi2EnterEventMode", f(component_));
}

fmi2EventInfo FmuInstance::new_discrete_states() {
  auto* f = need(fn_.new_discrete_states, "fmi2NewDiscreteStates", "model exchange only");
  ready("fmi2NewDiscreteStates");
  fmi2EventInfo info{};
  check("fmi2NewDiscreteStates", f(component_, &info));
  return info;
}

void FmuInstance::enter_continuous_time_mode() {
  auto* f =
      need(fn_.enter_continuous_time_mode, "fmi2EnterContinuousTimeMode", "model exchange only");
  ready("fmi2EnterContinuousTimeMode");
  check("fmi2EnterContinuousTimeMode", f(component_));
}

FmuInstance::StepEnd FmuInstance::completed_integrator_step(bool no_set_state_prior) {
  auto* f =
      need(fn_.completed_integrator_step, "fmi2CompletedIntegratorStep", "model exchange only");
  ready("fmi2CompletedIntegratorStep");
  fmi2Boolean enter = fmi2False, stop = fmi2False;
  check("fmi2CompletedIntegratorStep",
        f(component_, no_set_state_prior ? fmi2True : fmi2False, &enter, &stop));
  return {enter != fmi2False, stop != fmi2False};
}

void FmuInstance::directional_derivative(std::span<const unsigned> unknowns,
                                         std::span<const unsigned> knowns,
                                         std::span<const double> seed, std::span<double> out) {
  auto* f = need(fn_.get_directional_derivative, "fmi2GetDirectionalDerivative",
                 "providesDirectionalDerivative is false");
  check_size("fmi2GetDirectionalDerivative (seed)", seed.size(), knowns.size());
  check_size("fmi2GetDirectionalDerivative (out)", out.size(), unknowns.size());
  check_references(unknowns, references_.real, ValueType::real);
  check_references(knowns, references_.real, ValueType::real);
  ready("fmi2GetDirectionalDerivative");
  if (unknowns.empty()) return;
  check("fmi2GetDirectionalDerivative", f(component_, unknowns.data(), unknowns.size(),
                                          knowns.data(), knowns.size(), seed.data(), out.data()));
}

void FmuInstance::do_step(double t, double h, bool no_set_state_prior) {
  auto* f = need(fn_.do_step, "fmi2DoStep", "co-simulation only");
  ready("fmi2DoStep");
  time_ = t;
  check("fmi2DoStep", f(component_, t, h, no_set_state_prior ? fmi2True : fmi2False),
        "the FMU refused the step");
  time_ = t + h;
}

std::optional<double> FmuInstance::ended_at() {
  fmi2Boolean terminated = fmi2False;
  if (!fn_.get_boolean_status || health_ != Health::ok ||
      fn_.get_boolean_status(component_, fmi2Terminated, &terminated) != fmi2OK || !terminated)
    return std::nullopt;
  fmi2Real reached = time_;
  if (!fn_.get_real_status ||
      fn_.get_real_status(component_, fmi2LastSuccessfulTime, &reached) != fmi2OK ||
      !std::isfinite(reached))
    reached = time_;
  return reached;
}

void FmuInstance::free_state(fmi2FMUstate* state) {
  if (!*state || health_ == Health::fatal || library_->fatal()) return;
  check("fmi2FreeFMUstate", fn_.free_fmu_state(component_, state));
}

std::vector<std::uint8_t> FmuInstance::save_state() {
  need(fn_.get_fmu_state, "fmi2GetFMUstate", "canGetAndSetFMUstate is false");
  auto* size_of = need(fn_.serialized_fmu_state_size, "fmi2SerializedFMUstateSize",
                       "canSerializeFMUstate is false");
  ready("fmi2GetFMUstate");
  fmi2FMUstate state = nullptr;  // null: the FMU allocates a new one
  check("fmi2GetFMUstate", fn_.get_fmu_state(component_, &state));
  std::vector<std::uint8_t> bytes;
  try {
    std::size_t size = 0;
    check("fmi2SerializedFMUstateSize", size_of(component_, state, &size));
    if (size > max_state_bytes)
      throw SimulationError(fmu_name_ + ": fmi2SerializedFMUstateSize says " +
                            std::to_string(size) + " bytes, more than kausal keeps (" +
                            std::to_string(max_state_bytes >> 20) + " MiB)");
    bytes.resize(size);
    check("fmi2SerializeFMUstate",
          fn_.serialize_fmu_state(component_, state, reinterpret_cast<fmi2Byte*>(bytes.data()),
                                  bytes.size()));
  } catch (...) {
    try {
      free_state(&state);
    } catch (const FmuCallError&) {
      // The first failure is the one to report.
    }
    throw;
  }
  free_state(&state);
  return bytes;
}

void FmuInstance::restore_state(std::span<const std::uint8_t> bytes) {
  need(fn_.set_fmu_state, "fmi2SetFMUstate", "canGetAndSetFMUstate is false");
  auto* deserialize =
      need(fn_.deserialize_fmu_state, "fmi2DeSerializeFMUstate", "canSerializeFMUstate is false");
  ready("fmi2DeSerializeFMUstate", true);
  fmi2FMUstate state = nullptr;
  check("fmi2DeSerializeFMUstate",
        deserialize(component_, reinterpret_cast<const fmi2Byte*>(bytes.data()), bytes.size(),
                    &state));
  try {
    check("fmi2SetFMUstate", fn_.set_fmu_state(component_, state));
  } catch (...) {
    try {
      free_state(&state);
    } catch (const FmuCallError&) {
    }
    throw;
  }
  health_ = Health::ok;  // the standard's way out of fmi2Error
  free_state(&state);
}

}  // namespace kausal::fmu

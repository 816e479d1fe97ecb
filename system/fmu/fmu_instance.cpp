#include "system/fmu/fmu_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

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

static void kausal_fmu3_logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                               fmi3String message) {
  if (!env) return;
  char text[kausal::fmu::max_log_message];
  std::snprintf(text, sizeof text, "%s", message ? message : "");
  try {
    static_cast<kausal::fmu::FmuInstance*>(env)->log(static_cast<fmi2Status>(status), category,
                                                     text);
  } catch (...) {
    // As above: never unwind through the FMU.
  }
}

// kausal never asks to return early from an intermediate update: its steps end where the
// FMU's own events and Clock ticks cut them.
static void kausal_fmu3_intermediate_update(fmi3InstanceEnvironment env, fmi3Float64 time,
                                            fmi3Boolean set_requested, fmi3Boolean /*get_allowed*/,
                                            fmi3Boolean /*step_finished*/,
                                            fmi3Boolean /*can_return_early*/,
                                            fmi3Boolean* early_return_requested,
                                            fmi3Float64* /*early_return_time*/) {
  if (early_return_requested) *early_return_requested = false;
  if (!env) return;
  static_cast<kausal::fmu::FmuInstance*>(env)->intermediate_update(time, set_requested);
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
  return "[" + status_name(line.status, line.version) + "] " + line.category + ": " + line.message;
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

// FMI 3.0 co-simulation with intermediate update: its scalar real inputs that may be set within
// a step (an array's elements are set whole between steps).
std::vector<unsigned> intermediate_references(const ModelDescription& md, FmuKind kind) {
  std::vector<unsigned> out;
  if (md.version != FmiVersion::v3 || kind != FmuKind::co_simulation ||
      !md.interface_of(kind).provides_intermediate_update)
    return out;
  for (const Variable& v : md.variables)
    if (v.intermediate_update && v.causality == Causality::input && v.type == ValueType::real &&
        !v.array_of)
      out.push_back(v.value_reference);
  return out;
}

// kausal's references and, for arrays, the FMU's.
std::unordered_map<unsigned, CType> ctypes_of(const ModelDescription& md) {
  std::unordered_map<unsigned, CType> out;
  if (md.version != FmiVersion::v3) return out;
  for (const Variable& v : md.variables) out.emplace(v.value_reference, v.ctype);
  for (const ArrayVariable& a : md.arrays)
    out.emplace(a.value_reference, md.variables[a.first].ctype);
  return out;
}

// A double as the integer type T: rounded to the nearest, clamped to T's range.
template <typename T>
T clamped(double x) {
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (!(x > lo)) return std::numeric_limits<T>::min();  // NaN too
  if (!(x < hi)) return std::numeric_limits<T>::max();
  return static_cast<T>(std::nearbyint(x));
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
      fn3_(library_->fn3()),
      kind_(kind),
      version_(library_->version()),
      fmu_name_(library_->fmu_name()),
      instance_name_(instance_name),
      guid_(md.guid),
      // FMI 2.0 passes a URI, FMI 3.0 a path ending in a separator.
      resource_location_(md.version == FmiVersion::v3
                             ? (std::filesystem::absolute(unpacked) / "resources").string() + "/"
                             : file_uri(std::filesystem::absolute(unpacked) / "resources")),
      states_(md.derivatives.size()),
      event_indicators_(md.event_indicators),
      references_{references_of(md, {ValueType::real}),
                  references_of(md, {ValueType::integer, ValueType::enumeration}),
                  references_of(md, {ValueType::boolean}), references_of(md, {ValueType::string})},
      ctypes_(ctypes_of(md)),
      sink_(std::move(sink)) {
  for (const ArrayVariable& a : md.arrays) {
    std::vector<double>& starts = starts_[a.value_reference];
    for (std::size_t k = 0; k < a.size; ++k) {
      const Variable& e = md.variables[a.first + k];
      elements_.emplace(e.value_reference, Element{a.value_reference, k, a.size});
      starts.push_back(e.start.value_or(0.0));
    }
  }
  written_ = starts_;
  if (library_->kind() != kind)
    throw std::logic_error(fmu_name_ + ": instance of " + to_string(kind) +
                           " from a library loaded for " + to_string(library_->kind()));
  if (library_->interface().can_be_instantiated_only_once_per_process && library_->instances() > 0)
    throw InputError(fmu_name_ +
                     ": canBeInstantiatedOnlyOncePerProcess is true and the FMU has an "
                     "instance already (each instance needs its own unpacked copy)");
  event_mode_ = v3() && kind == FmuKind::co_simulation && library_->interface().has_event_mode;
  for (const Clock& c : md.clocks) clocks_.insert(c.value_reference);
  const char* instantiate = !v3()                             ? "fmi2Instantiate"
                            : kind == FmuKind::model_exchange ? "fmi3InstantiateModelExchange"
                                                              : "fmi3InstantiateCoSimulation";
  if (library_->fatal())  // an instance of this library returned Fatal: all are corrupt
    throw FmuCallError::not_called(instantiate, fmi2Fatal, time_, {});
  if (v3() && kind == FmuKind::model_exchange)
    component_ = fn3_.instantiate_model_exchange(instance_name_.c_str(), guid_.c_str(),
                                                 resource_location_.c_str(), false, false, this,
                                                 &kausal_fmu3_logger);
  else if (v3()) {
    const std::vector<unsigned>& required = intermediate_inputs_ =
        intermediate_references(md, kind);
    component_ = fn3_.instantiate_co_simulation(
        instance_name_.c_str(), guid_.c_str(), resource_location_.c_str(), false, false,
        event_mode_, event_mode_, required.empty() ? nullptr : required.data(), required.size(),
        this, &kausal_fmu3_logger, required.empty() ? nullptr : &kausal_fmu3_intermediate_update);
  } else {
    callbacks_ = {&kausal_fmu_logger, &kausal_fmu_allocate, &kausal_fmu_free, nullptr, this};
    component_ = fn_.instantiate(
        instance_name_.c_str(),
        kind == FmuKind::model_exchange ? fmi2ModelExchange : fmi2CoSimulation, guid_.c_str(),
        resource_location_.c_str(), &callbacks_, fmi2False, fmi2False);
  }
  if (!component_) {
    const auto lines = log_lines();
    throw InputError(fmu_name_ + ": " + instantiate + " returned NULL" +
                     (lines.empty() ? " (the FMU logged nothing)" : ": " + joined(lines)));
  }
  library_->count_instance(+1);
}

// An FMI 3.0 model-exchange binary says how many states and event indicators it has; kausal
// sizes every array it passes from the description, so the two must agree. Asked once
// initialised (some FMUs answer only from then on); an FMU that does not answer is not judged.
void FmuInstance::check_sizes_3() const {
  std::size_t states = 0, indicators = 0;
  if (fn3_.get_number_of_continuous_states(component_, &states) > fmi3Warning ||
      fn3_.get_number_of_event_indicators(component_, &indicators) > fmi3Warning)
    return;
  if (states != states_)
    throw InputError(fmu_name_ + ": fmi3GetNumberOfContinuousStates says " +
                     std::to_string(states) + ", modelDescription.xml lists " +
                     std::to_string(states_) + " <ContinuousStateDerivative> elements");
  if (indicators != event_indicators_)
    throw InputError(fmu_name_ + ": fmi3GetNumberOfEventIndicators says " +
                     std::to_string(indicators) + ", modelDescription.xml lists " +
                     std::to_string(event_indicators_) + " <EventIndicator> elements");
}

FmuInstance::~FmuInstance() {
  library_->count_instance(-1);
  if (health_ == Health::fatal || library_->fatal()) return;  // the standard allows no call
  try {
    if (v3())
      fn3_.free_instance(component_);
    else
      fn_.free_instance(component_);
  } catch (...) {
    // Only our logger runs in here, and it does not throw; never let a destructor throw.
  }
}

void FmuInstance::log(fmi2Status status, const char* category, const char* message) {
  LogLine line{status, category ? category : "", message ? message : "", version_};
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

template <typename Function3, typename Function2>
void FmuInstance::need(Function3* f3, Function2* f2, const char* function,
                       const char* capability) const {
  if (v3() ? f3 != nullptr : f2 != nullptr) return;
  throw std::logic_error(fmu_name_ + ": " + (v3() ? "fmi3" : "fmi2") + function +
                         " called, but the FMU lacks it (" + capability + ")");
}

void FmuInstance::check_references(std::span<const unsigned> vr,
                                   const std::unordered_set<unsigned>& known,
                                   ValueType type) const {
  for (unsigned r : vr)
    if (!known.count(r))
      throw std::invalid_argument(fmu_name_ + ": value reference " + std::to_string(r) +
                                  " is not a " + fmu::to_string(type) + " variable");
}

void FmuInstance::check_clocks(std::span<const unsigned> vr) const {
  for (unsigned r : vr)
    if (!clocks_.count(r))
      throw std::invalid_argument(fmu_name_ + ": value reference " + std::to_string(r) +
                                  " is not a Clock");
}

void FmuInstance::check_size(const char* function, std::size_t got, std::size_t expected) const {
  if (got != expected)
    throw std::invalid_argument(fmu_name_ + ": " + function + " with " + std::to_string(got) +
                                " values where " + std::to_string(expected) + " are needed");
}

void FmuInstance::setup_experiment(double start_time, std::optional<double> stop_time,
                                   std::optional<double> tolerance) {
  time_ = start_time;
  stop_time_ = stop_time;
  tolerance_ = tolerance;
  if (v3()) return;  // given to fmi3EnterInitializationMode
  ready("fmi2SetupExperiment");
  check("fmi2SetupExperiment",
        fn_.setup_experiment(component_, tolerance ? fmi2True : fmi2False, tolerance.value_or(0),
                             start_time, stop_time ? fmi2True : fmi2False, stop_time.value_or(0)));
}

void FmuInstance::enter_initialization_mode() {
  if (v3()) {
    ready("fmi3EnterInitializationMode");
    check("fmi3EnterInitializationMode",
          static_cast<fmi2Status>(fn3_.enter_initialization_mode(
              component_, tolerance_.has_value(), tolerance_.value_or(0), time_,
              stop_time_.has_value(), stop_time_.value_or(0))));
    return;
  }
  ready("fmi2EnterInitializationMode");
  check("fmi2EnterInitializationMode", fn_.enter_initialization_mode(component_));
}

// The calls whose FMI 2.0 and 3.0 forms differ only in their prefix: one line for each.
#define KAUSAL_FMI_CALL(name2, name3, fn2, fn3, ...)                                          \
  do {                                                                                        \
    if (v3()) {                                                                               \
      ready(name3);                                                                           \
      check(name3, static_cast<fmi2Status>(fn3_.fn3(component_ __VA_OPT__(, ) __VA_ARGS__))); \
    } else {                                                                                  \
      ready(name2);                                                                           \
      check(name2, fn_.fn2(component_ __VA_OPT__(, ) __VA_ARGS__));                           \
    }                                                                                         \
  } while (false)

void FmuInstance::exit_initialization_mode() {
  KAUSAL_FMI_CALL("fmi2ExitInitializationMode", "fmi3ExitInitializationMode",
                  exit_initialization_mode, exit_initialization_mode);
  // FMI 3.0 co-simulation without event mode is in step mode now; model exchange, as in FMI
  // 2.0, in event mode.
  if (v3() && kind_ == FmuKind::model_exchange) check_sizes_3();
}

void FmuInstance::terminate() {
  KAUSAL_FMI_CALL("fmi2Terminate", "fmi3Terminate", terminate, terminate);
}

void FmuInstance::reset() {
  const char* name = v3() ? "fmi3Reset" : "fmi2Reset";
  ready(name, true);
  check(name, v3() ? static_cast<fmi2Status>(fn3_.reset(component_)) : fn_.reset(component_));
  health_ = Health::ok;
  written_ = starts_;  // the FMU's arrays are at their start values again
}

bool FmuInstance::all_of_type(std::span<const unsigned> vr, CType type) const {
  return std::all_of(vr.begin(), vr.end(),
                     [&](unsigned r) { return ctypes_.at(r) == type && !elements_.contains(r); });
}

FmuInstance::Gathered FmuInstance::gather(std::span<const unsigned> refs) const {
  Gathered g;
  std::unordered_map<unsigned, std::size_t> seen;  // the FMU's reference → its k in g.vrs
  for (const unsigned r : refs) {
    const auto e = elements_.find(r);
    const Element one = e == elements_.end() ? Element{r, 0, 1} : e->second;
    const auto [at, fresh] = seen.emplace(one.vr, g.vrs.size());
    if (fresh) {
      g.vrs.push_back(one.vr);
      g.offsets.push_back(g.total);
      g.sizes.push_back(one.size);
      g.total += one.size;
    }
    g.position.push_back(g.offsets[at->second] + one.index);
  }
  return g;
}

std::vector<double> FmuInstance::get_values(unsigned vr, std::size_t n) {
  const auto many = [&](auto* f, const char* name, auto zero) {
    const auto values = std::make_unique<decltype(zero)[]>(n);
    check(name, static_cast<fmi2Status>(f(component_, &vr, 1, values.get(), n)));
    std::vector<double> out(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<double>(values[k]);
    return out;
  };
  switch (ctypes_.at(vr)) {
    case CType::float64:
      return many(fn3_.get_float64, "fmi3GetFloat64", fmi3Float64{});
    case CType::float32:
      return many(fn3_.get_float32, "fmi3GetFloat32", fmi3Float32{});
    case CType::int8:
      return many(fn3_.get_int8, "fmi3GetInt8", fmi3Int8{});
    case CType::uint8:
      return many(fn3_.get_uint8, "fmi3GetUInt8", fmi3UInt8{});
    case CType::int16:
      return many(fn3_.get_int16, "fmi3GetInt16", fmi3Int16{});
    case CType::uint16:
      return many(fn3_.get_uint16, "fmi3GetUInt16", fmi3UInt16{});
    case CType::int32:
      return many(fn3_.get_int32, "fmi3GetInt32", fmi3Int32{});
    case CType::uint32:
      return many(fn3_.get_uint32, "fmi3GetUInt32", fmi3UInt32{});
    case CType::int64:
      return many(fn3_.get_int64, "fmi3GetInt64", fmi3Int64{});
    case CType::uint64:
      return many(fn3_.get_uint64, "fmi3GetUInt64", fmi3UInt64{});
    case CType::boolean:
      return many(fn3_.get_boolean, "fmi3GetBoolean", fmi3Boolean{});
    case CType::string:
    case CType::binary:
      break;
  }
  throw std::invalid_argument(fmu_name_ + ": value reference " + std::to_string(vr) +
                              " is not a number");
}

void FmuInstance::set_values(unsigned vr, std::span<const double> x) {
  const std::size_t n = x.size();
  const auto many = [&](auto* f, const char* name, auto convert) {
    using T = decltype(convert(0.0));
    const auto values = std::make_unique<T[]>(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = convert(x[k]);
    check(name, static_cast<fmi2Status>(f(component_, &vr, 1, values.get(), n)));
  };
  switch (ctypes_.at(vr)) {
    case CType::float64:
      return many(fn3_.set_float64, "fmi3SetFloat64", [](double v) { return fmi3Float64{v}; });
    case CType::float32:
      return many(fn3_.set_float32, "fmi3SetFloat32",
                  [](double v) { return static_cast<fmi3Float32>(v); });
    case CType::int8:
      return many(fn3_.set_int8, "fmi3SetInt8", clamped<fmi3Int8>);
    case CType::uint8:
      return many(fn3_.set_uint8, "fmi3SetUInt8", clamped<fmi3UInt8>);
    case CType::int16:
      return many(fn3_.set_int16, "fmi3SetInt16", clamped<fmi3Int16>);
    case CType::uint16:
      return many(fn3_.set_uint16, "fmi3SetUInt16", clamped<fmi3UInt16>);
    case CType::int32:
      return many(fn3_.set_int32, "fmi3SetInt32", clamped<fmi3Int32>);
    case CType::uint32:
      return many(fn3_.set_uint32, "fmi3SetUInt32", clamped<fmi3UInt32>);
    case CType::int64:
      return many(fn3_.set_int64, "fmi3SetInt64", clamped<fmi3Int64>);
    case CType::uint64:
      return many(fn3_.set_uint64, "fmi3SetUInt64", clamped<fmi3UInt64>);
    case CType::boolean:
      return many(fn3_.set_boolean, "fmi3SetBoolean", [](double v) { return fmi3Boolean{v != 0}; });
    case CType::string:
    case CType::binary:
      break;
  }
  throw std::invalid_argument(fmu_name_ + ": value reference " + std::to_string(vr) +
                              " is not a number");
}

void FmuInstance::get_numbers(std::span<const unsigned> refs, std::span<double> out) {
  const Gathered g = gather(refs);
  std::vector<double> values(g.total);
  for (std::size_t k = 0; k < g.vrs.size(); ++k) {
    const std::vector<double> one = get_values(g.vrs[k], g.sizes[k]);
    std::copy(one.begin(), one.end(), values.begin() + static_cast<std::ptrdiff_t>(g.offsets[k]));
  }
  for (std::size_t i = 0; i < refs.size(); ++i) out[i] = values[g.position[i]];
}

void FmuInstance::set_numbers(std::span<const unsigned> refs, std::span<const double> in) {
  const Gathered g = gather(refs);
  std::vector<double> values(g.total);
  for (std::size_t k = 0; k < g.vrs.size(); ++k)
    if (const auto a = written_.find(g.vrs[k]); a != written_.end())
      std::copy(a->second.begin(), a->second.end(),
                values.begin() + static_cast<std::ptrdiff_t>(g.offsets[k]));
  for (std::size_t i = 0; i < refs.size(); ++i) values[g.position[i]] = in[i];
  for (std::size_t k = 0; k < g.vrs.size(); ++k) {
    const std::span<const double> one(values.data() + g.offsets[k], g.sizes[k]);
    set_values(g.vrs[k], one);
    if (const auto a = written_.find(g.vrs[k]); a != written_.end())
      a->second.assign(one.begin(), one.end());
  }
}

void FmuInstance::set_real(std::span<const unsigned> vr, std::span<const double> v) {
  check_size("set_real", v.size(), vr.size());
  check_references(vr, references_.real, ValueType::real);
  ready(v3() ? "fmi3SetFloat64" : "fmi2SetReal");
  if (vr.empty()) return;
  if (!v3()) return check("fmi2SetReal", fn_.set_real(component_, vr.data(), vr.size(), v.data()));
  if (all_of_type(vr, CType::float64))
    return check("fmi3SetFloat64", static_cast<fmi2Status>(fn3_.set_float64(
                                       component_, vr.data(), vr.size(), v.data(), v.size())));
  set_numbers(vr, v);
}

void FmuInstance::get_real(std::span<const unsigned> vr, std::span<double> v) {
  check_size("get_real", v.size(), vr.size());
  check_references(vr, references_.real, ValueType::real);
  ready(v3() ? "fmi3GetFloat64" : "fmi2GetReal");
  if (vr.empty()) return;
  if (!v3()) return check("fmi2GetReal", fn_.get_real(component_, vr.data(), vr.size(), v.data()));
  if (all_of_type(vr, CType::float64))
    return check("fmi3GetFloat64", static_cast<fmi2Status>(fn3_.get_float64(
                                       component_, vr.data(), vr.size(), v.data(), v.size())));
  get_numbers(vr, v);
}

void FmuInstance::set_integer(std::span<const unsigned> vr, std::span<const std::int64_t> v) {
  check_size("set_integer", v.size(), vr.size());
  check_references(vr, references_.integer, ValueType::integer);
  ready(v3() ? "fmi3SetInt32" : "fmi2SetInteger");
  if (vr.empty()) return;
  if (v3()) {
    const std::vector<double> values(v.begin(), v.end());
    return set_numbers(vr, values);
  }
  std::vector<fmi2Integer> values;
  for (const std::int64_t x : v) values.push_back(clamped<fmi2Integer>(static_cast<double>(x)));
  check("fmi2SetInteger", fn_.set_integer(component_, vr.data(), vr.size(), values.data()));
}

void FmuInstance::get_integer(std::span<const unsigned> vr, std::span<std::int64_t> v) {
  check_size("get_integer", v.size(), vr.size());
  check_references(vr, references_.integer, ValueType::integer);
  ready(v3() ? "fmi3GetInt32" : "fmi2GetInteger");
  if (vr.empty()) return;
  if (v3()) {
    std::vector<double> values(vr.size());
    get_numbers(vr, values);
    // (clamped: a UInt64 beyond what an int64 holds)
    for (std::size_t i = 0; i < vr.size(); ++i) v[i] = clamped<std::int64_t>(values[i]);
    return;
  }
  std::vector<fmi2Integer> values(vr.size(), 0);
  check("fmi2GetInteger", fn_.get_integer(component_, vr.data(), vr.size(), values.data()));
  std::copy(values.begin(), values.end(), v.begin());
}

void FmuInstance::set_boolean(std::span<const unsigned> vr, std::span<const bool> v) {
  check_size("set_boolean", v.size(), vr.size());
  check_references(vr, references_.boolean, ValueType::boolean);
  ready(v3() ? "fmi3SetBoolean" : "fmi2SetBoolean");
  if (vr.empty()) return;
  if (v3() && all_of_type(vr, CType::boolean))
    return check("fmi3SetBoolean", static_cast<fmi2Status>(fn3_.set_boolean(
                                       component_, vr.data(), vr.size(), v.data(), v.size())));
  if (v3()) {
    const std::vector<double> values(v.begin(), v.end());
    return set_numbers(vr, values);
  }
  std::vector<fmi2Boolean> values(v.begin(), v.end());
  check("fmi2SetBoolean", fn_.set_boolean(component_, vr.data(), vr.size(), values.data()));
}

void FmuInstance::get_boolean(std::span<const unsigned> vr, std::span<bool> v) {
  check_size("get_boolean", v.size(), vr.size());
  check_references(vr, references_.boolean, ValueType::boolean);
  ready(v3() ? "fmi3GetBoolean" : "fmi2GetBoolean");
  if (vr.empty()) return;
  if (v3() && all_of_type(vr, CType::boolean))
    return check("fmi3GetBoolean", static_cast<fmi2Status>(fn3_.get_boolean(
                                       component_, vr.data(), vr.size(), v.data(), v.size())));
  if (v3()) {
    std::vector<double> values(vr.size());
    get_numbers(vr, values);
    for (std::size_t i = 0; i < vr.size(); ++i) v[i] = values[i] != 0;
    return;
  }
  std::vector<fmi2Boolean> values(vr.size(), fmi2False);
  check("fmi2GetBoolean", fn_.get_boolean(component_, vr.data(), vr.size(), values.data()));
  for (std::size_t i = 0; i < values.size(); ++i) v[i] = values[i] != fmi2False;
}

void FmuInstance::set_string(std::span<const unsigned> vr, std::span<const std::string> v) {
  check_size("set_string", v.size(), vr.size());
  check_references(vr, references_.string, ValueType::string);
  ready(v3() ? "fmi3SetString" : "fmi2SetString");
  if (vr.empty()) return;
  std::vector<const char*> values;
  for (const std::string& text : v) values.push_back(text.c_str());
  if (v3())
    return check("fmi3SetString",
                 static_cast<fmi2Status>(fn3_.set_string(component_, vr.data(), vr.size(),
                                                         values.data(), values.size())));
  check("fmi2SetString", fn_.set_string(component_, vr.data(), vr.size(), values.data()));
}

namespace {
constexpr std::size_t max_read_text_bytes = 4097;
}

std::vector<std::string> FmuInstance::get_string(std::span<const unsigned> vr) {
  check_references(vr, references_.string, ValueType::string);
  const char* function = v3() ? "fmi3GetString" : "fmi2GetString";
  ready(function);
  if (vr.empty()) return {};
  std::vector<const char*> values(vr.size(), nullptr);
  if (v3())
    check(function, static_cast<fmi2Status>(fn3_.get_string(component_, vr.data(), vr.size(),
                                                            values.data(), values.size())));
  else
    check(function, fn_.get_string(component_, vr.data(), vr.size(), values.data()));
  std::vector<std::string> texts;
  for (const char* text : values) {
    if (!text) throw FmuCallError(function, fmi2Error, time_, log_lines(), "it gave a null String");
    // (bounded: a text longer than any kausal takes is refused by its length, not read whole)
    texts.emplace_back(text, ::strnlen(text, max_read_text_bytes));
  }
  return texts;
}

void FmuInstance::set_time(double t) {
  need(fn3_.set_time, fn_.set_time, "SetTime", "model exchange only");
  time_ = t;
  KAUSAL_FMI_CALL("fmi2SetTime", "fmi3SetTime", set_time, set_time, t);
}

void FmuInstance::set_continuous_states(std::span<const double> x) {
  need(fn3_.set_continuous_states, fn_.set_continuous_states, "SetContinuousStates",
       "model exchange only");
  check_size("set_continuous_states", x.size(), states_);
  if (x.empty()) return;
  KAUSAL_FMI_CALL("fmi2SetContinuousStates", "fmi3SetContinuousStates", set_continuous_states,
                  set_continuous_states, x.data(), x.size());
}

void FmuInstance::get_continuous_states(std::span<double> x) {
  need(fn3_.get_continuous_states, fn_.get_continuous_states, "GetContinuousStates",
       "model exchange only");
  check_size("get_continuous_states", x.size(), states_);
  if (x.empty()) return;
  KAUSAL_FMI_CALL("fmi2GetContinuousStates", "fmi3GetContinuousStates", get_continuous_states,
                  get_continuous_states, x.data(), x.size());
}

void FmuInstance::get_derivatives(std::span<double> dx) {
  need(fn3_.get_derivatives, fn_.get_derivatives, "GetDerivatives", "model exchange only");
  check_size("get_derivatives", dx.size(), states_);
  if (dx.empty()) return;
  KAUSAL_FMI_CALL("fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives", get_derivatives,
                  get_derivatives, dx.data(), dx.size());
}

void FmuInstance::get_event_indicators(std::span<double> g) {
  need(fn3_.get_event_indicators, fn_.get_event_indicators, "GetEventIndicators",
       "model exchange only");
  check_size("get_event_indicators", g.size(), event_indicators_);
  if (g.empty()) return;
  KAUSAL_FMI_CALL("fmi2GetEventIndicators", "fmi3GetEventIndicators", get_event_indicators,
                  get_event_indicators, g.data(), g.size());
}

void FmuInstance::enter_event_mode() {
  need(fn3_.enter_event_mode, fn_.enter_event_mode, "EnterEventMode", "model exchange only");
  if (kind_ == FmuKind::co_simulation && !event_mode_)
    throw std::logic_error(fmu_name_ +
                           ": event mode of a co-simulation FMU instantiated "
                           "without it");
  KAUSAL_FMI_CALL("fmi2EnterEventMode", "fmi3EnterEventMode", enter_event_mode, enter_event_mode);
}

FmuInstance::EventUpdate FmuInstance::update_discrete_states() {
  need(fn3_.update_discrete_states, fn_.new_discrete_states, "UpdateDiscreteStates",
       "model exchange, or co-simulation with event mode");
  if (v3()) {
    ready("fmi3UpdateDiscreteStates");
    fmi3Boolean again = false, stop = false, nominals = false, values = false, defined = false;
    fmi3Float64 next = 0;
    check("fmi3UpdateDiscreteStates",
          static_cast<fmi2Status>(fn3_.update_discrete_states(component_, &again, &stop, &nominals,
                                                              &values, &defined, &next)));
    return {again, stop, defined ? std::optional<double>(next) : std::nullopt};
  }
  ready("fmi2NewDiscreteStates");
  fmi2EventInfo info{};
  check("fmi2NewDiscreteStates", fn_.new_discrete_states(component_, &info));
  return {info.newDiscreteStatesNeeded != fmi2False, info.terminateSimulation != fmi2False,
          info.nextEventTimeDefined ? std::optional<double>(info.nextEventTime) : std::nullopt};
}

void FmuInstance::enter_continuous_time_mode() {
  need(fn3_.enter_continuous_time_mode, fn_.enter_continuous_time_mode, "EnterContinuousTimeMode",
       "model exchange only");
  KAUSAL_FMI_CALL("fmi2EnterContinuousTimeMode", "fmi3EnterContinuousTimeMode",
                  enter_continuous_time_mode, enter_continuous_time_mode);
}

FmuInstance::StepEnd FmuInstance::completed_integrator_step(bool no_set_state_prior) {
  need(fn3_.completed_integrator_step, fn_.completed_integrator_step, "CompletedIntegratorStep",
       "model exchange only");
  if (v3()) {
    ready("fmi3CompletedIntegratorStep");
    fmi3Boolean enter = false, stop = false;
    check("fmi3CompletedIntegratorStep", static_cast<fmi2Status>(fn3_.completed_integrator_step(
                                             component_, no_set_state_prior, &enter, &stop)));
    return {enter, stop};
  }
  ready("fmi2CompletedIntegratorStep");
  fmi2Boolean enter = fmi2False, stop = fmi2False;
  check("fmi2CompletedIntegratorStep",
        fn_.completed_integrator_step(component_, no_set_state_prior ? fmi2True : fmi2False, &enter,
                                      &stop));
  return {enter != fmi2False, stop != fmi2False};
}

void FmuInstance::directional_derivative(std::span<const unsigned> unknowns,
                                         std::span<const unsigned> knowns,
                                         std::span<const double> seed, std::span<double> out) {
  need(fn3_.get_directional_derivative, fn_.get_directional_derivative, "GetDirectionalDerivative",
       "providesDirectionalDerivative is false");
  check_size("directional_derivative (seed)", seed.size(), knowns.size());
  check_size("directional_derivative (out)", out.size(), unknowns.size());
  check_references(unknowns, references_.real, ValueType::real);
  check_references(knowns, references_.real, ValueType::real);
  if (unknowns.empty()) return;
  if (v3()) {
    // Arrays whole: the seed is 0 on the elements not asked about.
    const Gathered u = gather(unknowns), k = gather(knowns);
    std::vector<double> seeds(k.total, 0.0), sensitivities(u.total);
    for (std::size_t i = 0; i < knowns.size(); ++i) seeds[k.position[i]] = seed[i];
    ready("fmi3GetDirectionalDerivative");
    check("fmi3GetDirectionalDerivative",
          static_cast<fmi2Status>(fn3_.get_directional_derivative(
              component_, u.vrs.data(), u.vrs.size(), k.vrs.data(), k.vrs.size(), seeds.data(),
              seeds.size(), sensitivities.data(), sensitivities.size())));
    for (std::size_t i = 0; i < unknowns.size(); ++i) out[i] = sensitivities[u.position[i]];
    return;
  }
  ready("fmi2GetDirectionalDerivative");
  check("fmi2GetDirectionalDerivative",
        fn_.get_directional_derivative(component_, unknowns.data(), unknowns.size(), knowns.data(),
                                       knowns.size(), seed.data(), out.data()));
}

FmuInstance::StepOutcome FmuInstance::do_step(double t, double h, bool no_set_state_prior) {
  need(fn3_.do_step, fn_.do_step, "DoStep", "co-simulation only");
  time_ = t;
  StepOutcome out;
  out.reached = t + h;
  if (v3()) {
    ready("fmi3DoStep");
    fmi3Boolean event = false, stop = false, early = false;
    fmi3Float64 reached = t;
    const auto status = static_cast<fmi2Status>(
        fn3_.do_step(component_, t, h, no_set_state_prior, &event, &stop, &early, &reached));
    if (intermediate_failure_) std::rethrow_exception(std::exchange(intermediate_failure_, {}));
    if (stop && (status == fmi2OK || status == fmi2Warning || status == fmi2Discard)) {
      // lastSuccessfulTime says how far the step got; without a finite one, nowhere.
      time_ = std::isfinite(reached) ? reached : t;
      out.ended = out.reached = time_;
      return out;
    }
    check("fmi3DoStep", status, "the FMU refused the step");
    if (event_mode_) {
      out.event = event;
      // An early return stops within the step; anything else is the FMU's bug.
      if (early && !(std::isfinite(reached) && reached > t && reached < t + h))
        throw FmuCallError("fmi3DoStep", fmi2Error, t, log_lines(),
                           "it returned early at " + std::to_string(reached) +
                               ", outside the step (" + std::to_string(t) + ", " +
                               std::to_string(t + h) + ")");
      if (early) out.reached = reached;
    }
  } else {
    ready("fmi2DoStep");
    const fmi2Status status =
        fn_.do_step(component_, t, h, no_set_state_prior ? fmi2True : fmi2False);
    if (status == fmi2Discard)
      if (const auto ended = ended_at()) {
        time_ = *ended;
        out.ended = out.reached = time_;
        return out;
      }
    check("fmi2DoStep", status, "the FMU refused the step");
  }
  time_ = out.reached;
  return out;
}

void FmuInstance::set_real_input_derivatives(std::span<const unsigned> vr,
                                             std::span<const int> order,
                                             std::span<const double> v) {
  need(static_cast<void*>(nullptr), fn_.set_real_input_derivatives, "SetRealInputDerivatives",
       "canInterpolateInputs, FMI 2.0 co-simulation");
  check_size("set_real_input_derivatives", v.size(), vr.size());
  check_size("set_real_input_derivatives", order.size(), vr.size());
  check_references(vr, references_.real, ValueType::real);
  ready("fmi2SetRealInputDerivatives");
  if (vr.empty()) return;
  static_assert(sizeof(fmi2Integer) == sizeof(int));
  check("fmi2SetRealInputDerivatives",
        fn_.set_real_input_derivatives(component_, vr.data(), vr.size(), order.data(), v.data()));
}

void FmuInstance::on_intermediate_update(std::function<void(double)> inputs) {
  set_intermediate_inputs_ = std::move(inputs);
}

void FmuInstance::intermediate_update(double t, bool set_requested) noexcept {
  if (!set_requested || !set_intermediate_inputs_ || intermediate_failure_) return;
  try {
    set_intermediate_inputs_(t);
  } catch (...) {
    intermediate_failure_ = std::current_exception();
  }
}

void FmuInstance::enter_step_mode() {
  if (!event_mode_) throw std::logic_error(fmu_name_ + ": fmi3EnterStepMode without event mode");
  ready("fmi3EnterStepMode");
  check("fmi3EnterStepMode", static_cast<fmi2Status>(fn3_.enter_step_mode(component_)));
}

void FmuInstance::activate_clocks(std::span<const unsigned> vr) {
  need(fn3_.set_clock, static_cast<void*>(nullptr), "SetClock", "the FMU has no Clocks");
  check_clocks(vr);
  if (vr.empty()) return;
  const auto active = std::make_unique<fmi3Clock[]>(vr.size());
  for (std::size_t k = 0; k < vr.size(); ++k) active[k] = true;
  ready("fmi3SetClock");
  check("fmi3SetClock",
        static_cast<fmi2Status>(fn3_.set_clock(component_, vr.data(), vr.size(), active.get())));
}

std::vector<FmuInstance::ClockInterval> FmuInstance::clock_intervals(std::span<const unsigned> vr) {
  need(fn3_.get_interval_decimal, static_cast<void*>(nullptr), "GetIntervalDecimal",
       "the FMU has no Clocks");
  check_clocks(vr);
  std::vector<ClockInterval> out(vr.size());
  if (vr.empty()) return out;
  std::vector<double> intervals(vr.size());
  std::vector<fmi3IntervalQualifier> qualifiers(vr.size(), fmi3IntervalUnchanged);
  ready("fmi3GetIntervalDecimal");
  check("fmi3GetIntervalDecimal",
        static_cast<fmi2Status>(fn3_.get_interval_decimal(component_, vr.data(), vr.size(),
                                                          intervals.data(), qualifiers.data())));
  for (std::size_t k = 0; k < vr.size(); ++k) {
    out[k].interval = intervals[k];
    out[k].qualifier = qualifiers[k] == fmi3IntervalChanged       ? IntervalQualifier::changed
                       : qualifiers[k] == fmi3IntervalNotYetKnown ? IntervalQualifier::not_yet_known
                                                                  : IntervalQualifier::unchanged;
    if (out[k].qualifier == IntervalQualifier::changed &&
        !(std::isfinite(intervals[k]) && intervals[k] >= 0))
      throw FmuCallError("fmi3GetIntervalDecimal", fmi2Error, time_, log_lines(),
                         "the interval of Clock " + std::to_string(vr[k]) + " is " +
                             std::to_string(intervals[k]) + ", not a number >= 0");
  }
  return out;
}

std::vector<double> FmuInstance::clock_shifts(std::span<const unsigned> vr) {
  need(fn3_.get_shift_decimal, static_cast<void*>(nullptr), "GetShiftDecimal",
       "the FMU has no Clocks");
  check_clocks(vr);
  std::vector<double> shifts(vr.size());
  if (vr.empty()) return shifts;
  ready("fmi3GetShiftDecimal");
  check("fmi3GetShiftDecimal", static_cast<fmi2Status>(fn3_.get_shift_decimal(
                                   component_, vr.data(), vr.size(), shifts.data())));
  for (std::size_t k = 0; k < vr.size(); ++k)
    if (!(std::isfinite(shifts[k]) && shifts[k] >= 0))
      throw FmuCallError("fmi3GetShiftDecimal", fmi2Error, time_, log_lines(),
                         "the shift of Clock " + std::to_string(vr[k]) + " is " +
                             std::to_string(shifts[k]) + ", not a number >= 0");
  return shifts;
}

void FmuInstance::set_clock_intervals(std::span<const unsigned> vr,
                                      std::span<const double> intervals) {
  need(fn3_.set_interval_decimal, static_cast<void*>(nullptr), "SetIntervalDecimal",
       "the FMU has no Clocks");
  check_clocks(vr);
  check_size("set_clock_intervals", intervals.size(), vr.size());
  if (vr.empty()) return;
  ready("fmi3SetIntervalDecimal");
  check("fmi3SetIntervalDecimal", static_cast<fmi2Status>(fn3_.set_interval_decimal(
                                      component_, vr.data(), vr.size(), intervals.data())));
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

void FmuInstance::free_state(void** state) {
  if (!*state || health_ == Health::fatal || library_->fatal()) return;
  if (v3())
    check("fmi3FreeFMUState", static_cast<fmi2Status>(fn3_.free_fmu_state(component_, state)));
  else
    check("fmi2FreeFMUstate", fn_.free_fmu_state(component_, state));
}

std::vector<std::uint8_t> FmuInstance::save_state() {
  need(fn3_.get_fmu_state, fn_.get_fmu_state, "GetFMUstate", "canGetAndSetFMUstate is false");
  need(fn3_.serialized_fmu_state_size, fn_.serialized_fmu_state_size, "SerializedFMUstateSize",
       "canSerializeFMUstate is false");
  const char* get = v3() ? "fmi3GetFMUState" : "fmi2GetFMUstate";
  ready(get);
  void* state = nullptr;  // null: the FMU allocates a new one
  check(get, v3() ? static_cast<fmi2Status>(fn3_.get_fmu_state(component_, &state))
                  : fn_.get_fmu_state(component_, &state));
  std::vector<std::uint8_t> bytes;
  try {
    std::size_t size = 0;
    if (v3())
      check("fmi3SerializedFMUStateSize",
            static_cast<fmi2Status>(fn3_.serialized_fmu_state_size(component_, state, &size)));
    else
      check("fmi2SerializedFMUstateSize", fn_.serialized_fmu_state_size(component_, state, &size));
    if (size > max_state_bytes)
      throw SimulationError(fmu_name_ + ": the FMU's serialized state size is " +
                            std::to_string(size) + " bytes, more than kausal keeps (" +
                            std::to_string(max_state_bytes >> 20) + " MiB)");
    bytes.resize(size);
    if (v3())
      check("fmi3SerializeFMUState", static_cast<fmi2Status>(fn3_.serialize_fmu_state(
                                         component_, state, bytes.data(), bytes.size())));
    else
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
  need(fn3_.set_fmu_state, fn_.set_fmu_state, "SetFMUstate", "canGetAndSetFMUstate is false");
  need(fn3_.deserialize_fmu_state, fn_.deserialize_fmu_state, "DeSerializeFMUstate",
       "canSerializeFMUstate is false");
  const char* deserialize = v3() ? "fmi3DeserializeFMUState" : "fmi2DeSerializeFMUstate";
  ready(deserialize, true);
  void* state = nullptr;
  check(deserialize, v3() ? static_cast<fmi2Status>(fn3_.deserialize_fmu_state(
                                component_, bytes.data(), bytes.size(), &state))
                          : fn_.deserialize_fmu_state(
                                component_, reinterpret_cast<const fmi2Byte*>(bytes.data()),
                                bytes.size(), &state));
  try {
    if (v3())
      check("fmi3SetFMUState", static_cast<fmi2Status>(fn3_.set_fmu_state(component_, state)));
    else
      check("fmi2SetFMUstate", fn_.set_fmu_state(component_, state));
  } catch (...) {
    try {
      free_state(&state);
    } catch (const FmuCallError&) {
    }
    throw;
  }
  health_ = Health::ok;  // the standard's way out of Error
  free_state(&state);
}

#undef KAUSAL_FMI_CALL

}  // namespace kausal::fmu

#pragma once
// One instance of an FMU, FMI 2.0 or 3.0, every call checked: one interface for both, so the
// model adapter (fmu_model.cpp) knows no version. OK and Warning pass (a warning was logged);
// anything else throws FmuCallError with the FMU's recent log. The instance follows the
// standards' rules after a failure (FMI 2.0 §2.1.3, FMI 3.0 §2.2.3): after Error only restoring
// a saved state, reset or freeing may follow; after Fatal nothing may be called, not even
// freeing the instance, for any instance of the same library.
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "system/fmu/fmi2.h"
#include "system/fmu/fmi3.h"
#include "system/fmu/fmu_library.hpp"
#include "system/fmu/model_description.hpp"

namespace kausal::fmu {

// status: FMI 3.0's statuses are FMI 2.0's first five, by value.
struct LogLine {
  fmi2Status status;
  std::string category, message;
  FmiVersion version = FmiVersion::v2;
};
// "[fmi2Warning] logStatusWarning: message" ("[fmi3Warning] ..." from an FMI 3.0 FMU)
std::string to_string(const LogLine& line);

using LogSink = std::function<void(const LogLine&)>;  // the component's log (may be empty)

inline constexpr std::size_t kept_log_lines = 20;
inline constexpr std::size_t max_log_message = 4096;  // longer messages are cut
inline constexpr std::size_t max_state_bytes = std::size_t{1} << 30;

class FmuInstance {
 public:
  // fmi2Instantiate with md's GUID, resourceLocation "file://<absolute unpacked>/resources"
  // (percent-encoded), not visible, logging off, and a logger that keeps the last
  // kept_log_lines lines and passes each to sink; FMI 3.0: fmi3InstantiateModelExchange or
  // fmi3InstantiateCoSimulation with the instantiationToken and the resource path
  // "<absolute unpacked>/resources/", with event mode and early return where it has event mode
  // (hasEventMode), and with the intermediate update callback where it provides intermediate
  // update and has intermediate inputs (intermediate_inputs()).
  // InputError (with the log) if it returns NULL or if the FMU may be instantiated only once and
  // `library` already has an instance.
  FmuInstance(std::shared_ptr<const FmuLibrary> library, const ModelDescription& md, FmuKind kind,
              const std::string& instance_name, const std::filesystem::path& unpacked,
              LogSink sink);
  ~FmuInstance();  // fmi2FreeInstance (never throws; not called after fmi2Fatal)
  FmuInstance(const FmuInstance&) = delete;
  FmuInstance& operator=(const FmuInstance&) = delete;

  // FMI 3.0 passes these to fmi3EnterInitializationMode; call setup_experiment first.
  void setup_experiment(double start_time, std::optional<double> stop_time,
                        std::optional<double> tolerance);
  void enter_initialization_mode();
  // FMI 3.0 model exchange: InputError when the binary's numbers of continuous states and
  // event indicators are not the description's.
  void exit_initialization_mode();
  void terminate();
  void reset();  // fmi2Reset: back to instantiated, also after fmi2Error

  // Value references are checked against the description (std::invalid_argument for one that
  // is not a variable of that type, or spans of different sizes): a bad one is our bug, and
  // an FMU may index an array with it. Real: FMI 3.0's Float32 and Float64; integer: its
  // integer types and Enumeration (values beyond a type's range are clamped to it).
  void set_real(std::span<const unsigned> vr, std::span<const double> v);
  void get_real(std::span<const unsigned> vr, std::span<double> v);
  void set_integer(std::span<const unsigned> vr, std::span<const std::int64_t> v);
  void get_integer(std::span<const unsigned> vr, std::span<std::int64_t> v);
  void set_boolean(std::span<const unsigned> vr, std::span<const bool> v);
  void get_boolean(std::span<const unsigned> vr, std::span<bool> v);
  void set_string(std::span<const unsigned> vr, std::span<const std::string> v);
  // Copies of the FMU's texts (it owns them only until its next call); FmuCallError for a null
  // one.
  std::vector<std::string> get_string(std::span<const unsigned> vr);

  // model exchange; the spans must have the description's number of states / event indicators
  void set_time(double t);
  void set_continuous_states(std::span<const double> x);
  void get_continuous_states(std::span<double> x);
  void get_derivatives(std::span<double> dx);
  void get_event_indicators(std::span<double> g);
  void enter_event_mode();
  // What an event update (fmi2NewDiscreteStates, fmi3UpdateDiscreteStates) reports.
  struct EventUpdate {
    bool again = false;  // newDiscreteStatesNeeded, discreteStatesNeedUpdate
    bool terminate = false;
    std::optional<double> next_event_time;
  };
  EventUpdate update_discrete_states();
  void enter_continuous_time_mode();
  struct StepEnd {
    bool enter_event_mode = false, terminate = false;
  };
  StepEnd completed_integrator_step(bool no_set_state_prior);
  // Needs providesDirectionalDerivative (std::logic_error otherwise).
  void directional_derivative(std::span<const unsigned> unknowns, std::span<const unsigned> knowns,
                              std::span<const double> seed, std::span<double> out);

  // co-simulation. `ended`: the FMU asks to end the simulation, having reached that time (FMI
  // 2.0: fmi2Discard with fmi2Terminated and fmi2LastSuccessfulTime; FMI 3.0:
  // terminateSimulation with lastSuccessfulTime; the step's start when it cannot say). A
  // Discard without that is an error ("the FMU refused the step"). With event mode (FMI 3.0,
  // hasEventMode) the FMU may ask for event handling (`event`) and return early: `reached` is
  // where it stopped, t + h otherwise. no_set_state_prior false by default: kausal may roll
  // back to a saved state.
  struct StepOutcome {
    std::optional<double> ended;
    bool event = false;
    double reached = 0;
  };
  StepOutcome do_step(double t, double h, bool no_set_state_prior = false);
  // FMI 2.0 co-simulation with canInterpolateInputs: the derivatives of real inputs at the
  // current communication point (fmi2SetRealInputDerivatives; order[i] ≥ 1).
  void set_real_input_derivatives(std::span<const unsigned> vr, std::span<const int> order,
                                  std::span<const double> v);
  // FMI 3.0 co-simulation: the real inputs kausal sets within fmi3DoStep, by kausal's value
  // references (intermediateUpdate="true"; providesIntermediateUpdate), and what sets them:
  // do_step calls `inputs(t)` at each intermediate time at which the FMU asks for its
  // intermediate inputs (the inputs are held between communication points without it). An
  // exception it throws is kept and thrown once fmi3DoStep has returned.
  const std::vector<unsigned>& intermediate_inputs() const { return intermediate_inputs_; }
  void on_intermediate_update(std::function<void(double)> inputs);
  // Whether it was instantiated with event mode and early return (FMI 3.0 co-simulation with
  // hasEventMode): then enter_event_mode, update_discrete_states and enter_step_mode serve it.
  bool event_mode() const { return event_mode_; }
  void enter_step_mode();

  // FMI 3.0 clocks (ModelDescription::clocks, by value reference), in event mode: activate
  // input clocks (fmi3SetClock), and their intervals and shifts.
  void activate_clocks(std::span<const unsigned> vr);
  enum class IntervalQualifier { not_yet_known, unchanged, changed };
  struct ClockInterval {
    double interval = 0;
    IntervalQualifier qualifier = IntervalQualifier::unchanged;
  };
  std::vector<ClockInterval> clock_intervals(std::span<const unsigned> vr);
  std::vector<double> clock_shifts(std::span<const unsigned> vr);
  void set_clock_intervals(std::span<const unsigned> vr, std::span<const double> intervals);

  // Need canGetAndSetFMUstate and canSerializeFMUstate (std::logic_error otherwise).
  // save: get + serialize + free; restore: deserialize + set + free (allowed after fmi2Error,
  // and clears it).
  std::vector<std::uint8_t> save_state();
  void restore_state(std::span<const std::uint8_t> bytes);

  double time() const { return time_; }  // the last time set or stepped to, for messages
  const std::deque<LogLine>& recent_log() const { return log_; }
  const FmuLibrary& library() const { return *library_; }
  FmuKind kind() const { return kind_; }

  // The logger's way in (a C callback); not for other callers.
  void log(fmi2Status status, const char* category, const char* message);
  // The intermediate update callback's way in; not for other callers. Never throws.
  void intermediate_update(double t, bool set_requested) noexcept;

 private:
  enum class Health { ok, error, fatal };
  struct ValueReferences {
    std::unordered_set<unsigned> real, integer, boolean, string;
  };
  // An element of an FMI 3.0 array (Variable::array_of): kausal's reference of it stands for
  // element `index` of the FMU's array `vr` of `size` elements.
  struct Element {
    unsigned vr = 0;
    std::size_t index = 0, size = 1;
  };
  // References turned into the FMU's: each array once, whole. Value i of a call is value
  // position[i] of the FMU's values, whose vrs[k] start at offsets[k].
  struct Gathered {
    std::vector<unsigned> vrs;
    std::vector<std::size_t> offsets, sizes, position;
    std::size_t total = 0;
  };
  bool v3() const { return version_ == FmiVersion::v3; }
  void check_sizes_3() const;
  std::optional<double> ended_at();
  Gathered gather(std::span<const unsigned> refs) const;
  // FMI 3.0: the n values of one variable of any numeric type, as doubles (integers clamped to
  // their type).
  std::vector<double> get_values(unsigned vr, std::size_t n);
  void set_values(unsigned vr, std::span<const double> values);
  // FMI 3.0: values by kausal's references, array elements among them. A write sends every
  // element of an array it touches: the others as last written (at first their start values).
  void get_numbers(std::span<const unsigned> refs, std::span<double> out);
  void set_numbers(std::span<const unsigned> refs, std::span<const double> in);
  // Whether every reference is a scalar of that type (one batched call serves them).
  bool all_of_type(std::span<const unsigned> vr, CType type) const;

  void ready(const char* function, bool allowed_after_error = false) const;
  void check(const char* function, fmi2Status status, const std::string& why = "");
  // std::logic_error unless the FMU has the function in its version (`function` without its
  // fmi2/fmi3 prefix).
  template <typename Function3, typename Function2>
  void need(Function3* f3, Function2* f2, const char* function, const char* capability) const;
  void check_references(std::span<const unsigned> vr, const std::unordered_set<unsigned>& known,
                        ValueType type) const;
  void check_size(const char* function, std::size_t got, std::size_t expected) const;
  void check_clocks(std::span<const unsigned> vr) const;
  std::vector<std::string> log_lines() const;
  void free_state(void** state);

  std::shared_ptr<const FmuLibrary> library_;
  const Fmi2Functions& fn_;
  const Fmi3Functions& fn3_;
  FmuKind kind_;
  FmiVersion version_;
  std::string fmu_name_, instance_name_, guid_, resource_location_;
  std::size_t states_, event_indicators_;
  ValueReferences references_;
  std::unordered_map<unsigned, CType> ctypes_;      // FMI 3.0: by value reference (kausal's, FMU's)
  std::unordered_map<unsigned, Element> elements_;  // by kausal's reference
  std::unordered_map<unsigned, std::vector<double>> written_;  // by array: its last values
  std::unordered_map<unsigned, std::vector<double>> starts_;   // by array: its start values
  LogSink sink_;
  std::deque<LogLine> log_;
  fmi2CallbackFunctions callbacks_{};  // the FMU may keep a pointer to it
  void* component_ = nullptr;          // fmi2Component, fmi3Instance
  Health health_ = Health::ok;
  bool event_mode_ = false;
  std::vector<unsigned> intermediate_inputs_;
  std::function<void(double)> set_intermediate_inputs_;
  std::exception_ptr intermediate_failure_;  // from set_intermediate_inputs_, within a step
  std::unordered_set<unsigned> clocks_;      // the description's clocks' value references
  double time_ = 0;
  std::optional<double> stop_time_, tolerance_;  // for fmi3EnterInitializationMode
};

}  // namespace kausal::fmu

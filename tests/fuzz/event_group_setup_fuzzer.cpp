// libFuzzer target (make sanitize; make test runs it for a bounded time under ASan + UBSan): an
// event group's set-up as it arrives from outside (IDL EventGroup::set_up, converted), with
// any model name, parameters, placement, settings and cut: checked (des::build_model,
// des::check_setup) and a group built and continued from the cut, as kausal-event-group
// does. Bad input must end as the declared errors of a set-up (ProtocolError, ModelError);
// anything else — a crash, a sanitizer report, an allocation beyond the limit, another
// exception, a hang — is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "integrator/events/event_group.hpp"
#include "integrator/events/event_recorder.hpp"
#include "integrator/events/group_setup.hpp"

namespace {

using namespace kausal::des;

const char* const kModels[] = {"phold", "queueing-network", "three-components"};
const char* const kParameters[] = {"components", "population", "remote",
                                   "mean",       "lookahead",  "seed",
                                   "servers",    "jobs",       "minimum_service"};

// A count that is mostly small: the placement and the cut of a real model.
std::size_t small_count(FuzzedDataProvider& in, std::size_t most) {
  return in.ConsumeIntegralInRange<std::size_t>(0, most);
}

double any_time(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(0, 100)
                          : in.ConsumeFloatingPoint<double>();
}

Event any_event(FuzzedDataProvider& in, std::size_t components) {
  Event e;
  e.key.time = any_time(in);
  e.key.source = in.ConsumeBool() ? in.ConsumeIntegralInRange<ComponentId>(0, components)
                                  : in.ConsumeIntegral<ComponentId>();
  e.key.serial = in.ConsumeIntegral<std::uint64_t>();
  e.destination = in.ConsumeBool() ? in.ConsumeIntegralInRange<ComponentId>(0, components)
                                   : in.ConsumeIntegral<ComponentId>();
  e.kind = in.ConsumeIntegralInRange<std::uint32_t>(0, 4);
  e.value = in.ConsumeFloatingPoint<double>();
  return e;
}

GroupSetup any_setup(FuzzedDataProvider& in) {
  GroupSetup s;
  const std::size_t model = small_count(in, std::size(kModels));
  s.model = model < std::size(kModels) ? kModels[model] : in.ConsumeRandomLengthString(16);
  for (std::size_t k = small_count(in, 4); k > 0; --k) {
    const std::size_t name = small_count(in, std::size(kParameters));
    s.parameters[name < std::size(kParameters) ? kParameters[name]
                                               : in.ConsumeRandomLengthString(12)] =
        in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 64)
                         : in.ConsumeFloatingPoint<double>();
  }
  const std::size_t components = small_count(in, 80);
  s.group =
      in.ConsumeBool() ? in.ConsumeIntegralInRange<GroupId>(0, 4) : in.ConsumeIntegral<GroupId>();
  for (std::size_t c = 0; c < components; ++c)
    s.owner.push_back(in.ConsumeBool() ? in.ConsumeIntegralInRange<GroupId>(0, 3)
                                       : in.ConsumeIntegral<GroupId>());
  GroupSettings& g = s.settings;
  g.sync = in.ConsumeBool() ? GroupSync::optimistic : GroupSync::conservative;
  g.end = any_time(in);
  g.start = in.ConsumeBool() ? 0.0 : any_time(in);
  g.window = in.ConsumeBool() ? g.window : any_time(in);
  g.saving = in.ConsumeBool() ? StateSaving::full : StateSaving::incremental;
  g.cancellation = in.ConsumeBool() ? Cancellation::aggressive : Cancellation::lazy;
  g.batch = in.ConsumeIntegralInRange<std::uint32_t>(0, 256);
  g.gvt_interval = in.ConsumeIntegralInRange<std::uint64_t>(0, 4096);
  g.rollback_check = in.ConsumeBool();
  for (std::size_t k = small_count(in, 16); k > 0; --k) {
    ComponentCutPart p;
    p.component = in.ConsumeBool() ? in.ConsumeIntegralInRange<ComponentId>(0, components)
                                   : in.ConsumeIntegral<ComponentId>();
    for (std::size_t v = small_count(in, 8); v > 0; --v)
      p.state.values.push_back(in.ConsumeFloatingPoint<double>());
    p.state.sent = in.ConsumeIntegral<std::uint64_t>();
    p.digest.length = in.ConsumeIntegral<std::uint64_t>();
    p.digest.pending = in.ConsumeRandomLengthString(80);
    s.from.push_back(std::move(p));
  }
  for (std::size_t k = small_count(in, 16); k > 0; --k)
    s.pending.push_back(any_event(in, components));
  return s;
}

// A transport that takes nothing anywhere: the group is built and continued, never run.
class Nowhere final : public GroupTransport {
 public:
  void send(GroupId, std::vector<GroupMessage>& batch) override { batch.clear(); }
  double receive(GroupId, std::vector<GroupMessage>&, std::chrono::microseconds) override {
    return 0;
  }
  void blocked(GroupId, const BlockedGroup&) override {}
  void unblocked(GroupId) override {}
  void finished(GroupId) override {}
  std::optional<EventKey> take_permit(GroupId) override { return std::nullopt; }
};

void set_up(const GroupSetup& s) {
  const std::string who = "event group (fuzz)";
  const auto model = build_model(s, who);
  check_setup(s, *model, who);
  kausal::EventRecorder recorder(model->components());
  Nowhere nowhere;
  EventGroup group(*model, s.group, s.owner, s.settings, &nowhere, recorder, {});
  continue_setup(group, recorder, s, *model, who);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    set_up(any_setup(in));
  } catch (const kausal::ProtocolError&) {
    // What a bad set-up must give.
  } catch (const kausal::ModelError&) {
  }
  return 0;
}

#include "monitor/sync/discrete_side.hpp"

#include <algorithm>
#include <limits>

#include "common/errors.hpp"
#include "monitor/sync/event_run.hpp"

namespace kausal {
namespace {

constexpr double unbounded = std::numeric_limits<double>::infinity();

// The model's own components in contiguous groups; its ports and crossings on the continuous
// side, the group after them.
std::vector<des::GroupId> side_owners(const des::BridgedModel& model, std::uint32_t groups) {
  std::vector<des::GroupId> owner = contiguous_groups(model.own(), groups);
  owner.resize(model.components(), groups);
  return owner;
}

}  // namespace

DiscreteSide::DiscreteSide(const des::BridgedModel& model, std::uint32_t groups,
                           const des::GroupSettings& settings, des::CommitSink& sink)
    : continuous_(groups),
      guaranteed_(model.crossings().empty() ? unbounded : settings.start),
      posted_(guaranteed_),
      hold_(unbounded) {
  if (groups < 1 || groups > model.own())
    throw InputError("--groups " + std::to_string(groups) + ": the discrete model '" +
                     model.name() + "' has " + std::to_string(model.own()) +
                     " components (1 to that many groups)");
  owner_ = side_owners(model, groups);
  for (des::GroupId g = 0; g < groups; ++g)
    groups_.emplace_back(model, g, owner_, settings, static_cast<des::GroupTransport*>(this), sink);
  hears_continuous_.assign(groups, 0);
  for (const des::CrossingRoute& route : model.crossings())
    hears_continuous_[owner_[route.component]] = 1;
  inbox_.resize(groups);
  sent_.assign(groups, std::vector<std::vector<des::GroupMessage>>(groups + 1));
  if (groups > 1) lanes_.emplace(groups);
}

void DiscreteSide::continue_from(const des::EventCut& cut) {
  for (des::EventGroup& g : groups_) g.continue_from(cut);
}

void DiscreteSide::begin() {
  for (des::EventGroup& g : groups_) g.begin();
  collect_sent();
}

void DiscreteSide::post(const des::Event& crossing) {
  des::GroupMessage m;
  m.kind = des::MessageKind::event;
  m.from = continuous_;
  m.event = crossing;
  inbox_.at(owner_.at(crossing.destination)).push_back(m);
}

void DiscreteSide::guarantee(double time) {
  guaranteed_ = std::max(guaranteed_, time);
}

void DiscreteSide::hold_before(double time) {
  hold_ = time;
}

bool DiscreteSide::mail_waiting() const {
  return std::any_of(inbox_.begin(), inbox_.end(), [](const auto& box) { return !box.empty(); });
}

std::size_t DiscreteSide::settle() {
  std::size_t processed = 0;
  bool after_round = false;
  for (;;) {
    if (!mail_waiting()) {
      const auto earliest = earliest_allowed();
      if (!earliest) break;
      // After a round with nothing left to hand on, the groups wait for each other.
      if (after_round) {
        groups_[earliest->first].permit(earliest->second);
        ++permits_;
      }
    }
    processed += round();
    after_round = true;
  }
  return processed;
}

// Every group once: told the guarantee and the hold first, then settled on its lane. Returns
// the events they processed.
std::size_t DiscreteSide::round() {
  ++rounds_;
  if (guaranteed_ > posted_) {
    posted_ = guaranteed_;
    des::GroupMessage m;
    m.kind = des::MessageKind::guarantee;
    m.from = continuous_;
    m.time = guaranteed_;
    for (des::GroupId g = 0; g < groups(); ++g)
      if (hears_continuous_[g]) inbox_[g].push_back(m);
  }
  for (des::EventGroup& g : groups_) g.hold_before(limit());
  std::vector<std::size_t> processed(groups(), 0);
  const auto settle_group = [&](std::size_t g) { processed[g] = groups_[g].settle(); };
  if (lanes_)
    lanes_->run(settle_group);
  else
    settle_group(0);
  collect_sent();
  std::size_t sum = 0;
  for (const std::size_t n : processed) sum += n;
  return sum;
}

// What the groups sent in a round: to each other, for their next round (in the order of the
// senders); to the partitions' ports, for the coupling. Their guarantees to the continuous
// side say nothing it does not know: it settles them to their end.
void DiscreteSide::collect_sent() {
  for (auto& from : sent_) {
    for (des::GroupId to = 0; to < groups(); ++to) {
      for (const des::GroupMessage& m : from[to]) peer_events_ += m.kind == des::MessageKind::event;
      inbox_[to].insert(inbox_[to].end(), from[to].begin(), from[to].end());
      from[to].clear();
    }
    for (const des::GroupMessage& m : from[continuous_])
      if (m.kind == des::MessageKind::event) for_partitions_.push_back(m.event);
    from[continuous_].clear();
  }
}

std::vector<des::Event> DiscreteSide::take_for_partitions() {
  std::vector<des::Event> events;
  events.swap(for_partitions_);
  std::stable_sort(events.begin(), events.end(),
                   [](const des::Event& a, const des::Event& b) { return a.key < b.key; });
  return events;
}

std::optional<std::pair<des::GroupId, des::EventKey>> DiscreteSide::earliest_allowed() const {
  std::optional<std::pair<des::GroupId, des::EventKey>> earliest;
  for (des::GroupId g = 0; g < groups(); ++g) {
    const auto key = groups_[g].next_key();
    if (key && key->time < limit() && (!earliest || *key < earliest->second))
      earliest = {{g, *key}};
  }
  return earliest;
}

std::optional<des::EventKey> DiscreteSide::next_key() const {
  std::optional<des::EventKey> next;
  for (const des::EventGroup& g : groups_)
    if (const auto key = g.next_key(); key && (!next || *key < *next)) next = key;
  return next;
}

double DiscreteSide::committed_horizon() const {
  double horizon = unbounded;
  for (const des::EventGroup& g : groups_) horizon = std::min(horizon, g.committed_horizon());
  return horizon;
}

void DiscreteSide::add_to_cut(des::EventCut& cut) {
  for (des::EventGroup& g : groups_) g.add_to_cut(cut);
  std::sort(cut.pending.begin(), cut.pending.end(),
            [](const des::Event& a, const des::Event& b) { return a.key < b.key; });
}

std::vector<std::reference_wrapper<const des::LogicalProcess>> DiscreteSide::components() const {
  std::vector<std::reference_wrapper<const des::LogicalProcess>> all;
  for (const des::EventGroup& g : groups_)
    for (const des::LogicalProcess& lp : g.components()) all.emplace_back(lp);
  return all;
}

void DiscreteSide::send(des::GroupId to, std::vector<des::GroupMessage>& batch) {
  if (batch.empty()) return;
  std::vector<des::GroupMessage>& into = sent_.at(batch.front().from).at(to);
  into.insert(into.end(), batch.begin(), batch.end());
  batch.clear();
}

double DiscreteSide::receive(des::GroupId self, std::vector<des::GroupMessage>& into,
                             std::chrono::microseconds) {
  into.insert(into.end(), inbox_.at(self).begin(), inbox_.at(self).end());
  inbox_[self].clear();
  return 0;
}

}  // namespace kausal

#include "integrator/events/event_recorder.hpp"

#include <bit>

#include <cstring>

#include "common/errors.hpp"

namespace kausal {

EventRecorder::EventRecorder(std::size_t components) {
  sha_.reserve(components);
  for (std::size_t c = 0; c < components; ++c) sha_.push_back(std::make_unique<Sha256>());
}

void EventRecorder::committed(des::ComponentId component, const des::Event& event) {
  static_assert(std::endian::native == std::endian::little, "the digest is little-endian");
  unsigned char record[record_bytes];
  std::memcpy(record, &event.key.time, 8);
  std::memcpy(record + 8, &component, 4);
  std::memcpy(record + 12, &event.kind, 4);
  std::memcpy(record + 16, &event.value, 8);
  sha_[component]->update(record, sizeof record);
}

std::string EventRecorder::component_digest(des::ComponentId component) const {
  return sha_.at(component)->hex();
}

std::string EventRecorder::digest() const {
  std::vector<std::string> components;
  for (const auto& sha : sha_) components.push_back(sha->hex());
  return combine_component_digests(components);
}

std::vector<Sha256::Midstate> EventRecorder::midstates() const {
  std::vector<Sha256::Midstate> all;
  for (const auto& sha : sha_) all.push_back(sha->midstate());
  return all;
}

void EventRecorder::restore(const std::vector<Sha256::Midstate>& midstates) {
  if (midstates.size() != sha_.size())
    throw InputError(std::to_string(midstates.size()) + " component digests for " +
                     std::to_string(sha_.size()) + " components");
  for (std::size_t c = 0; c < sha_.size(); ++c) sha_[c]->restore(midstates[c]);
}

void EventRecorder::restore(des::ComponentId component, const Sha256::Midstate& midstate) {
  sha_.at(component)->restore(midstate);
}

std::string combine_component_digests(const std::vector<std::string>& components) {
  Sha256 run;
  for (const std::string& hex : components) run.update(hex.data(), hex.size());
  return run.hex();
}

}  // namespace kausal

#include "integrator/events/logical_process.hpp"

namespace kausal::des {

UndoLog* LogicalProcess::save_before(const Event& event) {
  Entry entry{event, state_.random.words(), state_.sent, 0, 0};
  if (saving_ == StateSaving::full) {
    saved_values_.insert(saved_values_.end(), state_.values.begin(), state_.values.end());
    entry.saved = static_cast<std::uint32_t>(state_.values.size());
  }
  entries_.push_back(entry);
  if (saving_ == StateSaving::incremental) {
    handler_log_.clear();
    return &handler_log_;
  }
  return nullptr;
}

void LogicalProcess::close_entry() {
  if (saving_ != StateSaving::incremental) return;
  undo_.insert(undo_.end(), handler_log_.begin(), handler_log_.end());
  entries_.back().saved = static_cast<std::uint32_t>(handler_log_.size());
}

void LogicalProcess::record_sent(const Event& sent) {
  sent_.push_back(sent);
  ++entries_.back().sent;
}

LogicalProcess::Undone LogicalProcess::undo_newest() {
  const Entry entry = entries_.back();
  entries_.pop_back();
  if (saving_ == StateSaving::full) {
    const auto first = saved_values_.end() - entry.saved;
    std::copy(first, saved_values_.end(), state_.values.begin());
    saved_values_.erase(first, saved_values_.end());
  } else {
    // Newest change first, so a value changed twice ends with its oldest value.
    for (std::uint32_t n = 0; n < entry.saved; ++n) {
      state_.values[undo_.back().first] = undo_.back().second;
      undo_.pop_back();
    }
  }
  state_.random.restore(entry.random);
  state_.sent = entry.sent_serial;
  Undone undone{entry.event, {}};
  undone.sent.reserve(entry.sent);
  for (std::uint32_t n = 0; n < entry.sent; ++n) {
    undone.sent.push_back(sent_.back());
    sent_.pop_back();
  }
  ++figures_.rolled_back;
  return undone;
}

void LogicalProcess::drop_oldest() {
  const Entry& entry = entries_.front();
  if (saving_ == StateSaving::full)
    saved_values_.erase(saved_values_.begin(), saved_values_.begin() + entry.saved);
  else
    undo_.erase(undo_.begin(), undo_.begin() + entry.saved);
  sent_.erase(sent_.begin(), sent_.begin() + entry.sent);
  entries_.pop_front();
}

}  // namespace kausal::des

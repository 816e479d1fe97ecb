#pragma once
// One discrete-event component inside an event group (docs/events.md): its state and, in
// optimistic runs, its processed list EL'_j with the state list ZL_j — what it looked like
// before each event and what each event sent — so that it can roll back alone.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "system/events/event_model.hpp"

namespace kausal::des {

enum class StateSaving : std::uint8_t {
  full,         // a copy of every value before each event
  incremental,  // the old value of each value an event changed
};

struct ComponentFigures {
  std::uint64_t processed = 0;      // events handled, re-executions included
  std::uint64_t committed = 0;      // events below GVT (or processed conservatively)
  std::uint64_t rolled_back = 0;    // processed events undone
  std::uint64_t rollbacks = 0;      // times the component was rolled back
  std::uint64_t stragglers = 0;     // events that arrived in its past
  std::uint64_t anti_messages = 0;  // cancellations it sent

  ComponentFigures& operator+=(const ComponentFigures& more) {
    processed += more.processed;
    committed += more.committed;
    rolled_back += more.rolled_back;
    rollbacks += more.rollbacks;
    stragglers += more.stragglers;
    anti_messages += more.anti_messages;
    return *this;
  }
};

class LogicalProcess {
 public:
  LogicalProcess(ComponentId id, ComponentState initial, StateSaving saving)
      : id_(id), state_(std::move(initial)), saving_(saving) {}

  ComponentId id() const { return id_; }
  ComponentState& state() { return state_; }
  const ComponentState& state() const { return state_; }
  ComponentFigures& figures() { return figures_; }
  const ComponentFigures& figures() const { return figures_; }

  // Optimistic runs: saves what `event` may change, before it is handled. Returns the undo
  // log the handler writes to (incremental saving) or nullptr.
  UndoLog* save_before(const Event& event);
  // Closes what save_before opened, once the handler has run.
  void close_entry();
  // Records an event the last saved event sent (for its cancellation on rollback).
  void record_sent(const Event& sent);
  // True when an event at or after `key` has been processed and not committed.
  bool processed_since(const EventKey& key) const {
    return !entries_.empty() && !(entries_.back().event.key < key);
  }
  // Undoes the newest processed event: restores the state before it and returns the event
  // with what it sent (to be cancelled), newest first. Precondition: something processed.
  struct Undone {
    Event event;
    std::vector<Event> sent;
  };
  Undone undo_newest();
  // Commits every processed event with a time below `gvt`, oldest first.
  template <typename Commit>
  void fossil_collect(double gvt, Commit&& commit);
  std::size_t uncommitted() const { return entries_.size(); }

 private:
  struct Entry {
    Event event;
    std::array<std::uint64_t, 4> random;
    std::uint64_t sent_serial;
    std::uint32_t saved;  // values in saved_values_ (full) or pairs in undo_ (incremental)
    std::uint32_t sent;   // events in sent_
  };
  void drop_oldest();

  ComponentId id_;
  ComponentState state_;
  StateSaving saving_;
  ComponentFigures figures_;
  std::deque<Entry> entries_;
  std::deque<double> saved_values_;
  std::deque<std::pair<std::uint32_t, double>> undo_;
  UndoLog handler_log_;  // what the current handler changes, moved to undo_ after it
  std::deque<Event> sent_;
};

template <typename Commit>
void LogicalProcess::fossil_collect(double gvt, Commit&& commit) {
  while (!entries_.empty() && entries_.front().event.key.time < gvt) {
    commit(entries_.front().event);
    ++figures_.committed;
    drop_oldest();
  }
}

}  // namespace kausal::des

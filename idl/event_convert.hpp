#pragma once
// Discrete-event groups between C++ and IDL (idl::EventGroup). What arrives is checked
// against the run it belongs to: a message that names no group, component or kind of this
// run is a ProtocolError, never an index out of range.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "idl/kausal.hh"
#include "integrator/events/group_setup.hpp"

namespace kausal {

inline idl::EventKey to_idl(const des::EventKey& k) {
  return {k.time, k.source, k.serial};
}
inline des::EventKey from_idl(const idl::EventKey& k) {
  return {k.time, k.source, k.serial};
}

inline idl::GroupMessage to_idl(const des::GroupMessage& m) {
  idl::GroupMessage out;
  out.kind = static_cast<CORBA::Octet>(m.kind);
  out.from = m.from;
  out.colour = m.colour;
  out.key = to_idl(m.event.key);
  out.destination = m.event.destination;
  out.event_kind = m.event.kind;
  out.value = m.event.value;
  out.time = m.time;
  if (m.kind == des::MessageKind::gvt_token) {
    out.token.length(1);
    idl::GvtToken& t = out.token[0];
    t.epoch = m.token.epoch;
    t.round = m.token.round;
    t.in_transit.length(static_cast<CORBA::ULong>(m.token.in_transit.size()));
    for (CORBA::ULong g = 0; g < t.in_transit.length(); ++g)
      t.in_transit[g] = m.token.in_transit[g];
    t.minimum = m.token.minimum;
  }
  return out;
}

inline idl::GroupMessageSeq to_idl(const std::vector<des::GroupMessage>& batch) {
  idl::GroupMessageSeq out;
  out.length(static_cast<CORBA::ULong>(batch.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) out[k] = to_idl(batch[k]);
  return out;
}

// `owner`: the run's placement (per component, its group); `self`: the receiving group.
inline des::GroupMessage from_idl(const idl::GroupMessage& m,
                                  const std::vector<des::GroupId>& owner, des::GroupId groups,
                                  des::GroupId self, const std::string& who) {
  const auto refuse = [&](const std::string& why) {
    throw ProtocolError(who, "a message from group " + std::to_string(m.from) + ": " + why);
  };
  if (m.kind > static_cast<CORBA::Octet>(des::MessageKind::stop))
    refuse("unknown kind " + std::to_string(m.kind));
  des::GroupMessage out;
  out.kind = static_cast<des::MessageKind>(m.kind);
  out.from = m.from;
  out.colour = m.colour;
  out.event.key = from_idl(m.key);
  out.event.destination = m.destination;
  out.event.kind = m.event_kind;
  out.event.value = m.value;
  out.time = m.time;
  if (m.from >= groups) refuse("there are " + std::to_string(groups) + " groups");
  if (std::isnan(m.time)) refuse("its time is not a number");
  if (out.kind == des::MessageKind::event || out.kind == des::MessageKind::anti_event) {
    if (m.destination >= owner.size() || owner[m.destination] != self)
      refuse("an event for component " + std::to_string(m.destination) +
             ", which this group does not run");
    if (m.key.source >= owner.size())
      refuse("an event from component " + std::to_string(m.key.source) + ", which does not exist");
    if (!std::isfinite(m.key.time) || m.key.time < 0)
      refuse("an event at t = " + std::to_string(m.key.time));
  }
  if (out.kind == des::MessageKind::gvt_token) {
    if (m.token.length() != 1) refuse("a GVT token message without its token");
    const idl::GvtToken& t = m.token[0];
    if (t.in_transit.length() != groups || (t.round != 1 && t.round != 2) || std::isnan(t.minimum))
      refuse("a malformed GVT token");
    out.token.epoch = t.epoch;
    out.token.round = t.round;
    out.token.in_transit.assign(t.in_transit.get_buffer(), t.in_transit.get_buffer() + groups);
    out.token.minimum = t.minimum;
  }
  return out;
}

// ---- cuts (docs/events.md, "Checkpoints and --resume") ----

inline idl::DigestMidstate to_idl(const Sha256::Midstate& m) {
  idl::DigestMidstate out;
  out.h.length(8);
  for (CORBA::ULong k = 0; k < 8; ++k) out.h[k] = m.h[k];
  out.length = m.length;
  out.pending.length(static_cast<CORBA::ULong>(m.pending.size()));
  for (CORBA::ULong k = 0; k < out.pending.length(); ++k)
    out.pending[k] = static_cast<CORBA::Octet>(m.pending[k]);
  return out;
}

inline Sha256::Midstate from_idl(const idl::DigestMidstate& m, const std::string& who) {
  if (m.h.length() != 8) throw ProtocolError(who, "a digest midstate without its 8 words");
  Sha256::Midstate out;
  for (CORBA::ULong k = 0; k < 8; ++k) out.h[k] = m.h[k];
  out.length = m.length;
  out.pending.assign(reinterpret_cast<const char*>(m.pending.get_buffer()), m.pending.length());
  // The same test the digest applies when it continues from it.
  if (out.pending.size() != out.length % 64)
    throw ProtocolError(who, "a digest midstate whose unfinished block does not fit its length");
  return out;
}

inline idl::ComponentCutSeq to_idl(const std::vector<des::ComponentCutPart>& parts) {
  idl::ComponentCutSeq out;
  out.length(static_cast<CORBA::ULong>(parts.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) {
    const des::ComponentCutPart& p = parts[k];
    idl::ComponentCut& c = out[k];
    c.component = p.component;
    c.values.length(static_cast<CORBA::ULong>(p.state.values.size()));
    for (CORBA::ULong v = 0; v < c.values.length(); ++v) c.values[v] = p.state.values[v];
    c.random.length(4);
    for (CORBA::ULong w = 0; w < 4; ++w) c.random[w] = p.state.random.words()[w];
    c.sent = p.state.sent;
    c.digest = to_idl(p.digest);
  }
  return out;
}

// `components`: the run's; each part must name one of them, and its values be finite.
inline std::vector<des::ComponentCutPart> from_idl(const idl::ComponentCutSeq& parts,
                                                   std::size_t components, const std::string& who) {
  std::vector<des::ComponentCutPart> out;
  for (CORBA::ULong k = 0; k < parts.length(); ++k) {
    const idl::ComponentCut& c = parts[k];
    if (c.component >= components)
      throw ProtocolError(
          who, "a cut of component " + std::to_string(c.component) + ", which does not exist");
    if (c.random.length() != 4)
      throw ProtocolError(
          who, "a cut of component " + std::to_string(c.component) + " without its 4 random words");
    des::ComponentCutPart p;
    p.component = c.component;
    p.state.values.assign(c.values.get_buffer(), c.values.get_buffer() + c.values.length());
    for (const double v : p.state.values)
      if (!std::isfinite(v))
        throw ProtocolError(who, "a cut of component " + std::to_string(c.component) +
                                     " with a value that is not finite");
    std::array<std::uint64_t, 4> words{};
    for (CORBA::ULong w = 0; w < 4; ++w) words[w] = c.random[w];
    p.state.random.restore(words);
    p.state.sent = c.sent;
    p.digest = from_idl(c.digest, who);
    out.push_back(std::move(p));
  }
  return out;
}

inline idl::CutEventSeq to_idl(const std::vector<des::Event>& events) {
  idl::CutEventSeq out;
  out.length(static_cast<CORBA::ULong>(events.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {to_idl(events[k].key), events[k].destination, events[k].kind, events[k].value};
  return out;
}

// Each event must be between components of the run, at a finite time.
inline std::vector<des::Event> from_idl(const idl::CutEventSeq& events, std::size_t components,
                                        const std::string& who) {
  std::vector<des::Event> out;
  for (CORBA::ULong k = 0; k < events.length(); ++k) {
    const idl::CutEvent& e = events[k];
    if (e.key.source >= components || e.destination >= components || !std::isfinite(e.key.time) ||
        !std::isfinite(e.value))
      throw ProtocolError(
          who, "a pending event of the cut from component " + std::to_string(e.key.source) +
                   " to " + std::to_string(e.destination) +
                   " at t = " + std::to_string(e.key.time) + " that the run cannot have");
    out.push_back({from_idl(e.key), e.destination, e.kind, e.value});
  }
  return out;
}

inline idl::EventGroupSetup to_idl(const des::GroupSetup& s) {
  idl::EventGroupSetup out;
  out.model = s.model.c_str();
  out.parameters.length(static_cast<CORBA::ULong>(s.parameters.size()));
  CORBA::ULong k = 0;
  for (const auto& [name, value] : s.parameters) {
    out.parameters[k].name = name.c_str();
    out.parameters[k++].value = value;
  }
  out.group = s.group;
  out.owner.length(static_cast<CORBA::ULong>(s.owner.size()));
  for (CORBA::ULong c = 0; c < out.owner.length(); ++c) out.owner[c] = s.owner[c];
  out.optimistic = s.settings.sync == des::GroupSync::optimistic;
  out.end = s.settings.end;
  out.window = s.settings.window;
  out.incremental_saving = s.settings.saving == des::StateSaving::incremental;
  out.lazy_cancellation = s.settings.cancellation == des::Cancellation::lazy;
  out.batch = s.settings.batch;
  out.gvt_interval = s.settings.gvt_interval;
  out.rollback_check = s.settings.rollback_check;
  out.start = s.settings.start;
  out.components = to_idl(s.from);
  out.pending = to_idl(s.pending);
  return out;
}

inline des::GroupSetup from_idl(const idl::EventGroupSetup& s) {
  des::GroupSetup out;
  out.model = s.model.in();
  for (CORBA::ULong k = 0; k < s.parameters.length(); ++k)
    out.parameters[s.parameters[k].name.in()] = s.parameters[k].value;
  out.group = s.group;
  out.owner.assign(s.owner.get_buffer(), s.owner.get_buffer() + s.owner.length());
  out.settings.sync = s.optimistic ? des::GroupSync::optimistic : des::GroupSync::conservative;
  out.settings.end = s.end;
  out.settings.window = s.window;
  out.settings.saving =
      s.incremental_saving ? des::StateSaving::incremental : des::StateSaving::full;
  out.settings.cancellation =
      s.lazy_cancellation ? des::Cancellation::lazy : des::Cancellation::aggressive;
  out.settings.batch = s.batch;
  out.settings.gvt_interval = s.gvt_interval;
  out.settings.rollback_check = s.rollback_check;
  out.settings.start = s.start;
  const std::string who = "set_up of group " + std::to_string(s.group);
  out.from = from_idl(s.components, out.owner.size(), who);
  out.pending = from_idl(s.pending, out.owner.size(), who);
  return out;
}

inline idl::EventGroupProgress to_idl(const des::GroupProgress& p) {
  return {p.clock,
          p.committed_to,
          p.events.processed,
          p.events.committed,
          p.events.rolled_back,
          p.events.rollbacks,
          p.events.stragglers,
          p.events.anti_messages,
          p.null_messages,
          p.messages};
}

// Only shown (the live view, trace.json): a time that is not finite reads as 0.
inline des::GroupProgress from_idl(const idl::EventGroupProgress& p) {
  des::GroupProgress out;
  out.clock = std::isfinite(p.clock) ? p.clock : 0.0;
  out.committed_to = std::isfinite(p.committed_to) ? p.committed_to : 0.0;
  out.events = {p.processed, p.committed,  p.rolled_back,
                p.rollbacks, p.stragglers, p.anti_messages};
  out.null_messages = p.null_messages;
  out.messages = p.messages;
  return out;
}

inline idl::EventGroupResult to_idl(const des::GroupOutcome& o) {
  idl::EventGroupResult out;
  out.components.length(static_cast<CORBA::ULong>(o.components.size()));
  for (CORBA::ULong k = 0; k < out.components.length(); ++k) {
    const des::ComponentOutcome& c = o.components[k];
    idl::EventComponentResult& r = out.components[k];
    r.component = c.component;
    r.digest = c.digest.c_str();
    r.processed = c.figures.processed;
    r.committed = c.figures.committed;
    r.rolled_back = c.figures.rolled_back;
    r.rollbacks = c.figures.rollbacks;
    r.stragglers = c.figures.stragglers;
    r.anti_messages = c.figures.anti_messages;
  }
  out.messages = o.figures.messages;
  out.null_messages = o.figures.null_messages;
  out.batches = o.figures.batches;
  out.gvt_rounds = o.figures.gvt_rounds;
  out.permits = o.figures.permits;
  out.blocked_s = o.figures.blocked_seconds;
  out.wall_s = o.figures.wall_seconds;
  out.peak_uncommitted = o.figures.peak_uncommitted;
  out.deferred_errors = o.figures.deferred_errors;
  out.cleared_errors = o.figures.cleared_errors;
  out.committed_horizon = o.committed_horizon;
  out.cut = to_idl(o.cut);
  out.pending = to_idl(o.pending);
  return out;
}

// `components`: the run's (the cut's parts are checked against them).
inline des::GroupOutcome from_idl(const idl::EventGroupResult& r, std::size_t components,
                                  const std::string& who) {
  des::GroupOutcome out;
  for (CORBA::ULong k = 0; k < r.components.length(); ++k) {
    const idl::EventComponentResult& c = r.components[k];
    des::ComponentOutcome o;
    o.component = c.component;
    o.digest = c.digest.in();
    o.figures.processed = c.processed;
    o.figures.committed = c.committed;
    o.figures.rolled_back = c.rolled_back;
    o.figures.rollbacks = c.rollbacks;
    o.figures.stragglers = c.stragglers;
    o.figures.anti_messages = c.anti_messages;
    out.components.push_back(std::move(o));
  }
  out.figures.messages = r.messages;
  out.figures.null_messages = r.null_messages;
  out.figures.batches = r.batches;
  out.figures.gvt_rounds = r.gvt_rounds;
  out.figures.permits = r.permits;
  out.figures.blocked_seconds = r.blocked_s;
  out.figures.wall_seconds = r.wall_s;
  out.figures.peak_uncommitted = r.peak_uncommitted;
  out.figures.deferred_errors = r.deferred_errors;
  out.figures.cleared_errors = r.cleared_errors;
  out.committed_horizon = r.committed_horizon;
  out.cut = from_idl(r.cut, components, who);
  out.pending = from_idl(r.pending, components, who);
  return out;
}

}  // namespace kausal

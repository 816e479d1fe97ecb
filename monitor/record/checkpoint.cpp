#include "monitor/record/checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "common/coarse_clock.hpp"
#include "common/errors.hpp"
#include "common/sha256.hpp"
#include "integrator/events/event_recorder.hpp"
#include "integrator/stepper.hpp"
#include "monitor/record/checkpoint_key.hpp"
#include "monitor/scenario/input_file.hpp"

namespace kausal {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// /4: with "mac", the HMAC-SHA256 of the content under the user's checkpoint key
// (checkpoint_key.hpp). Earlier formats had no checksum (/1) or an unkeyed SHA-256 (/2, /3)
// that anyone who changed the file could recompute: they are refused, nothing vouches for them.
constexpr const char* kFormat = "kausal-checkpoint/5";
constexpr std::array<const char*, 3> kUnverifiableFormats = {
    "kausal-checkpoint/1", "kausal-checkpoint/2", "kausal-checkpoint/3"};

// The canonical content a MAC is taken of: every field but "mac", in file order, as compact
// JSON.
std::string canonical_of(json content) {
  content.erase("mac");
  return content.dump();
}

std::string to_hex(const std::string& bytes) {
  return hex_of(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

// A hex number of exactly `digits` digits (a double's or a word's bit pattern).
template <typename T>
std::string hex_word(T v, int digits) {
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int k = digits - 1; k >= 0; --k, v >>= 4)
    s[static_cast<std::size_t>(k)] = "0123456789abcdef"[v & 15];
  return s;
}

template <typename T>
T parse_hex_word(const std::string& s, const std::string& field) {
  T v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size() || s.size() != sizeof(T) * 2)
    throw InputError(field + ": '" + s + "' is not " + std::to_string(sizeof(T) * 2) +
                     " hex digits");
  return v;
}

std::string from_hex(const std::string& hex, const std::string& field) {
  if (hex.size() % 2) throw InputError(field + ": odd number of hex digits");
  std::string bytes;
  for (std::size_t k = 0; k < hex.size(); k += 2)
    bytes += static_cast<char>(parse_hex_word<std::uint8_t>(hex.substr(k, 2), field));
  return bytes;
}

std::string double_hex(double v) {
  return hex_word(std::bit_cast<std::uint64_t>(v), 16);
}

template <typename Values>
json doubles_json(const Values& values) {
  json out = json::array();
  for (double v : values) out.push_back(double_hex(v));
  return out;
}

json midstate_json(const Sha256::Midstate& m) {
  std::string h;
  for (auto w : m.h) h += hex_word(w, 8);
  return {{"h", h}, {"length", m.length}, {"pending", to_hex(m.pending)}};
}

// Reads the fields of checkpoint.json, each error naming the file and the field.
class Reader {
 public:
  Reader(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  template <typename T>
  T get(const json& where, const std::string& name, const std::string& path) const {
    if (!where.contains(name)) throw InputError(file_ + ": field " + path + name + " is missing");
    const json& value = where.at(name);
    // A whole number must be written as one: converting 2.8e25 (or −1) to an unsigned count
    // is undefined, not an error, in the JSON library.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const bool fits =
          std::is_unsigned_v<T> ? value.is_number_unsigned() : value.is_number_integer();
      if (!fits) throw InputError(file_ + ": field " + path + name + " has the wrong type");
    }
    try {
      return value.get<T>();
    } catch (const json::exception&) {
      throw InputError(file_ + ": field " + path + name + " has the wrong type");
    }
  }
  template <typename T>
  T get(const std::string& name) const {
    return get<T>(j_, name, "");
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(file_ + ": " + what); }
  const json& root() const { return j_; }
  const std::string& file() const { return file_; }

 private:
  const json& j_;
  std::string file_;
};

// The object `name` of `where` (path: where it lies, "partitions[1].").
const json& object_at(const Reader& r, const json& where, const std::string& name,
                      const std::string& path) {
  if (!where.contains(name) || !where.at(name).is_object())
    r.fail("field " + path + name + " is missing or not an object");
  return where.at(name);
}

Sha256::Midstate read_midstate(const Reader& r, const json& where, const std::string& path) {
  const json& m = object_at(r, where, "sha256_midstate", path);
  const std::string at = path + "sha256_midstate.";
  Sha256::Midstate out;
  const auto h = r.get<std::string>(m, "h", at);
  if (h.size() != 64) r.fail("field " + at + "h: expected 64 hex digits");
  for (std::size_t i = 0; i < 8; ++i)
    out.h[i] = parse_hex_word<std::uint32_t>(h.substr(8 * i, 8), r.file() + ": " + at + "h");
  out.length = r.get<std::uint64_t>(m, "length", at);
  out.pending = from_hex(r.get<std::string>(m, "pending", at), r.file() + ": " + at + "pending");
  return out;
}

// A double stored as its bit pattern; `field` names it in an error.
double double_of(const std::string& word, const std::string& field) {
  return std::bit_cast<double>(parse_hex_word<std::uint64_t>(word, field));
}

// The same, refusing nan and inf.
double finite_double_of(const std::string& word, const std::string& field) {
  const double v = double_of(word, field);
  if (!std::isfinite(v)) throw InputError(field + ": not a finite number");
  return v;
}

// The step field, which cannot lie beyond the steps planned.
std::uint64_t read_step(const Reader& r, std::uint64_t planned) {
  const auto step = r.get<std::uint64_t>("step");
  if (step > planned)
    r.fail("field step: " + std::to_string(step) + " lies beyond planned_steps " +
           std::to_string(planned));
  return step;
}

// Finite doubles stored as their bit patterns (field `path` + `name`).
std::vector<double> read_doubles(const Reader& r, const json& where, const std::string& name,
                                 const std::string& path) {
  const auto words = r.get<std::vector<std::string>>(where, name, path);
  std::vector<double> out;
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string field = r.file() + ": " + path + name + "[" + std::to_string(k) + "]";
    out.push_back(finite_double_of(words[k], field));
  }
  return out;
}

// A multistep stepper's past derivatives, newest first: one array of doubles each.
json past_json(const std::vector<Vector>& past) {
  json out = json::array();
  for (const Vector& f : past) out.push_back(doubles_json(f));
  return out;
}

std::vector<Vector> read_past(const Reader& r, const json& memory, const std::string& path) {
  const auto past = r.get<json>(memory, "past", path);
  if (!past.is_array() || past.size() > max_history_length)
    r.fail("field " + path + "past: not an array of at most " + std::to_string(max_history_length) +
           " derivatives");
  std::vector<Vector> out;
  for (std::size_t j = 0; j < past.size(); ++j) {
    const std::string field = path + "past[" + std::to_string(j) + "]";
    if (!past[j].is_array()) r.fail("field " + field + ": not an array");
    std::vector<double> values;
    for (std::size_t k = 0; k < past[j].size(); ++k) {
      const json& word = past[j][k];
      const std::string at = r.file() + ": " + field + "[" + std::to_string(k) + "]";
      if (!word.is_string()) throw InputError(at + ": not a hex word");
      values.push_back(finite_double_of(word.get<std::string>(), at));
    }
    out.push_back(vector_of(values));
  }
  return out;
}

json prediction_json(const Prediction& p) {
  return {{"c", doubles_json(p.c)},
          {"t_ref", double_hex(p.t_ref)},
          {"scale", double_hex(p.scale)},
          {"order", p.order},
          {"valid_from", double_hex(p.valid_from)},
          {"valid_to", double_hex(p.valid_to)}};
}

json master_json(const MasterPoint& m) {
  json links = json::array();
  for (const MasterPoint::Link& l : m.links) {
    std::vector<double> t, values;
    for (const TimedSample& s : l.history) t.push_back(s.t), values.push_back(s.value);
    json link = {{"t", doubles_json(t)}, {"values", doubles_json(values)}};
    link["previous"] = l.previous ? prediction_json(*l.previous) : json();
    links.push_back(std::move(link));
  }
  return {{"next_ticks", m.next_ticks}, {"links", links}};
}

Prediction read_prediction(const Reader& r, const json& p, const std::string& path) {
  Prediction out;
  const std::vector<double> c = read_doubles(r, p, "c", path);
  if (c.size() != out.c.size()) r.fail("field " + path + "c: expected 4 coefficients");
  std::copy(c.begin(), c.end(), out.c.begin());
  const auto one = [&](const char* name) {
    return finite_double_of(r.get<std::string>(p, name, path), r.file() + ": " + path + name);
  };
  out.t_ref = one("t_ref");
  out.scale = one("scale");
  out.valid_from = one("valid_from");
  out.valid_to = one("valid_to");
  out.order = r.get<int>(p, "order", path);
  if (out.order < 0 || out.order > 3 || !(out.scale > 0))
    r.fail("field " + path + "order or scale: out of range");
  return out;
}

MasterPoint read_master(const Reader& r, const json& m) {
  MasterPoint out;
  out.next_ticks = r.get<std::uint64_t>(m, "next_ticks", "master.");
  const auto links = r.get<json>(m, "links", "master.");
  if (!links.is_array()) r.fail("field master.links: not an array");
  for (std::size_t k = 0; k < links.size(); ++k) {
    const std::string path = "master.links[" + std::to_string(k) + "].";
    if (!links[k].is_object()) r.fail("field " + path + ": not an object");
    const std::vector<double> t = read_doubles(r, links[k], "t", path);
    const std::vector<double> values = read_doubles(r, links[k], "values", path);
    if (t.size() != values.size()) r.fail("field " + path + "t and values: not as many");
    MasterPoint::Link link;
    for (std::size_t i = 0; i < t.size(); ++i) link.history.push_back({t[i], values[i]});
    if (links[k].contains("previous") && !links[k].at("previous").is_null())
      link.previous =
          read_prediction(r, object_at(r, links[k], "previous", path), path + "previous.");
    out.links.push_back(std::move(link));
  }
  return out;
}

// A cut of discrete-event components (events_json, bridge_json): the cut's time, every
// component with its running digest, the pending events.
json event_cut_json(const des::EventCut& cut, const std::vector<Sha256::Midstate>& digests) {
  json j;
  j["step"] = cut.committed_events();  // the events committed below the cut
  j["cut"] = double_hex(cut.time);
  j["t"] = cut.time;  // for people; `cut` is what counts
  auto& components = j["components"] = json::array();
  for (std::size_t k = 0; k < cut.states.size(); ++k) {
    const des::ComponentState& state = cut.states[k];
    json random = json::array();
    for (const std::uint64_t word : state.random.words()) random.push_back(hex_word(word, 16));
    components.push_back({{"values", doubles_json(state.values)},
                          {"random", random},
                          {"sent", state.sent},
                          {"committed", cut.committed.at(k)},
                          {"sha256_midstate", midstate_json(digests.at(k))}});
  }
  auto& pending = j["pending"] = json::array();
  for (const des::Event& e : cut.pending)
    pending.push_back({{"time", double_hex(e.key.time)},
                       {"source", e.key.source},
                       {"serial", e.key.serial},
                       {"destination", e.destination},
                       {"kind", e.kind},
                       {"value", double_hex(e.value)}});
  return j;
}

json events_json(const EventPoint& c) {
  json j = event_cut_json(c.at.cut, c.at.digests);
  j["end"] = double_hex(c.end);
  return j;
}

// What event_cut_json wrote in `where` (at `prefix`: "bridge."), checked: a cut within
// (0, end], whose pending events lie at or after it, in key order, sent by components.
void read_event_cut(const Reader& r, const json& where, const std::string& prefix, double end,
                    des::EventCut& cut, std::vector<Sha256::Midstate>& digests) {
  cut.time =
      finite_double_of(r.get<std::string>(where, "cut", prefix), r.file() + ": " + prefix + "cut");
  if (!(cut.time > 0 && cut.time <= end))
    r.fail("field " + prefix + "cut: " + std::to_string(cut.time) + " is not within (0, end]");
  const auto components = r.get<json>(where, "components", prefix);
  if (!components.is_array() || components.empty())
    r.fail("field " + prefix + "components: not an array of components");
  for (std::size_t k = 0; k < components.size(); ++k) {
    const std::string path = prefix + "components[" + std::to_string(k) + "].";
    const json& at = components[k];
    if (!at.is_object()) r.fail("field " + path + ": not an object");
    des::ComponentState state;
    state.values = read_doubles(r, at, "values", path);
    const auto random = r.get<std::vector<std::string>>(at, "random", path);
    if (random.size() != 4) r.fail("field " + path + "random: expected 4 words");
    std::array<std::uint64_t, 4> words{};
    for (std::size_t w = 0; w < 4; ++w)
      words[w] = parse_hex_word<std::uint64_t>(random[w], r.file() + ": " + path + "random");
    state.random.restore(words);
    state.sent = r.get<std::uint64_t>(at, "sent", path);
    cut.states.push_back(std::move(state));
    cut.committed.push_back(r.get<std::uint64_t>(at, "committed", path));
    digests.push_back(read_midstate(r, at, path));
    if (digests.back().length != cut.committed.back() * EventRecorder::record_bytes)
      r.fail("field " + path + "sha256_midstate.length: does not match " +
             std::to_string(cut.committed.back()) + " committed events");
  }
  if (r.get<std::uint64_t>(where, "step", prefix) != cut.committed_events())
    r.fail("field " + prefix + "step: not the sum of the components' committed events");
  const auto pending = r.get<json>(where, "pending", prefix);
  if (!pending.is_array()) r.fail("field " + prefix + "pending: not an array");
  const auto n = static_cast<std::uint64_t>(cut.states.size());
  for (std::size_t k = 0; k < pending.size(); ++k) {
    const std::string path = prefix + "pending[" + std::to_string(k) + "].";
    const json& at = pending[k];
    if (!at.is_object()) r.fail("field " + path + ": not an object");
    des::Event e;
    e.key.time =
        finite_double_of(r.get<std::string>(at, "time", path), r.file() + ": " + path + "time");
    const auto source = r.get<std::uint64_t>(at, "source", path);
    const auto destination = r.get<std::uint64_t>(at, "destination", path);
    if (source >= n || destination >= n)
      r.fail("field " + path + ": source or destination is not one of the " + std::to_string(n) +
             " components");
    e.key.source = static_cast<des::ComponentId>(source);
    e.destination = static_cast<des::ComponentId>(destination);
    e.key.serial = r.get<std::uint64_t>(at, "serial", path);
    e.kind = r.get<std::uint32_t>(at, "kind", path);
    e.value =
        finite_double_of(r.get<std::string>(at, "value", path), r.file() + ": " + path + "value");
    // Pending events lie at or after the cut, in key order, each sent before its sender's
    // next serial.
    if (e.key.time < cut.time) r.fail("field " + path + "time: before the cut");
    if (e.key.serial >= cut.states[source].sent)
      r.fail("field " + path + "serial: its sender has not sent it yet");
    if (!cut.pending.empty() && !(cut.pending.back().key < e.key))
      r.fail("field " + path + ": not after the event before it (events are in key order)");
    cut.pending.push_back(e);
  }
}

EventPoint read_events(const Reader& r) {
  EventPoint c;
  c.end = finite_double_of(r.get<std::string>("end"), r.file() + ": end");
  read_event_cut(r, r.root(), "", c.end, c.at.cut, c.at.digests);
  return c;
}

// A hybrid model's discrete side at a cut (BridgePoint).
json bridge_json(const BridgePoint& b) {
  json j = event_cut_json(b.cut, b.digests);
  auto& partitions = j["partitions"] = json::array();
  for (const BridgePoint::Partition& p : b.partitions) {
    json scheduled = json::array();
    for (const ArrivingEvent& e : p.scheduled)
      scheduled.push_back({{"time", double_hex(e.key.time)},
                           {"source", e.key.source},
                           {"serial", e.key.serial},
                           {"input", e.input},
                           {"value", double_hex(e.value)}});
    partitions.push_back({{"held", doubles_json(p.held)}, {"scheduled", scheduled}});
  }
  j["serials"] = b.serials;
  j["log_bytes"] = b.log_bytes;
  return j;
}

BridgePoint read_bridge(const Reader& r, const json& where, double end) {
  BridgePoint b;
  read_event_cut(r, where, "bridge.", end, b.cut, b.digests);
  const auto partitions = r.get<json>(where, "partitions", "bridge.");
  if (!partitions.is_array()) r.fail("field bridge.partitions: not an array");
  const auto n = static_cast<std::uint64_t>(b.cut.states.size());
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const std::string path = "bridge.partitions[" + std::to_string(p) + "].";
    if (!partitions[p].is_object()) r.fail("field " + path + ": not an object");
    BridgePoint::Partition at;
    at.held = read_doubles(r, partitions[p], "held", path);
    const auto scheduled = r.get<json>(partitions[p], "scheduled", path);
    if (!scheduled.is_array()) r.fail("field " + path + "scheduled: not an array");
    for (std::size_t k = 0; k < scheduled.size(); ++k) {
      const std::string epath = path + "scheduled[" + std::to_string(k) + "].";
      const json& e = scheduled[k];
      if (!e.is_object()) r.fail("field " + epath + ": not an object");
      ArrivingEvent a;
      a.key.time =
          finite_double_of(r.get<std::string>(e, "time", epath), r.file() + ": " + epath + "time");
      const auto source = r.get<std::uint64_t>(e, "source", epath);
      if (source >= n) r.fail("field " + epath + "source: not one of the components");
      a.key.source = static_cast<des::ComponentId>(source);
      a.key.serial = r.get<std::uint64_t>(e, "serial", epath);
      a.input = r.get<std::uint32_t>(e, "input", epath);
      a.value = finite_double_of(r.get<std::string>(e, "value", epath),
                                 r.file() + ": " + epath + "value");
      if (!at.scheduled.empty() && !(at.scheduled.back().key < a.key))
        r.fail("field " + epath + ": not after the event before it (events are in key order)");
      at.scheduled.push_back(a);
    }
    b.partitions.push_back(std::move(at));
  }
  b.serials = r.get<std::vector<std::uint64_t>>(where, "serials", "bridge.");
  b.log_bytes = r.get<std::uint64_t>(where, "log_bytes", "bridge.");
  return b;
}

json partitioned_json(const PartitionedPoint& c) {
  json j;
  j["planned_steps"] = c.planned_ticks;
  auto& parts = j["partitions"] = json::array();
  for (std::size_t p = 0; p < c.partitions.size(); ++p) {
    const PartitionPoint& at = c.partitions[p];
    json inputs = json::array();
    for (const auto& h : at.inputs)
      inputs.push_back({{"first", h.first}, {"values", doubles_json(h.values)}});
    const StepperMemory& m = at.memory;
    parts.push_back(
        {{"recorded", c.recorder.recorded.at(p)},
         {"x", doubles_json(at.x)},
         {"memory", {{"steps", m.steps}, {"h", double_hex(m.h)}, {"past", past_json(m.past)}}},
         {"indicators", doubles_json(at.indicators)},
         {"internal", to_hex(std::string(at.internal.begin(), at.internal.end()))},
         {"inputs", inputs},
         {"sha256_midstate", midstate_json(c.recorder.digests.at(p))}});
  }
  auto& rows = j["pending_rows"] = json::array();
  for (const auto& [tick, row] : c.recorder.pending_rows)
    rows.push_back({{"tick", tick}, {"values", doubles_json(row)}});
  j["csv_bytes"] = c.recorder.csv_bytes;
  if (c.master) j["master"] = master_json(*c.master);
  if (c.bridge) j["bridge"] = bridge_json(*c.bridge);
  return j;
}

PartitionedPoint read_partitioned(const Reader& r) {
  PartitionedPoint c;
  c.planned_ticks = r.get<std::uint64_t>("planned_steps");
  c.horizon = read_step(r, c.planned_ticks);
  const auto parts = r.get<json>("partitions");
  if (!parts.is_array()) r.fail("field partitions: not an array");
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::string path = "partitions[" + std::to_string(p) + "].";
    const json& part = parts[p];
    if (!part.is_object()) r.fail("field " + path + ": not an object");
    PartitionPoint at;
    c.recorder.recorded.push_back(r.get<std::uint64_t>(part, "recorded", path));
    if (c.recorder.recorded.back() == 0) r.fail("field " + path + "recorded: no step recorded");
    at.x = read_doubles(r, part, "x", path);
    const json& m = object_at(r, part, "memory", path);
    const std::string mpath = path + "memory.";
    at.memory.steps = r.get<std::uint64_t>(m, "steps", mpath);
    at.memory.h = double_of(r.get<std::string>(m, "h", mpath), r.file() + ": " + mpath + "h");
    at.memory.past = read_past(r, m, mpath);
    at.indicators = read_doubles(r, part, "indicators", path);
    const std::string internal =
        from_hex(r.get<std::string>(part, "internal", path), r.file() + ": " + path + "internal");
    at.internal.assign(internal.begin(), internal.end());
    const auto inputs = r.get<json>(part, "inputs", path);
    if (!inputs.is_array()) r.fail("field " + path + "inputs: not an array");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::string ipath = path + "inputs[" + std::to_string(k) + "].";
      at.inputs.push_back({r.get<std::uint64_t>(inputs[k], "first", ipath),
                           read_doubles(r, inputs[k], "values", ipath)});
    }
    c.recorder.digests.push_back(read_midstate(r, part, path));
    c.partitions.push_back(std::move(at));
  }
  const auto rows = r.get<json>("pending_rows");
  if (!rows.is_array()) r.fail("field pending_rows: not an array");
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string path = "pending_rows[" + std::to_string(k) + "].";
    c.recorder.pending_rows[r.get<std::uint64_t>(rows[k], "tick", path)] =
        read_doubles(r, rows[k], "values", path);
  }
  c.recorder.csv_bytes = r.get<std::uint64_t>("csv_bytes");
  if (r.root().contains("master")) c.master = read_master(r, object_at(r, r.root(), "master", ""));
  if (r.root().contains("bridge"))
    c.bridge =
        read_bridge(r, object_at(r, r.root(), "bridge", ""), std::numeric_limits<double>::max());
  return c;
}

// Where chain_json leaves a chain's states, as a string that nothing else in a checkpoint is.
constexpr const char* kStatesPlaceholder = "<states>";

// The states as the compact JSON of doubles_json per pendulum: [["hex","hex"],...].
std::string states_text(const std::vector<PendulumState>& states) {
  std::string text;
  text.reserve(2 + states.size() * (2 + pendulum_state_size * 19));
  text += '[';
  for (std::size_t i = 0; i < states.size(); ++i) {
    text += i ? ",[" : "[";
    for (std::size_t k = 0; k < pendulum_state_size; ++k) {
      text += k ? ",\"" : "\"";
      text += double_hex(states[i][k]);
      text += '"';
    }
    text += ']';
  }
  text += ']';
  return text;
}

// `dumped` (a checkpoint's JSON, `colon` between key and value) with the value of "states"
// replaced by `states`. Quotes inside strings are escaped, so only the field itself matches.
std::string spliced(std::string dumped, const std::string& states, const char* colon) {
  const std::string key = std::string("\"states\"") + colon;
  const std::string value = std::string("\"") + kStatesPlaceholder + "\"";
  const std::size_t at = dumped.find(key + value);
  if (at != std::string::npos) dumped.replace(at + key.size(), value.size(), states);
  return dumped;
}

json chain_json(const ChainPoint& c) {
  json j;
  j["pendulums"] = c.pendulums;
  j["planned_steps"] = c.planned_steps;
  j["step"] = c.recorder.step;
  j["t"] = step_time(0.0, c.h, c.recorder.step);  // for people; `step` is what counts
  j["states"] = kStatesPlaceholder;               // spliced in as text by write_checkpoint
  j["collisions"] = c.collisions;
  j["sha256_midstate"] = midstate_json(c.recorder.digest);
  j["csv_bytes"] = c.recorder.csv_bytes;
  return j;
}

std::vector<PendulumState> read_states(const Reader& r, std::size_t pendulums) {
  const auto rows = r.get<std::vector<std::vector<std::string>>>("states");
  if (rows.size() != pendulums)
    r.fail("field states: " + std::to_string(rows.size()) + " pendulums, expected " +
           std::to_string(pendulums));
  std::vector<PendulumState> states;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != pendulum_state_size)
      r.fail("field states[" + std::to_string(i) + "]: expected " +
             std::to_string(pendulum_state_size) + " values");
    PendulumState x{};
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::string field =
          r.file() + ": states[" + std::to_string(i) + "][" + std::to_string(k) + "]";
      x[k] = finite_double_of(rows[i][k], field);
    }
    states.push_back(x);
  }
  return states;
}

ChainPoint read_chain(const Reader& r) {
  ChainPoint c;
  c.pendulums = r.get<std::size_t>("pendulums");
  c.planned_steps = r.get<std::uint64_t>("planned_steps");
  c.recorder.step = read_step(r, c.planned_steps);
  c.states = read_states(r, c.pendulums);
  c.collisions = r.get<std::uint64_t>("collisions");
  c.recorder.digest = read_midstate(r, r.root(), "");
  // Every committed step hashes 16 bytes per pendulum: steps 0 .. step.
  const std::uint64_t expected = (c.recorder.step + 1) * 8 * pendulum_state_size * c.pendulums;
  if (c.recorder.digest.length != expected)
    r.fail("field sha256_midstate.length: " + std::to_string(c.recorder.digest.length) +
           " bytes hashed, expected " + std::to_string(expected) + " for step " +
           std::to_string(c.recorder.step));
  c.recorder.csv_bytes = r.get<std::uint64_t>("csv_bytes");
  return c;
}

// setup's files: [{path, sha256}, ...], each path absolute, each digest 64 hex digits.
std::vector<std::pair<std::string, std::string>> read_files(const Reader& r) {
  const json& files = r.root().at("files");
  if (!files.is_array()) r.fail("field files: not an array");
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::string path = "files[" + std::to_string(k) + "].";
    if (!files[k].is_object()) r.fail("field " + path + ": not an object");
    auto file = r.get<std::string>(files[k], "path", path);
    auto sha = r.get<std::string>(files[k], "sha256", path);
    if (!fs::path(file).is_absolute()) r.fail("field " + path + "path: not an absolute path");
    if (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos)
      r.fail("field " + path + "sha256: not 64 hexadecimal digits");
    out.emplace_back(std::move(file), std::move(sha));
  }
  return out;
}

// A partitioned model's conservative run has no guarantee to choose (its partitions' inputs
// are its guarantees); a chain's has.
RunSetup read_setup(const Reader& r, bool partitioned) {
  RunSetup s;
  s.scenario = r.get<std::string>("scenario");
  // (Absent from checkpoints written before it was kept.)
  if (r.root().contains("scenario_dir")) s.scenario_dir = r.get<std::string>("scenario_dir");
  if (r.root().contains("files")) s.files = read_files(r);
  const auto method = r.get<std::string>("method");
  const auto sync = sync_method_named(method);
  if (!sync) r.fail("field method: '" + method + "' is not a method");
  s.method = *sync;
  const auto guarantee = r.get<std::string>("guarantee");
  const auto granted = guarantee_named(guarantee);
  const bool chooses = s.method == SyncMethod::conservative && !partitioned;
  if (!granted || (*granted != Guarantee::none) != chooses)
    r.fail("field guarantee: '" + guarantee + "' is not a guarantee of a " + method + " run");
  s.guarantee = *granted;
  const auto layout = r.get<std::string>("layout");
  const auto packed = run_layout_named(layout);
  if (!packed || packed->has_value() == (s.method == SyncMethod::sequential))
    r.fail("field layout: '" + layout + "' is not the layout of a " + to_string(s.method) + " run");
  s.layout = *packed;
  // (Absent from checkpoints written before blocks existed.)
  if (r.root().contains("blocks")) s.blocks = r.get<std::uint32_t>("blocks");
  if ((s.layout && in_blocks(*s.layout)) != (s.blocks >= 2) || s.blocks > kMaxBlocks)
    r.fail("field blocks: " + std::to_string(s.blocks) + " does not fit layout '" + layout + "'");
  s.batch = r.get<std::uint64_t>("batch");
  s.window = r.get<std::uint64_t>("window");
  s.check_guarantees = r.get<bool>("check_guarantees");
  s.rollback_check = r.get<bool>("rollback_check");
  // (Absent from checkpoints written before partitioned models could be resumed.)
  if (r.root().contains("tolerance")) s.tolerance = r.get<double>("tolerance");
  if (!(s.tolerance >= 0)) r.fail("field tolerance: must be >= 0");
  const auto pin = r.get<std::string>("pin");
  const auto pinning = pinning_named(pin);
  if (!pinning) r.fail("field pin: '" + pin + "' is neither cores nor none");
  s.pin = *pinning;
  s.call_timeout_ms = r.get<unsigned>("call_timeout_ms");
  return s;
}

}  // namespace

std::string checkpoint_digest(const Checkpoint& c) {
  if (c.events()) return event_run_digest(c.event_point().at.digests);
  if (c.partitioned()) {
    const PartitionedPoint& p = c.partitions();
    const std::string partitions = PartitionedRecorder::digest_of(p.recorder.digests);
    // A hybrid model's: the partitions' and the discrete components', in that order.
    if (!p.bridge) return partitions;
    return combine_component_digests({partitions, event_run_digest(p.bridge->digests)});
  }
  Sha256 sha;
  sha.restore(c.chain().recorder.digest);
  return sha.hex();
}

void write_checkpoint(const Checkpoint& c, const fs::path& dir) {
  json j;
  j["format"] = kFormat;
  const RunSetup& s = c.setup;
  j["scenario"] = s.scenario;
  j["scenario_dir"] = s.scenario_dir;
  j["files"] = json::array();
  for (const auto& [path, sha] : s.files) j["files"].push_back({{"path", path}, {"sha256", sha}});
  j["scenario_copy"] = kScenarioCopy;
  j["scenario_sha256"] = c.scenario_sha256;
  j["method"] = to_string(s.method);
  j["guarantee"] = to_string(s.guarantee);
  j["layout"] = layout_label(s.layout);
  j["blocks"] = s.blocks;
  j["batch"] = s.batch;
  j["window"] = s.window;
  j["check_guarantees"] = s.check_guarantees;
  j["rollback_check"] = s.rollback_check;
  j["pin"] = s.pin;
  j["call_timeout_ms"] = s.call_timeout_ms;
  j["tolerance"] = s.tolerance;
  j["model"] = c.events() ? "events" : c.partitioned() ? "partitioned" : "chain";
  j.update(c.events()        ? events_json(c.event_point())
           : c.partitioned() ? partitioned_json(c.partitions())
                             : chain_json(c.chain()));
  if (c.partitioned()) {
    j["step"] = c.step();                                    // the tick every partition has reached
    j["t"] = step_time(0.0, c.partitions().tick, c.step());  // for people
  }
  j["resumed_from"] = c.resumed_from;
  // A chain's states are nearly all of a big checkpoint (a million pendulums: 40 MB). They
  // are written as text, as the JSON tree would write them, not through the tree (two small
  // arrays per pendulum are slow to build and to dump twice).
  const std::string states = c.events() || c.partitioned() ? "" : states_text(c.chain().states);
  j["mac"] = checkpoint_mac(spliced(j.dump(), states, ":"));
  const std::string text = spliced(j.dump(1), states, ": ");

  const fs::path file = dir / kCheckpointFile;
  const fs::path temp = dir / (std::string(kCheckpointFile) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text << '\n';
    out.flush();
    if (!out) throw InputError(temp.string() + ": cannot write the checkpoint");
  }
  std::error_code ec;
  fs::rename(temp, file, ec);
  if (ec) throw InputError(file.string() + ": cannot replace the checkpoint: " + ec.message());
}

std::uint64_t Checkpoint::step() const {
  if (events()) return event_point().at.cut.committed_events();
  return partitioned() ? partitions().horizon : chain().recorder.step;
}

Checkpoint read_checkpoint(const fs::path& dir) {
  const fs::path file = dir / kCheckpointFile;
  return parse_checkpoint(read_input_file(file, "checkpoint"), file.string());
}

Checkpoint parse_checkpoint(const std::string& text, const std::string& file) {
  const json j = parse_input_json(text, file, "checkpoint");
  const Reader r(j, file);
  if (!j.is_object()) r.fail("not a checkpoint (a JSON object)");
  const auto format = r.get<std::string>("format");
  if (std::find(kUnverifiableFormats.begin(), kUnverifiableFormats.end(), format) !=
      kUnverifiableFormats.end())
    r.fail("written by an older kausal (format " + format +
           "), whose checksum anyone who changed the file could recompute: it cannot be "
           "verified, so it is not resumed; start the run again");
  if (format != kFormat) r.fail("field format: expected \"" + std::string(kFormat) + "\"");
  Checkpoint c;
  const std::string model = j.contains("model") ? r.get<std::string>("model") : "chain";
  c.setup = read_setup(r, model != "chain");
  c.scenario_sha256 = r.get<std::string>("scenario_sha256");
  if (model == "chain")
    c.point = read_chain(r);
  else if (model == "partitioned")
    c.point = read_partitioned(r);
  else if (model == "events")
    c.point = read_events(r);
  else
    r.fail("field model: '" + model + "' is not \"chain\", \"partitioned\" or \"events\"");
  c.resumed_from = r.get<std::vector<std::uint64_t>>("resumed_from");
  // Last: a field that is wrong on its face is named above; this catches the rest.
  const auto mac = r.get<std::string>("mac");
  bool verified = false;
  try {
    verified = checkpoint_mac_matches(canonical_of(j), mac);
  } catch (const InputError& e) {
    r.fail(std::string("field mac: cannot be verified: ") + e.what());
  }
  if (!verified)
    r.fail("field mac: does not verify with this user's checkpoint key (" +
           checkpoint_key_file().string() +
           "): the file was changed after kausal wrote it, or another user or machine wrote "
           "it; it cannot be resumed");
  return c;
}

Checkpointer::Checkpointer(fs::path dir, Checkpoint base, TrajectoryRecorder& recorder,
                           std::chrono::milliseconds every)
    : dir_(std::move(dir)),
      c_(std::move(base)),
      chain_recorder_(&recorder),
      every_(every),
      // The first committed step is written at once: from then on a crash can be resumed.
      last_write_(coarse_monotonic() - every) {}

Checkpointer::Checkpointer(fs::path dir, Checkpoint base, PartitionedRecorder& recorder,
                           const PartitionedPlan& plan, Points points,
                           std::chrono::milliseconds every)
    : dir_(std::move(dir)),
      c_(std::move(base)),
      partitioned_recorder_(&recorder),
      plan_(&plan),
      points_(points),
      every_(every),
      last_write_(coarse_monotonic() - every) {}

Checkpointer::~Checkpointer() {
  if (writing_.valid()) writing_.wait();
}

bool Checkpointer::interval_passed() const {
  if (every_.count() == 0) return true;
  const std::chrono::nanoseconds took(last_write_took_.load());
  return coarse_monotonic() - last_write_ >=
         std::max<std::chrono::nanoseconds>(every_, quiet_factor * took);
}

bool Checkpointer::due() {
  if (!interval_passed()) return false;
  const auto now = coarse_monotonic();
  // Still writing the last one: this one waits for the next interval.
  if (writing_.valid() && writing_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return false;
  last_write_ = now;
  return true;
}

void Checkpointer::committed(std::uint64_t step, std::span<const PendulumState> /*states*/,
                             std::uint64_t collisions) {
  ChainPoint& c = c_.chain();
  c.collisions = collisions;
  c.recorder.step = step;
  have_step_ = true;
  if (due() && take_position()) store();
}

bool Checkpointer::take_position() {
  if (partitioned_recorder_) {
    // Nothing to resume from yet, or deliveries past the last macro step or cut (a failure
    // within one): the last checkpoint stands.
    if (!resumable() || past_point_) return false;
    PartitionedPoint& c = c_.partitions();
    c.recorder = partitioned_recorder_->position();
    c.horizon = partitioned_recorder_->horizon();
    return true;
  }
  if (!have_step_) return false;  // nothing committed in this process: the last checkpoint stands
  ChainPoint& c = c_.chain();
  c.recorder = chain_recorder_->position();
  const std::span<const PendulumState> states = chain_recorder_->last_states();
  c.states.assign(states.begin(), states.end());
  return true;
}

void Checkpointer::write_now() {
  finish_writing();
  if (take_position()) write_checkpoint(c_, dir_);
}

void Checkpointer::finished(RunResult& r) {
  try {
    write_now();
  } catch (const Error& e) {
    if (r.completed())
      r.end_with(e);
    else
      r.error += std::string("; ") + e.what();
  }
}

void Checkpointer::finish_writing() {
  if (writing_.valid()) writing_.get();  // throws the write's failure
}

void Checkpointer::store() {
  finish_writing();
  auto write = [this](const Checkpoint& c) {
    const auto begin = std::chrono::steady_clock::now();
    write_checkpoint(c, dir_);
    last_write_took_ = (std::chrono::steady_clock::now() - begin).count();
  };
  // The first is written before the run goes on: from then on a crash can be resumed. (And
  // every one when they are to be written at every chance.)
  if (!stored_any_ || every_.count() == 0) {
    write(c_);
    stored_any_ = true;
    return;
  }
  writing_ = std::async(std::launch::async, [write, copy = c_] { write(copy); });
}

void Checkpointer::delivered(std::size_t p, const StateBatch& batch, const RoutedSamples& routed) {
  const PartitionedPlan& plan = *plan_;
  PartitionedPoint& c = c_.partitions();
  if (c.partitions.empty()) {  // a fresh run's first delivery (a resumed run has them all)
    c.partitions.resize(plan.configs.size());
    for (std::size_t q = 0; q < c.partitions.size(); ++q)
      c.partitions[q].inputs.resize(plan.configs[q].channels.size());
  }
  PartitionPoint& at = c.partitions[p];
  const std::span<const double> last = batch.state(batch.count() - 1);
  at.x.assign(last.begin(), last.end());
  at.memory = batch.memory;
  at.indicators = batch.indicators;
  at.internal = batch.internal;
  for (const auto& [q, samples] : routed)
    for (const ChannelSample& sample : samples) {
      ChannelHistory& h = c.partitions[q].inputs.at(sample.channel);
      if (h.values.empty()) h.first = sample.index;
      h.values.push_back(sample.value);
    }
  forget_unneeded(plan.configs[p], partitioned_recorder_->recorded(p) - 1, at.inputs);
  // Under the master or a hybrid model a partition resumes where every other does, with the
  // master or the discrete side.
  past_point_ = points_ != Points::any;
  if (points_ == Points::any && resumable() && due() && take_position()) store();
}

void Checkpointer::macro_step_accepted(const MasterPoint& master) {
  c_.partitions().master = master;
  past_point_ = false;
  if (resumable() && due() && take_position()) store();
}

// Asked before every move of a hybrid run: the cheap tests first, the pending write last.
bool Checkpointer::wants_cut() const {
  if (points_ != Points::bridge_cuts || !interval_passed()) return false;
  return !writing_.valid() ||
         writing_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

void Checkpointer::cut_reached(const BridgePoint& bridge) {
  c_.partitions().bridge = bridge;
  past_point_ = false;
  if (resumable() && due() && take_position()) store();
}

bool Checkpointer::resumable() const {
  if (points_ == Points::macro_steps && !c_.partitions().master) return false;
  if (points_ == Points::bridge_cuts && !c_.partitions().bridge) return false;
  const auto& partitions = c_.partitions().partitions;
  for (std::size_t p = 0; p < partitions.size(); ++p)
    if (partitioned_recorder_->recorded(p) == 0) return false;
  return !partitions.empty();
}

void Checkpointer::forget_unneeded(const IntegratorConfig& config, std::uint64_t resume_step,
                                   std::vector<ChannelHistory>& inputs) {
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    ChannelHistory& h = inputs[k];
    const std::uint64_t needed =
        InputChannels::first_needed(config.channels[k], config.ticks_per_step, resume_step);
    const std::uint64_t unneeded =
        std::min<std::uint64_t>(needed > h.first ? needed - h.first : 0, h.values.size());
    // Erasing from the front moves the rest: only once half is unneeded (a longer history
    // than needed is still a valid one), so that each sample is moved O(1) times.
    if (unneeded == 0 || 2 * unneeded < h.values.size()) continue;
    h.values.erase(h.values.begin(), h.values.begin() + static_cast<std::ptrdiff_t>(unneeded));
    h.first += unneeded;
  }
}

}  // namespace kausal

#include "monitor/record/checkpoint.hpp"

#include <unistd.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "integrator/stepper.hpp"
#include "monitor/scenario/input_file.hpp"
#include "system/coarse_clock.hpp"
#include "system/errors.hpp"

namespace kausal {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// /2: with "checksum". /1 files (no checksum) are refused: nothing vouches for them.
constexpr const char* kFormat = "kausal-checkpoint/2";
constexpr const char* kUncheckedFormat = "kausal-checkpoint/1";

// SHA-256 of the canonical content: every field but "checksum", in file order, as compact
// JSON. A midstate or a state edited by hand (or by a disk) no longer matches it.
std::string checksum_of(json content) {
  content.erase("checksum");
  const std::string canonical = content.dump();
  Sha256 sha;
  sha.update(canonical.data(), canonical.size());
  return sha.hex();
}

std::string to_hex(const std::string& bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : bytes) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
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
    try {
      return where.at(name).get<T>();
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

Sha256::Midstate read_midstate(const Reader& r) {
  if (!r.root().contains("sha256_midstate")) r.fail("field sha256_midstate is missing");
  const json& m = r.root().at("sha256_midstate");
  const std::string path = "sha256_midstate.";
  Sha256::Midstate out;
  const auto h = r.get<std::string>(m, "h", path);
  if (h.size() != 64) r.fail("field sha256_midstate.h: expected 64 hex digits");
  for (std::size_t i = 0; i < 8; ++i)
    out.h[i] = parse_hex_word<std::uint32_t>(h.substr(8 * i, 8), r.file() + ": sha256_midstate.h");
  out.length = r.get<std::uint64_t>(m, "length", path);
  out.pending =
      from_hex(r.get<std::string>(m, "pending", path), r.file() + ": sha256_midstate.pending");
  return out;
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
      x[k] = std::bit_cast<double>(parse_hex_word<std::uint64_t>(rows[i][k], field));
      if (!std::isfinite(x[k])) throw InputError(field + ": not a finite number");
    }
    states.push_back(x);
  }
  return states;
}

RunSetup read_setup(const Reader& r) {
  RunSetup s;
  s.scenario = r.get<std::string>("scenario");
  const auto method = r.get<std::string>("method");
  const auto sync = sync_method_named(method);
  if (!sync) r.fail("field method: '" + method + "' is not a method");
  s.method = *sync;
  const auto guarantee = r.get<std::string>("guarantee");
  const auto granted = guarantee_named(guarantee);
  if (!granted || (*granted != Guarantee::none) != (s.method == SyncMethod::conservative))
    r.fail("field guarantee: '" + guarantee + "' is not a guarantee of a " + method + " run");
  s.guarantee = *granted;
  const auto layout = r.get<std::string>("layout");
  const auto packed = run_layout_named(layout);
  if (!packed || packed->has_value() == (s.method == SyncMethod::sequential))
    r.fail("field layout: '" + layout + "' is not the layout of a " + to_string(s.method) + " run");
  s.layout = *packed;
  s.batch = r.get<std::uint64_t>("batch");
  s.window = r.get<std::uint64_t>("window");
  s.check_guarantees = r.get<bool>("check_guarantees");
  s.rollback_check = r.get<bool>("rollback_check");
  s.pin = r.get<std::string>("pin");
  s.call_timeout_ms = r.get<unsigned>("call_timeout_ms");
  return s;
}

}  // namespace

std::string file_sha256(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot read it");
  Sha256 sha;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    sha.update(buf, static_cast<std::size_t>(in.gcount()));
  return sha.hex();
}

void write_checkpoint(const Checkpoint& c, const fs::path& dir) {
  json j;
  j["format"] = kFormat;
  const RunSetup& s = c.setup;
  j["scenario"] = s.scenario;
  j["scenario_copy"] = kScenarioCopy;
  j["scenario_sha256"] = c.scenario_sha256;
  j["method"] = to_string(s.method);
  j["guarantee"] = to_string(s.guarantee);
  j["layout"] = layout_label(s.layout);
  j["batch"] = s.batch;
  j["window"] = s.window;
  j["check_guarantees"] = s.check_guarantees;
  j["rollback_check"] = s.rollback_check;
  j["pin"] = s.pin;
  j["call_timeout_ms"] = s.call_timeout_ms;
  j["pendulums"] = c.pendulums;
  j["planned_steps"] = c.planned_steps;
  j["step"] = c.step();
  j["t"] = step_time(0.0, c.h, c.step());  // for people; `step` is what counts
  auto& states = j["states"] = json::array();
  for (const auto& x : c.states)
    states.push_back({hex_word(std::bit_cast<std::uint64_t>(x[0]), 16),
                      hex_word(std::bit_cast<std::uint64_t>(x[1]), 16)});
  j["collisions"] = c.collisions;
  j["sha256_midstate"] = midstate_json(c.recorder.digest);
  j["csv_bytes"] = c.recorder.csv_bytes;
  j["resumed_from"] = c.resumed_from;
  j["checksum"] = checksum_of(j);

  const fs::path file = dir / kCheckpointFile;
  const fs::path temp = dir / (std::string(kCheckpointFile) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << j.dump(1) << '\n';
    out.flush();
    if (!out) throw InputError(temp.string() + ": cannot write the checkpoint");
  }
  std::error_code ec;
  fs::rename(temp, file, ec);
  if (ec) throw InputError(file.string() + ": cannot replace the checkpoint: " + ec.message());
}

Checkpoint read_checkpoint(const fs::path& dir) {
  const fs::path file = dir / kCheckpointFile;
  const json j = read_input_json(file, "checkpoint");
  const Reader r(j, file.string());
  if (!j.is_object()) r.fail("not a checkpoint (a JSON object)");
  const auto format = r.get<std::string>("format");
  if (format == kUncheckedFormat)
    r.fail("written by an older kausal without a checksum (format " + format +
           "): it cannot be checked, so it is not resumed; start the run again");
  if (format != kFormat) r.fail("field format: expected \"" + std::string(kFormat) + "\"");
  Checkpoint c;
  c.setup = read_setup(r);
  c.scenario_sha256 = r.get<std::string>("scenario_sha256");
  c.pendulums = r.get<std::size_t>("pendulums");
  c.planned_steps = r.get<std::uint64_t>("planned_steps");
  c.recorder.step = r.get<std::uint64_t>("step");
  if (c.recorder.step > c.planned_steps)
    r.fail("field step: " + std::to_string(c.recorder.step) + " lies beyond planned_steps " +
           std::to_string(c.planned_steps));
  c.states = read_states(r, c.pendulums);
  c.collisions = r.get<std::uint64_t>("collisions");
  c.recorder.digest = read_midstate(r);
  // Every committed step hashes 16 bytes per pendulum: steps 0 .. step.
  const std::uint64_t expected = (c.recorder.step + 1) * 8 * pendulum_state_size * c.pendulums;
  if (c.recorder.digest.length != expected)
    r.fail("field sha256_midstate.length: " + std::to_string(c.recorder.digest.length) +
           " bytes hashed, expected " + std::to_string(expected) + " for step " +
           std::to_string(c.recorder.step));
  c.recorder.csv_bytes = r.get<std::uint64_t>("csv_bytes");
  c.resumed_from = r.get<std::vector<std::uint64_t>>("resumed_from");
  // Last: a field that is wrong on its face is named above; this catches the rest.
  if (r.get<std::string>("checksum") != checksum_of(j))
    r.fail(
        "field checksum: does not match the content (the file was changed after kausal "
        "wrote it); it cannot be resumed");
  return c;
}

Checkpointer::Checkpointer(fs::path dir, Checkpoint base, std::chrono::milliseconds every)
    : dir_(std::move(dir)),
      c_(std::move(base)),
      every_(every),
      // The first committed step is written at once: from then on a crash can be resumed.
      last_write_(coarse_monotonic() - every) {}

void Checkpointer::committed(std::uint64_t step, std::span<const PendulumState> states,
                             std::uint64_t collisions, TrajectoryRecorder& recorder) {
  c_.states.assign(states.begin(), states.end());
  c_.collisions = collisions;
  c_.recorder.step = step;
  have_step_ = true;
  const auto now = coarse_monotonic();
  if (now - last_write_ < every_) return;
  write_now(recorder);
  last_write_ = now;
}

void Checkpointer::write_now(TrajectoryRecorder& recorder) {
  if (!have_step_) return;  // nothing committed in this process: the last checkpoint stands
  c_.recorder = recorder.position();
  write_checkpoint(c_, dir_);
}

}  // namespace kausal

#include "monitor/sync/injections.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "monitor/scenario/input_file.hpp"
#include "monitor/sync/step_clock.hpp"
#include "system/errors.hpp"

namespace kausal {

std::string injection_line(const Injection& i) {
  nlohmann::ordered_json j;
  j["step"] = i.step;
  j["kind"] = i.kind;
  j["target"] = i.target;
  j["value"] = i.value;
  return j.dump();
}

Injection parse_injection_line(const std::string& line, const std::string& where) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError(where + ": not a JSON object");
  auto field = [&](const char* name) -> const nlohmann::json& {
    const auto f = j.find(name);
    if (f == j.end()) throw InputError(where + ": no \"" + name + "\"");
    return *f;
  };
  Injection i;
  const auto& step = field("step");
  if (!step.is_number_unsigned())
    throw InputError(where + ": \"step\" must be a step number (a non-negative integer)");
  i.step = step.get<std::uint64_t>();
  const auto& kind = field("kind");
  const auto named =
      kind.is_string() ? injection_kind_named(kind.get<std::string>()) : std::nullopt;
  if (!named) throw InputError(where + ": \"kind\" must be \"push\", \"set\" or \"stop\"");
  i.kind = *named;
  const auto& target = field("target");
  if (!target.is_string()) throw InputError(where + ": \"target\" must be a string");
  i.target = target.get<std::string>();
  const auto& value = field("value");
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw InputError(where + ": \"value\" must be a finite number");
  i.value = value.get<double>();
  return i;
}

std::vector<Injection> parse_injections(const std::string& text, const std::string& file) {
  std::vector<Injection> out;
  std::size_t number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.push_back(parse_injection_line(line, file + ":" + std::to_string(number)));
  }
  return out;
}

std::vector<Injection> load_injections(const std::filesystem::path& file) {
  std::error_code missing;
  if (!std::filesystem::exists(file, missing)) return {};
  return parse_injections(read_input_file(file, "the injections"), file.string());
}

Injections::Injections(const Boundaries& boundaries, StepClock* clock,
                       const std::filesystem::path& record, std::vector<Injection> replayed,
                       bool continued)
    : at_{std::max<std::uint64_t>(1, boundaries.grid), boundaries.lead, boundaries.last},
      clock_(clock),
      pending_(std::move(replayed)),
      record_file_(record) {
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Injection& a, const Injection& b) { return a.step < b.step; });
  if (record.empty()) return;
  record_.open(record, continued ? std::ios::app : std::ios::trunc);
  for (const Injection& i : pending_) record_ << injection_line(i) << "\n";
  if (!record_.flush()) throw InputError(record.string() + ": cannot write the injections");
}

std::uint64_t Injections::request(Injection injection) {
  if (!clock_) throw InputError("injections need a paced run (--realtime or --external-clock)");
  std::lock_guard lock(mutex_);
  const std::uint64_t released = clock_->released();
  const std::uint64_t step = ((released + at_.grid - 1) / at_.grid + at_.lead) * at_.grid;
  if (step >= at_.last || released >= at_.last)
    throw InputError("the run has released its last step: nothing can change any more");
  injection.step = step;
  // Recorded before it can take effect: a run that fails later still has it on disk.
  if (record_.is_open()) {
    record_ << injection_line(injection) << "\n";
    if (!record_.flush()) throw InputError(record_file_.string() + ": cannot record an injection");
  }
  const auto at = std::upper_bound(pending_.begin(), pending_.end(), step,
                                   [](std::uint64_t s, const Injection& i) { return s < i.step; });
  pending_.insert(at, std::move(injection));
  return step;
}

std::uint64_t Injections::hold() const {
  std::lock_guard lock(mutex_);
  return pending_.empty() ? none : pending_.front().step;
}

std::uint64_t Injections::released() const {
  const std::uint64_t released = clock_ ? clock_->released() : none;
  return std::min(released, hold());
}

std::vector<Injection> Injections::take(std::uint64_t step) {
  std::lock_guard lock(mutex_);
  std::vector<Injection> due, kept;
  for (auto& i : pending_)
    (i.step <= step && i.kind != InjectionKind::stop ? due : kept).push_back(std::move(i));
  pending_ = std::move(kept);
  return due;
}

std::uint64_t Injections::stop_step() const {
  std::lock_guard lock(mutex_);
  for (const Injection& i : pending_)
    if (i.kind == InjectionKind::stop) return i.step;
  return none;
}

void Injections::check_stop(std::uint64_t reached) const {
  const std::uint64_t at = stop_step();
  if (reached >= at) throw Interrupted("stopped by the operator at step " + std::to_string(at));
}

}  // namespace kausal

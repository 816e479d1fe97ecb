#include "monitor/scenario/injection_file.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "monitor/scenario/input_file.hpp"

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
  // An injection is one flat object: anything nested deeper is refused while it is parsed
  // (copying or freeing a deeply nested value recurses).
  const nlohmann::json::parser_callback_t flat = [&](int depth, nlohmann::json::parse_event_t,
                                                     nlohmann::json&) {
    if (depth > 2) throw InputError(where + ": an injection is one flat JSON object");
    return true;
  };
  const auto j = nlohmann::json::parse(line, flat, false);
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
  if (!named)
    throw InputError(where + ": \"kind\" must be \"push\", \"set\", \"stop\" or \"send\"");
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

}  // namespace kausal

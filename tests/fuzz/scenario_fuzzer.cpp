// libFuzzer target (make sanitize; make test runs it for a bounded time under ASan + UBSan): the
// scenario parsers (pendulum chains, partitioned models and discrete-event models), the
// deployment-file parser, the injections parser (kausal run --replay) and the input tables
// parser (a subsystem's input_table) on arbitrary bytes. Bad
// input must end as kausal::InputError, the project's own error; anything else — a crash, a
// sanitizer report, another exception, a hang — is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "monitor/scenario/deploy_file.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/scenario/injection_file.hpp"
#include "monitor/scenario/input_table_file.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "tests/fuzz/refused_or_read.hpp"

using kausal::fuzz::refused_or_read;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  refused_or_read([&] { kausal::parse_scenario(text, "fuzz.toml"); });
  refused_or_read([&] { kausal::parse_partitioned_scenario(text, "fuzz.toml"); });
  refused_or_read([&] { kausal::parse_event_scenario(text, "fuzz.toml"); });
  refused_or_read([&] { kausal::parse_deploy_file(text, "fuzz.toml"); });
  refused_or_read([&] { kausal::parse_injections(text, "fuzz.jsonl"); });
  refused_or_read([&] { kausal::parse_input_tables(text, "fuzz.csv"); });
  return 0;
}

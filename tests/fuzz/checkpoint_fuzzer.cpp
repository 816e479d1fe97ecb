// libFuzzer target (make sanitize; make test runs it for a bounded time under ASan + UBSan): the
// checkpoint.json reader that `kausal run --resume DIR` trusts (pendulum chains, partitioned
// models, discrete-event cuts) on arbitrary bytes. Its MAC is checked last, so every
// field's check is reached by edited files. Bad input must end as kausal::InputError;
// anything else — a crash, a sanitizer report, another exception, a hang, an allocation
// beyond the limit — is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "monitor/record/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kausal::parse_checkpoint(text, "fuzz/checkpoint.json");
  } catch (const kausal::InputError&) {
    // What bad input must give.
  }
  return 0;
}

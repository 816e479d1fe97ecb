// libFuzzer target (make sanitize; make test runs it for a bounded time under ASan + UBSan): the
// XML readers of the Modelica Association's files on arbitrary bytes, each input given to both:
// FMI 2.0's modelDescription.xml and SSP's SystemStructure.ssd (with the same bytes as the
// parameter file any binding names). An .fmu or .ssp comes from the user, so bad XML must end
// as kausal::InputError; anything else — a crash, a sanitizer report, another exception, a
// hang — is a finding. A description that is accepted must also answer its own queries
// without going out of range.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "system/fmu/model_description.hpp"
#include "system/fmu/ssp_description.hpp"
#include "tests/fuzz/refused_or_read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kausal::fmu;
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    const ModelDescription md = parse_model_description(xml, "fuzz.fmu: modelDescription.xml");
    for (std::size_t state : md.states())
      if (state >= md.variables.size()) __builtin_trap();  // an index the parser let through
    for (const auto* list : {&md.outputs, &md.derivatives, &md.initial_unknowns})
      for (const Unknown& u : *list) {
        if (u.variable >= md.variables.size()) __builtin_trap();
        if (u.dependencies)
          for (std::size_t d : *u.dependencies)
            if (d >= md.variables.size()) __builtin_trap();
      }
    for (const Variable& v : md.variables) {
      if (md.find(v.name) == nullptr) __builtin_trap();
      effective_initial(v);
    }
    for (FmuKind k : {FmuKind::model_exchange, FmuKind::co_simulation}) {
      try {
        md.interface_of(k);
      } catch (const kausal::InputError&) {
      }
    }
  } catch (const kausal::InputError&) {
    // What bad input must give.
  }
  kausal::fuzz::refused_or_read([&] {
    const std::string text(xml);
    const SspSystem s = parse_ssp_description(text, "fuzz.ssp: SystemStructure.ssd",
                                              [&](const std::string&) { return text; });
    std::set<std::string> names;
    for (const SspComponent& c : s.components)
      if (c.name.empty() || !names.insert(c.name).second) __builtin_trap();
    for (const SspConnection& c : s.connections)
      if (!names.contains(c.from) || !names.contains(c.to)) __builtin_trap();
  });
  return 0;
}

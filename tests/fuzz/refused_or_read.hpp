#pragma once
// What every fuzz target requires of bad input: it ends as kausal::InputError, the
// project's own error; anything else escapes and is a finding.
#include "common/errors.hpp"

namespace kausal::fuzz {

template <typename Read>
void refused_or_read(Read read) {
  try {
    read();
  } catch (const kausal::InputError&) {
    // What bad input must give.
  }
}

}  // namespace kausal::fuzz

#pragma once
// The live window's run controls (pace, push, set, stop) over the ORB: a paced run's Operator
// (idl/kausal.idl, docs/realtime.md), found through its reference file.
#include <filesystem>

#include "animation/live_window.hpp"
#include "idl/orb_runtime.hpp"

namespace kausal {

// Each control reads `file` (OUT/operator.ior, which the run writes as it starts) when it is
// used, and answers with a line: the step its action takes effect at, the run's refusal, or
// why the run cannot be reached. `orb` must outlive the controls. `kind` and `example` say
// which controls the window shows (RunControls).
RunControls operator_controls(OrbRuntime& orb, const std::filesystem::path& file,
                              ControlKind kind = ControlKind::pendulums,
                              const std::string& example = "");

}  // namespace kausal

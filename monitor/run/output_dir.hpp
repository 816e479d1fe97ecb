#pragma once
// The output directory of a run or a comparison (--out, or a fresh one under runs/),
// settled before anything starts: a directory this user can write, holding no earlier run.
#include <filesystem>

namespace kausal {

// Creates `dir` if it is missing. InputError naming the path if it cannot be used (a file or
// a path under one, not writable, /proc, too long), or if it is not empty: two runs' files
// in one directory would mix (and --resume would follow the wrong checkpoint). With `force`
// a non-empty directory is taken: the files and directories kausal writes there are
// removed first; anything else stays.
void prepare_output_dir(const std::filesystem::path& dir, bool force);

}  // namespace kausal

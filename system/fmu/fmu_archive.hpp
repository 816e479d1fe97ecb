#pragma once
// An .fmu is a zip archive from the user: read it as untrusted input. Every entry is checked
// before anything is written (a name that escapes the target directory, a symlink, sizes past
// the limits), and every problem is an InputError that starts with the .fmu's path.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "system/fmu/model_description.hpp"

namespace kausal::fmu {

inline constexpr std::size_t max_entry_bytes = std::size_t{64} << 20;        // read_fmu_entry
inline constexpr std::size_t max_unpacked_entries = 10'000;                  // unpack_fmu
inline constexpr std::uint64_t max_unpacked_bytes = std::uint64_t{1} << 30;  // unpack_fmu

// Reads one entry (e.g. "modelDescription.xml") without unpacking. InputError
// "<fmu>: not a zip archive (...)", "<fmu>: has no modelDescription.xml", an entry larger than
// max_entry_bytes.
std::string read_fmu_entry(const std::filesystem::path& fmu, const std::string& entry);

// Unpacks the whole archive into dir (created). Refuses entries that escape dir (absolute
// paths, ".."), symlinks, more than max_unpacked_entries entries or more than max_unpacked_bytes
// in total (saying which limit), before writing anything. Existing files are overwritten.
void unpack_fmu(const std::filesystem::path& fmu, const std::filesystem::path& dir);

// The model description of an .fmu file, from its archive; file is "<fmu>: modelDescription.xml".
ModelDescription read_model_description(const std::filesystem::path& fmu);

// Writes the zip archive `out` (an .ssp, an .fmu): each text under its entry name, then each
// file. Written beside `out` and renamed onto it, so that a failure leaves no half archive.
// InputError naming `out` or the file that could not be added.
void write_zip(const std::filesystem::path& out,
               const std::vector<std::pair<std::string, std::string>>& texts,
               const std::vector<std::pair<std::string, std::filesystem::path>>& files);

}  // namespace kausal::fmu

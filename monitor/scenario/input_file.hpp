#pragma once
// Reading a file the CLI parses (scenario, deployment file, checkpoint.json, summary.json):
// a regular file of bounded size, so that /dev/zero, a FIFO, a directory or a huge file is
// bad input (exit 2), never an endless read, a hang or an allocation without bound.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kausal {

// 16 MiB: far above any scenario (100,000 pendulums take about 11 MB) or checkpoint.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{16} << 20;

// The whole file. InputError "PATH: cannot open WHAT: reason", "PATH: WHAT must be a regular
// file (...)" or "PATH: WHAT is larger than 16 MiB" otherwise.
std::string read_input_file(const std::filesystem::path& file, const std::string& what);

// Arrays and objects nested deeper than this are refused: copying or printing a JSON value
// recurses.
inline constexpr int kMaxJsonDepth = 64;

// A JSON file read as above and parsed, keys in file order. InputError "PATH: ..." if it is
// not JSON or nests deeper than kMaxJsonDepth.
// `text`, read as JSON from `name` (InputError naming it: not JSON, nested too deep).
nlohmann::ordered_json parse_input_json(const std::string& text, const std::string& name,
                                        const std::string& what);
nlohmann::ordered_json read_input_json(const std::filesystem::path& file, const std::string& what);

}  // namespace kausal

#pragma once
// A subsystem's input_table (docs/scenarios.md, "Inputs from a table"): a CSV file whose first
// column is the time and whose other columns are inputs of that subsystem, named in the header,
// as FMI tools write an input file:
//
//   time,u,v
//   0,0,1
//   1,2,1
//   1,2,3      (a time given twice: v steps to 3 at t = 1)
//
// Blank lines and lines that start with '#' are skipped; fields may be quoted (RFC 4180).
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "system/input_table.hpp"

namespace kausal {

// The columns after the time, by header name, each an InputTable of every row (interpolated
// linearly; the scenario decides per input). InputError "FILE:LINE: ..." for a header
// without an input column or with a column named twice or unnamed, a row with another number
// of fields than the header, a field that is not a finite number, a time that goes back, no
// rows or more than max_input_table_rows.
std::vector<std::pair<std::string, InputTable>> parse_input_tables(std::string_view text,
                                                                   const std::string& file);
// The file read as read_input_file does (a regular file, at most 16 MiB) and parsed.
std::vector<std::pair<std::string, InputTable>> read_input_tables(
    const std::filesystem::path& file);

}  // namespace kausal

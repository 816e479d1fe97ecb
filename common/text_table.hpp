#pragma once
// Plain-text tables for the terminal: every column as wide as its widest cell and separated
// from its neighbours by two spaces, so that no value runs into the next whatever its size.
#include <string>
#include <vector>

namespace kausal {

enum class Align { left, right };

// rows[0] is the header. align[c] aligns column c (left when missing). Every line starts
// with `indent`; trailing spaces are dropped. With a `width` (0: none) that the table's lines
// would exceed, it is printed in parts one under another, an empty line between them, each
// with as many of the next columns as fit and the first column (the rows' names) again in
// front (a column too wide to fit beside the first stands alone with it).
std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<Align>& align, const std::string& indent = "",
                         std::size_t width = 0);

// "1 partition", "2 partitions": n and the noun, plural unless n is 1 (nouns with a plain -s).
std::string counted(std::size_t n, const std::string& noun);

// The columns of the terminal stdout writes to, else $COLUMNS, else 100; between 60 and 200.
std::size_t terminal_width();

// The columns a string takes on a terminal: its UTF-8 code points (µ, × and – take one).
std::size_t display_width(const std::string& text);

// `text` broken into lines of at most `width` columns at spaces (a word longer than that
// stands on a line of its own), each starting with the indentation of the line it came from;
// the line breaks it has are kept, runs of spaces between words become one.
std::string wrap_words(const std::string& text, std::size_t width);

}  // namespace kausal

#pragma once
// `--help` of kausal's executables (kausal and every subcommand, kausal-animation, the
// component processes) wrapped to the terminal: CLI11 prints an option's
// description on one line however long; this formatter breaks descriptions, the command's
// description and its footer at spaces to the width of the terminal (stdout's, else
// $COLUMNS, else 100 columns), the descriptions indented under their column.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>

#include "common/text_table.hpp"

namespace kausal {

class HelpFormatter final : public CLI::Formatter {
 public:
  HelpFormatter() : width_(terminal_width()) {
    column_width(std::min<std::size_t>(30, width_ / 3));
  }

  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap_words(opt->get_description(), description_width());
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_words(CLI::Formatter::make_description(app), width_);
  }
  std::string make_footer(const CLI::App* app) const override {
    return wrap_words(CLI::Formatter::make_footer(app), width_);
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap_words(sub->get_description(), description_width()),
                             get_column_width());
    return out.str();
  }

 private:
  std::size_t description_width() const {
    return width_ > get_column_width() + 20 ? width_ - get_column_width() : 20;
  }
  std::size_t width_;
};

}  // namespace kausal

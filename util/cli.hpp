#pragma once

// The house rules for every program's command line, on top of CLI11: help
// starts with "usage: PROGRAM ..." and goes to stdout (exit 0); a bad
// argument is ONE line "PROGRAM: REASON" on stderr that names the argument
// or value (exit 2), never CLI11's multi-line report. Programs build their
// CLI::App (options, validators, subcommands) and hand it here. Pure apart
// from parse_or_exit_code's two streams.

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace det::cli {

/// Usage line first ("usage: det-x [OPTIONS]"), then the description,
/// the options and the subcommands.
class formatter : public CLI::Formatter {
public:
  formatter();
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
};

/// A whole number of at least `min`: "'abc' is not a whole number >= 0".
CLI::Validator at_least(long long min);

/// Gives `app` (and its subcommands, present and future) the formatter and
/// the settings parse() relies on. parse() calls it; call it yourself to
/// render help without parsing.
void configure(CLI::App& app);

struct outcome {
  enum class kind { ok, help, error };
  kind what = kind::ok;
  /// kind::help: the help of the (sub)command --help was given to;
  /// kind::error: the one-line reason, without the program's name.
  std::string text;
};

/// Parses `args` (without the program name, in order). Unknown arguments
/// are errors ("unknown argument --x", "unexpected argument 'x'"); so is a
/// missing value ("--x needs a value").
outcome parse(CLI::App& app, const std::vector<std::string>& args);

/// One line for a CLI11 error: its message with CLI11's wording for a
/// missing value rewritten, newlines folded.
std::string reason(const CLI::Error& e);

/// parse() for a main(): prints help to `out` and returns 0, or prints
/// "NAME: REASON" to `err` and returns 2; nullopt when the arguments are
/// good and the program should run.
std::optional<int> parse_or_exit_code(CLI::App& app, int argc,
                                      const char* const* argv,
                                      std::ostream& out, std::ostream& err);

} // namespace det::cli

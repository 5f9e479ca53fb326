#include "util/cli.hpp"

#include <algorithm>
#include <memory>
#include <regex>

namespace det::cli {

formatter::formatter() {
  label("Usage", "usage");
  column_width(32);
}

std::string formatter::make_help(const CLI::App* app, std::string name,
                                 CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub)
    return make_expanded(app);
  // make_usage() starts with "usage:" and ends with a newline.
  std::string out = make_usage(app, std::move(name));
  if (!app->get_description().empty())
    out += "\n" + app->get_description() + "\n";
  out += make_positionals(app);
  out += make_groups(app, mode);
  out += make_subcommands(app, mode);
  out += make_footer(app);
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  return out;
}

CLI::Validator at_least(long long min) {
  return CLI::Validator(
      [min](const std::string& v) -> std::string {
        auto bad =
            "'" + v + "' is not a whole number >= " + std::to_string(min);
        if (v.empty() || v.size() > 18
            || v.find_first_not_of("-0123456789") != std::string::npos
            || v.find('-', 1) != std::string::npos || v == "-")
          return bad;
        return std::stoll(v) < min ? bad : std::string{};
      },
      "", "at_least");
}

namespace {

// Subcommands copy their parent's settings when they are made; these are
// set after, so on each.
void configure_tree(CLI::App& app,
                    const std::shared_ptr<CLI::FormatterBase>& f) {
  app.formatter(f);
  // Left-over arguments are collected, then reported by parse() in our
  // words (CLI11's ExtrasError lists them all on a line of its own).
  app.allow_extras();
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    configure_tree(*sub, f);
}

std::string unknown(const std::string& arg) {
  if (arg.size() > 1 && arg[0] == '-')
    return "unknown argument " + arg.substr(0, arg.find('='));
  return "unexpected argument '" + arg + "'";
}

} // namespace

void configure(CLI::App& app) {
  configure_tree(app, std::make_shared<formatter>());
}

std::string reason(const CLI::Error& e) {
  std::string msg = e.what();
  // CLI11: "--db: 1 required TEXT missing" -> "--db needs a value (TEXT)".
  static const std::regex missing(R"(^(\S+): \d+ required (\S+) missing$)");
  std::smatch m;
  if (std::regex_match(msg, m, missing))
    msg = m[1].str() + " needs a value (" + m[2].str() + ")";
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  return msg;
}

outcome parse(CLI::App& app, const std::vector<std::string>& args) {
  configure(app);
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return {outcome::kind::help, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return {outcome::kind::help, app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
    return {outcome::kind::error, reason(e)};
  }
  auto rest = app.remaining(true);
  if (!rest.empty())
    return {outcome::kind::error, unknown(rest.front())};
  return {};
}

std::optional<int> parse_or_exit_code(CLI::App& app, int argc,
                                      const char* const* argv,
                                      std::ostream& out, std::ostream& err) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  auto r = parse(app, args);
  switch (r.what) {
  case outcome::kind::ok:
    return std::nullopt;
  case outcome::kind::help:
    out << r.text;
    return 0;
  case outcome::kind::error:
    err << app.get_name() << ": " << r.text << "\n";
    return 2;
  }
  return 2;
}

} // namespace det::cli

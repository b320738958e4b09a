// `mab`: command-line front end. Every sub-command lives in its own cmd_*.cpp.
#include "command.hpp"
#include "common.hpp"
#include "entry.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <utility>

namespace mab::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}
}  // namespace mab::cli

namespace {

// The table every command follows (docs/cli.md); `mab --help` ends with it.
constexpr const char* k_footer =
    "Exit status, every command:\n"
    "  0  done; every check passed\n"
    "  1  a check failed (verify, diff: the clips differ, crc-apply --check, crc-search: no match,\n"
    "     survey: a file does not round-trip) or the input's data was refused (nothing written)\n"
    "  2  usage or I/O error: a wrong option or value, a file that cannot be read, an output that\n"
    "     cannot be written (for diff, every error: 1 means the clips differ)\n"
    "Outputs (-o, --json, --csv, --html): a regular file is replaced atomically (a temporary file,\n"
    "then rename; its permission bits kept); a symbolic link is kept and the file it leads to is\n"
    "replaced; a FIFO or character device (/dev/null) is written to; - is standard output; a\n"
    "directory, socket or block device is refused. --in-place keeps FILE.bak, never overwriting\n"
    "an earlier backup (FILE.bak.1, .bak.2, ... then).\n"
    "Examples (from the source folder; corpus/ holds synthetic clips):\n"
    "  mab info corpus/wd2/mixed_k8.mab\n"
    "  mab verify corpus\n"
    "  mab help export";

// "--trim START END" names both values: CLI11's " x 2" after them would say it twice.
class Formatter : public CLI::Formatter {
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string s = CLI::Formatter::make_option_opts(opt);
    if (opt->get_type_name().find(' ') == std::string::npos) return s;
    const std::string repeat = " x " + std::to_string(opt->get_expected());
    if (const auto at = s.find(repeat); at != std::string::npos) s.erase(at, repeat.size());
    return s;
  }
};

std::string command_list(const CLI::App& app) {
  return app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
}

// `mab help [COMMAND]`: the command list, or one command's --help.
void add_help_command(CLI::App& app, int& exit_code) {
  auto topic = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("help", "Print the command list, or the --help of COMMAND");
  cmd->add_option("COMMAND", *topic, "A command name");
  cmd->footer("Examples:\n  mab help\n  mab help edit");
  cmd->callback([&app, topic, &exit_code] {
    if (topic->empty()) {
      std::cout << command_list(app);
      exit_code = mab::cli::exit_ok;
      return;
    }
    for (const CLI::App* sub : std::as_const(app).get_subcommands(std::function<bool(const CLI::App*)>{})) {
      if (sub->get_name() != *topic) continue;
      std::cout << sub->get_formatter()->make_help(sub, "mab " + *topic, CLI::AppFormatMode::Normal);
      exit_code = mab::cli::exit_ok;
      return;
    }
    std::fprintf(stderr, "mab: help: no command \"%s\" (mab help lists them)\n", topic->c_str());
    exit_code = mab::cli::exit_usage;
  });
}

}  // namespace

int mab::cli::run_main(int argc, char** argv) {
  CLI::App app{
      "mab: read, verify, edit and write Dunia/Disrupt .mab skeletal animation files\n"
      "(Far Cry 2 to New Dawn, Watch Dogs 1, 2 and Legion).\n"
      "Run `mab COMMAND --help` (or `mab help COMMAND`) for the options of one command.",
      "mab"};
  app.formatter(std::make_shared<Formatter>());  // before the commands: each copies it
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "mabkit 0.1.0");
  app.footer(k_footer);
  // One line, naming the command: "mab: edit: --speed: 1 required FLOAT missing (see `mab edit --help`)".
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string where;
    for (const CLI::App* sub : a->get_subcommands()) where = sub->get_name();
    return "mab: " + (where.empty() ? std::string() : where + ": ") + e.what() + " (see `mab " +
           (where.empty() ? std::string() : where + " ") + "--help`)\n";
  });
  int exit_code = 0;
  auto& registry = mab::cli::command_registry();
  std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& cmd : registry) cmd.setup(app, exit_code);
  add_help_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every error of the command line is a usage error.
    return app.exit(e) == 0 ? mab::cli::exit_ok : mab::cli::exit_usage;
  } catch (const std::exception& e) {
    // Library code returns errors; this catches only resource failures (bad_alloc, I/O).
    std::fprintf(stderr, "mab: error: %s\n", e.what());
    return mab::cli::exit_usage;
  }
  if (app.get_subcommands().empty()) {
    std::cout << command_list(app);  // `mab` alone: what it can do
    return mab::cli::exit_ok;
  }
  return exit_code;
}

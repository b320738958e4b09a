// `mab`: command-line front end. Every sub-command lives in its own cmd_*.cpp.
#include "command.hpp"
#include "huge_pages.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace mab::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}
}  // namespace mab::cli

int main(int argc, char** argv) {
  mab::cli::use_huge_pages(argc, argv);
  CLI::App app{
      "mab: read, verify, edit and write Dunia/Disrupt .mab skeletal animation files\n"
      "(Far Cry 2 to New Dawn, Watch Dogs 1, 2 and Legion).\n"
      "Run `mab COMMAND --help` for the options of one command."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mabkit 0.1.0");
  int exit_code = 0;
  auto& registry = mab::cli::command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& cmd : registry) cmd.setup(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // Library code returns errors; this catches only resource failures (bad_alloc, I/O).
    std::fprintf(stderr, "mab: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}

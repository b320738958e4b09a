// Sub-command registry: each cli/cmd_*.cpp registers itself, so adding a command
// touches no other file.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mab::cli {

// A sub-command's setup adds a CLI11 subcommand to `app` and installs a callback.
// The callback stores the process exit code in `exit_code`.
struct Command {
  std::string name;
  std::function<void(CLI::App& app, int& exit_code)> setup;
};

std::vector<Command>& command_registry();

struct Registrar {
  Registrar(std::string name, std::function<void(CLI::App&, int&)> setup) {
    command_registry().push_back({std::move(name), std::move(setup)});
  }
};

}  // namespace mab::cli

#define MAB_REGISTER_COMMAND(ident, setup_fn) \
  static const ::mab::cli::Registrar mab_cli_registrar_##ident { #ident, setup_fn }

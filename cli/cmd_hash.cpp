// `mab hash NAME...`: bone name hashes (decision 11).
#include "command.hpp"

#include <mab/bone_hash.hpp>
#include <mab/text.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
  std::vector<std::string> names;
};

int run(const Options& o) {
  for (const auto& n : o.names) std::printf("%s  %s\n", mab::hex(mab::bone_hash(n), 8).c_str(), n.c_str());
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("hash",
                                 "Print the bone hash of each NAME (zlib CRC-32 of the "
                                 "case-sensitive name, decision 11)");
  cmd->add_option("NAME", o->names, "Bone names, e.g. Root \"L Thigh\"")->required();
  cmd->footer(
      "Example:\n"
      "  mab hash Root \"L Thigh\"    # prints 0xB6C65665  Root, then L Thigh's hash\n"
      "Exit status: 0.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(hash, setup);

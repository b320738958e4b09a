// `mab hash NAME...`: bone name hashes (decision D11).
#include "command.hpp"

#include <mab/container.hpp>

#include <cstdio>

namespace {

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("hash", "Print the bone hash of each NAME (zlib CRC-32 of the "
                                          "case-sensitive name, decision D11)");
  auto names = std::make_shared<std::vector<std::string>>();
  cmd->add_option("NAME", *names, "Bone names, e.g. Root \"L Thigh\"")->required();
  cmd->footer("Example:\n"
              "  mab hash Root \"L Thigh\"    # prints 0xB6C65665  Root, then L Thigh's hash\n"
              "Exit status: 0.");
  cmd->callback([names, &exit_code] {
    for (const auto& n : *names) std::printf("0x%08X  %s\n", mab::bone_hash(n), n.c_str());
    exit_code = 0;
  });
}

}  // namespace

MAB_REGISTER_COMMAND(hash, setup);

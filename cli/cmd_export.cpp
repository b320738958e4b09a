// `mab export FILE -o OUT.json`: the lossless "mabkit-clip" JSON of one block
// (docs/json-format.md).
#include "command.hpp"

#include <mab/file_io.hpp>
#include <mab/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

namespace {

namespace fs = std::filesystem;

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// Output to `out` ("-": stdout). Overwriting the input needs --in-place, which keeps a
// .bak copy first: a mistyped -o must not destroy the only copy of a clip.
bool write_output(const fs::path& input, const std::string& out, bool in_place, std::string_view text) {
  if (out == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
      std::fprintf(stderr, "mab: export: cannot write to standard output\n");
      return false;
    }
    return true;
  }
  if (same_file(input, out)) {
    if (!in_place) {
      std::fprintf(stderr, "mab: export: %s is the input file; pass --in-place to overwrite it (a .bak copy is kept)\n",
                   out.c_str());
      return false;
    }
    std::error_code ec;
    fs::copy_file(input, fs::path(out + ".bak"), fs::copy_options::overwrite_existing, ec);
    if (ec) {
      std::fprintf(stderr, "mab: export: cannot keep %s.bak: %s\n", out.c_str(), ec.message().c_str());
      return false;
    }
  }
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  if (auto st = mab::write_file_atomic(out, std::span<const std::uint8_t>(p, text.size())); !st) {
    std::fprintf(stderr, "mab: export: %s\n", st.error().message().c_str());
    return false;
  }
  return true;
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "export", "Write FILE as lossless JSON: container, exact rotation codes and an editable clip "
                "(key times, quaternions); `mab import` turns it back into a .mab");
  struct Opts {
    std::string file, output;
    std::optional<std::size_t> block;
    bool in_place = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE", o->file, "The .mab to export")->required();
  cmd->add_option("-o,--output", o->output, "JSON file to write, or - for standard output")->required();
  cmd->add_option("--block", o->block, "Block to decode (Far Cry 5 files hold several; default 0)");
  cmd->add_flag("--in-place", o->in_place, "Allow -o to name FILE itself (FILE is kept as FILE.bak)");
  cmd->footer(
      "Example:\n"
      "  mab export walk.mab -o walk.json     # edit \"clip\" in walk.json, then\n"
      "  mab import walk.json -o walk2.mab    # only the edited chunks are re-quantised\n"
      "Files whose rotations cannot be decoded (Far Cry 2/3, opaque versions) are exported as\n"
      "their container only, still byte for byte. Format: docs/json-format.md.\n"
      "Exit status: 0 on success, 1 on any error.");
  cmd->callback([o, &exit_code] {
    exit_code = 1;
    auto bytes = mab::read_file(o->file);
    if (!bytes) {
      std::fprintf(stderr, "mab: export: %s\n", bytes.error().message().c_str());
      return;
    }
    auto c = mab::read_container(*bytes);
    if (!c) {
      std::fprintf(stderr, "mab: export: %s: %s\n", o->file.c_str(), c.error().message().c_str());
      return;
    }
    const std::size_t block = o->block.value_or(0);
    if (o->block && block >= c->blocks.size()) {
      std::fprintf(stderr, "mab: export: %s: no block %zu (the file has %zu)\n", o->file.c_str(), block,
                   c->blocks.size());
      return;
    }
    mab::Result<std::string> text = std::string();
    auto d = mab::decode_clip(*c, block);
    if (d) {
      text = mab::export_json(*d);
    } else {
      const std::string why = d.error().message();
      std::fprintf(stderr, "mab: export: note: %s: clip not decoded (%s); exporting the container only\n",
                   o->file.c_str(), why.c_str());
      text = mab::export_json(*c, why);
    }
    if (!text) {
      std::fprintf(stderr, "mab: export: %s: %s\n", o->file.c_str(), text.error().message().c_str());
      return;
    }
    if (write_output(o->file, o->output, o->in_place, *text)) exit_code = 0;
  });
}

}  // namespace

MAB_REGISTER_COMMAND(export, setup);

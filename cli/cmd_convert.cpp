// `mab convert IN --to GAME -o OUT`: one clip rewrapped in another 'aNi' game's layout
// (lib/include/mab/convert.hpp, docs/edit.md).
#include "command.hpp"
#include "common.hpp"

#include <mab/convert.hpp>

#include <cstdio>
#include <memory>
#include <optional>

namespace {

struct Options {
  std::string file, output, to;
  std::size_t block = 0;
  bool drop = false, in_place = false;
};

int run(const Options& o) {
  int status = mab::cli::exit_ok;
  auto c = mab::cli::load_container("convert", status, o.file);
  if (!c) return status;
  if (c->variant != nullptr && c->variant->layout == mab::LayoutKind::legacy) {
    // Format 1, 13: the two families share the 6-byte quaternion and nothing above it.
    std::fprintf(stderr,
                 "mab: convert: %s: %s is a Far Cry 2/3 ('AnD') clip; conversion between these and the 'aNi' games "
                 "(Watch Dogs, Far Cry 5) is not supported: a legacy clip names bones by skeleton id, not by "
                 "name hash, gives each track its own sparse keys instead of one shared timeline, and nothing "
                 "public maps one family's skeletons onto the other's. Edit it through mab export / mab import "
                 "(JSON or glTF) instead\n",
                 o.file.c_str(), std::string(c->variant->short_name).c_str());
    return mab::cli::exit_refused;
  }
  mab::ConvertOptions opt;
  opt.drop_unmappable = o.drop;
  mab::ConvertReport rep;
  auto out = mab::convert_clip(*c, o.block, mab::find_variant(o.to)->game, opt, &rep);
  if (!out) {
    std::fprintf(stderr, "mab: convert: %s: %s\n", o.file.c_str(), mab::cli::message(out.error()).c_str());
    return mab::cli::exit_refused;
  }
  const auto origin = mab::cli::mab_origin(o.file, *out);
  if (!mab::cli::write_output("convert", status, {o.file}, o.output, o.in_place, *out)) return status;
  mab::cli::print_mab_written(o.output, *out, origin);
  std::printf("  game              %s -> %s\n", c->variant->short_name.data(), o.to.c_str());
  std::printf("  key times         %g -> %g per second; %zu key(s) merged, keys moved by up to %.3g ms\n",
              rep.source_rate, rep.target_rate, rep.keys_merged, 1000 * rep.max_time_shift_s);
  std::printf("  rotation chunks   %zu re-quantised, max angular error %.6f degrees\n", rep.encode.chunks_requantised,
              rep.encode.max_error_deg);
  for (const auto& s : rep.carried) std::printf("  carried           %s\n", s.c_str());
  for (const auto& s : rep.dropped) std::printf("  dropped           %s\n", s.c_str());
  if (!rep.defaults.empty()) std::printf("  defaults (the source has no value for these):\n");
  for (const auto& d : rep.defaults)
    std::printf("    %-36s %-12s %s\n", d.field.c_str(), d.value.c_str(), mab::cli::spelled(d.why).c_str());
  return mab::cli::exit_ok;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("convert",
                                 "Rewrap a clip in another game's header and section layout (Watch Dogs 1, "
                                 "2, Legion, Far Cry 5), keeping its rotations and its times in seconds");
  cmd->add_option("FILE", o->file, "The .mab to convert")->required();
  cmd->add_option("--to", o->to, "The target game: wd1, wd2, wdl or fc5 (any case)")
      ->required()
      ->type_name("GAME")
      ->transform(CLI::IsMember({"wd1", "wd2", "wdl", "fc5"}, CLI::ignore_case));
  cmd->add_option("-o,--output", o->output, "The .mab to write")->required();
  cmd->add_option("--block", o->block, "The block to convert (Far Cry 5 files hold several; default 0)");
  cmd->add_flag("--drop-unmappable", o->drop,
                "Drop sections and header flags the target has no place for (listed), instead of refusing");
  cmd->add_flag("--in-place", o->in_place,
                "Allow -o to name FILE itself (FILE is kept as FILE.bak, or FILE.bak.1, .bak.2, ... when that exists)");
  cmd->footer(
      "Example:\n"
      "  mab convert corpus/wd2/mixed_k8.mab --to wdl -o walk_wdl.mab\n"
      "Key times keep their seconds (Watch Dogs: 120 ticks/s; the others frames at their rate, 30 by\n"
      "default); keys that fall on one frame are merged and counted. Rotations keep their bit depths and\n"
      "come out with the same codes. Fields the source lacks get the defaults listed; sections are copied\n"
      "into the slot of the same name, and one the target has no slot for is refused by name.\n"
      "Exit status: 0 written; 1 the clip is refused; 2 usage or I/O error (nothing is written then).");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(convert, setup);

// `mab import IN -o OUT.mab`: a "mabkit-clip" JSON document (docs/json-format.md) or a glTF
// 2.0 animation (docs/gltf.md) back to a .mab, re-quantising only what was edited.
#include "command.hpp"
#include "common.hpp"

#include <mab/file_io.hpp>
#include <mab/gltf.hpp>
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

namespace {

namespace fs = std::filesystem;

// Hex doubles every byte and a key costs some 40 characters of text: a document may be
// several times the size of the largest file it stands for.
mab::Limits text_limits() {
  mab::Limits l;
  l.max_file_size = 4 * mab::default_limits.max_file_size;
  return l;
}

// Read with the JSON reader's padding after the text, so a document is parsed where it lies.
mab::Result<mab::PaddedJson> read_input(const std::string& path) {
  if (path == "-") {
    std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (data.size() > text_limits().max_file_size)
      return mab::make_error(mab::ErrorCode::limit_exceeded, mab::no_offset, "stdin", "document too large");
    return mab::PaddedJson(std::move(data));
  }
  return mab::PaddedJson::read_file(path, text_limits());
}

// Any JSON with a glTF "asset" rather than a mabkit document: the start of the text tells.
bool looks_like_gltf(const std::string& path, std::span<const std::uint8_t> data) {
  if (mab::cli::has_extension(path, ".glb") || mab::cli::has_extension(path, ".gltf")) return true;
  if (data.size() >= 4 && std::memcmp(data.data(), "glTF", 4) == 0) return true;
  const std::string_view head(reinterpret_cast<const char*>(data.data()), std::min<std::size_t>(data.size(), 4096));
  return head.find("\"mabkit-clip\"") == std::string_view::npos && head.find("\"asset\"") != std::string_view::npos;
}

void print_legacy_encode(const mab::LegacyEncodeReport& rep, double bound) {
  mab::cli::print_legacy_encode_report(rep, bound, "import");
}

// Decision 23: a resampled file, key times added for keys between the template's, and (with
// --template-times) the changes left out.
void print_timing(const mab::GltfAnimationImport& a) {
  if (a.resampled_rate > 0) {
    std::printf(
        "  resampled         the file's channels are samples at %.6g per second, not the clip's key times; "
        "%zu track(s) match the template at every sample and are kept exactly\n",
        a.resampled_rate, a.resampled_kept);
    if (a.keys_between_samples != 0)
      std::printf(
          "  between samples   %zu edited key(s) read from the samples around them (--accept-resample); "
          "estimated error up to %.6g degrees\n",
          a.keys_between_samples, a.resample_error);
  }
  if (!a.times_added.empty()) {
    std::string times;
    for (std::size_t i = 0; i < a.times_added.size() && i < 8; ++i)
      times += (i ? ", " : "") + std::to_string(a.times_added[i]);
    if (a.times_added.size() > 8) times += ", ...";
    std::printf(
        "  key times added   %zu for keys set between the template's (key units at %g/s: %s); moved onto "
        "the key grid by up to %.3g ms\n",
        a.times_added.size(), a.key_rate, times.c_str(), 1000 * a.max_added_shift_s);
  }
  if (!a.dropped.empty()) {
    std::string list;
    for (std::size_t i = 0; i < a.dropped.size() && i < 4; ++i) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " at %.3f s (%.4g off)", a.dropped[i].time_s, a.dropped[i].deviation);
      list += (i ? "; " : "") + a.dropped[i].track + buf;
    }
    if (a.dropped.size() > 4) list += "; ...";
    std::fprintf(stderr,
                 "mab: import: warning: --template-times: %zu key(s) set between the template's key times were not "
                 "carried (drop --template-times to add their times): %s\n",
                 a.dropped.size(), list.c_str());
  }
}

void warn_structure(const std::string& output, std::span<const std::uint8_t> bytes) {
  // Import only returns files that read back; hand-edited container bytes may still break
  // the structural rules, which is worth a warning, not a refusal.
  if (auto c = mab::read_container(bytes)) {
    const auto findings = mab::validate(*c);
    std::size_t errors = 0;
    for (const auto& f : findings) errors += f.severity == mab::Severity::error;
    if (errors)
      std::fprintf(stderr, "mab: import: warning: %s has %zu structural error(s); see `mab info %s`\n", output.c_str(),
                   errors, output.c_str());
  }
}

struct Options {
  std::string file, output, template_file, game, animation, skeleton, rotations = "auto";
  std::optional<std::size_t> block;
  bool choose_depth = false, keep_times = false, in_place = false;
  bool template_times = false, accept_resample = false, allow_no_op = false, allow_other_clip = false;
  bool ignore_unmatched = false;
  std::optional<double> max_error, max_translation_error, reduce;
  double match_tolerance = 1e-3;
};

// A "mabkit-clip" document: the options it takes, import_json_bytes, the report.
int import_json(const Options& o, const mab::PaddedJson& data, std::vector<fs::path> inputs) {
  if (o.keep_times || o.block || !o.animation.empty() || o.reduce || o.template_times || o.accept_resample ||
      o.allow_no_op || o.ignore_unmatched) {
    std::fprintf(stderr,
                 "mab: import: --keep-times, --template-times, --accept-resample, --allow-no-op, "
                 "--ignore-unmatched, --block, --animation and --reduce are for glTF input (use `mab edit "
                 "--reduce` on a .mab)\n");
    return mab::cli::exit_usage;
  }
  int status = mab::cli::exit_refused;
  mab::JsonImportOptions options;
  options.encode = mab::edit_policy(o.max_error.value_or(mab::default_max_error_deg), o.max_translation_error);
  options.encode.choose_depth = o.choose_depth;
  options.allow_other_clip = o.allow_other_clip;
  std::optional<mab::Container> tmpl;
  if (!o.template_file.empty()) {
    tmpl = mab::cli::load_container("import", status, o.template_file, "--template");
    if (!tmpl) return status;
    options.template_file = &*tmpl;
    inputs.push_back(o.template_file);
  }
  auto imported = mab::import_json_bytes(data, mab::default_limits, options);
  if (!imported) {
    std::fprintf(stderr, "mab: import: %s: %s\n", o.file.c_str(), mab::cli::message(imported.error()).c_str());
    return mab::cli::exit_refused;
  }
  if (imported->legacy_encoded && o.choose_depth) {
    std::fprintf(stderr,
                 "mab: import: %s: --choose-depth: Far Cry 2/3 keys are 6-byte quaternions, there is no "
                 "depth to choose\n",
                 o.file.c_str());
    return mab::cli::exit_usage;
  }
  if (!mab::cli::may_replace_original("import", status, o.output, o.in_place, imported->original,
                                      "the document's original clip (the file it was exported from)", inputs))
    return status;
  if (!mab::cli::write_output("import", status, inputs, o.output, o.in_place, imported->bytes)) return status;
  mab::cli::print_mab_written(o.output, imported->bytes,
                              {"the document's original", imported->original_size, imported->identical});
  if (const auto& br = imported->bridge; br.tracks_kept + br.tracks_edited != 0)
    std::printf("  keyed tracks      %zu unchanged (stored keys kept), %zu edited (sparse key writer)%s\n",
                br.tracks_kept, br.tracks_edited, br.resampled_to_frames ? "; key times sampled at every frame" : "");
  if (imported->legacy_encoded) print_legacy_encode(imported->legacy_report, options.encode.max_error_deg);
  else if (imported->clip_encoded) mab::cli::print_encode_report(imported->report, "");
  else std::printf("  container only (no clip in the document): written as stored\n");
  warn_structure(o.output, imported->bytes);
  return mab::cli::exit_ok;
}

// The glTF options of the command line; nullopt after printing why they do not go together.
std::optional<mab::GltfImportOptions> gltf_options(const Options& o) {
  if (o.choose_depth) {
    std::fprintf(stderr, "mab: import: --choose-depth is for JSON; glTF import picks depths by --max-error\n");
    return std::nullopt;
  }
  if (o.keep_times && o.template_times) {
    std::fprintf(stderr,
                 "mab: import: --keep-times (the glTF's own key times) and --template-times (the "
                 "template's) exclude each other\n");
    return std::nullopt;
  }
  if (o.template_file.empty() == o.game.empty()) {
    std::fprintf(stderr,
                 "mab: import: a glTF needs either --template ORIG.mab (to write back into a clip) or "
                 "--game wd1|wd2|wdl|fc5 (to build a new one)\n");
    return std::nullopt;
  }
  mab::GltfImportOptions opt;
  if (o.max_error) opt.max_error_deg = *o.max_error;
  opt.max_translation_error = o.max_translation_error;
  opt.match_tolerance_deg = o.match_tolerance;
  opt.keep_times = o.keep_times;
  opt.template_times = o.template_times;
  opt.accept_resample = o.accept_resample;
  opt.allow_no_op = o.allow_no_op;
  opt.allow_other_clip = o.allow_other_clip;
  opt.ignore_unmatched = o.ignore_unmatched;
  opt.reduce_deg = o.reduce;
  opt.block = o.block;
  if (!o.animation.empty()) {
    const bool digits =
        std::all_of(o.animation.begin(), o.animation.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits && o.animation.size() < 9) opt.animation = static_cast<std::size_t>(std::stoul(o.animation));
    else opt.animation_name = o.animation;
  }
  if (o.file != "-")
    opt.resource_dir = fs::path(o.file).parent_path().empty() ? fs::path(".") : fs::path(o.file).parent_path();
  opt.rotations = o.rotations == "local"           ? mab::GltfRotations::local
                  : o.rotations == "rest-relative" ? mab::GltfRotations::rest_relative
                                                   : mab::GltfRotations::automatic;
  if (o.template_file.empty()) opt.game = mab::find_variant(o.game)->game;
  return opt;
}

// What --ignore-unmatched dropped: on stdout with the report, and a warning.
void print_dropped(const mab::GltfAnimationImport& a) {
  for (const auto& line : a.dropped_channels) {
    const std::string d = mab::cli::spelled(line);
    std::printf("  dropped           %s\n", d.c_str());
    std::fprintf(stderr, "mab: import: warning: not stored (--ignore-unmatched): %s\n", d.c_str());
  }
}

// A Far Cry 2/3 animation's lines of the report.
void print_legacy_animation(const mab::GltfAnimationImport& a, const mab::GltfImportOptions& opt) {
  std::printf("  tracks            %zu rotation track(s) matched, %zu changed%s%s\n", a.bones_matched,
              a.bones_changed.size(), a.tracks_changed.empty() ? "" : ": ",
              mab::cli::short_list(a.tracks_changed).c_str());
  std::printf("  rotation frames   %zu as in the template (within %g degrees; largest %.2g), %zu changed\n",
              a.keys_matched, opt.match_tolerance_deg, a.max_matched_deviation_deg, a.keys_changed);
  std::printf("  translation frames %zu as in the template, %zu changed\n", a.translations_matched,
              a.translations_changed);
  if (a.untracked_at_rest != 0)
    std::printf(
        "  unedited          %zu channel(s) on bank bones the clip has no track for, unedited (at rest, "
        "or held at another clip's pose as Blender leaves them): nothing to store\n",
        a.untracked_at_rest);
  if (!a.nodes_unmatched.empty())
    std::fprintf(stderr, "mab: import: note: %zu channel(s) match no track of the clip and were not imported: %s\n",
                 a.nodes_unmatched.size(), mab::cli::short_list(a.nodes_unmatched).c_str());
  print_dropped(a);
  print_legacy_encode(a.legacy_encode, opt.max_error_deg);
}

// An 'aNi' animation's lines: keys, bones against the template (or new), what was left out.
void print_ani_animation(const mab::GltfAnimationImport& a, const Options& o, const mab::GltfImportOptions& opt,
                         bool has_template) {
  if (o.reduce)
    std::printf("  key reduction     %zu keys -> %zu, dropped keys within %.6f degrees of the slerp\n",
                a.keys_before_reduce, a.keys, a.reduce_error_deg);
  if (o.keep_times || !has_template)
    std::printf("  key times         rounded to %g per second: keys moved by up to %.3g ms\n", a.key_rate,
                1000 * a.max_time_shift_s);
  if (has_template) {
    std::printf("  bones             %zu matched, %zu changed%s%s\n", a.bones_matched, a.bones_changed.size(),
                a.bones_changed.empty() ? "" : ": ", mab::cli::short_list(a.bones_changed).c_str());
    std::printf("  keys              %zu as in the template (within %g degrees; largest %.2g), %zu changed\n",
                a.keys_matched, opt.match_tolerance_deg, a.max_matched_deviation_deg, a.keys_changed);
    if (!a.bones_kept.empty())
      std::printf("  kept              %zu bone(s) without a channel, as they were\n", a.bones_kept.size());
    if (!a.bones_resampled.empty())
      std::printf("  interpolated      %zu bone(s) not edited, their keys at the new key times interpolated%s\n",
                  a.bones_resampled.size(),
                  o.keep_times ? "" : " (the 8-key chunks from the first new time on are re-quantised)");
    if (!a.constant_to_animated.empty())
      std::printf("  now animated      %s (constant in the template)\n",
                  mab::cli::short_list(a.constant_to_animated).c_str());
    // Per bone and channel (rotation, translation, root motion), what differs from the template.
    std::printf("  changed           %s\n", a.tracks_changed.empty()
                                                ? "nothing: every channel as in the template"
                                                : mab::cli::short_list(a.tracks_changed, 32).c_str());
    if (a.translations_matched + a.translations_changed > 0)
      std::printf("  translation keys  %zu as in the template, %zu changed\n", a.translations_matched,
                  a.translations_changed);
  } else {
    std::printf("  bones             %zu new\n", a.bones_changed.size());
  }
  if (!a.nodes_unmatched.empty())
    std::fprintf(stderr, "mab: import: note: %zu animated node(s) match no bone and were not imported: %s\n",
                 a.nodes_unmatched.size(), mab::cli::short_list(a.nodes_unmatched).c_str());
  if (!a.no_rotation_track.empty())
    std::fprintf(stderr,
                 "mab: import: note: %zu bone(s) have no rotation track in the template and their channels keep "
                 "them at rest: %s\n",
                 a.no_rotation_track.size(), mab::cli::short_list(a.no_rotation_track).c_str());
  if (!a.rotation_added.empty())
    std::printf("  new rotation      %s (no rotation track in the template)\n",
                mab::cli::short_list(a.rotation_added).c_str());
  print_dropped(a);
  mab::cli::print_encode_report(a.encode, "");
}

void print_gltf_report(const mab::GltfImportReport& rep, const Options& o, const mab::GltfImportOptions& opt,
                       bool has_template) {
  for (const auto& a : rep.animations) {
    if (a.legacy) {
      std::printf("  animation %zu \"%s\" -> clip %zu: sampled at its %zu frames (%g fps)\n", a.animation,
                  a.animation_name.c_str(), a.block, a.keys, a.key_rate);
    } else
      std::printf("  animation %zu \"%s\" -> block %zu: %zu keys (%s)\n", a.animation, a.animation_name.c_str(),
                  a.block, a.keys,
                  !has_template || o.keep_times ? "the glTF's key times"
                  : a.times_added.empty()       ? "the template's key times"
                                                : "the template's key times and the added ones");
    print_timing(a);
    if (a.legacy) print_legacy_animation(a, opt);
    else print_ani_animation(a, o, opt, has_template);
  }
  for (const auto& line : rep.notes) std::printf("  note              %s\n", mab::cli::spelled(line).c_str());
  for (const auto& line : rep.ignored_channels)
    std::fprintf(stderr, "mab: import: warning: %s\n", mab::cli::spelled(line).c_str());
  if (!rep.defaults.empty()) {
    std::printf("  new clip defaults (no source for these fields):\n");
    for (const auto& d : rep.defaults)
      std::printf("    %-36s %-12s %s\n", d.field.c_str(), d.value.c_str(), mab::cli::spelled(d.why).c_str());
  }
}

// A glTF animation: into --template's clip, or a new clip of --game.
int import_gltf_file(const Options& o, const mab::PaddedJson& data, std::vector<fs::path> inputs) {
  auto opt = gltf_options(o);
  if (!opt) return mab::cli::exit_usage;
  int status = mab::cli::exit_usage;
  std::optional<mab::GltfSkeleton> skeleton;
  if (!o.skeleton.empty()) {
    skeleton = mab::cli::load_skeleton("import", status, o.skeleton);
    if (!skeleton) return status;
    opt->skeleton = &*skeleton;
    inputs.push_back(o.skeleton);
  }
  std::optional<mab::Container> tmpl;
  if (!o.template_file.empty()) {
    tmpl = mab::cli::load_container("import", status, o.template_file, "--template");
    if (!tmpl) return status;
    inputs.push_back(o.template_file);
  }
  auto imported = mab::import_gltf(data.bytes(), tmpl ? &*tmpl : nullptr, *opt);
  if (!imported) {
    std::fprintf(stderr, "mab: import: %s: %s\n", o.file.c_str(), mab::cli::message(imported.error()).c_str());
    return mab::cli::exit_refused;
  }
  // As for JSON: a file holding the template's bytes, under any name, is the original clip too.
  if (tmpl) {
    const auto original = mab::read_file(o.template_file);
    if (!original) {
      std::fprintf(stderr, "mab: import: --template %s: %s\n", o.template_file.c_str(),
                   mab::cli::message(original.error()).c_str());
      return mab::cli::exit_usage;
    }
    if (!mab::cli::may_replace_original("import", status, o.output, o.in_place, *original,
                                        "the --template's clip (the .mab the animation is imported onto)", inputs))
      return status;
  }
  const auto origin = tmpl ? mab::cli::mab_origin(o.template_file, imported->bytes) : mab::cli::MabOrigin{};
  if (!mab::cli::write_output("import", status, inputs, o.output, o.in_place, imported->bytes)) return status;
  mab::cli::print_mab_written(o.output, imported->bytes, origin);
  print_gltf_report(imported->report, o, *opt, tmpl.has_value());
  warn_structure(o.output, imported->bytes);
  return mab::cli::exit_ok;
}

int run(const Options& o) {
  auto data = read_input(o.file);
  if (!data) {
    std::fprintf(stderr, "mab: import: %s\n", mab::cli::message(data.error()).c_str());
    return mab::cli::exit_status(data.error());
  }
  std::vector<fs::path> inputs;
  if (o.file != "-") inputs.push_back(o.file);
  const bool gltf = !o.game.empty() || looks_like_gltf(o.file, data->bytes());
  return gltf ? import_gltf_file(o, *data, std::move(inputs)) : import_json(o, *data, std::move(inputs));
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("import",
                         "Turn a JSON document from `mab export`, or a glTF animation (from mab, Blender or any tool), "
                         "back into a .mab: unchanged keys keep their exact bytes, changed ones are re-quantised and "
                         "their error reported");
  auto o = std::make_shared<Options>();
  cmd->add_option("INPUT", o->file, "A JSON document from `mab export`, or a .gltf/.glb (- for standard input)")
      ->required();
  cmd->add_option("-o,--output", o->output, "The .mab to write")->required();
  cmd->add_option("--template", o->template_file,
                  "glTF: the .mab the animation was exported from (or one of the same clip): its header, "
                  "sections and untouched bones are kept, byte for byte. JSON: the .mab the document must come "
                  "from (refused if its container is another file's)");
  cmd->add_option("--game", o->game,
                  "glTF without --template: build a new clip for this game (wd1, wd2, wdl, fc5; any case)")
      ->type_name("GAME")
      ->transform(CLI::IsMember({"wd1", "wd2", "wdl", "fc5"}, CLI::ignore_case));
  cmd->add_option("--animation", o->animation, "glTF: the animation to import, by index or name (default: see below)");
  cmd->add_option("--block", o->block, "glTF: the template block to write (Far Cry 5 files hold several)");
  cmd->add_flag("--keep-times", o->keep_times,
                "glTF: use the glTF's own key times, rounded to the game's key rate (WD1: 120/s, others: the "
                "frame rate), instead of sampling at the template's");
  cmd->add_flag("--template-times", o->template_times,
                "glTF: sample at the template's key times only; keys set between them are listed as not carried "
                "(default: the block gains a key time for each such key)");
  cmd->add_flag("--accept-resample", o->accept_resample,
                "glTF: read edited keys from a file resampled on another frame grid (Blender's default export at a "
                "scene rate that is not the clip's) as they are; untouched bones are kept either way");
  cmd->add_flag("--allow-no-op", o->allow_no_op,
                "glTF: write the template as it is when the file has no animation or no node matching a bone "
                "(refused otherwise)");
  cmd->add_flag("--ignore-unmatched", o->ignore_unmatched,
                "glTF: drop on purpose what the template cannot store, listing it (refused otherwise, naming it): "
                "animated nodes matching no bone (a second armature, a renamed or new bone), scale keys, a "
                "translation on a bone the template does not translate, a constant translation made to move, "
                "animations no block takes, Far Cry 2/3: an edit on a bone the clip has no track and no section "
                "for");
  cmd->add_flag(
      "--allow-other-clip", o->allow_other_clip,
      "Write what looks like another clip's data, otherwise refused. glTF: an animation whose key range "
      "or recorded duration is not the template's, or that keeps the keys of (nearly) none of its bones "
      "(another clip of the same length, the clip reversed). JSON: a document that is not --template's file, or "
      "a clip keeping none of its file's rotations, key times and duration");
  cmd->add_option("--max-error", o->max_error,
                  "Largest angular error in degrees of a re-quantised key (default 0.01, as mab edit): a changed "
                  "bone keeps its bit depth unless that misses the bound, then gets the smallest depth meeting it; "
                  "what no depth brings within it is refused, nothing written. Far Cry 2/3: a frame of an edited "
                  "track gets its own stored key where interpolation would miss by more")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-translation-error", o->max_translation_error, mab::cli::max_translation_error_help)
      ->type_name("UNITS")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--reduce", o->reduce,
                  "glTF: drop shared key times while every bone stays within this many degrees of the interpolation "
                  "(tools that sample every frame write many keys)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--skeleton", o->skeleton,
                  "glTF: the --skeleton the animation was exported with (bones' rest pose and parents); without "
                  "it, the skeleton the file records, or the flat rig `mab export` writes without one (a file "
                  "shaped otherwise is refused)");
  cmd->add_option("--rotations", o->rotations,
                  "glTF: rest-relative: each joint's motion away from its rest pose, applied to the export's rig "
                  "(survives tools that re-express joints, such as Blender); local: each node's rotation as "
                  "written; auto (default): rest-relative with --template or --skeleton, else local")
      ->transform(CLI::IsMember({"auto", "rest-relative", "local"}, CLI::ignore_case));
  cmd->add_option("--match-tolerance", o->match_tolerance,
                  "glTF: a key within this many degrees of the template's is the template's, bit for bit "
                  "(default 0.001; tools that keep floats move keys by about 1e-5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--choose-depth", o->choose_depth,
                "JSON: re-pick the bit depth of each edited bone, the smallest meeting --max-error");
  cmd->add_flag("--in-place", o->in_place,
                "Allow -o to name an input file itself, or a file holding the original clip under any name (JSON: "
                "the .mab the document was exported from; glTF: a copy of --template); it is kept as FILE.bak, or "
                "FILE.bak.1, .bak.2, ... when that exists");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab export corpus/wd2/mixed_k8.mab -o walk.json\n"
      "  mab import walk.json -o walk2.mab --max-error 0.05\n"
      "  mab export corpus/wd2/mixed_k8.mab -o walk_edit.glb    # then edit it in Blender\n"
      "  mab import walk_edit.glb --template corpus/wd2/mixed_k8.mab -o walk_new.mab\n"
      "  mab import corpus/external/RiggedSimple.gltf --game wdl -o new.mab    # a new clip from any glTF animation\n"
      "Each prints how many chunks were reused and re-quantised and the largest angular error.\n"
      "An unedited JSON document, or an unedited glTF export imported with its --template, gives the\n"
      "file back byte for byte. glTF: nodes are matched to bones by the CRC-32 of their names (or a\n"
      "bone_0xHASH name); without --animation every animation named block_N goes to block N, else\n"
      "the first to block 0. 'aNi' clips: rotations, translations of translated bones and root motion\n"
      "(the `trajectory` node) are read back; what the template cannot store (scale, nodes matching no\n"
      "bone, ...) is refused by name unless --ignore-unmatched drops it. The report lists every changed\n"
      "channel per bone.\n"
      "glTF with --template: a bone the file only repeats (even resampled by a tool) keeps its exact\n"
      "keys; a key set between the template's key times gets a key time of its own; a file resampled\n"
      "on another frame grid is refused when edited keys fall between its samples (docs/gltf.md).\n"
      "JSON: bones are the file's, by hash: rename one with \"rename_to\", add one with \"new\": true\n"
      "(docs/json-format.md, \"Bone identity\").\n"
      "Exit status: 0 written; 1 the input or an edit is refused; 2 usage or I/O error (nothing is written then).");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(import, setup);

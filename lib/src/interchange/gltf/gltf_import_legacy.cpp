// glTF -> Far Cry 2/3 clip (docs/gltf.md, "Far Cry 2 and 3"): the template's clip_from_legacy
// Clip (the one editable model) read by the shared import as tracks on the nodes export names,
// judged on a fixed grid of every frame and written back into the Clip (gltf_import_tracks.cpp,
// gltf_timeline.hpp); legacy_from_clip maps it back for encode_legacy_clip, which keeps
// untouched tracks' stored keys and codes. What is Far Cry 2/3's own, given to the shared path
// as data: the naming (gltf_names.hpp) and stored frames, the bank's nodes (every clip's, as
// export writes them; the rounding their rest is judged with, which section can hold an edit on
// a node the clip has no track for), untimed constant sections.
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <mab/legacy_bridge.hpp>

#include <algorithm>
#include <cmath>

namespace mab::gltf_in {

namespace {

// How `mab export` names and times a Far Cry 2/3 clip's tracks (gltf_names.hpp): bone_<id>,
// bone_<id>_constant for a bone's second (constant) value, trajectory; a keyed rotation's own
// times are its stored frames at `rate` per second, the keys export writes and a tool
// interpolates between (format 13; its every frame is legacy_rotation_at's).
TrackNaming fc_naming(const LegacyClip& l, double rate) {
  TrackNaming n;
  n.node = [](std::uint32_t id, bool second) {
    return second ? gltf::legacy_constant_node_name(id) : gltf::legacy_node_name(id);
  };
  n.root = std::string(gltf::trajectory_node_name);
  n.stored_keys = [&l, rate](std::uint32_t id) -> std::optional<gltf::Keys> {
    for (const auto& tr : l.rotations) {
      if (tr.bone != id) continue;
      gltf::Keys k;
      for (std::size_t j = 0; j < tr.frames.size(); ++j)
        k.t.push_back(tr.frames[j] / rate), k.v.push_back(to_value(tr.keys[j]));
      return k;
    }
    return std::nullopt;
  };
  return n;
}

// The nodes `mab export` writes for the bank: those of every clip that decodes.
FileNodes bank_nodes(const Container& c, const Limits& limits) {
  FileNodes out;
  for (std::size_t b = 0; b < c.blocks.size(); ++b)
    if (c.blocks[b].legacy() != nullptr)
      if (const auto l = decode_legacy_clip(c, b, limits))
        add_file_nodes(out, clip_from_legacy(*l), fc_naming(*l, 1.0));
  return out;
}

// How far a value may be from a bank node's rest and still be unedited: rotations land as
// 6-byte codes (format 9.1), whose components round by half a step each, so a difference below
// that rounding (about 0.0043 degrees) cannot be an edit the file could show; translations are
// f32 (format 13), for which the match tolerance (tools' float noise) applies.
gltf::Metric rest_metric(const GltfImportOptions& o, bool rotation) {
  constexpr double pi = 3.14159265358979323846;
  const double code_rounding_deg = std::sqrt(3.0) * double{quat48_step} * 180.0 / pi;
  return rotation ? gltf::Metric::rotation(std::max(o.match_tolerance_deg, code_rounding_deg)) : track_metric(o, false);
}

// Channels on bank nodes the clip has no track for: at rest (unedited) they change nothing; an
// edit lands where the clip has the section to hold it (a constant when it does not vary, else
// a keyed or animated track; encode_legacy_clip cannot add a section), else it is listed in
// `refused` (--ignore-unmatched drops it).
void plan_added(const Context& ctx, const LegacyClip& o, const FileNodes& bank, std::vector<NodeTrack>& tracks,
                GltfAnimationImport& rep, std::vector<std::string>& refused) {
  for (auto& t : tracks) {
    if (!t.added || t.node < 0) continue;
    const auto& v = t.verdict;
    const bool rotation = t.rotation();
    const gltf::Metric metric = rest_metric(ctx.options, rotation);
    t.fate = Fate::at_rest;
    if (added_unedited(metric, t, bank)) {
      ++rep.untracked_at_rest;
      continue;
    }
    const bool fixed = still(metric, v.values);
    const char* what = rotation ? "rotation" : "translation";
    const std::string clip = "clip " + std::to_string(rep.block);
    std::string why;
    if (t.root()) why = clip + " has no root motion " + what + " section to hold it";
    else if (t.second)
      why = clip + " holds no second (constant) value for bone " + std::to_string(t.hash) + ": edit bone_" +
            std::to_string(t.hash) + " instead";
    else if (fixed && o.present[rotation ? 2 : 4]) t.fate = Fate::constant;
    else if (o.present[rotation ? 3 : 5]) t.fate = Fate::keyed;
    else
      why = clip + " has no " + (fixed ? "constant or animated " : "animated ") + what +
            " section to hold it (adding a section is not supported)";
    if (why.empty()) continue;
    t.fate = Fate::refused;
    refused.push_back(t.label + " (no track in the clip; " + why + ")");
  }
}

}  // namespace

Result<std::vector<std::uint8_t>> import_legacy_animation(const Context& ctx, const Container& current, std::size_t ai,
                                                          std::size_t block, GltfAnimationImport& rep,
                                                          Ignored& ignored) {
  const auto& opt = ctx.options;
  rep.animation = ai;
  rep.animation_name = ctx.model.animations[ai].name;
  rep.block = block;
  rep.legacy = true;
  rep.times_from_template = true;
  if (opt.keep_times || opt.reduce_deg)
    return make_error(ErrorCode::invalid_argument, no_offset, opt.keep_times ? "keep_times" : "reduce",
                      "Far Cry 2/3 clips are sampled at every frame and their keys chosen by the sparse key writer "
                      "({opt:max_error}); {opt:keep_times} and {opt:reduce} do not apply");
  MAB_ASSIGN(const LegacyClip o, decode_legacy_clip(current, block, opt.limits));
  Ignored own;  // translations are stored here, not ignored
  MAB_ASSIGN(const Channels channels, read_channels(ctx.model, ai, own));
  ignored.weights += own.weights;  // scales: account_unmatched
  rep.keys = std::size_t{o.last_frame} + 1;
  rep.key_rate = o.frame_rate;
  // Untimed constant sections alone (JB-DOC: lastFrame 0, rate 0) need no rate, and play at
  // time 0 alone whatever lastFrame the header stores: one frame.
  const bool timed = !o.rotations.empty() || !o.translations.empty() || o.present[0] || o.present[1];
  if (timed && (!(o.frame_rate > 0) || !std::isfinite(o.frame_rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "the clip's frame rate " + std::to_string(o.frame_rate) + " cannot place its frames in time");
  const double rate = timed ? double{o.frame_rate} : 1.0;
  TrackTimes tt;
  for (std::size_t f = 0; f < (timed ? rep.keys : 1); ++f) tt.block_s.push_back(static_cast<double>(f) / rate);
  Clip clip = clip_from_legacy(o);  // the one editable model (legacy_bridge.hpp)
  const TrackNaming naming = fc_naming(o, rate);
  std::vector<NodeTrack> tracks = clip_node_tracks(clip, naming, tt.block_s);
  const FileNodes bank = bank_nodes(current, opt.limits);
  match_file_nodes(ctx, channels, bank, tracks, tt.block_s.size(), rep);
  MAB_ASSIGN(const auto curves, matched_curves(ctx, ai, block, channels, tracks, rep));
  if (curves.empty()) return write_container(current);  // allow_no_op: nothing to import
  // The key range export writes: a keyed track's last stored frame, not the clip's last frame.
  double last_s = 0;
  for (const auto& t : o.rotations)
    if (t.frames.size() >= 2) last_s = std::max(last_s, t.frames.back() / rate);
  if (o.present[0] || o.present[1] || !o.translations.empty()) last_s = std::max(last_s, o.last_frame / rate);
  MAB_TRY(check_same_clip(ctx, ai, block, curves, {0.0, last_s, o.frame_rate, o.duration, "frame_rate"}));
  FixedGrid grid;  // every frame, and only frames: a Far Cry 2/3 clip gains no key times
  grid.rate = rate;
  grid.holder = "a Far Cry 2/3 clip";
  grid.rest = [&](bool rotation) { return rest_metric(opt, rotation); };
  grid.plan = [&](std::vector<NodeTrack>& t, std::vector<std::string>& refused) {
    plan_added(ctx, o, bank, t, rep, refused);
  };
  MAB_TRY(judge_on_fixed_grid(ctx, channels, clip, grid, tt, tracks, rep));
  MAB_TRY(apply_node_tracks(ctx, tracks, naming, clip, rep));
  MAB_ASSIGN(const LegacyClip edited, legacy_from_clip(o, clip));
  const LegacyEncodeOptions lo = legacy_edit_policy(opt.max_error_deg);  // decision 21: the one error policy
  MAB_ASSIGN(const Container written, encode_legacy_clip(current, block, edited, lo, &rep.legacy_encode));
  return write_container(written);
}

}  // namespace mab::gltf_in

// Any bytes through the glTF importer (lib/include/mab/gltf.hpp), as glTF text or GLB, with a
// template or into a new clip of each game, rest-relative or local. Whatever it accepts must
// be a valid file: it parses and writes back byte for byte, keeps the template's blocks, and
// (for a quarter of the inputs) exporting it and importing that with it as the template
// gives it back exactly (the unedited round trip); with a template, importing the input again
// onto the result changes nothing (no edit was left out). read_gltf_skeleton sees every input too.
// Errors are fine; crashes, hangs, leaks and exceptions are not. The input is the whole
// file, so corpus/external/*.gltf and exported seeds drive it as they are; the choices come
// from a hash of the input.
#include "harness_util.hpp"

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/gltf.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace {

[[noreturn]] void fail_with(const char* what, const mab::Error& e) {
  std::fprintf(stderr, "%s\n", e.message().c_str());
  fuzz::fail(what);
}

// Two small templates built in-process (the harness must not depend on files): a WDL clip
// with a constant and two animated bones over 11 keys, and an FC5 file made the same way.
const mab::Container& template_for(bool fc5) {
  static const auto make = [](mab::Game game) {
    auto empty = mab::new_container(game);
    if (!empty) fail_with("new_container", empty.error());
    auto d = mab::decode_clip(*empty);
    if (!d) fail_with("decode of a new container", d.error());
    mab::Clip clip = d->clip;
    clip.key_times.clear();
    for (std::uint32_t k = 0; k < 11; ++k) clip.key_times.push_back(3 * k);
    const std::uint32_t hashes[3] = {mab::bone_hash("Root"), mab::bone_hash("Pelvis"), mab::bone_hash("Spine")};
    for (int i = 0; i < 3; ++i) {
      mab::ClipBone b;
      b.hash = hashes[i];
      if (i == 0) {
        b.set_kind(mab::BoneKind::constant);
        b.constant = {0.1f, 0.2f, 0.3f, 0.927362f};
      } else {
        b.set_kind(mab::BoneKind::animated);
        b.set_bit_depth(i == 1 ? 12u : 16u);
        for (std::uint32_t k = 0; k < 11; ++k) {
          const float a = 0.05f * static_cast<float>(k) * static_cast<float>(i);
          b.keys.push_back({a, 0.1f, -a, 1.0f});
        }
      }
      clip.bones.push_back(b);
    }
    clip.duration = 1.0f;
    auto bytes = mab::encode_clip(*d, clip);
    if (!bytes) fail_with("template encode", bytes.error());
    auto c = mab::read_container(*bytes);
    if (!c) fail_with("template read", c.error());
    return std::move(c).value();
  };
  static const mab::Container wdl = make(mab::Game::watch_dogs_legion);
  static const mab::Container fc5_file = make(mab::Game::far_cry_5);
  return fc5 ? fc5_file : wdl;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  const std::span<const std::uint8_t> bytes(data, size);
  fuzz::Rng rng(fuzz::hash_bytes(data, size));
  (void)mab::read_gltf_skeleton(bytes, {}, limits);

  mab::GltfImportOptions opt;
  opt.limits = limits;
  const auto mode = rng.below(8);
  const bool with_template = mode < 4;
  const mab::Container* tmpl = with_template ? &template_for(mode == 3) : nullptr;
  if (!with_template) {
    static constexpr mab::Game games[] = {mab::Game::watch_dogs, mab::Game::watch_dogs_2, mab::Game::watch_dogs_legion,
                                          mab::Game::far_cry_5};
    opt.game = games[mode - 4];
  }
  opt.keep_times = rng.below(4) == 0;
  opt.rotations = static_cast<mab::GltfRotations>(rng.below(3));
  opt.max_error_deg = rng.below(2) ? 0.01 : 1.0;
  if (rng.below(8) == 0) opt.animation = rng.below(3);

  auto imported = mab::import_gltf(bytes, tmpl, opt);
  if (!imported) return 0;
  auto c = mab::read_container(imported->bytes, limits);
  if (!c) fail_with("an imported glTF gave bytes that do not parse", c.error());
  auto written = mab::write_container(*c);
  if (!written) fail_with("an imported file does not write back", written.error());
  fuzz::check(*written == imported->bytes, "an imported file does not write back byte for byte");
  if (tmpl) fuzz::check(c->blocks.size() == tmpl->blocks.size(), "import changed the template's block count");

  // Accepted means every changed channel is in the output (docs/gltf.md, "Every channel is
  // accounted for"): the same file imported onto what was written finds nothing left to
  // change, with the match tolerance widened by the error the encoder reported.
  if (tmpl && !opt.animation) {
    mab::GltfImportOptions again = opt;
    double rot = 0, units = 0;
    for (const auto& a : imported->report.animations)
      rot = std::max(rot, a.encode.max_error_deg), units = std::max(units, a.encode.max_translation_error);
    again.match_tolerance_deg = opt.match_tolerance_deg + 1.01 * rot + 1e-6;
    again.match_tolerance_units = opt.match_tolerance_units + 1.01 * units + 1e-6;
    auto twice = mab::import_gltf(bytes, &*c, again);
    if (twice)
      for (const auto& a : twice->report.animations)
        if (!a.tracks_changed.empty() || !a.bones_changed.empty()) {
          std::fprintf(stderr, "block %zu: %s\n", a.block,
                       a.tracks_changed.empty() ? "a bone" : a.tracks_changed.front().c_str());
          fuzz::fail("an accepted import left a changed channel out of the file");
        }
  }

  // The unedited round trip, on a fixed quarter of the inputs (it triples the cost).
  if (rng.below(4) != 0) return 0;
  mab::GltfExportOptions eo;
  eo.binary = rng.below(2) == 0;
  auto exported = mab::export_gltf(*c, eo);
  if (!exported) {
    // A clip whose key times do not increase cannot be a glTF; nothing else may fail.
    if (exported.error().code != mab::ErrorCode::bad_value)
      fail_with("an imported clip does not export", exported.error());
    return 0;
  }
  mab::GltfImportOptions back_opt;
  back_opt.limits = limits;
  auto back = mab::import_gltf(*exported, &*c, back_opt);
  if (!back) fail_with("an export of an imported clip does not import", back.error());
  fuzz::check(back->bytes == imported->bytes, "export + import with the file as template changed it");
  return 0;
}

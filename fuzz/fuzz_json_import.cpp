// Any text through the "mabkit-clip" JSON importer (lib/include/mab/json.hpp): an error, or
// bytes that are a valid file (they parse and write back byte for byte). When the document
// holds a clip, import_json must agree with import_json_bytes, and exporting what it returns
// and importing that again must give the same bytes (the format is lossless); the same for
// Far Cry 2/3 "legacy_clip" documents, whose written clip must also decode. The text read in
// place (PaddedJson) must give the same outcome. Accepted means every channel the document
// changed is in the output: its decode carries the document's clip (key times, bones, rotations,
// translations, root motion, parts), each value within the error the import reported. Exceptions
// must not escape.
#include "harness_util.hpp"

#include <mab/decode_clip.hpp>
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>
#include <mab/quat.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void fail_with(const char* what, const mab::Error& e) {
  std::fprintf(stderr, "%s\n", e.message().c_str());
  fuzz::fail(what);
}

void check_vec(const mab::Vec3& out, const mab::Vec3& want, double bound, const char* what) {
  for (unsigned j = 0; j < 3; ++j)
    if (!(std::fabs(double{out[j]} - double{want[j]}) <= bound)) {
      std::fprintf(stderr, "%.9g written for %.9g, reported bound %.9g\n", double{out[j]}, double{want[j]}, bound);
      fuzz::fail(what);
    }
}

// "Never lose an edit": the output's decode is the document's clip, every bone by its hash and
// every channel, within the errors the import reported (a channel the document left as it was
// keeps its codes, so it comes back exactly).
void check_edits_landed(const mab::Clip& edited, const mab::Clip& out, const mab::EncodeReport& rep) {
  fuzz::check(out.key_times == edited.key_times, "accepted, but the output's key times are not the document's");
  fuzz::check(out.bones.size() == edited.bones.size(), "accepted, but the output has other bones");
  const double deg = rep.max_error_deg * 1.001 + 1e-4;
  const double units = rep.max_translation_error * 1.001 + 1e-6;
  for (const auto& eb : edited.bones) {
    const int at = out.find_bone(eb.hash);
    fuzz::check(at >= 0, "accepted, but a bone of the document is not in the output");
    const mab::ClipBone& ob = out.bones[static_cast<std::size_t>(at)];
    fuzz::check(ob.kind() == eb.kind(), "accepted, but a bone's kind is not the document's");
    if (eb.kind() == mab::BoneKind::constant)
      fuzz::check(mab::angular_error_deg(ob.constant, eb.constant) <= deg,
                  "an edited constant rotation was not carried");
    fuzz::check(ob.keys.size() == eb.keys.size(), "a rotation track is not the document's length");
    for (std::size_t k = 0; k < eb.keys.size(); ++k)
      if (!(mab::angular_error_deg(ob.keys[k], eb.keys[k]) <= deg)) {
        std::fprintf(stderr, "bone 0x%08X key %zu: %.6g degrees off, reported %.6g\n", eb.hash, k,
                     mab::angular_error_deg(ob.keys[k], eb.keys[k]), rep.max_error_deg);
        fuzz::fail("an edited rotation was not carried");
      }
    fuzz::check(ob.translations.size() == eb.translations.size(), "a translation track is not the document's length");
    for (std::size_t k = 0; k < eb.translations.size(); ++k)
      check_vec(ob.translations[k], eb.translations[k], units, "an edited translation was not carried");
    fuzz::check(ob.constant_translation.has_value() == eb.constant_translation.has_value(),
                "a constant translation was added or dropped");
    if (eb.constant_translation)
      check_vec(*ob.constant_translation, *eb.constant_translation, 0,
                "an edited constant translation was not carried");
  }
  const auto& om = out.root_motion;
  const auto& em = edited.root_motion;
  fuzz::check(om.translations.size() == em.translations.size() && om.rotations.size() == em.rotations.size(),
              "root motion is not the document's length");
  for (std::size_t k = 0; k < em.translations.size(); ++k)
    check_vec(om.translations[k], em.translations[k], 0, "an edited root translation was not carried");
  // A 6-byte root rotation is within its code's step (format 10.3); f32 ones are exact.
  for (std::size_t k = 0; k < em.rotations.size(); ++k)
    fuzz::check(mab::angular_error_deg(om.rotations[k], em.rotations[k]) <= 0.0087,
                "an edited root rotation was not carried");
  fuzz::check(out.parts == edited.parts, "edited part entries were not carried");
}

// The same for a Far Cry 2/3 clip: every frame of a rotation track within the report's bound
// (stored keys and interpolation, docs/legacy.md "Writing"), a 6-byte constant or trajectory
// rotation within its code's step (format 9.1), floats exact.
void check_legacy_edits_landed(const mab::LegacyClip& edited, const mab::LegacyClip& out,
                               const mab::LegacyEncodeReport& rep) {
  fuzz::check(out.last_frame == edited.last_frame, "accepted, but the clip's frames are not the document's");
  fuzz::check(out.rotations.size() == edited.rotations.size() &&
                  out.constant_rotations.size() == edited.constant_rotations.size() &&
                  out.translations.size() == edited.translations.size() &&
                  out.constant_translations.size() == edited.constant_translations.size() &&
                  out.trajectory_rotation.size() == edited.trajectory_rotation.size() &&
                  out.trajectory_translation.size() == edited.trajectory_translation.size(),
              "accepted, but the output's tracks are not the document's");
  const double deg = rep.max_error_deg * 1.001 + 1e-4, code_step = 0.0087;
  for (std::size_t t = 0; t < edited.rotations.size(); ++t) {
    fuzz::check(out.rotations[t].bone == edited.rotations[t].bone, "a rotation track moved to another bone");
    for (std::uint32_t f = 0; f <= edited.last_frame; ++f)
      if (!(mab::angular_error_deg(mab::legacy_rotation_at(out.rotations[t], f),
                                   mab::legacy_rotation_at(edited.rotations[t], f)) <= deg + code_step))
        fuzz::fail("an edited Far Cry 2/3 rotation was not carried");
  }
  for (std::size_t i = 0; i < edited.constant_rotations.size(); ++i)
    fuzz::check(out.constant_rotations[i].bone == edited.constant_rotations[i].bone &&
                    mab::angular_error_deg(out.constant_rotations[i].rotation, edited.constant_rotations[i].rotation) <=
                        code_step,
                "an edited Far Cry 2/3 constant rotation was not carried");
  for (std::size_t k = 0; k < edited.trajectory_rotation.size(); ++k)
    fuzz::check(mab::angular_error_deg(out.trajectory_rotation[k], edited.trajectory_rotation[k]) <= code_step,
                "an edited trajectory rotation was not carried");
  for (std::size_t k = 0; k < edited.trajectory_translation.size(); ++k)
    check_vec(out.trajectory_translation[k], edited.trajectory_translation[k], 0,
              "an edited trajectory translation was not carried");
  for (std::size_t i = 0; i < edited.constant_translations.size(); ++i)
    check_vec(out.constant_translations[i].translation, edited.constant_translations[i].translation, 0,
              "an edited Far Cry 2/3 constant translation was not carried");
  for (std::size_t i = 0; i < edited.translations.size(); ++i) {
    fuzz::check(out.translations[i].frames.size() == edited.translations[i].frames.size(),
                "a Far Cry 2/3 translation track is not the document's length");
    for (std::size_t k = 0; k < edited.translations[i].frames.size(); ++k)
      check_vec(out.translations[i].frames[k], edited.translations[i].frames[k], 0,
                "an edited Far Cry 2/3 translation was not carried");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto imported = mab::import_json_bytes(text, limits);
  // Read in place (PaddedJson, the CLI's way), the same text gives the same outcome.
  auto in_place = mab::import_json_bytes(mab::PaddedJson(std::vector<std::uint8_t>(data, data + size)), limits);
  fuzz::check(in_place.ok() == imported.ok(), "a padded document imports differently");
  if (!imported) return 0;
  fuzz::check(in_place->bytes == imported->bytes, "a padded document imports to different bytes");

  auto c = mab::read_container(imported->bytes, limits);
  if (!c) fail_with("an imported document gave bytes that do not parse", c.error());
  auto written = mab::write_container(*c);
  if (!written) fail_with("an imported file does not write back", written.error());
  fuzz::check(*written == imported->bytes, "an imported file does not write back byte for byte");
  if (imported->legacy_encoded) {
    // Far Cry 2/3: the written clip decodes, import_legacy_json agrees, and exporting the
    // document's tracks against its container imports to the same bytes.
    auto doc = mab::import_legacy_json(text, limits);
    if (!doc) fail_with("import_legacy_json rejects a document import_json_bytes accepted", doc.error());
    auto back = mab::decode_legacy_clip(*c, doc->clip.block, limits);
    if (!back) fail_with("an imported Far Cry 2/3 clip does not decode", back.error());
    check_legacy_edits_landed(doc->clip, *back, imported->legacy_report);
    if (fuzz::hash_bytes(data, size) % 4 != 0) return 0;
    // Version 2: its "legacy_clip" carries the tracks as stored keys, which the check compares.
    auto again_text = mab::export_json(doc->container, doc->clip, mab::JsonExportOptions{2});
    if (!again_text) fail_with("an imported legacy clip does not export", again_text.error());
    auto again = mab::import_json_bytes(*again_text, limits);
    if (!again) fail_with("an exported legacy document does not import", again.error());
    fuzz::check(again->bytes == imported->bytes, "export(import(legacy doc)) imports to different bytes");
    return 0;
  }
  if (!imported->clip_encoded) return 0;

  auto d = mab::import_json(text, limits);
  if (!d) fail_with("import_json rejects a document import_json_bytes accepted", d.error());
  // Its container and codes are the document's original, its clip the document's (edited)
  // one: encoding that clip against a fresh decode of the original, under the error policy
  // every command shares (edit_policy, decision 21), is what import_json_bytes does.
  auto original = mab::decode_clip(d->container, d->block, limits);
  if (!original) fail_with("the container import_json returns does not decode", original.error());
  fuzz::check(original->rotations == d->rotations && original->constant_codes == d->constant_codes,
              "import_json returns codes that are not those of its container");
  auto direct = mab::encode_clip(*original, d->clip, mab::edit_policy());
  if (!direct) fail_with("the clip import_json returns does not encode", direct.error());
  fuzz::check(*direct == imported->bytes, "import_json and import_json_bytes give different files");
  auto landed = mab::decode_clip(*c, d->block, limits);
  if (!landed) fail_with("an imported clip does not decode", landed.error());
  check_edits_landed(d->clip, landed->clip, imported->report);

  // Export + import costs three times the rest under the sanitizers; a fixed quarter of the
  // inputs (chosen by content, so each input always gets the same treatment) keeps the
  // harness above 1,000 exec/s while still checking losslessness on every kind of document.
  if (fuzz::hash_bytes(data, size) % 4 != 0) return 0;
  auto again_text = mab::export_json(*d);
  if (!again_text) fail_with("an imported clip does not export", again_text.error());
  auto again = mab::import_json_bytes(*again_text, limits);
  if (!again) fail_with("an exported document does not import", again.error());
  fuzz::check(again->bytes == imported->bytes, "export(import(doc)) imports to different bytes");
  return 0;
}

// 'aNi' clips (WD1, WD2, WDL, FC4, FC5): decode to the Python Clip's arrays, encode an edited
// Clip against a template with the encoder's report, and the edit operations of `mab edit`.
#include "ani_state.hpp"
#include "arrays.hpp"
#include "handle.hpp"

#include <mab/codec_file.hpp>
#include <mab/edit.hpp>
#include <mab/file_io.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>

namespace mabpy {

namespace {

// The encoder policy of the module, in one place: the one `mab edit` uses (a changed bone
// keeps its bit depth unless that misses max_error_deg; `requantise_all` is
// `mab edit --max-error`). When the library gains one shared policy, call it here.
mab::EncodeOptions encode_policy(double max_error_deg, bool requantise_all) {
  if (!(max_error_deg > 0) || !std::isfinite(max_error_deg))
    raise(mab::ErrorCode::invalid_argument, "max_error", "the bound must be a positive number of degrees");
  mab::EncodeOptions o;
  o.max_error_deg = max_error_deg;
  o.raise_depth = true;
  o.requantise_all = requantise_all;
  return o;
}

py::dict decode_ani(const FileHandle& f, std::size_t index) {
  f.block(index);
  // Everything but the keys' floats through the library, then the keys straight into the
  // array NumPy will own (bone-major), so no per-bone vector is made and copied.
  mab::DecodeOptions options;
  options.keys = false;
  mab::DecodedClip d = take(mab::decode_clip(f.c(), index, options));
  const mab::Clip& clip = d.clip;
  const std::size_t nk = clip.key_count();
  std::vector<mab::Quat> rotations = rotation_buffer(clip);
  std::vector<std::uint8_t> depths;
  std::vector<std::span<mab::Quat>> tracks;
  for (std::size_t b = 0; b < clip.bones.size(); ++b) {
    if (clip.bones[b].kind() != mab::BoneKind::animated) continue;
    depths.push_back(static_cast<std::uint8_t>(clip.bones[b].bit_depth()));
    tracks.emplace_back(rotations.data() + b * nk, nk);
  }
  if (!tracks.empty())
    take(mab::decode_rotations_into(d.rotations, static_cast<std::uint32_t>(nk), depths, tracks));
  py::dict st = clip_state(clip, std::move(rotations));
  py::dict ev;
  ev["translations"] = d.evidence.translations.text();
  ev["constant_translations"] = d.evidence.constant_translations.text();
  ev["root_rotations"] = d.evidence.root_rotations.text();
  ev["root_translations"] = d.evidence.root_translations.text();
  ev["parts"] = d.evidence.parts.text();
  st["evidence"] = ev;
  return st;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

[[noreturn]] void not_landed(std::string field, const std::string& what) {
  raise(mab::ErrorCode::round_trip_mismatch, std::move(field),
        what + ": the edit did not land; nothing was written (please report this as a bug)");
}

// Rotations of bone b in `got` against `want`; returns the largest angle, in degrees.
double bone_error(const mab::Clip& want, const mab::Clip& got, std::size_t b, double bound) {
  const mab::ClipBone& w = want.bones[b];
  const mab::ClipBone& g = got.bones[b];
  const std::string field = "rotations[:, " + std::to_string(b) + "]";
  if (g.hash != w.hash || g.kind() != w.kind())
    not_landed(field, "bone " + std::to_string(b) + " (" + hex32(w.hash) + ") reads back as another bone or kind");
  double worst = 0;
  for (std::size_t k = 0; k < want.key_count(); ++k) {
    const mab::Quat& a = w.kind() == mab::BoneKind::animated ? w.keys[k] : w.constant;
    const mab::Quat& r = g.kind() == mab::BoneKind::animated ? g.keys[k] : g.constant;
    const double e = w.kind() == mab::BoneKind::none ? 0.0 : mab::angular_error_deg(a, r);
    if (e > bound)
      not_landed(field, "bone " + std::to_string(b) + " (" + hex32(w.hash) + ") key " + std::to_string(k) + " reads back " +
                            std::to_string(e) + " degrees from the edit (encoder reported " + std::to_string(bound) + ")");
    worst = std::max(worst, e);
  }
  return worst;
}

double translation_error(const std::vector<mab::Vec3>& want, const std::vector<mab::Vec3>& got, const std::string& field,
                         double bound) {
  if (want.size() != got.size())
    not_landed(field, std::to_string(want.size()) + " values edited, " + std::to_string(got.size()) + " read back");
  double worst = 0;
  for (std::size_t k = 0; k < want.size(); ++k)
    for (unsigned j = 0; j < 3; ++j) worst = std::max(worst, std::abs(double{want[k][j]} - double{got[k][j]}));
  if (worst > bound) not_landed(field, "read back " + std::to_string(worst) + " units from the edit");
  return worst;
}

// The written bytes read back: same key times, every bone where the edit put it (within the
// error the encoder reported for it), translations and root motion present where edited.
// Returns the largest rotation error measured.
double verify_landed(const std::vector<std::uint8_t>& bytes, std::size_t block, const mab::Clip& want,
                     const mab::EncodeReport& rep) {
  auto c = mab::read_container(bytes);
  if (!c) not_landed("file", "the written file does not read back: " + c.error().message());
  auto d = mab::decode_clip(std::move(c).value(), block);
  if (!d) not_landed("file", "the written clip does not decode: " + d.error().message());
  const mab::Clip& got = d->clip;
  if (got.key_times != want.key_times) not_landed("key_times", "the key times read back differ");
  if (got.bones.size() != want.bones.size()) not_landed("bone_hashes", "the bone count reads back differently");
  double worst = 0;
  const double t_bound = rep.max_translation_error * 1.001 + 1e-6;
  for (std::size_t b = 0; b < want.bones.size(); ++b) {
    const double bound = rep.bone_error_deg.size() > b ? rep.bone_error_deg[b] * 1.0001 + 1e-4 : 1e-4;
    worst = std::max(worst, bone_error(want, got, b, bound));
    const std::string tf = "translations[:, " + std::to_string(b) + "]";
    translation_error(want.bones[b].translations, got.bones[b].translations, tf, t_bound);
    if (want.bones[b].constant_translation.has_value() != got.bones[b].constant_translation.has_value())
      not_landed("constant_translations[" + std::to_string(b) + "]", "the constant translation reads back otherwise");
  }
  translation_error(want.root_motion.translations, got.root_motion.translations, "root_translations", 1e-6);
  if (want.root_motion.rotations.size() != got.root_motion.rotations.size())
    not_landed("root_rotations", "the root rotations read back with another key count");
  if (want.parts.size() != got.parts.size()) not_landed("parts", "the part entries read back otherwise");
  return worst;
}

py::dict report_dict(const mab::EncodeReport& rep, const mab::Clip& before, const mab::Clip& after) {
  py::dict r;
  r["kind"] = "ani";
  r["chunks_reused"] = rep.chunks_reused;
  r["chunks_requantised"] = rep.chunks_requantised;
  r["constants_reused"] = rep.constants_reused;
  r["constants_encoded"] = rep.constants_encoded;
  r["max_error_deg"] = rep.max_error_deg;
  r["bone_error_deg"] = vector_array(rep.bone_error_deg);
  r["translation_chunks_reused"] = rep.translation_chunks_reused;
  r["translation_chunks_requantised"] = rep.translation_chunks_requantised;
  r["max_translation_error"] = rep.max_translation_error;
  r["translation_scales_widened"] = rep.translation_scales_widened;
  r["motion_sections_rewritten"] = rep.motion_sections_rewritten;
  r["keys_before"] = before.key_count();
  r["keys_after"] = after.key_count();
  std::vector<std::uint32_t> added, removed;
  std::set_difference(after.key_times.begin(), after.key_times.end(), before.key_times.begin(), before.key_times.end(),
                      std::back_inserter(added));
  std::set_difference(before.key_times.begin(), before.key_times.end(), after.key_times.begin(), after.key_times.end(),
                      std::back_inserter(removed));
  r["keys_added"] = added;
  r["keys_removed"] = removed;
  return r;
}

py::tuple encode_ani(const FileHandle& tmpl, std::size_t block, const py::dict& state, double max_error,
                     bool requantise_all, bool verify) {
  tmpl.block(block);
  const mab::Clip edited = clip_from_state(state);
  const mab::DecodedClip original = take(mab::decode_clip(tmpl.c(), block));
  if (edited.key_rate != original.clip.key_rate)
    raise(mab::ErrorCode::invalid_argument, "key_rate",
          "the clip's key rate is " + std::to_string(edited.key_rate) + " units/s, the template block's " +
              std::to_string(original.clip.key_rate) + " (D7): key times are in the template's units");
  mab::EncodeReport rep;
  const auto bytes = take(mab::encode_clip(original, edited, encode_policy(max_error, requantise_all), &rep));
  py::dict r = report_dict(rep, original.clip, edited);
  r["verified"] = verify;
  if (verify) r["measured_max_error_deg"] = verify_landed(bytes, block, edited, rep);
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), r);
}

}  // namespace

void bind_ani(py::module_& m) {
  m.def("decode_ani", &decode_ani);
  m.def("encode_ani", &encode_ani);
  m.def("clip_roundtrip_state", [](const py::dict& st) {
    const mab::Clip c = clip_from_state(st);
    return clip_state(c, rotation_buffer(c));
  });
}

}  // namespace mabpy

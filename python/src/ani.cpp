// 'aNi' clips (WD1, WD2, WDL, FC4, FC5): decode to the Python Clip's arrays, encode an edited
// Clip against a template with the encoder's report, and the edit operations of `mab edit`.
#include "ani_state.hpp"
#include "arrays.hpp"
#include "handle.hpp"

#include <mab/decode_clip.hpp>
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/edit.hpp>
#include <mab/file_io.hpp>
#include <mab/text.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace mabpy {

namespace {

// The library's one error policy (mab::edit_policy, as mab import and mab edit use it;
// decision 21); `requantise_all` is `mab edit --requantise`. A translation bound given is also
// refused when missed, as `--max-translation-error` is.
mab::EncodeOptions encode_policy(double max_error_deg, bool requantise_all,
                                 std::optional<double> max_translation_error) {
  if (max_translation_error && (!(*max_translation_error > 0) || !std::isfinite(*max_translation_error)))
    raise(mab::ErrorCode::invalid_argument, "max_translation_error", "the bound must be a positive number of units");
  mab::EncodeOptions o = mab::edit_policy(checked_max_error(max_error_deg), max_translation_error);
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
  if (!tracks.empty()) take(mab::decode_rotations_into(d.rotations, static_cast<std::uint32_t>(nk), depths, tracks));
  py::dict st = clip_state(clip, std::move(rotations));
  st["evidence"] = evidence_dict(d.evidence);
  return st;
}

// Rotations of bone b in `got` against `want`; returns the largest angle, in degrees.
double bone_error(const mab::Clip& want, const mab::Clip& got, std::size_t b, double bound) {
  const mab::ClipBone& w = want.bones[b];
  const mab::ClipBone& g = got.bones[b];
  const std::string field = "rotations[:, " + std::to_string(b) + "]";
  if (g.hash != w.hash || g.kind() != w.kind())
    not_landed(field,
               "bone " + std::to_string(b) + " (" + mab::hex(w.hash, 8) + ") reads back as another bone or kind");
  double worst = 0;
  for (std::size_t k = 0; k < want.key_count(); ++k) {
    const mab::Quat& a = w.kind() == mab::BoneKind::animated ? w.keys[k] : w.constant;
    const mab::Quat& r = g.kind() == mab::BoneKind::animated ? g.keys[k] : g.constant;
    const double e = w.kind() == mab::BoneKind::none ? 0.0 : mab::angular_error_deg(a, r);
    if (e > bound)
      not_landed(field, "bone " + std::to_string(b) + " (" + mab::hex(w.hash, 8) + ") key " + std::to_string(k) +
                            " reads back " + std::to_string(e) + " degrees from the edit (encoder reported " +
                            std::to_string(bound) + ")");
    worst = std::max(worst, e);
  }
  return worst;
}

double translation_error(const std::vector<mab::Vec3>& want, const std::vector<mab::Vec3>& got,
                         const std::string& field, double bound) {
  if (want.size() != got.size())
    not_landed(field, std::to_string(want.size()) + " values edited, " + std::to_string(got.size()) + " read back");
  double worst = 0;
  for (std::size_t k = 0; k < want.size(); ++k)
    for (unsigned j = 0; j < 3; ++j) worst = std::max(worst, std::abs(double{want[k][j]} - double{got[k][j]}));
  if (worst > bound) not_landed(field, "read back " + std::to_string(worst) + " units from the edit");
  return worst;
}

}  // namespace

double compare_landed(const mab::Clip& want, const mab::Clip& got, const std::vector<double>& bone_bound,
                      double t_bound) {
  if (got.key_times != want.key_times) not_landed("key_times", "the key times read back differ");
  if (got.bones.size() != want.bones.size()) not_landed("bone_hashes", "the bone count reads back differently");
  double worst = 0;
  for (std::size_t b = 0; b < want.bones.size(); ++b) {
    const double bound = bone_bound.size() > b ? bone_bound[b] * 1.0001 + 1e-4 : 1e-4;
    worst = std::max(worst, bone_error(want, got, b, bound));
    const std::string tf = "translations[:, " + std::to_string(b) + "]";
    translation_error(want.bones[b].translations, got.bones[b].translations, tf, t_bound);
    if (want.bones[b].constant_translation.has_value() != got.bones[b].constant_translation.has_value())
      not_landed("constant_translations[" + std::to_string(b) + "]", "the constant translation reads back otherwise");
  }
  translation_error(want.root_motion.translations, got.root_motion.translations, "root_translations", 1e-6);
  if (want.root_motion.rotations.size() != got.root_motion.rotations.size())
    not_landed("root_rotations", "the root rotations read back with another key count");
  for (std::size_t k = 0; k < want.root_motion.rotations.size(); ++k)
    if (mab::angular_error_deg(want.root_motion.rotations[k], got.root_motion.rotations[k]) > quat48_bound_deg)
      not_landed("root_rotations[" + std::to_string(k) + "]", "reads back further than a 6-byte quaternion's step");
  return worst;
}

namespace {

void key_changes(py::dict& r, const mab::Clip& before, const mab::Clip& after) {
  r["keys_before"] = before.key_count();
  r["keys_after"] = after.key_count();
  std::vector<std::uint32_t> added, removed;
  std::set_difference(after.key_times.begin(), after.key_times.end(), before.key_times.begin(), before.key_times.end(),
                      std::back_inserter(added));
  std::set_difference(before.key_times.begin(), before.key_times.end(), after.key_times.begin(), after.key_times.end(),
                      std::back_inserter(removed));
  r["keys_added"] = added;
  r["keys_removed"] = removed;
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
  const double worst = compare_landed(want, d->clip, rep.bone_error_deg, rep.max_translation_error * 1.001 + 1e-6);
  if (want.parts != d->clip.parts) not_landed("parts", "the part entries read back otherwise");
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
  r["translation_depths_raised"] = rep.translation_depths_raised;
  r["warnings"] = rep.warnings;
  r["motion_sections_rewritten"] = rep.motion_sections_rewritten;
  key_changes(r, before, after);
  return r;
}

py::tuple encode_ani(const FileHandle& tmpl, std::size_t block, const py::dict& state, double max_error,
                     bool requantise_all, bool verify, std::optional<double> max_translation_error) {
  tmpl.block(block);
  const mab::Clip edited = clip_from_state(state);
  const mab::DecodedClip original = take(mab::decode_clip(tmpl.c(), block));
  if (edited.key_rate != original.clip.key_rate)
    raise(mab::ErrorCode::invalid_argument, "key_rate",
          "the clip's key rate is " + std::to_string(edited.key_rate) + " units/s, the template block's " +
              std::to_string(original.clip.key_rate) + " (decision 7): key times are in the template's units");
  mab::EncodeReport rep;
  const auto bytes =
      take(mab::encode_clip(original, edited, encode_policy(max_error, requantise_all, max_translation_error), &rep));
  py::dict r = report_dict(rep, original.clip, edited);
  r["verified"] = verify;
  if (verify) r["measured_max_error_deg"] = verify_landed(bytes, block, edited, rep);
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), r);
}

// --- Edits (mab edit's operations, lib/include/mab/edit.hpp) ---

}  // namespace

std::size_t bone_arg(const mab::Clip& c, py::handle a) {
  if (py::isinstance<py::int_>(a)) {
    const auto i = a.cast<long long>();
    if (i < 0 || static_cast<std::size_t>(i) >= c.bones.size())
      raise(mab::ErrorCode::not_found, "bone",
            "no bone " + std::to_string(i) + " (the clip has " + std::to_string(c.bones.size()) + ")");
    return static_cast<std::size_t>(i);
  }
  return take(mab::find_bone(c, a.cast<std::string>()));
}

mab::Quat quat_arg(py::handle a) {
  const auto v = checked_array<double>(a, "quat", {4});
  const mab::Quat q{static_cast<float>(v.at(0)), static_cast<float>(v.at(1)), static_cast<float>(v.at(2)),
                    static_cast<float>(v.at(3))};
  if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) || !std::isfinite(q.w) ||
      (q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0))
    raise(mab::ErrorCode::bad_value, "quat", "a rotation is four finite numbers x, y, z, w, not all zero");
  return q;
}

namespace {

// A key at `time` (key units): every animated bone, translation and root-motion track gets its
// value there (slerp / linear between the keys around it, as edit::resample samples), so no
// bone moves; past the last key they hold it. An existing time is left as it is. Returns the
// key's index.
std::size_t insert_key(mab::Clip& c, double time) {
  if (!(time >= 0) || time > 0xFFFFFFFF || time != std::floor(time))
    raise(mab::ErrorCode::bad_value, "time", "a key time is a whole number of key units (key_rate per second)");
  const auto t = static_cast<std::uint32_t>(time);
  const auto it = std::lower_bound(c.key_times.begin(), c.key_times.end(), t);
  const auto at = static_cast<std::size_t>(it - c.key_times.begin());
  if (it != c.key_times.end() && *it == t) return at;
  if (!std::is_sorted(c.key_times.begin(), c.key_times.end()))
    raise(mab::ErrorCode::invalid_argument, "key_times", "key times must ascend to insert a key");
  const mab::Clip before = c;
  take(c.insert_key(at, t));
  for (std::size_t b = 0; b < c.bones.size(); ++b)
    if (c.bones[b].kind() == mab::BoneKind::animated && !before.key_times.empty())
      c.bones[b].keys[at] = mab::sample_bone(before, before.bones[b], t);
  if (!before.key_times.empty()) mab::resample_motion(c, before);
  // A key past the end lengthens the clip: the header's duration reaches it (seconds).
  c.duration = std::max(c.duration, static_cast<float>(t / c.key_rate));
  return at;
}

// A new shared timeline: every animated bone, translation and root-motion track sampled at
// `times` (as insert_key samples), in the order given (they must ascend).
void set_key_times(mab::Clip& c, py::handle times) {
  const auto a = checked_array<std::int64_t>(times, "key_times", {-1});
  std::vector<std::uint32_t> t;
  for (py::ssize_t k = 0; k < a.shape(0); ++k) {
    if (a.at(k) < 0 || a.at(k) > 0xFFFFFFFF || (k > 0 && a.at(k) <= a.at(k - 1)))
      raise(mab::ErrorCode::bad_value, "key_times[" + std::to_string(k) + "]", "key times are whole units that ascend");
    t.push_back(static_cast<std::uint32_t>(a.at(k)));
  }
  if (t.empty()) raise(mab::ErrorCode::invalid_argument, "key_times", "a clip keeps at least one key");
  const mab::Clip before = c;
  c.key_times = t;
  for (std::size_t b = 0; b < c.bones.size(); ++b) {
    if (c.bones[b].kind() != mab::BoneKind::animated) continue;
    c.bones[b].keys.resize(t.size());
    for (std::size_t k = 0; k < t.size(); ++k) c.bones[b].keys[k] = mab::sample_bone(before, before.bones[b], t[k]);
  }
  mab::resample_motion(c, before);
  c.duration = std::max(c.duration, static_cast<float>(t.back() / c.key_rate));
}

py::object reduce_report(const mab::edit::ReduceReport& r) {
  py::dict d;
  d["keys_before"] = r.keys_before;
  d["keys_after"] = r.keys_after;
  d["max_error_deg"] = r.max_error_deg;
  d["max_translation_error"] = r.max_translation_error;
  d["max_root_rotation_error_deg"] = r.max_root_rotation_error_deg;
  return d;
}

}  // namespace

py::object apply_edit(mab::Clip& c, const std::string& op, const py::tuple& args, const BoneArg& bone) {
  mab::edit::Notes notes;
  py::object result = py::none();
  auto arg = [&](std::size_t i) -> py::handle {
    if (i >= args.size()) raise(mab::ErrorCode::invalid_argument, op, "missing argument " + std::to_string(i + 1));
    return args[i];
  };
  auto num = [&](std::size_t i) { return arg(i).cast<double>(); };
  if (op == "speed") take(mab::edit::speed(c, num(0), &notes));
  else if (op == "trim") take(mab::edit::trim(c, num(0), num(1), &notes));
  else if (op == "reverse") take(mab::edit::reverse(c));
  else if (op == "loop_fix") take(mab::edit::loop_fix(c));
  else if (op == "resample") take(mab::edit::resample(c, num(0), &notes));
  else if (op == "rotate_bone") take(mab::edit::rotate_bone(c, bone(c, arg(0)), quat_arg(arg(1))));
  else if (op == "set_constant") take(mab::edit::set_constant(c, bone(c, arg(0)), quat_arg(arg(1))));
  else if (op == "remove_bone") take(mab::edit::remove_bone(c, bone(c, arg(0))));
  else if (op == "add_bone") take(mab::edit::add_bone(c, arg(0).cast<std::string>(), quat_arg(arg(1))));
  else if (op == "set_bits") {
    const double n = num(1);
    if (n != std::floor(n) || n < 1 || n > 16)
      raise(mab::ErrorCode::bad_value, "nbits", "a bit depth is a whole number 1..16");
    take(mab::edit::set_bits(c, bone(c, arg(0)), static_cast<unsigned>(n)));
  } else if (op == "copy_track") {
    const mab::Clip from = clip_from_state(arg(0).cast<py::dict>());
    const std::size_t b = bone(from, arg(1));
    take(mab::edit::copy_track(c, from, from.bones[b].hash, &notes));
  } else if (op == "reduce") result = reduce_report(take(mab::edit::reduce(c, num(0))));
  else if (op == "insert_key") result = py::int_(insert_key(c, num(0)));
  else if (op == "set_key_times") set_key_times(c, arg(0));
  else if (op == "remove_key") {
    const auto k = arg(0).cast<long long>();
    if (k < 0) raise(mab::ErrorCode::not_found, "key", "no key " + std::to_string(k));
    take(c.remove_key(static_cast<std::size_t>(k)));
  } else raise(mab::ErrorCode::invalid_argument, "op", "no edit operation \"" + op + "\"");
  // Options named as the library names them (mab/error.hpp), which are Python's keyword names.
  for (auto& n : notes) n = mab::spell_options(n);
  if (result.is_none()) result = py::cast(notes);
  return result;
}

namespace {

// One operation on the clip a state describes: (new state, result). The result is the edit's
// notes (list of str), the inserted key's index, or the reduce report.
py::tuple edit_ani(const py::dict& state, const std::string& op, const py::tuple& args) {
  mab::Clip c = clip_from_state(state);
  py::object result = apply_edit(c, op, args, bone_arg);
  return py::make_tuple(clip_state(c, rotation_buffer(c)), result);
}

}  // namespace

void bind_ani(py::module_& m) {
  m.def("decode_ani", &decode_ani);
  m.def("encode_ani", &encode_ani);
  m.def("edit_ani", &edit_ani);
  // The read-back check alone, for its tests: `data` against the clip a state describes.
  m.def("verify_ani", [](const py::bytes& data, std::size_t block, const py::dict& state,
                         std::vector<double> bone_error_deg, double max_translation_error) {
    const std::string s = data;
    mab::EncodeReport rep;
    rep.bone_error_deg = std::move(bone_error_deg);
    rep.max_translation_error = max_translation_error;
    return verify_landed({s.begin(), s.end()}, block, clip_from_state(state), rep);
  });
}

}  // namespace mabpy

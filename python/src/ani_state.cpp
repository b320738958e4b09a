#include "ani_state.hpp"

#include "arrays.hpp"

#include <pybind11/stl.h>

#include <cmath>
#include <limits>

namespace mabpy {

namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

const char* kind_name(mab::BoneKind k) {
  switch (k) {
    case mab::BoneKind::constant: return "constant";
    case mab::BoneKind::animated: return "animated";
    case mab::BoneKind::none: break;
  }
  return "none";
}

mab::BoneKind kind_from(const std::string& s, std::size_t b) {
  if (s == "constant") return mab::BoneKind::constant;
  if (s == "animated") return mab::BoneKind::animated;
  if (s == "none") return mab::BoneKind::none;
  raise(mab::ErrorCode::invalid_argument, "kinds[" + std::to_string(b) + "]",
        "\"" + s + "\" is not one of none, constant, animated");
}

std::string at(const char* array, std::size_t k, std::size_t b) {
  return std::string(array) + "[" + std::to_string(k) + ", " + std::to_string(b) + "]";
}

bool finite(const mab::Quat& q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}
bool same_value(const mab::Quat& a, const mab::Quat& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

py::list part_list(const std::vector<mab::ClipPart>& parts) {
  py::list out;
  for (const auto& p : parts) {
    py::dict d;
    d["start"] = p.start;
    d["end"] = p.end;
    d["parent_hash"] = p.parent_hash;
    d["attachment_hash"] = p.attachment_hash;
    d["type"] = p.type;
    d["nested_block"] = p.nested_block;
    out.append(d);
  }
  return out;
}

template <std::size_t N, class T>
py::object per_key_array(const std::vector<T>& v) {
  if (v.empty()) return py::none();
  return rows_array<N>(v);
}

// Translations as (K, B, 3), bone-major like the rotations, NaN where a bone has none.
py::array_t<float> translation_array(const mab::Clip& clip) {
  const std::size_t nk = clip.key_count(), nb = clip.bones.size();
  std::vector<mab::Vec3> t(nb * nk, mab::Vec3{nan_f, nan_f, nan_f});
  for (std::size_t b = 0; b < nb; ++b)
    if (clip.bones[b].translations.size() == nk)
      std::copy(clip.bones[b].translations.begin(), clip.bones[b].translations.end(),
                t.begin() + static_cast<std::ptrdiff_t>(b * nk));
  const auto K = static_cast<py::ssize_t>(nk), B = static_cast<py::ssize_t>(nb);
  return owned_array<float>(std::move(t), {K, B, 3}, {12, K * 12, 4});
}

}  // namespace

std::vector<mab::Quat> rotation_buffer(const mab::Clip& clip) {
  const std::size_t nk = clip.key_count();
  std::vector<mab::Quat> r(clip.bones.size() * nk);
  for (std::size_t b = 0; b < clip.bones.size(); ++b) {
    const auto& bone = clip.bones[b];
    const auto first = r.begin() + static_cast<std::ptrdiff_t>(b * nk);
    if (bone.kind() == mab::BoneKind::constant) std::fill_n(first, nk, bone.constant);
    if (bone.kind() == mab::BoneKind::animated && bone.keys.size() == nk)
      std::copy(bone.keys.begin(), bone.keys.end(), first);
  }
  return r;
}

py::dict clip_state(const mab::Clip& clip, std::vector<mab::Quat> rotations) {
  static_assert(sizeof(mab::Quat) == 16 && sizeof(mab::Vec3) == 12);
  const auto K = static_cast<py::ssize_t>(clip.key_count()), B = static_cast<py::ssize_t>(clip.bones.size());
  py::dict st;
  st["key_rate"] = clip.key_rate;
  st["duration"] = clip.duration;
  st["key_times"] = vector_array(clip.key_times);
  py::array_t<std::uint32_t> hashes(B);
  py::array_t<std::uint8_t> flags(B);
  py::array_t<float> consts({B, py::ssize_t{4}}), const_tr({B, py::ssize_t{3}});
  py::list names, kinds, renamed;
  for (py::ssize_t b = 0; b < B; ++b) {
    const auto& bone = clip.bones[static_cast<std::size_t>(b)];
    hashes.mutable_at(b) = bone.hash;
    renamed.append(bone.renamed_from ? py::object(py::int_(*bone.renamed_from)) : py::object(py::none()));
    flags.mutable_at(b) = bone.flags;
    names.append(bone.name.empty() ? py::object(py::none()) : py::object(py::str(bone.name)));
    kinds.append(kind_name(bone.kind()));
    const mab::Quat c = bone.kind() == mab::BoneKind::constant ? bone.constant : mab::Quat{};
    for (py::ssize_t j = 0; j < 4; ++j) consts.mutable_at(b, j) = c[static_cast<unsigned>(j)];
    for (py::ssize_t j = 0; j < 3; ++j)
      const_tr.mutable_at(b, j) =
          bone.constant_translation ? (*bone.constant_translation)[static_cast<std::size_t>(j)] : nan_f;
  }
  st["bone_hashes"] = hashes;
  st["bone_flags"] = flags;
  st["bone_names"] = names;
  st["kinds"] = kinds;
  st["_renamed_from"] = renamed;
  st["_constants"] = consts;
  st["rotations"] = owned_array<float>(std::move(rotations), {K, B, 4}, {16, K * 16, 4});
  st["translations"] = translation_array(clip);
  st["constant_translations"] = const_tr;
  st["root_rotations"] = per_key_array<4>(clip.root_motion.rotations);
  st["root_translations"] = per_key_array<3>(clip.root_motion.translations);
  st["parts"] = part_list(clip.parts);
  return st;
}

namespace {

// Bone b's rotation rows decide its kind (see clip_from_state) and its constant or keys.
void read_rotation(mab::ClipBone& bone, std::size_t b, const py::detail::unchecked_reference<float, 3>& rot,
                   const mab::Quat& stored_constant) {
  const std::size_t nk = static_cast<std::size_t>(rot.shape(0));
  std::vector<mab::Quat> rows(nk);
  bool same = true, identity = true;
  for (std::size_t k = 0; k < nk; ++k) {
    const auto kk = static_cast<py::ssize_t>(k), bb = static_cast<py::ssize_t>(b);
    rows[k] = {rot(kk, bb, 0), rot(kk, bb, 1), rot(kk, bb, 2), rot(kk, bb, 3)};
    if (!finite(rows[k])) raise(mab::ErrorCode::bad_value, at("rotations", k, b), "not a finite quaternion");
    if (rows[k].x == 0 && rows[k].y == 0 && rows[k].z == 0 && rows[k].w == 0)
      raise(mab::ErrorCode::bad_value, at("rotations", k, b), "a zero quaternion is no rotation");
    same = same && same_value(rows[k], rows[0]);
    identity = identity && same_value(rows[k], mab::Quat{});
  }
  mab::BoneKind kind = bone.kind();
  if (kind == mab::BoneKind::none && !identity) kind = same ? mab::BoneKind::constant : mab::BoneKind::animated;
  if (kind == mab::BoneKind::constant && !same) kind = mab::BoneKind::animated;
  bone.set_kind(kind);
  if (kind == mab::BoneKind::constant) bone.constant = nk > 0 ? rows[0] : stored_constant;
  if (kind == mab::BoneKind::animated) bone.keys = std::move(rows);
}

// A (rows, 3) block of `a` at bone b: all NaN (none), all finite (values), or an error.
template <class Get>
std::optional<std::vector<mab::Vec3>> read_vec3_rows(std::size_t rows, Get get, const std::string& field) {
  std::vector<mab::Vec3> v(rows);
  std::size_t finite_values = 0, nan_values = 0;
  for (std::size_t k = 0; k < rows; ++k)
    for (unsigned j = 0; j < 3; ++j) {
      v[k][j] = get(k, j);
      finite_values += std::isfinite(v[k][j]);
      nan_values += std::isnan(v[k][j]);
    }
  if (finite_values == 0 && nan_values == 3 * rows) return std::nullopt;
  if (finite_values != 3 * rows)
    raise(mab::ErrorCode::bad_value, field,
          "mixes numbers with NaN or infinity: a translation is given for every key or for none (NaN)");
  return v;
}

template <std::size_t N>
auto read_per_key(py::handle obj, const char* field, std::size_t nk) {
  using T = std::conditional_t<N == 4, mab::Quat, mab::Vec3>;
  std::vector<T> out;
  if (obj.is_none()) return out;
  auto a = checked_array<float>(obj, field, {static_cast<py::ssize_t>(nk), static_cast<py::ssize_t>(N)});
  auto r = a.template unchecked<2>();
  out.resize(nk);
  for (std::size_t k = 0; k < nk; ++k)
    for (unsigned j = 0; j < N; ++j) {
      const float x = r(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(j));
      if (!std::isfinite(x)) raise(mab::ErrorCode::bad_value, at(field, k, j), "not a finite number");
      out[k][j] = x;
    }
  return out;
}

std::vector<mab::ClipPart> read_parts(py::handle obj) {
  std::vector<mab::ClipPart> out;
  for (py::handle h : obj) {
    const py::dict d = py::reinterpret_borrow<py::dict>(h);
    mab::ClipPart p;
    p.start = d["start"].cast<float>();
    p.end = d["end"].cast<float>();
    p.parent_hash = d["parent_hash"].cast<std::uint32_t>();
    p.attachment_hash = d["attachment_hash"].cast<std::uint32_t>();
    p.type = d["type"].cast<std::uint8_t>();
    p.nested_block = d["nested_block"].cast<int>();
    out.push_back(p);
  }
  return out;
}

template <class T>
T in_range(std::int64_t v, std::int64_t hi, const std::string& field) {
  if (v < 0 || v > hi)
    raise(mab::ErrorCode::bad_value, field, std::to_string(v) + " is outside 0.." + std::to_string(hi));
  return static_cast<T>(v);
}

}  // namespace

py::dict evidence_dict(const mab::BlockEvidence& e) {
  py::dict d;
  d["translations"] = mab::spell_options(e.translations.text());
  d["constant_translations"] = mab::spell_options(e.constant_translations.text());
  d["root_rotations"] = mab::spell_options(e.root_rotations.text());
  d["root_translations"] = mab::spell_options(e.root_translations.text());
  d["parts"] = mab::spell_options(e.parts.text());
  return d;
}

mab::Clip clip_from_state(const py::dict& st) {
  mab::Clip clip;
  clip.key_rate = st["key_rate"].cast<double>();
  clip.duration = st["duration"].cast<float>();
  const auto times = checked_array<std::int64_t>(st["key_times"], "key_times", {-1});
  const auto nk = static_cast<std::size_t>(times.shape(0));
  for (std::size_t k = 0; k < nk; ++k)
    clip.key_times.push_back(in_range<std::uint32_t>(times.at(static_cast<py::ssize_t>(k)), 0xFFFFFFFF,
                                                     "key_times[" + std::to_string(k) + "]"));
  const auto hashes = checked_array<std::int64_t>(st["bone_hashes"], "bone_hashes", {-1});
  const py::ssize_t B = hashes.shape(0), K = static_cast<py::ssize_t>(nk);
  const auto flags = checked_array<std::int64_t>(st["bone_flags"], "bone_flags", {B});
  const auto names = st["bone_names"].cast<std::vector<std::optional<std::string>>>();
  const auto kinds = st["kinds"].cast<std::vector<std::string>>();
  // The hash each bone had in the file, for a bone renamed (its keys keep their codes, decision 24).
  auto renamed = st.contains("_renamed_from") ? st["_renamed_from"].cast<std::vector<std::optional<std::int64_t>>>()
                                              : std::vector<std::optional<std::int64_t>>{};
  renamed.resize(static_cast<std::size_t>(B));
  if (names.size() != static_cast<std::size_t>(B) || kinds.size() != static_cast<std::size_t>(B))
    raise(mab::ErrorCode::invalid_argument, names.size() != static_cast<std::size_t>(B) ? "bone_names" : "kinds",
          "one entry per bone is needed (" + std::to_string(B) + " bones)");
  const auto consts = checked_array<float>(st["_constants"], "_constants", {B, 4});
  const auto rot = checked_array<float>(st["rotations"], "rotations", {K, B, 4});
  const auto tr = checked_array<float>(st["translations"], "translations", {K, B, 3});
  const auto ctr = checked_array<float>(st["constant_translations"], "constant_translations", {B, 3});
  const auto rv = rot.unchecked<3>();
  const auto tv = tr.unchecked<3>();
  const auto cv = ctr.unchecked<2>();
  clip.bones.resize(static_cast<std::size_t>(B));
  for (py::ssize_t b = 0; b < B; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    mab::ClipBone& bone = clip.bones[ub];
    bone.hash = in_range<std::uint32_t>(hashes.at(b), 0xFFFFFFFF, "bone_hashes[" + std::to_string(b) + "]");
    bone.flags = in_range<std::uint8_t>(flags.at(b), 0xFF, "bone_flags[" + std::to_string(b) + "]");
    bone.name = names[ub].value_or("");
    if (renamed[ub])
      bone.renamed_from = in_range<std::uint32_t>(*renamed[ub], 0xFFFFFFFF, "_renamed_from[" + std::to_string(b) + "]");
    bone.set_kind(kind_from(kinds[ub], ub));
    read_rotation(bone, ub, rv, {consts.at(b, 0), consts.at(b, 1), consts.at(b, 2), consts.at(b, 3)});
    const std::string tfield = "translations[:, " + std::to_string(b) + "]";
    if (auto t = read_vec3_rows(
            nk, [&](std::size_t k, unsigned j) { return tv(static_cast<py::ssize_t>(k), b, j); }, tfield))
      bone.translations = std::move(*t);
    if (auto c = read_vec3_rows(
            1, [&](std::size_t, unsigned j) { return cv(b, j); }, "constant_translations[" + std::to_string(b) + "]"))
      bone.constant_translation = (*c)[0];
  }
  clip.root_motion.rotations = read_per_key<4>(st["root_rotations"], "root_rotations", nk);
  clip.root_motion.translations = read_per_key<3>(st["root_translations"], "root_translations", nk);
  clip.parts = read_parts(st["parts"]);
  take(clip.check());
  return clip;
}

}  // namespace mabpy

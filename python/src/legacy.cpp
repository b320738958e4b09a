// Far Cry 2/3 'AnD' clips (format 13, docs/legacy.md): tracks by skeleton bone id with sparse
// keys, the trajectory, tags and events as the Python LegacyClip holds them, and back through
// encode_legacy_clip (the bank's other clips keep their bytes).
#include "arrays.hpp"
#include "handle.hpp"

#include <mab/legacy.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace mabpy {

namespace {

template <std::size_t N, class T>
py::array_t<float> row_array(const T& x) {
  py::array_t<float> a(static_cast<py::ssize_t>(N));
  for (unsigned j = 0; j < N; ++j) a.mutable_at(j) = x[j];
  return a;
}

template <class T, std::size_t N>
std::vector<T> rows_from(py::handle obj, const std::string& field, std::size_t rows) {
  auto a = checked_array<float>(obj, field, {static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(N)});
  const auto r = a.template unchecked<2>();
  std::vector<T> out(static_cast<std::size_t>(a.shape(0)));
  for (std::size_t k = 0; k < out.size(); ++k)
    for (unsigned j = 0; j < N; ++j) {
      const float x = r(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(j));
      if (!std::isfinite(x))
        raise(mab::ErrorCode::bad_value, field + "[" + std::to_string(k) + ", " + std::to_string(j) + "]",
              "not a finite number");
      out[k][j] = x;
    }
  return out;
}

std::uint32_t bone_id(py::handle key, const char* what) {
  const auto v = key.cast<long long>();
  if (v < 0 || v > 0xFFFF) raise(mab::ErrorCode::bad_value, what, std::to_string(v) + " is not a bone id");
  return static_cast<std::uint32_t>(v);
}

std::string field_of(const char* what, std::uint32_t bone) { return std::string(what) + "[" + std::to_string(bone) + "]"; }

py::list tag_list(const std::vector<mab::LegacyTagRecord>& tags) {
  py::list out;
  for (const auto& r : tags) {
    py::dict d;
    d["kind"] = r.kind;
    d["byte_1"] = r.byte_1;
    d["id"] = r.id;
    d["bytes_4"] = py::bytes(reinterpret_cast<const char*>(r.bytes_4.data()), r.bytes_4.size());
    d["clip_offset"] = r.clip_offset;
    d["start"] = r.start;
    d["end"] = r.end;
    py::list hashes, bytes;
    for (const auto& n : r.names) {
      hashes.append(n.hash);
      bytes.append(py::bytes(reinterpret_cast<const char*>(n.bytes.data()), n.bytes.size()));
    }
    d["name_hashes"] = hashes;
    d["name_bytes"] = bytes;
    d["pointer_slot"] = r.pointer_slot;
    d["clip_block"] = r.clip_block;
    out.append(d);
  }
  return out;
}

py::list event_list(const std::vector<mab::LegacyEvent>& events) {
  py::list out;
  for (const auto& e : events) {
    py::dict d;
    d["offset"] = e.offset;
    d["time"] = e.time;
    d["type"] = e.type;
    d["size"] = e.size;
    d["next"] = e.next;
    d["payload"] = py::bytes(reinterpret_cast<const char*>(e.payload.data()), e.payload.size());
    out.append(d);
  }
  return out;
}

py::dict legacy_state(const mab::LegacyClip& c) {
  py::dict st;
  st["block"] = c.block;
  st["duration"] = c.duration;
  st["last_frame"] = c.last_frame;
  st["frame_rate"] = c.frame_rate;
  st["trajectory_translations"] = c.present[0] ? py::object(rows_array<3>(c.trajectory_translation)) : py::none();
  st["trajectory_rotations"] = c.present[1] ? py::object(rows_array<4>(c.trajectory_rotation)) : py::none();
  py::dict cr, rt, ct, tt;
  for (const auto& x : c.constant_rotations) cr[py::int_(x.bone)] = row_array<4>(x.rotation);
  for (const auto& t : c.rotations) {
    std::vector<std::uint32_t> frames(t.frames.begin(), t.frames.end());
    rt[py::int_(t.bone)] = py::make_tuple(vector_array(frames), rows_array<4>(t.keys));
  }
  for (const auto& x : c.constant_translations) ct[py::int_(x.bone)] = row_array<3>(x.translation);
  for (const auto& t : c.translations) tt[py::int_(t.bone)] = rows_array<3>(t.frames);
  st["constant_rotations"] = cr;
  st["rotation_tracks"] = rt;
  st["constant_translations"] = ct;
  st["translation_tracks"] = tt;
  st["present"] = std::vector<bool>(c.present.begin(), c.present.end());
  st["tags"] = c.tag_table ? py::object(tag_list(*c.tag_table)) : py::none();
  st["tag_table_note"] = c.tag_table_note;
  st["events"] = c.events ? py::object(event_list(*c.events)) : py::none();
  st["events_note"] = c.events_note;
  return st;
}

template <std::size_t N>
std::array<std::uint8_t, N> fixed_bytes(py::handle obj, const std::string& field) {
  const std::string s = obj.cast<py::bytes>();
  if (s.size() != N) raise(mab::ErrorCode::invalid_argument, field, "needs exactly " + std::to_string(N) + " bytes");
  std::array<std::uint8_t, N> out{};
  std::copy(s.begin(), s.end(), out.begin());
  return out;
}

std::vector<mab::LegacyTagRecord> tags_from(py::handle obj) {
  std::vector<mab::LegacyTagRecord> out;
  std::size_t i = 0;
  for (py::handle h : obj) {
    const auto d = py::reinterpret_borrow<py::dict>(h);
    const std::string f = "tags[" + std::to_string(i++) + "]";
    mab::LegacyTagRecord r;
    r.kind = d["kind"].cast<std::uint8_t>();
    r.byte_1 = d["byte_1"].cast<std::uint8_t>();
    r.id = d["id"].cast<std::int16_t>();
    r.bytes_4 = fixed_bytes<8>(d["bytes_4"], f + ".bytes_4");
    r.clip_offset = d["clip_offset"].cast<std::int32_t>();
    r.start = d["start"].cast<float>();
    r.end = d["end"].cast<float>();
    const auto hashes = d["name_hashes"].cast<std::vector<std::uint32_t>>();
    const auto bytes = d["name_bytes"].cast<py::list>();
    if (hashes.size() != 4 || bytes.size() != 4) raise(mab::ErrorCode::invalid_argument, f + ".names", "needs 4 names");
    for (std::size_t k = 0; k < 4; ++k) {
      r.names[k].hash = hashes[k];
      r.names[k].bytes = fixed_bytes<32>(bytes[k], f + ".names[" + std::to_string(k) + "]");
    }
    r.pointer_slot = d["pointer_slot"].cast<std::uint32_t>();
    out.push_back(r);
  }
  return out;
}

std::vector<mab::LegacyEvent> events_from(py::handle obj) {
  std::vector<mab::LegacyEvent> out;
  for (py::handle h : obj) {
    const auto d = py::reinterpret_borrow<py::dict>(h);
    mab::LegacyEvent e;
    e.offset = d["offset"].cast<std::uint32_t>();
    e.time = d["time"].cast<float>();
    e.type = d["type"].cast<std::uint32_t>();
    e.size = d["size"].cast<std::uint16_t>();
    e.next = d["next"].cast<std::uint16_t>();
    const std::string p = d["payload"].cast<py::bytes>();
    e.payload.assign(p.begin(), p.end());
    out.push_back(std::move(e));
  }
  return out;
}

// Sorted by bone id, as the masks order them (encode_legacy_clip requires it).
template <class F>
void for_each_bone(const py::dict& d, const char* what, F&& f) {
  std::map<std::uint32_t, py::handle> sorted;
  for (auto [k, v] : d) sorted[bone_id(k, what)] = v;
  for (auto& [bone, v] : sorted) f(bone, v);
}

// The edited clip: `base` (the template's decode: headers, presence, codes) with the state's
// values. Sizes are checked here or by encode_legacy_clip, never truncated.
mab::LegacyClip legacy_from_state(const mab::LegacyClip& base, const py::dict& st) {
  mab::LegacyClip c = base;
  c.duration = st["duration"].cast<float>();
  c.last_frame = st["last_frame"].cast<std::uint16_t>();
  const std::size_t frames = std::size_t{c.last_frame} + 1;
  const py::object tt = st["trajectory_translations"], tr = st["trajectory_rotations"];
  c.trajectory_translation = tt.is_none() ? std::vector<mab::Vec3>{} : rows_from<mab::Vec3, 3>(tt, "trajectory_translations", frames);
  c.trajectory_rotation = tr.is_none() ? std::vector<mab::Quat>{} : rows_from<mab::Quat, 4>(tr, "trajectory_rotations", frames);
  c.constant_rotations.clear();
  for_each_bone(st["constant_rotations"].cast<py::dict>(), "constant_rotations", [&](std::uint32_t bone, py::handle v) {
    const auto q = rows_from<mab::Quat, 4>(checked_array<float>(v, field_of("constant_rotations", bone), {4}).reshape({1, 4}),
                                           field_of("constant_rotations", bone), 1);
    c.constant_rotations.push_back({bone, mab::encode_quat48(q[0]), q[0]});
  });
  c.rotations.clear();
  for_each_bone(st["rotation_tracks"].cast<py::dict>(), "rotation_tracks", [&](std::uint32_t bone, py::handle v) {
    const auto pair = v.cast<py::tuple>();
    const std::string f = field_of("rotation_tracks", bone);
    if (pair.size() != 2) raise(mab::ErrorCode::invalid_argument, f, "a track is (frames, keys)");
    const auto fr = checked_array<std::int64_t>(pair[0], f + ".frames", {-1});
    mab::LegacyRotationTrack t;
    t.bone = bone;
    for (py::ssize_t i = 0; i < fr.shape(0); ++i) {
      const auto x = fr.at(i);
      if (x < 0 || x > c.last_frame)
        raise(mab::ErrorCode::bad_value, f + ".frames[" + std::to_string(i) + "]",
              "frame " + std::to_string(x) + " is outside 0..lastFrame " + std::to_string(c.last_frame));
      t.frames.push_back(static_cast<std::uint16_t>(x));
    }
    t.keys = rows_from<mab::Quat, 4>(pair[1], f + ".keys", t.frames.size());
    for (const auto& q : t.keys) t.codes.push_back(mab::encode_quat48(q));
    c.rotations.push_back(std::move(t));
  });
  c.constant_translations.clear();
  for_each_bone(st["constant_translations"].cast<py::dict>(), "constant_translations", [&](std::uint32_t bone, py::handle v) {
    const std::string f = field_of("constant_translations", bone);
    c.constant_translations.push_back({bone, rows_from<mab::Vec3, 3>(checked_array<float>(v, f, {3}).reshape({1, 3}), f, 1)[0]});
  });
  c.translations.clear();
  for_each_bone(st["translation_tracks"].cast<py::dict>(), "translation_tracks", [&](std::uint32_t bone, py::handle v) {
    c.translations.push_back({bone, rows_from<mab::Vec3, 3>(v, field_of("translation_tracks", bone), frames)});
  });
  const py::object tags = st["tags"], events = st["events"];
  c.tag_table = tags.is_none() ? std::nullopt : std::optional(tags_from(tags));
  c.events = events.is_none() ? std::nullopt : std::optional(events_from(events));
  return c;
}

// The encoder bound of the module for legacy tracks, in one place (see encode_policy in ani.cpp).
// The library's one error policy for Far Cry 2/3 (mab::legacy_edit_policy).
mab::LegacyEncodeOptions legacy_policy(double max_error_deg) {
  return mab::legacy_edit_policy(checked_max_error(max_error_deg));
}

const mab::LegacyRotationTrack* find_track(const mab::LegacyClip& c, std::uint32_t bone) {
  for (const auto& t : c.rotations)
    if (t.bone == bone) return &t;
  return nullptr;
}

// Every rotation track of `want` against the written clip at every frame; constants and the
// trajectory within a 6-byte quaternion's step; translations exact (stored as f32).
double verify_legacy(const std::vector<std::uint8_t>& bytes, std::size_t block, const mab::LegacyClip& want,
                     double track_bound) {
  auto c = mab::read_container(bytes);
  if (!c) not_landed("file", "the written file does not read back: " + c.error().message());
  auto got = mab::decode_legacy_clip(*c, block);
  if (!got) not_landed("file", "the written clip does not decode: " + got.error().message());
  if (got->last_frame != want.last_frame) not_landed("last_frame", "the clip's length reads back otherwise");
  double worst = 0;
  auto check = [&](double e, double bound, const std::string& field) {
    if (e > bound) not_landed(field, "reads back " + std::to_string(e) + " degrees from the edit");
    worst = std::max(worst, e);
  };
  if (got->rotations.size() != want.rotations.size()) not_landed("rotation_tracks", "the tracks read back otherwise");
  for (const auto& t : want.rotations) {
    const auto* g = find_track(*got, t.bone);
    if (g == nullptr) not_landed(field_of("rotation_tracks", t.bone), "the track is missing");
    for (std::uint32_t f = 0; f <= want.last_frame; ++f)
      check(mab::angular_error_deg(mab::legacy_rotation_at(t, f), mab::legacy_rotation_at(*g, f)), track_bound,
            field_of("rotation_tracks", t.bone) + " frame " + std::to_string(f));
  }
  if (got->constant_rotations.size() != want.constant_rotations.size())
    not_landed("constant_rotations", "the constant rotations read back otherwise");
  for (std::size_t i = 0; i < want.constant_rotations.size(); ++i)
    check(mab::angular_error_deg(want.constant_rotations[i].rotation, got->constant_rotations[i].rotation), quat48_bound_deg,
          field_of("constant_rotations", want.constant_rotations[i].bone));
  if (got->trajectory_rotation.size() != want.trajectory_rotation.size())
    not_landed("trajectory_rotations", "the trajectory reads back otherwise");
  for (std::size_t f = 0; f < want.trajectory_rotation.size(); ++f)
    check(mab::angular_error_deg(want.trajectory_rotation[f], got->trajectory_rotation[f]), quat48_bound_deg,
          "trajectory_rotations[" + std::to_string(f) + "]");
  auto same_vecs = [](const auto& a, const auto& b) { return a == b; };
  if (!same_vecs(got->trajectory_translation, want.trajectory_translation))
    not_landed("trajectory_translations", "the trajectory reads back otherwise");
  if (got->translations.size() != want.translations.size()) not_landed("translation_tracks", "the tracks read back otherwise");
  for (std::size_t i = 0; i < want.translations.size(); ++i)
    if (got->translations[i].bone != want.translations[i].bone || got->translations[i].frames != want.translations[i].frames)
      not_landed(field_of("translation_tracks", want.translations[i].bone), "the track reads back otherwise");
  if (got->constant_translations.size() != want.constant_translations.size())
    not_landed("constant_translations", "the constant translations read back otherwise");
  for (std::size_t i = 0; i < want.constant_translations.size(); ++i)
    if (got->constant_translations[i].translation != want.constant_translations[i].translation)
      not_landed(field_of("constant_translations", want.constant_translations[i].bone), "reads back otherwise");
  return worst;
}

// (bone, frame) pairs of stored keys in `a` and not in `b`.
py::list frames_not_in(const mab::LegacyClip& a, const mab::LegacyClip& b) {
  py::list out;
  for (const auto& t : a.rotations) {
    const auto* o = find_track(b, t.bone);
    for (const auto f : t.frames)
      if (o == nullptr || !std::binary_search(o->frames.begin(), o->frames.end(), f)) out.append(py::make_tuple(t.bone, f));
  }
  return out;
}

py::dict legacy_report(const mab::LegacyEncodeReport& rep) {
  py::dict r;
  r["kind"] = "legacy";
  r["sections_kept"] = rep.sections_kept;
  r["sections_rewritten"] = rep.sections_rewritten;
  r["tag_records_edited"] = rep.tag_records_edited;
  r["events_edited"] = rep.events_edited;
  r["keys_before"] = rep.keys_before;
  r["keys_after"] = rep.keys_after;
  r["max_error_deg"] = rep.max_error_deg;
  r["size_change"] = rep.size_change;
  r["moved_clips"] = rep.moved_clips;
  r["tag_tables_undecoded"] = rep.tag_tables_undecoded;
  auto offsets = [](const std::vector<mab::LegacyEncodeReport::TagOffset>& v) {
    py::list out;
    for (const auto& t : v) {
      py::dict d;
      d["block"] = t.block;
      d["record"] = t.record;
      d["before"] = t.before;
      d["after"] = t.after;
      d["clip_block"] = t.clip_block;
      out.append(d);
    }
    return out;
  };
  r["tag_offsets_updated"] = offsets(rep.tag_offsets_updated);
  r["tag_offsets_kept"] = offsets(rep.tag_offsets_kept);
  return r;
}

const mab::Block& legacy_block(const FileHandle& f, std::size_t block) {
  const mab::Block& b = f.block(block);
  if (b.legacy() == nullptr)
    raise(mab::ErrorCode::invalid_argument, "block", "block " + std::to_string(block) + " is not a Far Cry 2/3 clip");
  return b;
}

py::dict decode_legacy(const FileHandle& f, std::size_t block) {
  legacy_block(f, block);
  return legacy_state(take(mab::decode_legacy_clip(f.c(), block)));
}

py::tuple encode_legacy(const FileHandle& tmpl, std::size_t block, const py::dict& st, double max_error, bool verify) {
  legacy_block(tmpl, block);
  const mab::LegacyClip before = take(mab::decode_legacy_clip(tmpl.c(), block));
  const mab::LegacyClip edited = legacy_from_state(before, st);
  mab::LegacyEncodeReport rep;
  const mab::Container out = take(mab::encode_legacy_clip(tmpl.c(), block, edited, legacy_policy(max_error), &rep));
  const auto bytes = take(mab::write_container(out));
  py::dict r = legacy_report(rep);
  r["verified"] = verify;
  if (verify) r["measured_max_error_deg"] = verify_legacy(bytes, block, edited, rep.max_error_deg * 1.0001 + 1e-4);
  const mab::LegacyClip written = take(mab::decode_legacy_clip(take(mab::read_container(bytes)), block));
  r["frames_added"] = frames_not_in(written, before);
  r["frames_removed"] = frames_not_in(before, written);
  r["frames_interpolated"] = frames_not_in(edited, written);
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), r);
}

py::tuple trim_legacy(const FileHandle& tmpl, std::size_t block, const py::dict& st, std::uint32_t first,
                      std::uint32_t last) {
  legacy_block(tmpl, block);
  const mab::LegacyClip base = take(mab::decode_legacy_clip(tmpl.c(), block));
  mab::LegacyTrimReport rep;
  const mab::LegacyClip trimmed = take(mab::trim_legacy_clip(legacy_from_state(base, st), first, last, &rep));
  py::dict r;
  r["duration_rule"] = rep.duration_rule;
  r["events_shifted"] = rep.events_shifted;
  r["events_outside"] = rep.events_outside;
  r["tag_records_kept"] = rep.tag_records_kept;
  return py::make_tuple(legacy_state(trimmed), r);
}

// Rotations of a sparse track at `at` frames: its keys, slerp between them (docs/legacy.md).
py::array_t<float> legacy_sample(py::handle frames, py::handle keys, py::handle at) {
  mab::LegacyRotationTrack t;
  const auto fr = checked_array<std::int64_t>(frames, "frames", {-1});
  for (py::ssize_t i = 0; i < fr.shape(0); ++i) {
    if (fr.at(i) < 0 || fr.at(i) > 0xFFFF) raise(mab::ErrorCode::bad_value, "frames", "a frame is 0..65535");
    if (i > 0 && fr.at(i) <= fr.at(i - 1)) raise(mab::ErrorCode::bad_value, "frames", "frames must ascend");
    t.frames.push_back(static_cast<std::uint16_t>(fr.at(i)));
  }
  t.keys = rows_from<mab::Quat, 4>(keys, "keys", t.frames.size());
  const auto when = checked_array<std::int64_t>(at, "at", {-1});
  std::vector<mab::Quat> out;
  for (py::ssize_t i = 0; i < when.shape(0); ++i)
    out.push_back(t.keys.empty() ? mab::Quat{}
                                 : mab::legacy_rotation_at(t, static_cast<std::uint32_t>(std::clamp<std::int64_t>(when.at(i), 0, 0xFFFF))));
  return rows_array<4>(out);
}

}  // namespace

void bind_legacy(py::module_& m) {
  m.def("decode_legacy", &decode_legacy);
  m.def("encode_legacy", &encode_legacy);
  m.def("trim_legacy", &trim_legacy);
  m.def("legacy_sample", &legacy_sample);
  // The read-back check alone, for its tests: `data` against the clip a state describes.
  m.def("verify_legacy", [](const FileHandle& tmpl, std::size_t block, const py::bytes& data, const py::dict& state,
                            double bound) {
    const std::string s = data;
    legacy_block(tmpl, block);
    const mab::LegacyClip want = legacy_from_state(take(mab::decode_legacy_clip(tmpl.c(), block)), state);
    return verify_legacy({s.begin(), s.end()}, block, want, bound);
  });
}

}  // namespace mabpy

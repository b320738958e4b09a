// Far Cry 2/3 'AnD' clips (format 13, docs/legacy.md) as the one Python Clip: clip_from_legacy's
// Clip (legacy_bridge.hpp) in the arrays ani_state.cpp lays out, the tag records and event nodes
// beside it, and back through legacy_from_clip and encode_legacy_clip, as `mab edit` writes a
// Far Cry 2/3 clip (the bank's other clips keep their bytes).
#include "ani_state.hpp"
#include "arrays.hpp"
#include "handle.hpp"

#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace mabpy {

namespace {

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

const mab::Block& legacy_block(const FileHandle& f, std::size_t block) {
  const mab::Block& b = f.block(block);
  if (b.legacy() == nullptr)
    raise(mab::ErrorCode::invalid_argument, "block", "block " + std::to_string(block) + " is not a Far Cry 2/3 clip");
  return b;
}

py::dict decode_legacy(const FileHandle& f, std::size_t block) {
  legacy_block(f, block);
  const mab::LegacyClip c = take(mab::decode_legacy_clip(f.c(), block));
  mab::Clip clip = mab::clip_from_legacy(c);
  // Skeleton ids, named as `mab edit` and `mab diff` name them.
  for (auto& b : clip.bones) b.name = mab::skeleton_bone_name(b.hash);
  py::dict st = clip_state(clip, rotation_buffer(clip));
  st["family"] = "legacy";
  st["evidence"] = py::dict();
  st["tags"] = c.tag_table ? py::object(tag_list(*c.tag_table)) : py::none();
  st["tag_table_note"] = c.tag_table_note;
  st["events"] = c.events ? py::object(event_list(*c.events)) : py::none();
  st["events_note"] = c.events_note;
  return st;
}

// Bones of a Far Cry 2/3 clip: an index, or a skeleton id as "bone_12" or "12" (no names).
std::size_t legacy_bone_arg(const mab::Clip& c, py::handle a) {
  if (py::isinstance<py::int_>(a)) return bone_arg(c, a);
  return take(mab::find_legacy_bone(c, a.cast<std::string>()));
}

// One operation on a Far Cry 2/3 clip: (new state, result, time map or None). What the format
// cannot carry is refused naming the argument; the timing operations give how they moved time,
// which the Python Clip applies to its event nodes (mab edit's LegacyTimeMap).
py::tuple edit_legacy(const py::dict& state, const std::string& op, const py::tuple& args) {
  mab::Clip c = clip_from_state(state);
  // The operations' Python names, as the library names them (set_bits sets "bits").
  if (const auto why = mab::legacy_edit_refusal(op == "set_bits" ? "bits" : op))
    raise(mab::ErrorCode::invalid_argument, op == "set_bits" ? "nbits" : "fps", mab::spell_options(*why));
  auto number = [&](std::size_t i) { return i < args.size() ? args[i].cast<double>() : 0.0; };
  std::optional<mab::LegacyTimeMap> moved;
  if (op == "speed") moved = mab::legacy_speed_map(number(0));
  if (op == "trim") moved = mab::legacy_trim_map(c, number(0));
  if (op == "reverse") moved = mab::legacy_reverse_map(c);
  py::object result = py::none();
  if (op == "add_bone") {
    const std::uint32_t id = take(mab::parse_legacy_bone(args.size() > 0 ? args[0].cast<std::string>() : ""));
    if (args.size() < 2) raise(mab::ErrorCode::invalid_argument, "quat", "add_bone needs a bone and a rotation");
    take(mab::add_skeleton_bone(c, id, quat_arg(args[1])));
    result = py::cast(std::vector<std::string>{});
  } else if ((op == "rotate_bone" || op == "set_constant" || op == "remove_bone") && args.size() > 0 &&
             py::isinstance<py::str>(args[0])) {
    // By skeleton id: the whole bone, its keyed track and its constant both (legacy_bridge.hpp);
    // an index names one of the two.
    const std::uint32_t id = take(mab::parse_legacy_bone(args[0].cast<std::string>()));
    if (op != "remove_bone" && args.size() < 2)
      raise(mab::ErrorCode::invalid_argument, "quat", op + " needs a rotation");
    take(op == "rotate_bone"    ? mab::rotate_skeleton_bone(c, id, quat_arg(args[1]))
         : op == "set_constant" ? mab::set_skeleton_constant(c, id, quat_arg(args[1]))
                                : mab::remove_skeleton_bone(c, id));
    result = py::cast(std::vector<std::string>{});
  } else if (op == "copy_track" && args.size() > 1) {
    // By skeleton id, the whole bone (legacy_bridge.hpp), as mab edit --copy-track.
    const mab::Clip from = clip_from_state(args[0].cast<py::dict>());
    const std::uint32_t id = from.bones[legacy_bone_arg(from, args[1])].hash;
    mab::edit::Notes notes;
    take(mab::copy_skeleton_track(c, from, id, &notes));
    for (auto& n : notes) n = mab::spell_options(n);
    result = py::cast(notes);
  } else {
    result = apply_edit(c, op, args, legacy_bone_arg);
  }
  py::object time = moved ? py::object(py::make_tuple(moved->scale, moved->offset)) : py::none();
  return py::make_tuple(clip_state(c, rotation_buffer(c)), result, time);
}

// The edited clip as encode_legacy_clip takes it: the template's decode with the Python Clip's
// tag records and event nodes (edited in place), mapped back by legacy_from_clip.
mab::LegacyClip legacy_of(const mab::LegacyClip& original, const mab::Clip& edited, py::handle tags, py::handle events,
                          mab::LegacyBridgeReport* rep) {
  mab::LegacyClip base = original;
  if (!tags.is_none()) base.tag_table = tags_from(tags);
  if (!events.is_none()) base.events = events_from(events);
  return take(mab::legacy_from_clip(base, edited, {}, rep));
}

// The written clip read back, against the one handed to the encoder, at every frame: keyed
// tracks within `bound` degrees, constants and the trajectory within a 6-byte quaternion's step,
// translations exact (stored as f32).
double verify_legacy(const std::vector<std::uint8_t>& bytes, std::size_t block, const mab::LegacyClip& want,
                     double bound) {
  auto c = mab::read_container(bytes);
  if (!c) not_landed("file", "the written file does not read back: " + c.error().message());
  auto got = mab::decode_legacy_clip(*c, block);
  if (!got) not_landed("file", "the written clip does not decode: " + got.error().message());
  const mab::Clip w = mab::clip_from_legacy(want);
  std::vector<double> bounds;
  for (const auto& b : w.bones) bounds.push_back(b.kind() == mab::BoneKind::animated ? bound : quat48_bound_deg);
  return compare_landed(w, mab::clip_from_legacy(*got), bounds, 0.0);
}

// (bone, frame) pairs of stored keys in `a` and not in `b`.
py::list frames_not_in(const mab::LegacyClip& a, const mab::LegacyClip& b) {
  py::list out;
  for (const auto& t : a.rotations) {
    const mab::LegacyRotationTrack* o = nullptr;
    for (const auto& x : b.rotations)
      if (x.bone == t.bone) o = &x;
    for (const auto f : t.frames)
      if (o == nullptr || !std::binary_search(o->frames.begin(), o->frames.end(), f))
        out.append(py::make_tuple(t.bone, f));
  }
  return out;
}

py::dict legacy_report(const mab::LegacyEncodeReport& rep, const mab::LegacyBridgeReport& br) {
  py::dict r;
  r["kind"] = "legacy";
  r["sections_kept"] = rep.sections_kept;
  r["sections_rewritten"] = rep.sections_rewritten;
  r["tag_records_edited"] = rep.tag_records_edited;
  r["events_edited"] = rep.events_edited;
  r["keys_before"] = rep.keys_before;  // stored keyed-rotation keys, as `mab edit` reports them
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
  r["tracks_kept"] = br.tracks_kept;
  r["tracks_edited"] = br.tracks_edited;
  r["events_outside"] = br.events_outside;
  r["duration_rule"] = br.duration_rule;
  return r;
}

// mab edit's Far Cry 2/3 route: legacy_from_clip, then encode_legacy_clip under the library's
// one error policy (mab::legacy_edit_policy); `reduce` is `mab edit --reduce DEG`.
py::tuple encode_legacy(const FileHandle& tmpl, std::size_t block, const py::dict& state, py::object tags,
                        py::object events, double max_error, std::optional<double> reduce, bool verify,
                        bool duration_given) {
  legacy_block(tmpl, block);
  const mab::LegacyClip before = take(mab::decode_legacy_clip(tmpl.c(), block));
  const mab::Clip edited = clip_from_state(state);
  mab::LegacyBridgeReport br;
  const mab::LegacyClip lc = legacy_of(before, edited, tags, events, &br);
  // The header duration follows lastFrame by the clip's own rule (legacy_from_clip), so one set
  // by hand lands only when it is that value: refused otherwise, as a JSON document's is
  // (docs/json-format.md, "Far Cry 2 and 3 in version 3").
  if (duration_given && std::bit_cast<std::uint32_t>(edited.duration) != std::bit_cast<std::uint32_t>(lc.duration))
    raise(mab::ErrorCode::invalid_argument, "duration",
          "a Far Cry 2/3 clip's duration follows its last frame (" + std::to_string(lc.last_frame) + " at " +
              std::to_string(lc.frame_rate) + " per second): it is " + std::to_string(lc.duration) + " s, not " +
              std::to_string(edited.duration) + "; trim() or speed() change the frames, and the duration with them");
  mab::LegacyEncodeOptions eo = mab::legacy_edit_policy(checked_max_error(max_error));
  if (reduce && (!(*reduce > 0) || !std::isfinite(*reduce)))
    raise(mab::ErrorCode::invalid_argument, "max_deg", "the tolerance must be a number of degrees > 0");
  eo.reduce_deg = reduce;
  mab::LegacyEncodeReport rep;
  const mab::Container out = take(mab::encode_legacy_clip(tmpl.c(), block, lc, eo, &rep));
  const auto bytes = take(mab::write_container(out));
  py::dict r = legacy_report(rep, br);
  r["verified"] = verify;
  if (verify) r["measured_max_error_deg"] = verify_legacy(bytes, block, lc, rep.max_error_deg * 1.0001 + 1e-4);
  const mab::LegacyClip written = take(mab::decode_legacy_clip(take(mab::read_container(bytes)), block));
  r["frames_added"] = frames_not_in(written, before);
  r["frames_removed"] = frames_not_in(before, written);
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), r);
}

}  // namespace

void bind_legacy(py::module_& m) {
  m.def("decode_legacy", &decode_legacy);
  m.def("edit_legacy", &edit_legacy);
  // A skeleton id read from "bone_12" or "12" (mab::parse_legacy_bone), refused naming `field`.
  m.def("parse_legacy_bone", [](std::string_view text, std::string field) {
    auto id = mab::parse_legacy_bone(text);
    if (!id) raise(id.error().code, std::move(field), id.error().detail);
    return *id;
  });
  m.def("encode_legacy", &encode_legacy);
  // The read-back check alone, for its tests: `data` against the clip a state describes.
  m.def("verify_legacy",
        [](const FileHandle& tmpl, std::size_t block, const py::bytes& data, const py::dict& state, double bound) {
          const std::string s = data;
          legacy_block(tmpl, block);
          const mab::LegacyClip original = take(mab::decode_legacy_clip(tmpl.c(), block));
          const mab::LegacyClip want = legacy_of(original, clip_from_state(state), py::none(), py::none(), nullptr);
          return verify_legacy({s.begin(), s.end()}, block, want, bound);
        });
}

}  // namespace mabpy

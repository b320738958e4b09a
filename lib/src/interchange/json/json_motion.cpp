// mabkit-clip documents and the data docs/motion.md decodes beyond rotations (docs/json-format.md).
// The "motion" member is read from the document's one simdjson parse with the document
// reader's helpers (json_read.hpp), so its errors name paths and types the same way.
#include "interchange/json/json_motion.hpp"

#include <mab/text.hpp>

#include "encode/encode_common.hpp"

#include <cmath>
#include <limits>

namespace mab::interchange {

using namespace json_in;

Result<Vec3> read_vec3(const Val& v, const Path& p, std::vector<ParsedMotion::Null>& nulls, ParsedMotion::Null where) {
  MAB_TRY(check_size(v, p, 3));
  Vec3 out{};
  MAB_TRY(each(v, [&](std::size_t c, const Val& x) -> Status {
    if (!x.is_null()) {
      MAB_ASSIGN(out[c], read_float(x, at(p, c)));
      return {};
    }
    where.component = static_cast<unsigned>(c);
    where.path = at(p, c).str();
    nulls.push_back(where);
    return {};
  }));
  return out;
}

Result<std::vector<Vec3>> read_vec3s(const Val& a, const Path& path, std::vector<ParsedMotion::Null>& nulls,
                                     unsigned list, std::size_t entry) {
  std::vector<Vec3> out(a.size());
  MAB_TRY(each(a, [&](std::size_t k, const Val& v) -> Status {
    MAB_ASSIGN(out[k], read_vec3(v, at(path, k), nulls, {list, entry, k, 0, {}}));
    return {};
  }));
  return out;
}

namespace {

using namespace json_out;  // Writer and the value helpers both document writers share

Status check_bone(const Clip& clip, std::size_t bone, std::uint32_t hash, const std::string& path) {
  if (bone >= clip.bones.size())
    return perr(path + "/bone", "bone " + std::to_string(bone) + " does not exist (the clip has " +
                                    std::to_string(clip.bones.size()) + ")");
  if (clip.bones[bone].hash != hash) {
    return perr(path + "/hash", "the hash is " + hex(hash, 8) + ", but clip bone " + std::to_string(bone) + " has " +
                                    hex(clip.bones[bone].hash, 8) +
                                    " (re-ordered bones need their motion entries updated)");
  }
  return {};
}

// An entry's "bone" (index) and "hash", the pair apply_motion checks against the clip.
Status read_bone_ref(const Val& t, const Path& p, const Limits& limits, std::size_t& bone, std::uint32_t& hash) {
  MAB_ASSIGN(const Val b, need(t, p, "bone"));
  MAB_ASSIGN(const std::uint64_t index, read_uint(b, at(p, "bone"), limits.max_bones));
  MAB_ASSIGN(const Val h, need(t, p, "hash"));
  MAB_ASSIGN(const std::uint64_t value, read_uint(h, at(p, "hash"), 0xFFFFFFFFu));
  bone = static_cast<std::size_t>(index);
  hash = static_cast<std::uint32_t>(value);
  return {};
}

// A "translations" or "constant_translations" list: each entry's members, its bone reference,
// then its value (read_value).
template <class Entry, class ReadValue>
Result<std::vector<Entry>> read_bone_entries(const Val& a, const Path& path, const Limits& limits,
                                             std::initializer_list<std::string_view> members, ReadValue&& read_value) {
  std::vector<Entry> out;
  MAB_TRY(each(a, [&](std::size_t i, const Val& t) -> Status {
    const Path p = at(path, i);
    MAB_TRY(check_object(t, p, members));
    Entry e;
    e.path = p.str();
    MAB_TRY(read_bone_ref(t, p, limits, e.bone, e.hash));
    MAB_TRY(read_value(t, p, e));
    out.push_back(std::move(e));
    return {};
  }));
  return out;
}

Result<std::vector<ParsedMotion::Track>> read_translations(const Val& a, const Path& path, const Limits& limits,
                                                           std::vector<ParsedMotion::Null>& nulls) {
  return read_bone_entries<ParsedMotion::Track>(
      a, path, limits, {"bone", "hash", "keys"}, [&](const Val& t, const Path& p, ParsedMotion::Track& tr) -> Status {
        MAB_ASSIGN(const Val keys, need_array(t, p, "keys", limits.max_keys));
        MAB_ASSIGN(tr.keys, read_vec3s(keys, at(p, "keys"), nulls, 0, p.index));
        return {};
      });
}

Result<std::vector<ParsedMotion::Constant>> read_constant_translations(const Val& a, const Path& path,
                                                                       const Limits& limits,
                                                                       std::vector<ParsedMotion::Null>& nulls) {
  return read_bone_entries<ParsedMotion::Constant>(
      a, path, limits, {"bone", "hash", "translation"},
      [&](const Val& t, const Path& p, ParsedMotion::Constant& ct) -> Status {
        MAB_ASSIGN(const Val v, need(t, p, "translation"));
        MAB_ASSIGN(ct.value, read_vec3(v, at(p, "translation"), nulls, {1, p.index, 0, 0, {}}));
        return {};
      });
}

Result<RootMotion> read_root_motion(const Val& j, const Path& p, const Limits& limits,
                                    std::vector<ParsedMotion::Null>& nulls) {
  MAB_TRY(check_object(j, p, {"rotations", "translations"}));
  RootMotion rm;
  if (maybe(j, "rotations")) {
    MAB_ASSIGN(const Val a, need_array(j, p, "rotations", limits.max_keys));
    const Path rp = at(p, "rotations");
    rm.rotations.resize(a.size());
    MAB_TRY(each(a, [&](std::size_t k, const Val& v) -> Status {
      MAB_ASSIGN(const auto q, read_floats<4>(v, at(rp, k)));
      rm.rotations[k] = Quat{q[0], q[1], q[2], q[3]};
      return {};
    }));
  }
  if (maybe(j, "translations")) {
    MAB_ASSIGN(const Val a, need_array(j, p, "translations", limits.max_keys));
    MAB_ASSIGN(rm.translations, read_vec3s(a, at(p, "translations"), nulls, 2, 0));
  }
  return rm;
}

Result<ClipPart> read_part(const Val& e, const Path& p, const Limits& limits) {
  MAB_TRY(check_object(e, p, {"start", "end", "parent", "attachment", "type", "nested_block"}));
  ClipPart part;
  MAB_ASSIGN(const Val start, need(e, p, "start"));
  MAB_ASSIGN(part.start, read_float(start, at(p, "start")));
  MAB_ASSIGN(const Val end, need(e, p, "end"));
  MAB_ASSIGN(part.end, read_float(end, at(p, "end")));
  MAB_ASSIGN(part.parent_hash, read_u_field<std::uint32_t>(e, p, "parent"));
  MAB_ASSIGN(part.attachment_hash, read_u_field<std::uint32_t>(e, p, "attachment"));
  MAB_ASSIGN(part.type, read_u_field<std::uint8_t>(e, p, "type"));
  MAB_ASSIGN(const Val nested, need(e, p, "nested_block"));
  if (!nested.is_null()) {
    MAB_ASSIGN(const std::uint64_t nb, read_uint(nested, at(p, "nested_block"), limits.max_blocks));
    part.nested_block = static_cast<int>(nb);
  }
  return part;
}

// Each null component takes the original's value at the same place (its bone matched as
// encode_clip matches it, the same key), bit for bit; a null where it has none is an error.
Status resolve_nulls(Clip& edited, const ParsedMotion& m, const Clip& original) {
  for (const auto& n : m.nulls) {
    const Vec3* from = nullptr;
    Vec3* to = nullptr;
    if (n.list == 2) {
      if (n.key < original.root_motion.translations.size()) from = &original.root_motion.translations[n.key];
      to = &edited.root_motion.translations[n.key];
    } else {
      const std::size_t bone = n.list == 0 ? (*m.translations)[n.entry].bone : (*m.constant_translations)[n.entry].bone;
      ClipBone& b = edited.bones[bone];
      const int o = encode::original_index(original, bone, b);
      const ClipBone* ob = o >= 0 ? &original.bones[static_cast<std::size_t>(o)] : nullptr;
      if (n.list == 0) {
        if (ob != nullptr && n.key < ob->translations.size()) from = &ob->translations[n.key];
        to = &b.translations[n.key];
      } else {
        if (ob != nullptr && ob->constant_translation) from = &*ob->constant_translation;
        to = &*b.constant_translation;
      }
    }
    if (from == nullptr) return perr(n.path, "null stands for the stored value, and the file has none here");
    (*to)[n.component] = (*from)[n.component];
  }
  return {};
}

}  // namespace

bool has_motion(const BlockEvidence& e) {
  return e.translations.accepted() || e.constant_translations.accepted() || e.root_rotations.accepted() ||
         e.root_translations.accepted() || e.parts.accepted();
}

void write_motion(Writer& w, const Clip& c, const BlockEvidence& e) {
  w.object([&] {
    w.key("evidence");
    w.object([&] {
      w.key("translations"), w.string(e.translations.text());
      w.key("constant_translations"), w.string(e.constant_translations.text());
      w.key("root_rotations"), w.string(e.root_rotations.text());
      w.key("root_translations"), w.string(e.root_translations.text());
      w.key("parts"), w.string(e.parts.text());
    });
    if (e.translations.accepted()) {
      w.key("translations");
      w.array([&] {
        for (std::size_t i = 0; i < c.bones.size(); ++i) {
          if (w.full()) return;
          if (c.bones[i].translations.empty()) continue;
          w.object([&] {
            w.key("bone"), w.uint(i);
            w.key("hash"), hex_u32(w, c.bones[i].hash);
            w.key("keys"), list(w, c.bones[i].translations, [&](const Vec3& v) { vec3(w, v); });
          });
        }
      });
    }
    if (e.constant_translations.accepted()) {
      w.key("constant_translations");
      w.array([&] {
        for (std::size_t i = 0; i < c.bones.size(); ++i) {
          if (w.full()) return;
          if (!c.bones[i].constant_translation) continue;
          w.object([&] {
            w.key("bone"), w.uint(i);
            w.key("hash"), hex_u32(w, c.bones[i].hash);
            w.key("translation"), vec3(w, *c.bones[i].constant_translation);
          });
        }
      });
    }
    if (e.root_rotations.accepted() || e.root_translations.accepted()) {
      w.key("root_motion");
      w.object([&] {
        if (e.root_rotations.accepted())
          w.key("rotations"), list(w, c.root_motion.rotations, [&](const Quat& q) { quat(w, q); });
        if (e.root_translations.accepted())
          w.key("translations"), list(w, c.root_motion.translations, [&](const Vec3& v) { vec3(w, v); });
      });
    }
    if (e.parts.accepted()) {
      w.key("parts"), list(w, c.parts, [&](const ClipPart& p) {
        w.object([&] {
          w.key("start"), w.float_value(p.start);
          w.key("end"), w.float_value(p.end);
          w.key("parent"), hex_u32(w, p.parent_hash);
          w.key("attachment"), hex_u32(w, p.attachment_hash);
          w.key("type"), w.uint(p.type);
          w.key("nested_block");
          if (p.nested_block >= 0) w.uint(static_cast<std::uint64_t>(p.nested_block));
          else w.null_value();
        });
      });
    }
  });
}

Result<ParsedMotion> parse_motion(const Val& j, const Path& top, const Limits& limits) {
  MAB_TRY(check_object(j, top, {"evidence", "translations", "constant_translations", "root_motion", "parts"}));
  ParsedMotion out;
  if (const auto evidence = maybe(j, "evidence"); evidence && !evidence->is_object())
    return perr(at(top, "evidence"),
                "expected an object (informational, ignored on import), found " + describe(*evidence));
  if (maybe(j, "translations")) {
    MAB_ASSIGN(const Val a, need_array(j, top, "translations", limits.max_bones));
    MAB_ASSIGN(out.translations, read_translations(a, at(top, "translations"), limits, out.nulls));
  }
  if (maybe(j, "constant_translations")) {
    MAB_ASSIGN(const Val a, need_array(j, top, "constant_translations", limits.max_bones));
    MAB_ASSIGN(out.constant_translations,
               read_constant_translations(a, at(top, "constant_translations"), limits, out.nulls));
  }
  if (const auto root = maybe(j, "root_motion")) {
    MAB_ASSIGN(out.root_motion, read_root_motion(*root, at(top, "root_motion"), limits, out.nulls));
  }
  if (maybe(j, "parts")) {
    MAB_ASSIGN(const Val a, need_array(j, top, "parts", limits.max_blocks * 64));
    const Path pp = at(top, "parts");
    auto& parts = out.parts.emplace();
    MAB_TRY(each(a, [&](std::size_t i, const Val& e) -> Status {
      MAB_ASSIGN(const ClipPart part, read_part(e, at(pp, i), limits));
      parts.push_back(part);
      return {};
    }));
  }
  return out;
}

Status apply_motion(Clip& edited, const ParsedMotion& m, const Clip& original) {
  // A member the document leaves out stays as the file holds it; for the per-key ones that
  // needs the file's key count.
  auto keys_kept = [&](const char* what) -> Status {
    if (edited.key_count() == original.key_count()) return {};
    return make_error(ErrorCode::parse_error, no_offset, "/clip/key_times",
                      std::to_string(edited.key_count()) + " keys, the file has " +
                          std::to_string(original.key_count()) + ", and its " + what +
                          " hold one value per key: give them in \"motion\" (export the file "
                          "again with this mabkit to get them)");
  };
  if (m.translations) {
    for (auto& b : edited.bones) b.translations.clear();
    for (const auto& t : *m.translations) {
      MAB_TRY(check_bone(edited, t.bone, t.hash, t.path));
      if (!edited.bones[t.bone].translations.empty())
        return perr(t.path + "/bone", "bone " + std::to_string(t.bone) + " is listed twice");
      if (t.keys.size() != edited.key_count())
        return perr(t.path + "/keys", std::to_string(t.keys.size()) + " translations, but key_times holds " +
                                          std::to_string(edited.key_count()));
      edited.bones[t.bone].translations = t.keys;
    }
  } else {
    bool any = false;
    for (const auto& b : original.bones) any = any || !b.translations.empty();
    if (any) MAB_TRY(keys_kept("translations"));
    for (std::size_t i = 0; i < edited.bones.size(); ++i) {
      const int o = encode::original_index(original, i, edited.bones[i]);
      edited.bones[i].translations =
          o >= 0 ? original.bones[static_cast<std::size_t>(o)].translations : std::vector<Vec3>{};
    }
  }
  if (m.constant_translations) {
    for (auto& b : edited.bones) b.constant_translation.reset();
    for (const auto& c : *m.constant_translations) {
      MAB_TRY(check_bone(edited, c.bone, c.hash, c.path));
      if (edited.bones[c.bone].constant_translation)
        return perr(c.path + "/bone", "bone " + std::to_string(c.bone) + " is listed twice");
      edited.bones[c.bone].constant_translation = c.value;
    }
  } else {
    for (std::size_t i = 0; i < edited.bones.size(); ++i) {
      const int o = encode::original_index(original, i, edited.bones[i]);
      edited.bones[i].constant_translation =
          o >= 0 ? original.bones[static_cast<std::size_t>(o)].constant_translation : std::nullopt;
    }
  }
  if (m.root_motion) {
    edited.root_motion = *m.root_motion;
  } else {
    if (!original.root_motion.empty()) MAB_TRY(keys_kept("root motion values"));
    edited.root_motion = original.root_motion;
  }
  edited.parts = m.parts ? *m.parts : original.parts;
  return resolve_nulls(edited, m, original);
}

Status carry_original_motion(Clip& edited, const Clip& original) {
  return apply_motion(edited, ParsedMotion{}, original);
}

}  // namespace mab::interchange

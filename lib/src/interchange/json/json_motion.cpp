// mabkit-clip documents and the data issue 16 decodes beyond rotations (docs/json-format.md).
#include "interchange/json/json_motion.hpp"

#include "encode/encode_common.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace mab::interchange {

namespace {

using json_out::Writer;
using Json = nlohmann::json;

void hash_text(Writer& w, std::uint32_t v) {
  char buf[11];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  w.string(std::string_view(buf, 10));
}

void vec3(Writer& w, const Vec3& v) {
  w.scalar_array([&] {
    for (const float f : v) w.float_value(f);
  });
}

void quat(Writer& w, const Quat& q) {
  w.scalar_array([&] {
    for (unsigned i = 0; i < 4; ++i) w.float_value(q[i]);
  });
}

template <class T, class F>
void list(Writer& w, const std::vector<T>& items, F&& item) {
  w.array([&] {
    for (const auto& it : items) {
      if (w.full()) return;
      item(it);
    }
  });
}

Error perr(const std::string& path, std::string detail) {
  return make_error(ErrorCode::parse_error, no_offset, path, std::move(detail));
}

std::string describe(const Json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + text;
}

Status only(const Json& j, const std::string& path, std::initializer_list<const char*> known) {
  if (!j.is_object()) return perr(path, "expected an object, found " + describe(j));
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) return perr(path + "/" + k, "unknown field");
  }
  return {};
}

Result<const Json*> need(const Json& j, const std::string& path, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return perr(path + "/" + key, "missing field");
  return &*it;
}

// As the rest of the document: a number, or a "0x..." string of up to 16 hex digits.
Result<std::uint64_t> read_uint(const Json& j, const std::string& path, std::uint64_t max) {
  std::uint64_t v = 0;
  if (j.is_number_unsigned()) {
    v = j.get<std::uint64_t>();
  } else if (j.is_number_integer()) {
    return perr(path, describe(j) + " is negative");
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
      return perr(path, "expected an integer or a \"0x...\" string, found " + describe(j));
    for (std::size_t i = 2; i < s.size(); ++i) {
      const char c = s[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return perr(path, "not a hex digit in " + describe(j));
      v = (v << 4) | static_cast<std::uint64_t>(d);
    }
  } else {
    return perr(path, "expected an integer, found " + describe(j));
  }
  if (v > max) return perr(path, std::to_string(v) + " is above " + std::to_string(max));
  return v;
}

// As read_float of the clip: any number, rounded to the nearest float; beyond the float range
// an error.
Result<float> read_float(const Json& j, const std::string& path) {
  if (!j.is_number()) return perr(path, "expected a number, found " + describe(j));
  const double d = j.get<double>();
  constexpr double midpoint = 340282356779733661637539395458142568448.0;  // 2^128 - 2^103
  if (!std::isfinite(d) || std::fabs(d) >= midpoint) return perr(path, j.dump() + " is outside the float range");
  if (std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
    return std::copysign(std::numeric_limits<float>::max(), static_cast<float>(std::signbit(d) ? -1 : 1));
  return static_cast<float>(d);
}

template <std::size_t N>
Result<std::array<float, N>> read_floats(const Json& j, const std::string& path) {
  if (!j.is_array() || j.size() != N)
    return perr(path, "expected an array of " + std::to_string(N) + " numbers, found " + describe(j));
  std::array<float, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    MAB_ASSIGN(out[i], read_float(j[i], path + "/" + std::to_string(i)));
  }
  return out;
}

Result<const Json*> need_array(const Json& j, const std::string& path, const char* key, std::size_t max) {
  MAB_ASSIGN(const Json* a, need(j, path, key));
  if (!a->is_array()) return perr(path + "/" + key, "expected an array, found " + describe(*a));
  if (a->size() > max)
    return make_error(ErrorCode::limit_exceeded, no_offset, path + "/" + key,
                      std::to_string(a->size()) + " elements, limit " + std::to_string(max));
  return a;
}

Result<std::vector<Vec3>> read_vec3s(const Json& a, const std::string& path) {
  std::vector<Vec3> out(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    MAB_ASSIGN(out[k], read_floats<3>(a[k], path + "/" + std::to_string(k)));
  }
  return out;
}

Status check_bone(const Clip& clip, std::size_t bone, std::uint32_t hash, const std::string& path) {
  if (bone >= clip.bones.size())
    return perr(path + "/bone", "bone " + std::to_string(bone) + " does not exist (the clip has " +
                                    std::to_string(clip.bones.size()) + ")");
  if (clip.bones[bone].hash != hash) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%08X, but clip bone %zu has 0x%08X", hash, bone, clip.bones[bone].hash);
    return perr(path + "/hash", std::string("the hash is ") + buf + " (re-ordered bones need their motion entries updated)");
  }
  return {};
}

// An entry's "bone" (index) and "hash", the pair apply_motion checks against the clip.
Status read_bone_ref(const Json& t, const std::string& p, const Limits& limits, std::size_t& bone,
                     std::uint32_t& hash) {
  MAB_ASSIGN(const Json* b, need(t, p, "bone"));
  MAB_ASSIGN(const std::uint64_t index, read_uint(*b, p + "/bone", limits.max_bones));
  MAB_ASSIGN(const Json* h, need(t, p, "hash"));
  MAB_ASSIGN(const std::uint64_t value, read_uint(*h, p + "/hash", 0xFFFFFFFFu));
  bone = static_cast<std::size_t>(index);
  hash = static_cast<std::uint32_t>(value);
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
            w.key("hash"), hash_text(w, c.bones[i].hash);
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
            w.key("hash"), hash_text(w, c.bones[i].hash);
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
          w.key("parent"), hash_text(w, p.parent_hash);
          w.key("attachment"), hash_text(w, p.attachment_hash);
          w.key("type"), w.uint(p.type);
          w.key("nested_block");
          if (p.nested_block >= 0)
            w.uint(static_cast<std::uint64_t>(p.nested_block));
          else
            w.null_value();
        });
      });
    }
  });
}

Result<ParsedMotion> parse_motion(std::string_view text, const Limits& limits) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const std::exception& ex) {
    return perr("/motion", std::string("unreadable: ") + ex.what());
  }
  const std::string top = "/motion";
  MAB_TRY(only(j, top, {"evidence", "translations", "constant_translations", "root_motion", "parts"}));
  ParsedMotion out;
  if (const auto it = j.find("evidence"); it != j.end() && !it->is_object())
    return perr(top + "/evidence", "expected an object (informational, ignored on import), found " + describe(*it));
  if (j.contains("translations")) {
    MAB_ASSIGN(const Json* a, need_array(j, top, "translations", limits.max_bones));
    auto& list_out = out.translations.emplace();
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string p = top + "/translations/" + std::to_string(i);
      const Json& t = (*a)[i];
      MAB_TRY(only(t, p, {"bone", "hash", "keys"}));
      ParsedMotion::Track tr;
      tr.path = p;
      MAB_TRY(read_bone_ref(t, p, limits, tr.bone, tr.hash));
      MAB_ASSIGN(const Json* keys, need_array(t, p, "keys", limits.max_keys));
      MAB_ASSIGN(tr.keys, read_vec3s(*keys, p + "/keys"));
      list_out.push_back(std::move(tr));
    }
  }
  if (j.contains("constant_translations")) {
    MAB_ASSIGN(const Json* a, need_array(j, top, "constant_translations", limits.max_bones));
    auto& list_out = out.constant_translations.emplace();
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string p = top + "/constant_translations/" + std::to_string(i);
      const Json& t = (*a)[i];
      MAB_TRY(only(t, p, {"bone", "hash", "translation"}));
      ParsedMotion::Constant ct;
      ct.path = p;
      MAB_TRY(read_bone_ref(t, p, limits, ct.bone, ct.hash));
      MAB_ASSIGN(const Json* v, need(t, p, "translation"));
      MAB_ASSIGN(ct.value, read_floats<3>(*v, p + "/translation"));
      list_out.push_back(std::move(ct));
    }
  }
  if (const auto it = j.find("root_motion"); it != j.end()) {
    const std::string p = top + "/root_motion";
    MAB_TRY(only(*it, p, {"rotations", "translations"}));
    RootMotion& rm = out.root_motion.emplace();
    if (it->contains("rotations")) {
      MAB_ASSIGN(const Json* a, need_array(*it, p, "rotations", limits.max_keys));
      rm.rotations.resize(a->size());
      for (std::size_t k = 0; k < a->size(); ++k) {
        MAB_ASSIGN(const auto q, read_floats<4>((*a)[k], p + "/rotations/" + std::to_string(k)));
        rm.rotations[k] = Quat{q[0], q[1], q[2], q[3]};
      }
    }
    if (it->contains("translations")) {
      MAB_ASSIGN(const Json* a, need_array(*it, p, "translations", limits.max_keys));
      MAB_ASSIGN(rm.translations, read_vec3s(*a, p + "/translations"));
    }
  }
  if (j.contains("parts")) {
    MAB_ASSIGN(const Json* a, need_array(j, top, "parts", limits.max_blocks * 64));
    auto& list_out = out.parts.emplace();
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string p = top + "/parts/" + std::to_string(i);
      const Json& e = (*a)[i];
      MAB_TRY(only(e, p, {"start", "end", "parent", "attachment", "type", "nested_block"}));
      ClipPart part;
      MAB_ASSIGN(const Json* start, need(e, p, "start"));
      MAB_ASSIGN(part.start, read_float(*start, p + "/start"));
      MAB_ASSIGN(const Json* end, need(e, p, "end"));
      MAB_ASSIGN(part.end, read_float(*end, p + "/end"));
      MAB_ASSIGN(const Json* parent, need(e, p, "parent"));
      MAB_ASSIGN(const std::uint64_t ph, read_uint(*parent, p + "/parent", 0xFFFFFFFFu));
      part.parent_hash = static_cast<std::uint32_t>(ph);
      MAB_ASSIGN(const Json* attach, need(e, p, "attachment"));
      MAB_ASSIGN(const std::uint64_t ah, read_uint(*attach, p + "/attachment", 0xFFFFFFFFu));
      part.attachment_hash = static_cast<std::uint32_t>(ah);
      MAB_ASSIGN(const Json* type, need(e, p, "type"));
      MAB_ASSIGN(const std::uint64_t ty, read_uint(*type, p + "/type", 255));
      part.type = static_cast<std::uint8_t>(ty);
      MAB_ASSIGN(const Json* nested, need(e, p, "nested_block"));
      if (!nested->is_null()) {
        MAB_ASSIGN(const std::uint64_t nb, read_uint(*nested, p + "/nested_block", limits.max_blocks));
        part.nested_block = static_cast<int>(nb);
      }
      list_out.push_back(part);
    }
  }
  return out;
}

Status apply_motion(Clip& edited, const ParsedMotion& m, const Clip& original) {
  // A member the document leaves out stays as the file holds it; for the per-key ones that
  // needs the file's key count.
  auto keys_kept = [&](const char* what) -> Status {
    if (edited.key_count() == original.key_count()) return {};
    return make_error(ErrorCode::parse_error, no_offset, "/clip/key_times",
                      std::to_string(edited.key_count()) + " keys, the file has " + std::to_string(original.key_count()) +
                          ", and its " + what + " hold one value per key: give them in \"motion\" (export the file "
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
      edited.bones[i].translations = o >= 0 ? original.bones[static_cast<std::size_t>(o)].translations : std::vector<Vec3>{};
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
  return {};
}

Status carry_original_motion(Clip& edited, const Clip& original) { return apply_motion(edited, ParsedMotion{}, original); }

}  // namespace mab::interchange

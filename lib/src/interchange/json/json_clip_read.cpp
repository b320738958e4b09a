// The "clip" member of a mabkit-clip document (docs/json-format.md) and its "codes", which must
// agree with the container's bytes.
#include "interchange/json/json_import_parts.hpp"

#include <mab/edit.hpp>
#include <mab/text.hpp>

#include "encode/encode_common.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace mab::interchange::json_in {

namespace {

Result<BoneId> read_rename(const Val& j, const Path& path) {
  if (j.is_string()) {
    auto id = parse_bone_id(j.string());
    if (!id) return perr(path, id.error().detail);
    return *id;
  }
  if (!j.is_number_unsigned()) return perr(path, "expected a bone name or a hash, found " + describe(j));
  MAB_ASSIGN(const auto hash, read_u<std::uint32_t>(j, path));
  return BoneId{hash, {}};
}

// A bone's identity members: "rename_to" and "new".
Status read_bone_id(const Val& jb, const Path& p, ParsedBoneId& id) {
  if (const auto rename = maybe(jb, "rename_to")) {
    MAB_ASSIGN(id.rename_to, read_rename(*rename, at(p, "rename_to")));
  }
  if (const auto fresh = maybe(jb, "new")) {
    if (!fresh->is_bool()) return perr(at(p, "new"), "expected true or false, found " + describe(*fresh));
    id.is_new = fresh->boolean();
    if (id.is_new && id.rename_to)
      return perr(at(p, "rename_to"), "a new bone has no old hash to rename: give it its hash directly");
  }
  return {};
}

}  // namespace

Result<ParsedClip> read_clip(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"key_rate", "duration", "key_times", "bones"}));
  ParsedClip out;
  Clip& clip = out.clip;
  MAB_ASSIGN(const Val key_rate, need(j, path, "key_rate"));
  if (!key_rate.is_null()) {
    if (!key_rate.is_number())
      return perr(at(path, "key_rate"), "expected a number or null, found " + describe(key_rate));
    clip.key_rate = key_rate.number();
    if (!std::isfinite(clip.key_rate)) return perr(at(path, "key_rate"), "not a finite number");
    out.key_rate_given = true;
  }
  MAB_ASSIGN(const Val duration, need(j, path, "duration"));
  if (!duration.is_null()) {
    MAB_ASSIGN(clip.duration, read_float(duration, at(path, "duration")));
    out.duration_given = true;
  }
  MAB_ASSIGN(const Val times, need(j, path, "key_times"));
  const Path tp = at(path, "key_times");
  MAB_TRY(check_array(times, tp, limits.max_keys));
  clip.key_times.resize(times.size());
  MAB_TRY(each(times, [&](std::size_t i, const Val& t) -> Status {
    MAB_ASSIGN(clip.key_times[i], read_u<std::uint32_t>(t, at(tp, i)));
    return {};
  }));
  MAB_ASSIGN(const Val bones, need(j, path, "bones"));
  const Path bp = at(path, "bones");
  MAB_TRY(check_array(bones, bp, limits.max_bones));
  clip.bones.resize(bones.size());
  out.ids.resize(bones.size());
  MAB_TRY(each(bones, [&](std::size_t i, const Val& jb) -> Status {
    const Path p = at(bp, i);
    MAB_TRY(check_object(jb, p, {"hash", "name", "flags", "constant", "keys", "rename_to", "new"}));
    ClipBone& bone = clip.bones[i];
    out.ids[i].hash_given = maybe(jb, "hash").has_value();
    MAB_TRY(read_bone_id(jb, p, out.ids[i]));
    const auto name = maybe(jb, "name");
    const auto hash = maybe(jb, "hash");
    if (name) {
      MAB_ASSIGN(bone.name, read_string(*name, at(p, "name")));
    }
    if (hash) {
      MAB_ASSIGN(bone.hash, read_u<std::uint32_t>(*hash, at(p, "hash")));
      // Decision 11: a hash is the CRC-32 of its name; a disagreement is a typo in one.
      if (name && !bone.name.empty() && bone_hash(bone.name) != bone.hash) {
        return perr(at(p, "hash"),
                    "does not match the name \"" + bone.name + "\", whose hash is " + hex(bone_hash(bone.name), 8));
      }
    } else if (name && !bone.name.empty()) {
      bone.hash = bone_hash(bone.name);
    } else {
      return perr(at(p, "hash"), "missing field (give a hash, or a name to hash)");
    }
    MAB_ASSIGN(bone.flags, read_u_field<std::uint8_t>(jb, p, "flags"));
    const auto constant = maybe(jb, "constant");
    const auto keys = maybe(jb, "keys");
    switch (bone.kind()) {
      case BoneKind::constant: {
        if (keys) return perr(at(p, "keys"), "a constant bone (flags & 0x30 == 0x30) has no keys");
        if (!constant) return perr(at(p, "constant"), "missing field (flags & 0x30 == 0x30: constant bone)");
        MAB_ASSIGN(bone.constant, read_quat(*constant, at(p, "constant")));
        break;
      }
      case BoneKind::animated: {
        if (constant)
          return perr(at(p, "constant"), "an animated bone (flags & 0x30 == 0x10) has keys, not a constant");
        if (!keys) return perr(at(p, "keys"), "missing field (flags & 0x30 == 0x10: animated bone)");
        const Path kp = at(p, "keys");
        if (!keys->is_array()) return perr(kp, "expected an array, found " + describe(*keys));
        if (keys->size() != clip.key_times.size())
          return perr(
              kp, std::to_string(keys->size()) + " keys, but key_times holds " + std::to_string(clip.key_times.size()));
        bone.keys.resize(keys->size());
        MAB_TRY(each(*keys, [&](std::size_t k, const Val& q) -> Status {
          MAB_ASSIGN(bone.keys[k], read_quat(q, at(kp, k)));
          return {};
        }));
        break;
      }
      case BoneKind::none:
        if (constant || keys)
          return perr(at(p, constant ? "constant" : "keys"),
                      "a bone without rotation (flags & 0x30 is neither "
                      "0x30 nor 0x10) has no constant or keys");
        break;
    }
    return {};
  }));
  // Ordering of key times and the like are the encoder's to judge: it reports them with
  // the clip's own field names.
  return out;
}

Result<ParsedCodes> read_codes(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"constant_codes", "rotations"}));
  ParsedCodes out;
  std::uint64_t budget = limits.max_file_size;
  MAB_ASSIGN(const Val constants, need(j, path, "constant_codes"));
  const Path cp = at(path, "constant_codes");
  MAB_TRY(check_array(constants, cp, limits.max_bones));
  MAB_TRY(each(constants, [&](std::size_t i, const Val& jc) -> Status {
    const Path p = at(cp, i);
    MAB_ASSIGN(const auto bytes, read_hex(jc, p, budget));
    if (bytes.size() != 6) return perr(p, "expected 6 bytes (12 hex digits), found " + std::to_string(bytes.size()));
    std::array<std::uint8_t, 6> code{};
    std::copy(bytes.begin(), bytes.end(), code.begin());
    out.constant_codes.push_back(code);
    return {};
  }));
  MAB_ASSIGN(const Val rotations, need(j, path, "rotations"));
  const Path rp = at(path, "rotations");
  MAB_TRY(check_object(rotations, rp, {"chunks", "tail"}));
  MAB_ASSIGN(const Val chunks, need(rotations, rp, "chunks"));
  const Path chp = at(rp, "chunks");
  MAB_TRY(check_array(chunks, chp, limits.max_chunks));
  MAB_TRY(each(chunks, [&](std::size_t c, const Val& jc) -> Status {
    const Path p = at(chp, c);
    MAB_TRY(check_array(jc, p, limits.max_bones));
    std::vector<JsonChunkCodes> chunk(jc.size());
    MAB_TRY(each(jc, [&](std::size_t b, const Val& jb) -> Status {
      const Path bp = at(p, b);
      MAB_TRY(check_object(jb, bp, {"cflags", "signs", "headers", "raw"}));
      JsonChunkCodes& codes = chunk[b];
      MAB_ASSIGN(const Val cflags, need(jb, bp, "cflags"));
      MAB_ASSIGN(const std::uint64_t cf, read_uint(cflags, at(bp, "cflags"), 63));
      codes.cflags = static_cast<std::uint8_t>(cf);
      if (const auto signs = maybe(jb, "signs")) {
        MAB_ASSIGN(codes.signs, read_u<std::uint8_t>(*signs, at(bp, "signs")));
      }
      MAB_TRY(read_u_array(jb, bp, "headers", codes.headers));
      MAB_ASSIGN(const Val raw, need(jb, bp, "raw"));
      const Path rawp = at(bp, "raw");
      MAB_TRY(check_size(raw, rawp, 3));
      return each(raw, [&](std::size_t comp, const Val& values) -> Status {
        const Path vp = at(rawp, comp);
        MAB_TRY(check_array(values, vp, keys_per_chunk));
        return each(values, [&](std::size_t f, const Val& v) -> Status {
          MAB_ASSIGN(const auto n, read_u<std::uint16_t>(v, at(vp, f)));
          codes.raw[comp].push_back(n);
          return {};
        });
      });
    }));
    out.chunks.push_back(std::move(chunk));
    return {};
  }));
  MAB_ASSIGN(const Val tail, need(rotations, rp, "tail"));
  MAB_ASSIGN(out.tail, read_hex(tail, at(rp, "tail"), budget));
  return out;
}

Status check_codes(const ParsedCodes& codes, const DecodedClip& original) {
  const std::string mismatch = "disagrees with the container's bytes; edit the clip, not the codes";
  const std::string cp = "/codes/constant_codes";
  if (codes.constant_codes.size() != original.constant_codes.size())
    return perr(cp, std::to_string(codes.constant_codes.size()) + " codes, the container holds " +
                        std::to_string(original.constant_codes.size()));
  for (std::size_t i = 0; i < codes.constant_codes.size(); ++i)
    if (codes.constant_codes[i] != original.constant_codes[i]) return perr(at(cp, i), mismatch);
  const std::string chp = "/codes/rotations/chunks";
  const auto& chunks = original.rotations.chunks;
  if (codes.chunks.size() != chunks.size())
    return perr(chp,
                std::to_string(codes.chunks.size()) + " chunks, the container holds " + std::to_string(chunks.size()));
  const auto key_count = static_cast<std::uint32_t>(original.clip.key_count());
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::string p = at(chp, c);
    if (codes.chunks[c].size() != chunks[c].size())
      return perr(p, std::to_string(codes.chunks[c].size()) + " bones, the container holds " +
                         std::to_string(chunks[c].size()));
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < chunks[c].size(); ++b) {
      const JsonChunkCodes& mine = codes.chunks[c][b];
      const BoneChunkCodes& theirs = chunks[c][b];
      const std::string bp = at(p, b);
      if (mine.cflags != theirs.cflags) return perr(at(bp, "cflags"), mismatch);
      if (theirs.has_signs()) {
        if (!mine.signs) return perr(at(bp, "signs"), "missing field (cflags bit 3 is set)");
        if (*mine.signs != theirs.signs) return perr(at(bp, "signs"), mismatch);
      } else if (mine.signs && *mine.signs != 0) {
        return perr(at(bp, "signs"), "cflags bit 3 is clear: the stream stores no signs");
      }
      for (unsigned comp = 0; comp < 3; ++comp) {
        if (mine.headers[comp] != theirs.headers[comp]) return perr(at(at(bp, "headers"), comp), mismatch);
        const std::string vp = at(at(bp, "raw"), comp);
        const std::size_t stored = theirs.is_constant(comp) ? 0 : keys;
        if (mine.raw[comp].size() != stored)
          return perr(vp, "expected " + std::to_string(stored) + " values (" +
                              (stored ? "one per key of the chunk" : "a constant component stores none") + "), found " +
                              std::to_string(mine.raw[comp].size()));
        for (std::size_t f = 0; f < stored; ++f)
          if (mine.raw[comp][f] != theirs.raw[comp][f]) return perr(at(vp, f), mismatch);
      }
    }
  }
  if (codes.tail != original.rotations.tail) return perr("/codes/rotations/tail", mismatch);
  return {};
}
}  // namespace mab::interchange::json_in

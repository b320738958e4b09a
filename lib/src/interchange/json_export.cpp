// .mab -> "mabkit-clip" JSON (docs/json-format.md), written in one pass by json_out::Writer.
// Fields come in the order the format documents; the layout rules are the writer's.
#include <mab/json.hpp>

#include "interchange/json_motion.hpp"
#include "interchange/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <thread>

namespace mab {

namespace {

using json_out::Writer;

void hex_bytes(Writer& w, std::span<const std::uint8_t> bytes) { w.hex_string(bytes.data(), bytes.size()); }

void hex_u32(Writer& w, std::uint32_t v) {
  static constexpr char digits[] = "0123456789ABCDEF";
  char buf[10] = {'0', 'x'};
  for (int i = 0; i < 8; ++i) buf[2 + i] = digits[(v >> (28 - 4 * i)) & 0x0F];
  w.string(std::string_view(buf, sizeof buf));
}

void hex_u64(Writer& w, std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(v));
  w.string(buf);
}

void quat(Writer& w, const Quat& q) {
  w.scalar_array([&] {
    w.float_value(q.x);
    w.float_value(q.y);
    w.float_value(q.z);
    w.float_value(q.w);
  });
}

std::string_view shape_name(AniShape s) {
  switch (s) {
    case AniShape::wd1: return "wd1";
    case AniShape::wdl: return "wdl";
    case AniShape::fc5: return "fc5";
  }
  return "wdl";
}

std::string_view size_rule_name(SizeRule r) {
  switch (r) {
    case SizeRule::file_minus_16: return "file_minus_16";
    case SizeRule::block_extent: return "block_extent";
    case SizeRule::verbatim: return "verbatim";
  }
  return "verbatim";
}

void ani_header(Writer& w, const AniHeader& h) {
  w.object([&] {
    w.key("shape"), w.string(shape_name(h.shape));
    w.key("skeleton_bone_crc"), hex_u64(w, h.skeleton_bone_crc);
    w.key("skeleton_path_id"), hex_u64(w, h.skeleton_path_id);
    w.key("signature"), hex_bytes(w, h.signature);
    w.key("flags"), w.uint(h.flags);
    w.key("animation_data_size"), w.uint(h.animation_data_size);
    w.key("duration_bits"), w.uint(h.duration_bits);
    w.key("frame_rate_bits"), w.uint(h.frame_rate_bits);
    w.key("bone_count_field"), w.uint(h.bone_count_field);
    w.key("data_counts"), w.uint_array(h.data_counts);
    w.key("counts_padding"), w.uint(h.counts_padding);
    w.key("offsets"), w.uint_array(h.offsets);
    w.key("padding_ps3"), w.uint(h.padding_ps3);
    w.key("last_frame"), w.uint(h.last_frame);
    w.key("tail_padding"), w.uint(h.tail_padding);
  });
}

void fc4_header(Writer& w, const Fc4Header& h) {
  w.object([&] {
    w.key("unknown_10"), hex_bytes(w, h.unknown_10);
    w.key("signature"), hex_bytes(w, h.signature);
    w.key("flags"), w.uint(h.flags);
    w.key("bone_count"), w.uint(h.bone_count);
    w.key("unknown_1e"), w.uint(h.unknown_1e);
    w.key("duration_bits"), w.uint(h.duration_bits);
    w.key("unknown_24"), w.uint(h.unknown_24);
    w.key("flag_table_offset"), w.uint(h.flag_table_offset);
    w.key("hash_table_offset"), w.uint(h.hash_table_offset);
    w.key("unknown_30"), hex_bytes(w, h.unknown_30);
    w.key("section_offsets"), w.uint_array(h.section_offsets);
  });
}

void legacy_header(Writer& w, const LegacyHeader& h) {
  w.object([&] {
    w.key("mask_words"), w.uint(h.mask_words);
    w.key("masks"), w.uint_array(h.masks);
    w.key("trajectory_reference_bits"), w.uint_array(h.trajectory_reference_bits);
    w.key("per_loop_rotation_bits"), w.uint_array(h.per_loop_rotation_bits);
    w.key("tag"), hex_bytes(w, h.tag);
    w.key("duration_bits"), w.uint(h.duration_bits);
    w.key("sections"), w.scalar_array([&] {
      for (const auto v : h.sections) w.sint(v);
    });
    w.key("pointer_slot"), w.uint(h.pointer_slot);
  });
}

void block(Writer& w, const Block& b) {
  w.object([&] {
    w.key("original_base"), w.uint(b.original_base);
    if (const auto* a = b.ani()) {
      w.key("layout"), w.string("ani");
      w.key("header"), ani_header(w, *a);
    } else if (const auto* f = b.fc4()) {
      w.key("layout"), w.string("fc4");
      w.key("header"), fc4_header(w, *f);
    } else if (const auto* l = b.legacy()) {
      w.key("layout"), w.string("legacy");
      w.key("header"), legacy_header(w, *l);
    }
    w.key("bones");
    w.array([&] {
      for (const auto& bone : b.bones) {
        if (w.full()) return;
        w.object([&] {
          w.key("hash"), hex_u32(w, bone.hash);
          w.key("flags"), w.uint(bone.flags);
        });
      }
    });
    w.key("segments");
    w.array([&] {
      for (const auto& s : b.segments) {
        if (w.full()) return;
        w.object([&] {
          w.key("original_offset"), w.uint(s.original_offset);
          w.key("bytes"), hex_bytes(w, s.bytes);
          if (s.child_block >= 0) w.key("child_block"), w.sint(s.child_block);
        });
      }
    });
    w.key("slot_segment"), w.scalar_array([&] {
      for (const int v : b.slot_segment) w.sint(v);
    });
    w.key("size_rule"), w.string(size_rule_name(b.size_rule));
    w.key("parent"), w.sint(b.parent);
  });
}

void container(Writer& w, const Container& c) {
  w.object([&] {
    w.key("variant"), w.string(c.variant ? c.variant->short_name : std::string_view());
    w.key("header");
    w.object([&] {
      w.key("magic_word"), w.uint(c.header.magic_word);
      w.key("checksum"), w.uint(c.header.checksum);
      w.key("reserved"), hex_bytes(w, c.header.reserved);
    });
    w.key("original_size"), w.uint(c.original_size);
    if (c.is_opaque()) {
      w.key("opaque_body"), hex_bytes(w, c.opaque_body);
      w.key("opaque_reason"), w.string(c.opaque_reason);
    } else {
      w.key("blocks");
      w.array([&] {
        for (const auto& b : c.blocks) {
          if (w.full()) return;
          block(w, b);
        }
      });
    }
  });
}

// Returns false for a bone name that is not valid UTF-8 (the only free text).
bool bone(Writer& w, const ClipBone& b) {
  bool ok = true;
  w.object([&] {
    w.key("hash"), hex_u32(w, b.hash);
    if (!b.name.empty()) {
      w.key("name");
      ok = w.string(b.name);
    }
    w.key("flags"), w.uint(b.flags);
    switch (b.kind()) {
      case BoneKind::constant: w.key("constant"), quat(w, b.constant); break;
      case BoneKind::animated:
        w.key("keys");
        w.array([&] {
          for (const auto& q : b.keys) {
            if (w.full()) return;
            quat(w, q);
          }
        });
        break;
      case BoneKind::none: break;
    }
  });
  return ok;
}

// Names were checked by names_are_utf8, so bone()'s result needs no gathering here.
void clip(Writer& w, const Clip& clip, unsigned threads) {
  w.object([&] {
    w.key("key_rate");
    if (std::isfinite(clip.key_rate))
      w.number(clip.key_rate);
    else
      w.null_value();
    w.key("duration"), w.float_value(clip.duration);
    w.key("key_times"), w.uint_array(clip.key_times);
    w.key("bones");
    w.parallel_array(clip.bones.size(), threads, [&](Writer& bw, std::size_t i) {
      bone(bw, clip.bones[i]);
    });
  });
}

// Only what the stream stores: signs when cflags bit 3 is set, F raw values per varying
// component and none for a constant one (F = keys in the chunk). `d` is the container's own
// decode: its key count gives each chunk's F even when the clip being exported was edited.
void codes(Writer& w, const DecodedClip& d, unsigned threads) {
  w.object([&] {
    w.key("constant_codes"), w.scalar_array([&] {
      for (const auto& c : d.constant_codes) hex_bytes(w, c);
    });
    const auto key_count = static_cast<std::uint32_t>(d.clip.key_count());
    w.key("rotations");
    w.object([&] {
      w.key("chunks");
      w.parallel_array(d.rotations.chunks.size(), threads, [&](Writer& cw, std::size_t ci) {
        const unsigned keys = chunk_key_count(key_count, ci);
        cw.array([&] {
          for (const auto& c : d.rotations.chunks[ci]) {
            if (cw.full()) return;
            cw.object([&] {
              cw.key("cflags"), cw.uint(c.cflags);
              if (c.has_signs()) cw.key("signs"), cw.uint(c.signs);
              cw.key("headers"), cw.uint_array(c.headers);
              cw.key("raw");
              cw.array([&] {
                for (unsigned comp = 0; comp < 3; ++comp)
                  cw.scalar_array([&] {
                    if (!c.is_constant(comp))
                      for (unsigned f = 0; f < keys && f < 8; ++f) cw.uint(c.raw[comp][f]);
                  });
              });
            });
          }
        });
      });
      w.key("tail"), hex_bytes(w, d.rotations.tail);
    });
  });
}

void vec3(Writer& w, const Vec3& v) {
  w.scalar_array([&] {
    for (const float f : v) w.float_value(f);  // a NaN or infinity is written null
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

// A legacy block's tracks (spec 13), keyed by skeleton bone id; docs/json-format.md.
void legacy_clip(Writer& w, const LegacyClip& c) {
  w.object([&] {
    w.key("last_frame"), w.uint(c.last_frame);
    w.key("frame_rate"), w.float_value(c.frame_rate);
    if (c.present[0]) w.key("trajectory_translation"), list(w, c.trajectory_translation, [&](const Vec3& v) { vec3(w, v); });
    if (c.present[1]) w.key("trajectory_rotation"), list(w, c.trajectory_rotation, [&](const Quat& q) { quat(w, q); });
    w.key("constant_rotations"), list(w, c.constant_rotations, [&](const LegacyConstantRotation& r) {
      w.object([&] {
        w.key("bone"), w.uint(r.bone);
        w.key("rotation"), quat(w, r.rotation);
      });
    });
    w.key("rotations"), list(w, c.rotations, [&](const LegacyRotationTrack& t) {
      w.object([&] {
        w.key("bone"), w.uint(t.bone);
        w.key("frames"), w.uint_array(t.frames);
        w.key("keys"), list(w, t.keys, [&](const Quat& q) { quat(w, q); });
      });
    });
    w.key("constant_translations"), list(w, c.constant_translations, [&](const LegacyConstantTranslation& t) {
      w.object([&] {
        w.key("bone"), w.uint(t.bone);
        w.key("translation"), vec3(w, t.translation);
      });
    });
    w.key("translations"), list(w, c.translations, [&](const LegacyTranslationTrack& t) {
      w.object([&] {
        w.key("bone"), w.uint(t.bone);
        w.key("frames"), list(w, t.frames, [&](const Vec3& v) { vec3(w, v); });
      });
    });
  });
}

void head(Writer& w, std::size_t block_index) {
  w.key("format"), w.string(json_format_name);
  w.key("version"), w.uint(json_format_version);
  w.key("block"), w.uint(block_index);
}

Error resource_error(const char* what) {
  return make_error(ErrorCode::invalid_argument, no_offset, "json", what);
}


// Bone names are the only free text: checked before anything is written, so a sink never
// receives part of a document that then fails.
bool names_are_utf8(const Clip& clip) {
  for (const auto& b : clip.bones) {
    if (b.name.empty()) continue;
    std::string scratch;
    Writer w(scratch);
    if (!w.string(b.name)) return false;
  }
  return true;
}

// The whole document into `out`, or through `sink` (then `out` is the reused buffer).
Status write_clip_document(const DecodedClip& d, const JsonExportOptions& options, std::string& out,
                           const json_out::Sink* sink) {
  if (d.block >= d.container.blocks.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "block",
                      "block " + std::to_string(d.block) + " does not exist");
  if (!names_are_utf8(d.clip)) return make_error(ErrorCode::bad_value, no_offset, "json", "a bone name is not valid UTF-8");
  // The container is the truth for the original (import checks the codes against it), so
  // the codes come from decoding it rather than from `d`, which may hold an edited clip.
  auto original = decode_clip(d.container, d.block);
  if (!original) return std::move(original).error();
  try {
    std::size_t keys = 0;
    for (const auto& b : d.clip.bones) keys += b.keys.size();
    // In memory: about 45 characters a quaternion plus its codes; reserving avoids regrowing
    // (and copying) a large document. Through a sink: one flush's worth.
    out.reserve(sink != nullptr ? options.piece_size + 64 * 1024 : 4096 + 80 * keys + 8 * d.container.original_size);
    unsigned threads = 1;
    if (keys >= options.parallel_min_keys) {
      threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
      threads = std::clamp(threads, 1u, 64u);
    }
    bool sink_ok = true;
    {
      Writer w(out, sink, options.piece_size);
      w.object([&] {
        head(w, d.block);
        w.key("clip");
        clip(w, d.clip, threads);
        if (interchange::has_motion(d)) w.key("motion"), interchange::write_motion(w, d);
        w.key("codes"), codes(w, *original, threads);
        w.key("container"), container(w, d.container);
      });
      w.finish();
      sink_ok = w.sink_ok() && (sink == nullptr || (*sink)("\n"));
    }
    if (sink == nullptr) out += '\n';
    if (!sink_ok) return make_error(ErrorCode::io_error, no_offset, "json", "the output refused the document");
    return {};
  } catch (const std::bad_alloc&) {
    return resource_error("out of memory");
  }
}

Status write_container_document(const Container& c, std::string_view reason, std::string& out,
                                const json_out::Sink* sink) {
  try {
    {
      std::string scratch;
      Writer check(scratch);
      if (!reason.empty() && !check.string(reason))
        return make_error(ErrorCode::bad_value, no_offset, "json", "text is not valid UTF-8");
    }
    out.reserve(sink != nullptr ? 256 * 1024 : 4096 + 3 * c.original_size);
    bool sink_ok = true;
    {
      Writer w(out, sink);
      w.object([&] {
        head(w, 0);
        if (!reason.empty()) {
          w.key("clip_absent");
          w.string(reason);
        }
        w.key("container"), container(w, c);
      });
      w.finish();
      sink_ok = w.sink_ok() && (sink == nullptr || (*sink)("\n"));
    }
    if (sink == nullptr) out += '\n';
    if (!sink_ok) return make_error(ErrorCode::io_error, no_offset, "json", "the output refused the document");
    return {};
  } catch (const std::bad_alloc&) {
    return resource_error("out of memory");
  }
}

Status write_legacy_document(const Container& c, const LegacyClip& clip, const JsonExportOptions& options,
                             std::string& out, const json_out::Sink* sink) {
  if (clip.block >= c.blocks.size() || c.blocks[clip.block].legacy() == nullptr)
    return make_error(ErrorCode::invalid_argument, no_offset, "block",
                      "block " + std::to_string(clip.block) + " is not a legacy clip of this container");
  try {
    out.reserve(sink != nullptr ? options.piece_size + 64 * 1024 : 4096 + 16 * c.original_size);
    bool sink_ok = true;
    {
      Writer w(out, sink, options.piece_size);
      w.object([&] {
        head(w, clip.block);
        w.key("legacy_clip"), legacy_clip(w, clip);
        w.key("container"), container(w, c);
      });
      w.finish();
      sink_ok = w.sink_ok() && (sink == nullptr || (*sink)("\n"));
    }
    if (sink == nullptr) out += '\n';
    if (!sink_ok) return make_error(ErrorCode::io_error, no_offset, "json", "the output refused the document");
    return {};
  } catch (const std::bad_alloc&) {
    return resource_error("out of memory");
  }
}

}  // namespace

Result<std::string> export_json(const Container& c, const LegacyClip& clip, const JsonExportOptions& options) {
  std::string out;
  if (auto st = write_legacy_document(c, clip, options, out, nullptr); !st) return std::move(st).error();
  return out;
}

Status export_json(const Container& c, const LegacyClip& clip, const JsonSink& sink, const JsonExportOptions& options) {
  std::string buffer;
  return write_legacy_document(c, clip, options, buffer, &sink);
}

Result<std::string> export_json(const DecodedClip& d, const JsonExportOptions& options) {
  std::string out;
  if (auto st = write_clip_document(d, options, out, nullptr); !st) return std::move(st).error();
  return out;
}

Status export_json(const DecodedClip& d, const JsonSink& sink, const JsonExportOptions& options) {
  std::string buffer;
  return write_clip_document(d, options, buffer, &sink);
}

Result<std::string> export_json(const Container& c, std::string_view reason) {
  std::string out;
  if (auto st = write_container_document(c, reason, out, nullptr); !st) return std::move(st).error();
  return out;
}

Status export_json(const Container& c, std::string_view reason, const JsonSink& sink) {
  std::string buffer;
  return write_container_document(c, reason, buffer, &sink);
}

}  // namespace mab

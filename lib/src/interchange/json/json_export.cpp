// .mab -> "mabkit-clip" JSON (docs/json-format.md), written in one pass by json_out::Writer.
// Fields come in the order the format documents; the layout rules are the writer's.
#include <mab/json.hpp>

#include <mab/legacy_bridge.hpp>
#include <mab/text.hpp>

#include "container/header_fields.hpp"
#include "decode/clip_parts.hpp"
#include "interchange/json/json_motion.hpp"
#include "interchange/json/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>

namespace mab {

namespace {

using json_out::hex_u32;
using json_out::list;
using json_out::quat;
using json_out::vec3;
using json_out::Writer;

void hex_bytes(Writer& w, std::span<const std::uint8_t> bytes) { w.hex_string(bytes.data(), bytes.size()); }

void hex_u64(Writer& w, std::uint64_t v) { w.string(hex(v, 16)); }

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

// A header's members from its field table (container/header_fields.hpp), in file order.
struct HeaderMembers {
  Writer& w;

  template <class T>
  Status operator()(const container::FieldInfo& f, const T& value) {
    w.key(f.key);
    if constexpr (container::is_byte_array<T>) {
      hex_bytes(w, value);
    } else if constexpr (std::is_integral_v<T>) {
      if (f.json == container::JsonForm::hex64) hex_u64(w, value);
      else if constexpr (std::is_signed_v<T>) w.sint(value);
      else w.uint(value);
    } else if constexpr (std::is_signed_v<typename T::value_type>) {
      w.scalar_array([&] {
        for (const auto v : value) w.sint(v);
      });
    } else {
      w.uint_array(value);
    }
    return {};
  }

  template <class H, class Check>
  Status check(const H&, Check&&) {
    return {};
  }
};

void ani_header(Writer& w, const AniHeader& h) {
  w.object([&] {
    w.key("shape"), w.string(shape_name(h.shape));
    (void)container::ani_header_fields(h, HeaderMembers{w});
  });
}

void fc4_header(Writer& w, const Fc4Header& h) {
  w.object([&] { (void)container::fc4_header_fields(h, HeaderMembers{w}); });
}

void legacy_header(Writer& w, const LegacyHeader& h) {
  w.object([&] { (void)container::legacy_header_fields(h, HeaderMembers{w}); });
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

void container_json(Writer& w, const Container& c) {
  w.object([&] {
    w.key("variant"), w.string(c.variant ? c.variant->short_name : std::string_view());
    w.key("header");
    w.object([&] { (void)container::outer_header_fields(c.header, HeaderMembers{w}); });
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

// The keys of the animated bones of a block as stored, decoded chunk by chunk as they are
// written (export of an unedited block: the whole clip is never held as floats).
struct StoredKeys {
  const RotationStream& stream;
  std::span<const std::uint8_t> bit_depths;  // per animated bone
  std::uint32_t key_count;
  std::vector<std::size_t> animated;  // per bone: its index among the animated bones
};

void keys_of(Writer& w, const ClipBone& b, std::size_t index, const StoredKeys* stored) {
  if (stored == nullptr) {
    for (const auto& q : b.keys) {
      if (w.full()) return;
      quat(w, q);
    }
    return;
  }
  const std::size_t a = stored->animated[index];
  const unsigned depth = stored->bit_depths[a];
  std::array<Quat, keys_per_chunk> block{};
  for (std::size_t c = 0; c < stored->stream.chunks.size(); ++c) {
    const unsigned n = chunk_key_count(stored->key_count, c);
    decode_block(stored->stream.chunks[c][a], depth, std::span<Quat>(block.data(), n));
    for (unsigned k = 0; k < n; ++k) {
      if (w.full()) return;
      quat(w, block[k]);
    }
  }
}

// Returns false for a bone name that is not valid UTF-8 (the only free text). `ids`: a Far Cry
// 2/3 clip, whose ClipBone::hash is a skeleton bone id (legacy_bridge.hpp), written as a number.
bool bone(Writer& w, const ClipBone& b, std::size_t index, const StoredKeys* stored, bool ids) {
  bool ok = true;
  w.object([&] {
    w.key("hash");
    if (ids) w.uint(b.hash);
    else hex_u32(w, b.hash);
    if (!b.name.empty()) {
      w.key("name");
      ok = w.string(b.name);
    }
    w.key("flags"), w.uint(b.flags);
    switch (b.kind()) {
      case BoneKind::constant: w.key("constant"), quat(w, b.constant); break;
      case BoneKind::animated:
        w.key("keys");
        w.array([&] { keys_of(w, b, index, stored); });
        break;
      case BoneKind::none: break;
    }
  });
  return ok;
}

// Names were checked by names_are_utf8, so bone()'s result needs no gathering here.
void json_clip(Writer& w, const Clip& clip, unsigned threads, const StoredKeys* stored, bool ids = false) {
  w.object([&] {
    w.key("key_rate");
    if (std::isfinite(clip.key_rate)) w.number(clip.key_rate);
    else w.null_value();
    w.key("duration"), w.float_value(clip.duration);
    w.key("key_times"), w.uint_array(clip.key_times);
    w.key("bones");
    w.parallel_array(clip.bones.size(), threads,
                     [&](Writer& bw, std::size_t i) { bone(bw, clip.bones[i], i, stored, ids); });
  });
}

// Only what the stream stores: signs when cflags bit 3 is set, F raw values per varying
// component and none for a constant one (F = keys in the chunk). The codes are the
// container's own decode: its key count gives each chunk's F even when the clip being
// exported was edited.
void codes(Writer& w, std::span<const std::array<std::uint8_t, 6>> constant_codes, const RotationStream& rotations,
           std::uint32_t key_count, unsigned threads) {
  w.object([&] {
    w.key("constant_codes"), w.scalar_array([&] {
      for (const auto& c : constant_codes) hex_bytes(w, c);
    });
    w.key("rotations");
    w.object([&] {
      w.key("chunks");
      w.parallel_array(rotations.chunks.size(), threads, [&](Writer& cw, std::size_t ci) {
        const unsigned keys = chunk_key_count(key_count, ci);
        cw.array([&] {
          for (const auto& c : rotations.chunks[ci]) {
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
      w.key("tail"), hex_bytes(w, rotations.tail);
    });
  });
}

// Slots 6 and 7 of a legacy block (docs/json-format.md, "tag_table" and "events"): the
// decoded records and nodes, or the note saying why a present section did not decode.
void legacy_tags_and_events(Writer& w, const LegacyClip& c) {
  if (c.tag_table) {
    w.key("tag_table"), list(w, *c.tag_table, [&](const LegacyTagRecord& r) {
      w.object([&] {
        w.key("kind"), w.uint(r.kind);
        w.key("byte_1"), w.uint(r.byte_1);
        w.key("id"), w.sint(r.id);
        w.key("bytes_4"), hex_bytes(w, r.bytes_4);
        w.key("clip_offset"), w.sint(r.clip_offset);
        w.key("clip_block");
        if (r.clip_block >= 0) w.uint(static_cast<std::uint64_t>(r.clip_block));
        else w.null_value();
        w.key("start"), w.float_value(r.start);
        w.key("end"), w.float_value(r.end);
        w.key("names"), w.array([&] {
          for (const auto& n : r.names)
            w.object([&] {
              w.key("hash"), hex_u32(w, n.hash);
              if (n.plain()) w.key("text"), w.string(n.text());
              else w.key("bytes"), hex_bytes(w, n.bytes);
            });
        });
        w.key("pointer_slot"), w.uint(r.pointer_slot);
      });
    });
  } else if (!c.tag_table_note.empty()) {
    w.key("tag_table_note"), w.string(c.tag_table_note);
  }
  if (c.events) {
    w.key("events"), list(w, *c.events, [&](const LegacyEvent& e) {
      w.object([&] {
        w.key("offset"), w.uint(e.offset);
        w.key("time"), w.float_value(e.time);
        w.key("type"), w.uint(e.type);
        w.key("size"), w.uint(e.size);
        w.key("next"), w.uint(e.next);
        w.key("payload"), hex_bytes(w, e.payload);
      });
    });
  } else if (!c.events_note.empty()) {
    w.key("events_note"), w.string(c.events_note);
  }
}

// A legacy block's tracks (format 13), keyed by skeleton bone id; docs/json-format.md.
void legacy_clip(Writer& w, const LegacyClip& c) {
  w.object([&] {
    w.key("last_frame"), w.uint(c.last_frame);
    w.key("frame_rate"), w.float_value(c.frame_rate);
    if (c.present[0])
      w.key("trajectory_translation"), list(w, c.trajectory_translation, [&](const Vec3& v) { vec3(w, v); });
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
    legacy_tags_and_events(w, c);
  });
}

// Version 3 (docs/json-format.md): a Far Cry 2/3 clip's translations and trajectory are the
// Clip's (clip_from_legacy) and go in "motion" as an 'aNi' clip's do, each where its section is
// present (format 13, slots 0, 1, 4, 5); the evidence is the decoder's, which checked every section.
BlockEvidence legacy_evidence(const LegacyClip& l) {
  auto slot = [&](std::size_t s) {
    return l.present[s] ? Evidence{EvidenceLevel::decoded, 0, "Far Cry 2/3 slot " + std::to_string(s) + ", format 13"}
                        : Evidence{};
  };
  return {slot(5), slot(4), slot(1), slot(0), {}};
}

void head(Writer& w, std::size_t block_index, std::uint32_t version) {
  w.key("format"), w.string(json_format_name);
  w.key("version"), w.uint(version);
  w.key("block"), w.uint(block_index);
}

Status check_version(const JsonExportOptions& options) {
  if (options.version < json_format_oldest_version || options.version > json_format_version)
    return make_error(ErrorCode::invalid_argument, no_offset, "version",
                      "JSON format version " + std::to_string(options.version) + " cannot be written (versions " +
                          std::to_string(json_format_oldest_version) + " to " + std::to_string(json_format_version) +
                          ")");
  return {};
}

Error resource_error(const char* what) { return make_error(ErrorCode::invalid_argument, no_offset, "json", what); }

// One document: `body` writes the members of its top-level object. Into `out`, or through
// `sink` (then `out` is the reused buffer of `reserve` bytes); a refusing sink or a failed
// allocation ends it with an error, never an exception.
template <class Body>
Status write_document(std::string& out, const json_out::Sink* sink, std::size_t piece_size, std::size_t reserve,
                      Body&& body) {
  try {
    out.reserve(reserve);
    bool sink_ok = true;
    {
      Writer w(out, sink, piece_size);
      w.object([&] { body(w); });
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
// `original`: the container's own decode (codes, and the clip when `stored` is given), or null
// when the codes are not written. `stored`: the clip's keys come from the codes as stored.
// `motion`: the evidence of the clip's translations, root motion and parts (docs/motion.md), if any.
Status write_clip_document(const Container& container, std::size_t block_index, const Clip& edited,
                           const BlockEvidence* motion, const decode::ClipParts* original, const StoredKeys* stored,
                           const JsonExportOptions& options, std::string& out, const json_out::Sink* sink) {
  if (!names_are_utf8(edited))
    return make_error(ErrorCode::bad_value, no_offset, "json", "a bone name is not valid UTF-8");
  std::size_t keys = 0;
  for (const auto& b : edited.bones)
    keys += stored != nullptr && b.kind() == BoneKind::animated ? edited.key_count() : b.keys.size();
  unsigned threads = 1;
  if (keys >= options.parallel_min_keys) {
    threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
    threads = std::clamp(threads, 1u, 64u);
  }
  // In memory: about 45 characters a quaternion plus its codes; reserving avoids regrowing
  // (and copying) a large document. Through a sink: one flush's worth.
  const std::size_t reserve =
      sink != nullptr ? options.piece_size + 64 * 1024 : 4096 + 80 * keys + 8 * container.original_size;
  return write_document(out, sink, options.piece_size, reserve, [&](Writer& w) {
    head(w, block_index, options.version);
    w.key("clip");
    json_clip(w, edited, threads, stored);
    if (motion != nullptr && interchange::has_motion(*motion))
      w.key("motion"), interchange::write_motion(w, edited, *motion);
    if (original != nullptr)
      w.key("codes"), codes(w, original->constant_codes, original->rotations,
                            static_cast<std::uint32_t>(original->clip.key_count()), threads);
    w.key("container"), container_json(w, container);
  });
}

// A decoded (possibly edited) clip: the codes, when written, come from decoding the container
// rather than from `d`, since the container is the truth import checks them against.
Status write_decoded_document(const DecodedClip& d, const JsonExportOptions& options, std::string& out,
                              const json_out::Sink* sink) {
  if (d.block >= d.container.blocks.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "block",
                      "block " + std::to_string(d.block) + " does not exist");
  MAB_TRY(check_version(options));
  std::optional<decode::ClipParts> original;
  if (options.version == 1 || options.codes) {
    auto o = decode::decode_parts(d.container, d.block, default_limits, false, nullptr);
    if (!o) return std::move(o).error();
    original = std::move(o).value();
  }
  return write_clip_document(d.container, d.block, d.clip, &d.evidence, original ? &*original : nullptr, nullptr,
                             options, out, sink);
}

Status write_container_document(const Container& c, std::string_view reason, const JsonExportOptions& options,
                                std::string& out, const json_out::Sink* sink) {
  MAB_TRY(check_version(options));
  {
    std::string scratch;
    Writer check(scratch);
    if (!reason.empty() && !check.string(reason))
      return make_error(ErrorCode::bad_value, no_offset, "json", "text is not valid UTF-8");
  }
  const std::size_t reserve = sink != nullptr ? 256 * 1024 : 4096 + 3 * c.original_size;
  return write_document(out, sink, options.piece_size, reserve, [&](Writer& w) {
    head(w, 0, options.version);
    if (!reason.empty()) {
      w.key("clip_absent");
      w.string(reason);
    }
    w.key("container"), container_json(w, c);
  });
}

Status write_legacy_document(const Container& c, const LegacyClip& clip, const JsonExportOptions& options,
                             std::string& out, const json_out::Sink* sink) {
  if (clip.block >= c.blocks.size() || c.blocks[clip.block].legacy() == nullptr)
    return make_error(ErrorCode::invalid_argument, no_offset, "block",
                      "block " + std::to_string(clip.block) + " is not a legacy clip of this container");
  MAB_TRY(check_version(options));
  const std::size_t reserve = sink != nullptr ? options.piece_size + 64 * 1024 : 4096 + 16 * c.original_size;
  if (options.version >= 3) {
    const Clip tracks = clip_from_legacy(clip);
    const BlockEvidence evidence = legacy_evidence(clip);
    return write_document(out, sink, options.piece_size, reserve, [&](Writer& w) {
      head(w, clip.block, options.version);
      w.key("clip"), json_clip(w, tracks, 1, nullptr, true);
      if (interchange::has_motion(evidence)) w.key("motion"), interchange::write_motion(w, tracks, evidence);
      if (clip.tag_table || clip.events || !clip.tag_table_note.empty() || !clip.events_note.empty())
        w.key("legacy"), w.object([&] { legacy_tags_and_events(w, clip); });
      w.key("container"), container_json(w, c);
    });
  }
  return write_document(out, sink, options.piece_size, reserve, [&](Writer& w) {
    head(w, clip.block, options.version);
    w.key("legacy_clip"), legacy_clip(w, clip);
    w.key("container"), container_json(w, c);
  });
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
  if (auto st = write_decoded_document(d, options, out, nullptr); !st) return std::move(st).error();
  return out;
}

Status export_json(const DecodedClip& d, const JsonSink& sink, const JsonExportOptions& options) {
  std::string buffer;
  return write_decoded_document(d, options, buffer, &sink);
}

namespace {

Status write_block_document(const Container& c, std::size_t block, const JsonExportOptions& options, std::string& out,
                            const json_out::Sink* sink, JsonExportReport* report) {
  JsonExportReport scratch;
  JsonExportReport& r = report != nullptr ? *report : scratch;
  r = {};
  const bool opaque_zero = c.blocks.empty() && block == 0;
  if (block >= c.blocks.size() && !opaque_zero)
    return make_error(
        ErrorCode::invalid_argument, no_offset, "block",
        "block " + std::to_string(block) + " does not exist (the file has " + std::to_string(c.blocks.size()) + ")");
  MAB_TRY(check_version(options));
  if (!opaque_zero && c.blocks[block].legacy() != nullptr) {
    auto legacy = decode_legacy_clip(c, block);
    if (legacy) {
      r.clip = true;
      return write_legacy_document(c, *legacy, options, out, sink);
    }
    r.clip_absent = legacy.error().message();
  } else {
    const DecodeOptions decode_options;
    auto parts = decode::decode_parts(c, block, default_limits, false, &decode_options);
    if (parts) {
      r.clip = true;
      StoredKeys stored{parts->rotations, parts->bit_depths, static_cast<std::uint32_t>(parts->clip.key_count()), {}};
      stored.animated.resize(parts->clip.bones.size());
      std::size_t a = 0;
      for (std::size_t i = 0; i < parts->clip.bones.size(); ++i)
        if (parts->clip.bones[i].kind() == BoneKind::animated) stored.animated[i] = a++;
      const bool with_codes = options.version == 1 || options.codes;
      return write_clip_document(c, block, parts->clip, &parts->evidence, with_codes ? &*parts : nullptr, &stored,
                                 options, out, sink);
    }
    r.clip_absent = parts.error().message();
  }
  return write_container_document(c, r.clip_absent, options, out, sink);
}

}  // namespace

Result<std::string> export_block_json(const Container& c, std::size_t block, const JsonExportOptions& options,
                                      JsonExportReport* report) {
  std::string out;
  if (auto st = write_block_document(c, block, options, out, nullptr, report); !st) return std::move(st).error();
  return out;
}

Status export_block_json(const Container& c, std::size_t block, const JsonSink& sink, const JsonExportOptions& options,
                         JsonExportReport* report) {
  std::string buffer;
  return write_block_document(c, block, options, buffer, &sink, report);
}

Result<std::string> export_json(const Container& c, std::string_view reason, const JsonExportOptions& options) {
  std::string out;
  if (auto st = write_container_document(c, reason, options, out, nullptr); !st) return std::move(st).error();
  return out;
}

Status export_json(const Container& c, std::string_view reason, const JsonSink& sink,
                   const JsonExportOptions& options) {
  std::string buffer;
  return write_container_document(c, reason, options, buffer, &sink);
}

}  // namespace mab

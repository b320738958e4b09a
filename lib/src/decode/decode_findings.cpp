// What decoding a container finds (validate.hpp, validate_decode): every block decoded the way
// `mab export` decodes it, its refusals and its doubtful codes as findings for `mab verify` and
// `mab survey`. Structure is validate()'s; this is what only a decode shows.
#include <mab/decode_clip.hpp>
#include <mab/legacy.hpp>
#include <mab/text.hpp>
#include <mab/validate.hpp>

#include "container/clip_layout.hpp"
#include "io/bytes.hpp"

#include <cstdio>
#include <string>

namespace mab {

namespace {

// More than this many doubtful codes in a block are summed up in one finding, so a damaged
// file cannot flood the report.
constexpr std::size_t max_code_findings = 16;

struct Sink {
  std::vector<Finding>& out;
  int block;
  std::size_t codes = 0;  // doubtful codes seen in this block

  void add(Severity s, ErrorCode code, std::uint64_t offset, std::string field, std::string msg) {
    out.push_back({s, code, offset, std::move(field), std::move(msg), block});
  }
  void refused(const Error& e, const std::string& what) {
    add(Severity::warning, e.code, e.offset, e.field, what + ": " + e.detail);
  }
  // Format 9.1: a code whose 1 - a^2 - b^2 - c^2 < 0 holds no quaternion (the public FC2 readers
  // reject it; mabkit decodes the nearest unit one); decision 3: a third word with bit 15 set.
  void code(const Quat48& q, std::uint64_t offset, const std::string& field, const std::string& where) {
    const bool invalid = !quat48_valid(q), suspicious = quat48_suspicious(q);
    if (!invalid && !suspicious) return;
    if (++codes > max_code_findings) return;
    char text[64];
    std::snprintf(text, sizeof text, "%04X %04X %04X", q[0], q[1], q[2]);
    add(Severity::warning, ErrorCode::bad_value, offset, field,
        where + ": code " + text +
            (invalid ? " holds no valid quaternion (1 - a^2 - b^2 - c^2 < 0, format 9.1); decoded as the nearest unit "
                       "quaternion (docs/legacy.md)"
                     : ": third word has bit 15 set; decoded unsigned (decision 3)"));
  }
  void codes_summary(std::uint64_t offset) {
    if (codes > max_code_findings)
      add(Severity::warning, ErrorCode::bad_value, offset, "codes",
          std::to_string(codes - max_code_findings) + " more code(s) with no valid quaternion or bit 15 set");
  }
};

std::uint64_t section_offset(const Block& b, const PlacedBlock& pb, std::size_t slot, std::size_t at) {
  const int seg = slot < b.slot_segment.size() ? b.slot_segment[slot] : -1;
  return seg < 0 ? no_offset : pb.base + pb.segments[static_cast<std::size_t>(seg)].offset + at;
}

// Where keyed track t's key i lies in slot 3 (format 13, as decode_legacy_clip read it): its
// group's first codes, or after the group's presence bytes, the keys of the tracks before it.
std::size_t keyed_code_at(std::span<const std::uint8_t> s3, const LegacyClip& d, std::size_t t, std::size_t i) {
  const std::uint32_t f = d.rotations[t].frames[i], g = f >> 3, tracks = static_cast<std::uint32_t>(d.rotations.size());
  const std::size_t table = 8 + 4 * std::size_t{g};
  const std::size_t group = io::load_u32(s3, table);
  if (f == 8 * g) return group + 6 * t;
  std::size_t before = 0;
  for (std::size_t u = 0; u <= t; ++u)
    for (const auto k : d.rotations[u].frames) before += k > 8 * g && k < 8 * g + 8 && (u < t || k < f);
  return group + 7 * std::size_t{tracks} + (tracks & 1) + 6 * before;
}

// Format 13.5: the tag table's layout is the engine's (JB-DOC), so a table that does not read
// by it, a record whose clip offset reaches no clip start (import cannot make it follow a moved
// clip, decision 19) and a pointer slot that is not 0 on disk are warnings. The event chain's
// reading is a guess (decision 15): one that does not hold is information.
void check_legacy_tags(const Container& c, std::size_t k, const PlacedBlock& pb, Sink& s) {
  const Block& b = c.blocks[k];
  const auto tags = decode_legacy_tags(c, k);
  if (!tags) return;
  const std::string table = b.slot_field_name(6);
  if (!tags->tag_table_note.empty())
    s.add(Severity::warning, ErrorCode::not_decodable, section_offset(b, pb, 6, 0), table,
          "tag table does not decode (kept as bytes; the clip offsets of its records cannot follow clips that move "
          "when a clip is edited): " +
              tags->tag_table_note);
  std::size_t doubtful = 0;  // records reported, at most max_code_findings
  if (tags->tag_table) {
    const auto& records = *tags->tag_table;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::size_t at = 4 + legacy_tag_record_size * i;
      const std::string name = "tag record " + std::to_string(i);
      if ((records[i].clip_block < 0 || records[i].pointer_slot != 0) && ++doubtful > max_code_findings) continue;
      if (records[i].clip_block < 0)
        s.add(Severity::warning, ErrorCode::bad_value, section_offset(b, pb, 6, at + 0x0C), table,
              name + ": clip offset " + std::to_string(records[i].clip_offset) +
                  " from the record reaches no clip start (kept as stored; mab import cannot make it follow a clip "
                  "that moves)");
      if (records[i].pointer_slot != 0)
        s.add(Severity::warning, ErrorCode::bad_value, section_offset(b, pb, 6, at + 0xA8), table,
              name + ": pointer slot " + hex(records[i].pointer_slot, 8) +
                  " is not 0, as the engine's slots are on "
                  "disk (kept as stored)");
    }
  }
  if (doubtful > max_code_findings)
    s.add(Severity::warning, ErrorCode::bad_value, section_offset(b, pb, 6, 0), table,
          std::to_string(doubtful - max_code_findings) +
              " more tag record(s) reaching no clip start or with a "
              "pointer slot that is not 0");
  if (!tags->events_note.empty())
    s.add(Severity::info, ErrorCode::not_decodable, section_offset(b, pb, 7, 0), b.slot_field_name(7),
          "event chain kept as bytes: " + tags->events_note);
}

// Format 13: the clip's tracks as decode_legacy_clip reads them (docs/legacy.md, "What the
// decoder accepts"); a refusal keeps the clip as bytes, so it is a warning.
void check_legacy(const Container& c, std::size_t k, const PlacedBlock& pb, const Limits& limits, Sink& s) {
  const Block& b = c.blocks[k];
  auto d = decode_legacy_clip(c, k, limits);
  if (!d) {
    s.refused(d.error(), "the clip's tracks do not decode (kept as bytes; export writes the container only)");
    check_legacy_tags(c, k, pb, s);
    return;
  }
  auto f = [&](std::size_t slot) { return b.slot_field_name(slot); };
  for (std::size_t i = 0; i < d->trajectory_rotation_codes.size(); ++i)
    s.code(d->trajectory_rotation_codes[i], section_offset(b, pb, 1, 8 + 6 * i), f(1),
           "trajectory rotation frame " + std::to_string(i));
  for (std::size_t i = 0; i < d->constant_rotations.size(); ++i)
    s.code(d->constant_rotations[i].code, section_offset(b, pb, 2, 8 + 6 * i), f(2),
           "constant rotation of bone " + std::to_string(d->constant_rotations[i].bone));
  for (std::size_t ti = 0; ti < d->rotations.size(); ++ti) {
    const auto& t = d->rotations[ti];
    for (std::size_t i = 0; i < t.codes.size(); ++i)
      if (!quat48_valid(t.codes[i]) || quat48_suspicious(t.codes[i]))
        s.code(t.codes[i], section_offset(b, pb, 3, keyed_code_at(b.section(3), *d, ti, i)), f(3),
               "bone " + std::to_string(t.bone) + " key " + std::to_string(i) + " (frame " +
                   std::to_string(t.frames[i]) + ")");
  }
  s.codes_summary(pb.base);
  check_legacy_tags(c, k, pb, s);
}

// Format 9.4: keys play in time order; every edit and `mab diff` refuse times that do not
// increase, so a file holding them is one no command reads whole.
void check_key_order(const Block& b, const PlacedBlock& pb, const Clip& clip, Severity doubt, Sink& s) {
  const auto k = first_unordered_key(clip.key_times);
  const auto layout = container::clip_layout(b);
  if (!k || !layout) return;
  const std::uint64_t at = layout->key_times_slot >= 0
                               ? section_offset(b, pb, static_cast<std::size_t>(layout->key_times_slot), 2 * *k)
                           : pb.segments.empty() ? no_offset
                                                 : pb.base + pb.segments[0].offset + 2 * *k;
  s.add(doubt, ErrorCode::bad_value, at, "KeyTimes", check_key_times(clip.key_times).error().detail);
}

std::size_t constants_slot(const Block& b) {
  for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot)
    if (section_name(b, slot) == "JointConstantRotations") return slot;
  return b.slot_segment.size();
}

// Format 9, 10, 12: the rotations must decode; each other kind of data a block holds decodes
// under its reading or stays bytes (docs/motion.md). Far Cry 4's layout is unverified (decision 10): what
// does not decode there is information, not a warning.
void check_ani(const Container& c, std::size_t k, const PlacedBlock& pb, const Limits& limits, Sink& s) {
  const Block& b = c.blocks[k];
  const Severity doubt = b.fc4() != nullptr ? Severity::info : Severity::warning;
  DecodeOptions o;
  o.keys = false;  // every code is still read and checked
  auto d = decode_clip(c, k, o, limits);
  if (!d) {
    const Error& e = d.error();
    s.add(doubt, e.code, e.offset, e.field, "the rotations do not decode (the block is kept as bytes): " + e.detail);
    return;
  }
  check_key_order(b, pb, d->clip, doubt, s);
  const std::pair<const char*, const Evidence*> kinds[] = {
      {"translations (TranslationTable, JointTranslations)", &d->evidence.translations},
      {"constant translations (JointConstantTranslations)", &d->evidence.constant_translations},
      {"root rotations (DisplacementOrientations)", &d->evidence.root_rotations},
      {"root translations (DisplacementTranslations)", &d->evidence.root_translations},
      {"part clips", &d->evidence.parts}};
  for (const auto& [what, ev] : kinds)
    if (ev->level == EvidenceLevel::opaque)
      s.add(doubt, ErrorCode::not_decodable, pb.base, what, std::string("kept as bytes, not decoded: ") + ev->detail);
  std::size_t constant = 0;
  for (std::size_t i = 0; i < d->clip.bones.size() && constant < d->constant_codes.size(); ++i) {
    if (d->clip.bones[i].kind() != BoneKind::constant) continue;
    const Quat48 q = quat48_from_bytes(d->constant_codes[constant]);
    // decision 3 alone is validate()'s finding; a code with no quaternion is this one's.
    if (!quat48_valid(q))
      s.code(q, section_offset(b, pb, constants_slot(b), 6 * constant),
             "JointConstantRotations[" + std::to_string(constant) + "]",
             "bone " + std::to_string(i) + " (" + hex(d->clip.bones[i].hash, 8) + ")");
    ++constant;
  }
  for (std::size_t i = 0; i < d->motion.root_rotation_codes.size(); ++i)
    if (!quat48_valid(d->motion.root_rotation_codes[i]))
      s.code(d->motion.root_rotation_codes[i], no_offset, "DisplacementOrientations",
             "root rotation key " + std::to_string(i));
  s.codes_summary(pb.base);
}

}  // namespace

std::vector<Finding> validate_decode(const Container& c, const Limits& limits) {
  std::vector<Finding> out;
  if (c.is_opaque()) return out;  // validate() says why
  auto pl = place(c);
  if (!pl) return out;  // validate() reports it
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    Sink s{out, static_cast<int>(k)};
    if (c.blocks[k].legacy() != nullptr) check_legacy(c, k, pl->blocks[k], limits, s);
    else check_ani(c, k, pl->blocks[k], limits, s);
  }
  return out;
}

}  // namespace mab

// Translations, root motion and part entries of an 'aNi' block (format 10, 12; docs/motion.md).
//
// The public evidence is thin: one decoder reads a single-bone translation stream (format 10.1
// [code]); everything else is a [guess]. Each section is therefore tried against numbered
// hypotheses in a fixed order, and a hypothesis is taken only when the bytes prove it: the data
// fills the section up to zero padding, every count the format reference ties to it agrees, bit streams
// end exactly at their chunk boundaries, values are finite and plausible. A section no
// hypothesis fits stays opaque bytes (decision 8) and its evidence names every hypothesis's failure.
#include "decode/decode_motion.hpp"

#include <mab/text.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mab::decode {

std::optional<std::string> padding_problem(std::span<const std::uint8_t> rest) {
  if (rest.size() > max_padding)
    return std::to_string(rest.size()) + " bytes follow the data (padding is at most " + std::to_string(max_padding) +
           ")";
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (rest[i] != 0) return "byte " + std::to_string(i) + " after the data is not zero padding";
  return std::nullopt;
}

bool plausible_translation(float v) noexcept {
  const float m = std::fabs(v);
  return std::isfinite(v) && (m == 0.0f || (m >= 1e-20f && m <= 1e4f));
}

namespace {

// A section of the block: bytes, absolute offset, offset field name.
struct Section {
  bool present = false;
  std::span<const std::uint8_t> bytes;
  std::uint64_t at = no_offset;
  std::string field;
  std::string name;
};

Section section_of(const Block& b, const PlacedBlock& pb, int slot) {
  Section s;
  if (slot < 0 || static_cast<std::size_t>(slot) >= b.slot_segment.size()) return s;
  const int seg = b.slot_segment[static_cast<std::size_t>(slot)];
  if (seg < 0) return s;
  s.present = true;
  s.bytes = b.section(static_cast<std::size_t>(slot));
  s.at = pb.base + pb.segments[static_cast<std::size_t>(seg)].offset;
  s.field = b.slot_field_name(static_cast<std::size_t>(slot));
  s.name = std::string(section_name(b, static_cast<std::size_t>(slot)));
  return s;
}

// "m_dataCounts[i] = v, not n" when a count the format reference ties to the data is stated (non-zero)
// and disagrees; the labels are comments only (format 6), so 0 is read as "not stated".
std::optional<std::string> count_problem(const Block& b, std::size_t index, std::size_t n) {
  const auto* a = b.ani();
  if (!a || index >= a->data_counts.size()) return std::nullopt;
  const std::uint16_t v = a->data_counts[index];
  if (v == 0 || v == n) return std::nullopt;
  return "m_dataCounts[" + std::to_string(index) + "] = " + std::to_string(v) + ", not " + std::to_string(n);
}

std::string rule_text(TranslationBones r) {
  switch (r) {
    case TranslationBones::flag_0x40: return "the bones with flag bit 0x40";
    case TranslationBones::flag_0x80: return "the bones with flag bit 0x80";
    case TranslationBones::all_bones: break;
  }
  return "every bone";
}

std::vector<std::size_t> selected_bones(const Block& b, TranslationBones rule) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < b.bones.size(); ++i)
    if (translation_selected(rule, b.bones[i].flags)) out.push_back(i);
  return out;
}

struct Candidate {
  EvidenceLevel level;
  unsigned number;  // hypothesis number (0 for decoded)
  std::string what;
};

// "hypothesis 2 (what): reason; ..." for the opaque detail.
std::string failures_text(const std::vector<std::pair<Candidate, std::string>>& failures) {
  std::string out = "no reading fits: ";
  for (std::size_t i = 0; i < failures.size(); ++i) {
    const auto& [c, why] = failures[i];
    if (i) out += "; ";
    out += c.level == EvidenceLevel::decoded ? "public decoder's reading" : "hypothesis " + std::to_string(c.number);
    out += " (" + c.what + "): " + why;
  }
  return out;
}

Evidence strict_refusal(const std::string& what) {
  return {
      EvidenceLevel::opaque, 0,
      "{opt:strict_layout}: " + what + " is read only by hypotheses (a [guess] of the format reference), none tried"};
}

// --- TranslationTable + JointTranslations (format 10.1) ---

struct TranslationsRead {
  TranslationBones rule;
  std::vector<std::size_t> bones;
  std::vector<TranslationEntry> entries;
  TranslationStream stream;
  std::vector<std::vector<Vec3>> values;
};

std::optional<std::string> try_translations(const Block& b, const Section& table, const Section& stream,
                                            TranslationBones rule, std::uint32_t keys, const Limits& limits,
                                            TranslationsRead& out) {
  out.rule = rule;
  out.bones = selected_bones(b, rule);
  const std::size_t t = out.bones.size();
  if (t == 0) return "no bone is selected";
  if (table.bytes.size() < 4 * t)
    return table.name + " holds " + std::to_string(table.bytes.size()) + " bytes, " + std::to_string(t) +
           " bones need " + std::to_string(4 * t);
  if (auto p = padding_problem(table.bytes.subspan(4 * t))) return table.name + ": " + *p;
  if (auto p = count_problem(b, container::count_translations, t)) return *p;
  if (auto p = count_problem(b, container::count_translation_table, t)) return *p;
  out.entries.resize(t);
  for (std::size_t i = 0; i < t; ++i) {
    out.entries[i].raw = load_u32(table.bytes, 4 * i);
    const unsigned n = out.entries[i].bit_depth();
    if (n < 1 || n > 16)
      return table.name + " entry " + std::to_string(i) + " (" + hex_lower(out.entries[i].raw) +
             ") has interpolant bits " + std::to_string(n) + ", outside 1..16";
  }
  auto s = decode_translation_stream(stream.bytes, keys, out.entries, stream.at, limits);
  if (!s) return s.error().message();
  if (auto p = padding_problem(s->tail)) return stream.name + ": " + *p;
  auto v = decode_translations(*s, keys, out.entries);
  if (!v) return v.error().message();
  for (const auto& track : *v)
    for (const auto& x : track)
      for (float c : x)
        if (!std::isfinite(c)) return "a decoded value is not finite";
  out.stream = std::move(s).value();
  out.values = std::move(v).value();
  return std::nullopt;
}

void decode_translations_of(MotionOut& d, const Block& b, const PlacedBlock& pb, const container::MotionLayout& l,
                            const DecodeOptions& options, const Limits& limits) {
  Evidence& ev = d.evidence.translations;
  const Section stream = section_of(b, pb, l.translations);
  if (b.fc4()) {
    if (stream.present)
      ev = {EvidenceLevel::opaque, 0, "the Far Cry 4 layout names no TranslationTable slot (format 4.4, 16 (C8))"};
    return;
  }
  const Section table = section_of(b, pb, l.table);
  if (!table.present && !stream.present) return;
  if (!table.present || !stream.present) {
    ev = {EvidenceLevel::opaque, 0,
          std::string(table.present ? "JointTranslations" : "TranslationTable") + " is absent, the other present"};
    return;
  }
  const auto keys = static_cast<std::uint32_t>(d.clip.key_count());
  if (keys == 0) {
    ev = {EvidenceLevel::opaque, 0, "the clip has no keys for the stream's chunks"};
    return;
  }
  std::vector<std::pair<Candidate, TranslationBones>> cands;
  const bool fc5_single = b.ani() && b.ani()->shape == AniShape::fc5 && b.bones.size() == 1;
  if (fc5_single)
    cands.push_back({{EvidenceLevel::decoded, 0,
                      "format 10.1, the public decoder's case: a Far Cry 5 block of one bone, one table entry"},
                     TranslationBones::all_bones});
  if (!options.strict_layout) {
    cands.push_back({{EvidenceLevel::hypothesis, 1, rule_text(TranslationBones::flag_0x40) + ", in bone-table order"},
                     TranslationBones::flag_0x40});
    cands.push_back({{EvidenceLevel::hypothesis, 2, rule_text(TranslationBones::flag_0x80) + ", in bone-table order"},
                     TranslationBones::flag_0x80});
    if (!fc5_single)  // the same reading as the public decoder's for a single-bone block
      cands.push_back({{EvidenceLevel::hypothesis, 3, rule_text(TranslationBones::all_bones) + ", in bone-table order"},
                       TranslationBones::all_bones});
  }
  if (cands.empty()) {
    ev = strict_refusal("a translation stream of this block");
    return;
  }
  std::vector<std::pair<Candidate, std::string>> failures;
  for (std::size_t ci = 0; ci < cands.size(); ++ci) {
    const auto& [cand, rule] = cands[ci];
    TranslationsRead r;
    if (auto why = try_translations(b, table, stream, rule, keys, limits, r)) {
      failures.push_back({cand, *why});
      continue;
    }
    // The stream decodes the same for any bones of the same number: when a later rule picks
    // other bones and fits as well, the bytes do not say which bones move.
    for (std::size_t cj = ci + 1; cj < cands.size(); ++cj) {
      if (selected_bones(b, cands[cj].second) == r.bones) continue;
      TranslationsRead other;
      if (!try_translations(b, table, stream, cands[cj].second, keys, limits, other)) {
        ev = {EvidenceLevel::opaque, 0,
              "ambiguous: " + cand.what + " and hypothesis " + std::to_string(cands[cj].first.number) + " (" +
                  cands[cj].first.what + ") both fit the bytes with different bones"};
        return;
      }
    }
    ev.level = cand.level;
    ev.hypothesis = cand.number;
    std::string n_list;
    for (std::size_t i = 0; i < r.entries.size() && i < 4; ++i)
      n_list += (i ? "," : "") + std::to_string(r.entries[i].bit_depth());
    if (r.entries.size() > 4) n_list += ",...";
    ev.detail =
        (cand.level == EvidenceLevel::decoded ? cand.what
                                              : cand.what + ": " + std::to_string(r.bones.size()) + " bone(s)") +
        "; TranslationTable entries: " + std::to_string(r.entries.size()) + " (n " + n_list + "), " +
        std::to_string(r.stream.chunks.size()) + " chunk(s) consumed exactly" +
        (r.bones.size() > 1 ? "; the bone order inside the stream is not provable from the bytes" : "");
    d.motion.translation_bones = r.rule;
    d.motion.translation_table = std::move(r.entries);
    d.motion.translations = std::move(r.stream);
    for (std::size_t i = 0; i < r.bones.size(); ++i) d.clip.bones[r.bones[i]].translations = std::move(r.values[i]);
    return;
  }
  ev = {EvidenceLevel::opaque, 0,
        failures_text(failures) + (options.strict_layout ? " ({opt:strict_layout}: hypotheses not tried)" : "")};
}

// --- JointConstantTranslations (format 10.2: 3 x f32 per bone, FC2's layout, a guess) ---

void decode_constant_translations(MotionOut& d, const Block& b, const PlacedBlock& pb, const container::MotionLayout& l,
                                  const DecodeOptions& options) {
  Evidence& ev = d.evidence.constant_translations;
  const Section sec = section_of(b, pb, l.constant_translations);
  if (!sec.present) return;
  if (options.strict_layout) {
    ev = strict_refusal("JointConstantTranslations");
    return;
  }
  const std::pair<Candidate, TranslationBones> cands[] = {
      {{EvidenceLevel::hypothesis, 1, "3 x f32 per bone with flag bit 0x80, in bone-table order"},
       TranslationBones::flag_0x80},
      {{EvidenceLevel::hypothesis, 2, "3 x f32 per bone with flag bit 0x40, in bone-table order"},
       TranslationBones::flag_0x40},
  };
  auto fits = [&](const std::vector<std::size_t>& bones) -> std::optional<std::string> {
    const std::size_t n = bones.size();
    std::optional<std::string> why;
    if (n == 0) why = "no bone is selected";
    if (!why && sec.bytes.size() < 12 * n)
      why = "the section holds " + std::to_string(sec.bytes.size()) + " bytes, " + std::to_string(n) + " bones need " +
            std::to_string(12 * n);
    if (!why) why = padding_problem(sec.bytes.subspan(12 * n));
    if (!why) why = count_problem(b, container::count_constant_translations, n);
    for (std::size_t i = 0; !why && i < n; ++i) {
      if (!d.clip.bones[bones[i]].translations.empty())
        why = "bone " + std::to_string(bones[i]) + " already has an animated translation";
      for (unsigned j = 0; !why && j < 3; ++j)
        if (!plausible_translation(load_f32(sec.bytes, 12 * i + 4 * j)))
          why = "bone " + std::to_string(bones[i]) + " component " + std::to_string(j) + " (" +
                hex_lower(load_u32(sec.bytes, 12 * i + 4 * j)) + ") is not a plausible translation";
    }
    return why;
  };
  std::vector<std::pair<Candidate, std::string>> failures;
  for (std::size_t ci = 0; ci < std::size(cands); ++ci) {
    const auto& [cand, rule] = cands[ci];
    const auto bones = selected_bones(b, rule);
    const std::size_t n = bones.size();
    if (auto why = fits(bones)) {
      failures.push_back({cand, *why});
      continue;
    }
    for (std::size_t cj = ci + 1; cj < std::size(cands); ++cj) {
      const auto other = selected_bones(b, cands[cj].second);
      if (other != bones && !fits(other)) {
        ev = {EvidenceLevel::opaque, 0,
              "ambiguous: " + cand.what + " and hypothesis " + std::to_string(cands[cj].first.number) + " (" +
                  cands[cj].first.what + ") both fit the bytes with different bones"};
        return;
      }
    }
    ev = {EvidenceLevel::hypothesis, cand.number, cand.what + ": " + std::to_string(n) + " bone(s)"};
    d.motion.constant_bones = rule;
    for (std::size_t i = 0; i < n; ++i)
      d.clip.bones[bones[i]].constant_translation =
          Vec3{load_f32(sec.bytes, 12 * i), load_f32(sec.bytes, 12 * i + 4), load_f32(sec.bytes, 12 * i + 8)};
    return;
  }
  ev = {EvidenceLevel::opaque, 0, failures_text(failures)};
}

// --- Root motion (format 10.3: storage undocumented; FC2 stores dense per-frame arrays) ---

// The 6-byte code of a unit quaternion: its dropped component is the largest (format 9.1), so
// the three stored ones square-sum to at most 3/4 and none exceeds the reconstructed one.
std::optional<std::string> quat48_problem(const Quat48& w) {
  if (quat48_suspicious(w)) return "bit 15 of the third word is set (decision 3)";
  const auto value = [](std::uint32_t code) {
    return static_cast<double>(code) * double{quat48_step} - double{quat48_bias};
  };
  const double a = value(w[0] & 0x7FFFu), b = value(w[1] & 0x7FFFu), c = value(w[2]);
  const double s = a * a + b * b + c * c;
  // One quantum of slack per component (format 9.1 step sqrt(2)/32767).
  const double q = 2 * double{quat48_step};
  if (s > 0.75 + 3 * q)
    return "the stored components square-sum to " + std::to_string(s) + " (a unit code stays below 0.75)";
  const double dropped = std::sqrt(std::max(0.0, 1.0 - s));
  if (std::max({std::fabs(a), std::fabs(b), std::fabs(c)}) > dropped + q)
    return "a stored component is larger than the dropped one";
  return std::nullopt;
}

void decode_root_rotations(MotionOut& d, const Block& b, const PlacedBlock& pb, const container::MotionLayout& l,
                           const DecodeOptions& options) {
  Evidence& ev = d.evidence.root_rotations;
  const Section sec = section_of(b, pb, l.root_rotations);
  if (!sec.present) return;
  if (options.strict_layout) {
    ev = strict_refusal("DisplacementOrientations");
    return;
  }
  const std::size_t k = d.clip.key_count();
  std::vector<std::pair<Candidate, std::string>> failures;
  const Candidate h1{EvidenceLevel::hypothesis, 1, "one 6-byte quaternion (format 9.1) per stored key"};
  const Candidate h2{EvidenceLevel::hypothesis, 2, "one (x, y, z, w) f32 quaternion per stored key"};
  auto common = [&](std::size_t element) -> std::optional<std::string> {
    if (k == 0) return "the clip has no keys";
    if (sec.bytes.size() < element * k)
      return "the section holds " + std::to_string(sec.bytes.size()) + " bytes, " + std::to_string(k) + " keys need " +
             std::to_string(element * k);
    if (auto p = padding_problem(sec.bytes.subspan(element * k))) return p;
    return count_problem(b, container::count_root_rotations, k);
  };
  {
    auto why = common(6);
    std::vector<Quat48> codes;
    for (std::size_t i = 0; !why && i < k; ++i) {
      std::array<std::uint8_t, 6> raw;
      std::copy_n(sec.bytes.begin() + static_cast<std::ptrdiff_t>(6 * i), 6, raw.begin());
      codes.push_back(quat48_from_bytes(std::span<const std::uint8_t, 6>(raw)));
      if (auto p = quat48_problem(codes.back())) why = "key " + std::to_string(i) + ": " + *p;
    }
    if (!why) {
      ev = {EvidenceLevel::hypothesis, 1, h1.what + ": " + std::to_string(k) + " keys"};
      d.motion.root_rotation_layout = RootRotationLayout::quat48;
      d.clip.root_motion.rotations.clear();
      for (const auto& c : codes) d.clip.root_motion.rotations.push_back(decode_quat48(c));
      d.motion.root_rotation_codes = std::move(codes);
      return;
    }
    failures.push_back({h1, *why});
  }
  {
    auto why = common(16);
    std::vector<Quat> rots;
    for (std::size_t i = 0; !why && i < k; ++i) {
      Quat q{load_f32(sec.bytes, 16 * i), load_f32(sec.bytes, 16 * i + 4), load_f32(sec.bytes, 16 * i + 8),
             load_f32(sec.bytes, 16 * i + 12)};
      const double n2 = double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w;
      if (!std::isfinite(n2) || std::fabs(std::sqrt(n2) - 1.0) > 1e-3)
        why = "key " + std::to_string(i) + " is not a unit quaternion";
      rots.push_back(q);
    }
    if (!why) {
      ev = {EvidenceLevel::hypothesis, 2, h2.what + ": " + std::to_string(k) + " keys"};
      d.motion.root_rotation_layout = RootRotationLayout::f32x4;
      d.clip.root_motion.rotations = std::move(rots);
      return;
    }
    failures.push_back({h2, *why});
  }
  ev = {EvidenceLevel::opaque, 0, failures_text(failures)};
}

void decode_root_translations(MotionOut& d, const Block& b, const PlacedBlock& pb, const container::MotionLayout& l,
                              const DecodeOptions& options) {
  Evidence& ev = d.evidence.root_translations;
  const Section sec = section_of(b, pb, l.root_translations);
  if (!sec.present) return;
  if (options.strict_layout) {
    ev = strict_refusal("DisplacementTranslations");
    return;
  }
  const std::size_t k = d.clip.key_count();
  std::vector<std::pair<Candidate, std::string>> failures;
  const Candidate cands[] = {
      {EvidenceLevel::hypothesis, 1, "one (x, y, z) f32 per stored key"},
      {EvidenceLevel::hypothesis, 2, "one (x, y, z, w) f32 per stored key, w the same 0 or 1 throughout"}};
  for (const auto& cand : cands) {
    const std::size_t element = cand.number == 1 ? 12 : 16;
    std::optional<std::string> why;
    if (k == 0) why = "the clip has no keys";
    if (!why && sec.bytes.size() < element * k)
      why = "the section holds " + std::to_string(sec.bytes.size()) + " bytes, " + std::to_string(k) + " keys need " +
            std::to_string(element * k);
    if (!why) why = padding_problem(sec.bytes.subspan(element * k));
    if (!why) why = count_problem(b, container::count_root_translations, k);
    std::vector<Vec3> values;
    const std::uint32_t w_bits = !why && element == 16 ? load_u32(sec.bytes, 12) : 0;
    if (!why && element == 16 && w_bits != f32_bits(0.0f) && w_bits != f32_bits(1.0f))
      why = "the fourth float of key 0 is neither 0 nor 1";
    for (std::size_t i = 0; !why && i < k; ++i) {
      Vec3 v{load_f32(sec.bytes, element * i), load_f32(sec.bytes, element * i + 4),
             load_f32(sec.bytes, element * i + 8)};
      for (unsigned j = 0; !why && j < 3; ++j)
        if (!plausible_translation(v[j]))
          why = "key " + std::to_string(i) + " component " + std::to_string(j) + " (" +
                hex_lower(load_u32(sec.bytes, element * i + 4 * j)) + ") is not a plausible translation";
      if (!why && element == 16 && load_u32(sec.bytes, element * i + 12) != w_bits)
        why = "the fourth float of key " + std::to_string(i) + " differs from key 0's";
      values.push_back(v);
    }
    if (why) {
      failures.push_back({cand, *why});
      continue;
    }
    ev = {EvidenceLevel::hypothesis, cand.number, cand.what + ": " + std::to_string(k) + " keys"};
    d.motion.root_translation_layout = element == 12 ? RootTranslationLayout::f32x3 : RootTranslationLayout::f32x4;
    d.motion.root_translation_w_bits = w_bits;
    d.clip.root_motion.translations = std::move(values);
    return;
  }
  ev = {EvidenceLevel::opaque, 0, failures_text(failures)};
}

// --- Part animations (format 12, from an approximate decompile) ---

// A part array read under one header hypothesis: its entries, raw and decoded, and the nested
// offsets they hold.
struct PartEntries {
  std::uint64_t count = 0;
  std::vector<ClipPart> parts;
  std::vector<std::array<std::uint8_t, container::part_entry_size>> entries;
  std::vector<std::int32_t> nested;
};

// The count and the entries after a header of `head` bytes, or why they do not fit
// (part_problem: every time inside the clip, every type one of the editor's).
std::optional<std::string> read_part_entries(const Section& sec, std::size_t head, float duration, PartEntries& out) {
  if (sec.bytes.size() < head) return "the section holds " + std::to_string(sec.bytes.size()) + " bytes";
  out.count = load_u32(sec.bytes, 0);
  if (out.count == 0) return "the count is 0";
  if (out.count > (sec.bytes.size() - head) / container::part_entry_size)
    return "count " + std::to_string(out.count) + " needs " +
           std::to_string(head + container::part_entry_size * out.count) + " bytes, the section holds " +
           std::to_string(sec.bytes.size());
  if (auto p = padding_problem(sec.bytes.subspan(head + container::part_entry_size * out.count))) return p;
  for (std::size_t i = 0; i < out.count; ++i) {
    const std::size_t at = head + container::part_entry_size * i;
    std::array<std::uint8_t, container::part_entry_size> raw;
    std::copy_n(sec.bytes.begin() + static_cast<std::ptrdiff_t>(at), container::part_entry_size, raw.begin());
    ClipPart p;
    p.start = load_f32(raw, container::part_start_at);
    p.end = load_f32(raw, container::part_end_at);
    p.parent_hash = load_u32(raw, container::part_parent_at);
    p.attachment_hash = load_u32(raw, container::part_attachment_at);
    p.type = raw[container::part_type_at];
    if (auto problem = part_problem(p, duration)) return "entry " + std::to_string(i) + ": " + *problem;
    out.nested.push_back(static_cast<std::int32_t>(load_u32(raw, container::part_nested_at)));
    out.parts.push_back(p);
    out.entries.push_back(raw);
  }
  return std::nullopt;
}

// Nested CAnimData offsets (format 12: "measured from within the entry, so the exact base is
// uncertain"): the first base from which every non-zero offset lands exactly on another block
// of the file is taken, and each part names the block it lands on; none means the links are
// not proven.
std::optional<std::string> link_nested_blocks(const Placement& pl, std::size_t block, const Section& sec,
                                              PartHeader header, PartEntries& pe, NestedBase& base) {
  base = NestedBase::none;
  if (std::none_of(pe.nested.begin(), pe.nested.end(), [](std::int32_t v) { return v != 0; })) return std::nullopt;
  for (const NestedBase candidate : {NestedBase::entry, NestedBase::section, NestedBase::block}) {
    bool all = true;
    for (std::size_t i = 0; all && i < pe.nested.size(); ++i) {
      if (pe.nested[i] == 0) continue;
      const auto target =
          static_cast<std::int64_t>(container::nested_origin(candidate, header, pl.blocks[block].base, sec.at, i)) +
          pe.nested[i];
      int hit = -1;
      for (std::size_t k = 0; k < pl.blocks.size(); ++k)
        if (k != block && static_cast<std::int64_t>(pl.blocks[k].base) == target) hit = static_cast<int>(k);
      all = hit >= 0;
      pe.parts[i].nested_block = hit;
    }
    if (all) {
      base = candidate;
      return std::nullopt;
    }
  }
  for (auto& p : pe.parts) p.nested_block = -1;
  return "a nested offset lands on no block of the file from the entry, the array or the block base";
}

}  // namespace

std::optional<std::string> part_problem(const ClipPart& p, float duration) {
  // Times of a part lie in the clip: [0, duration], with float slack for a duration computed
  // in another precision.
  const double limit = std::isfinite(duration) && duration > 0 ? double{duration} * (1 + 1e-6) + 1e-6 : 1e-6;
  if (!std::isfinite(p.start) || !std::isfinite(p.end) || p.start < 0 || p.end < p.start || p.end > limit)
    return "times " + std::to_string(p.start) + ".." + std::to_string(p.end) + " s are not inside the clip's 0.." +
           std::to_string(duration) + " s";
  if (p.type < 1 || p.type > 8) return "type " + std::to_string(p.type) + " is outside the editor's PartEventType 1..8";
  return std::nullopt;
}

PartsRead read_parts(const Container& c, std::size_t block, const Placement& pl, float duration,
                     const DecodeOptions& options) {
  PartsRead out;
  const Block& b = c.blocks[block];
  const Section sec = section_of(b, pl.blocks[block], container::motion_layout(b).parts);
  if (!sec.present) return out;
  if (options.strict_layout) {
    out.evidence = strict_refusal("the part animation array");
    return out;
  }
  const Candidate cands[] = {{EvidenceLevel::hypothesis, 1, "u32 count, 12 bytes, 32-byte entries from +16"},
                             {EvidenceLevel::hypothesis, 2, "u32 count, 32-byte entries from +4"}};
  std::vector<std::pair<Candidate, std::string>> failures;
  for (const auto& cand : cands) {
    const PartHeader header = cand.number == 1 ? PartHeader::count_then_12 : PartHeader::count_only;
    PartEntries pe;
    NestedBase base = NestedBase::none;
    std::optional<std::string> why = read_part_entries(sec, container::part_header_size(header), duration, pe);
    if (!why) why = link_nested_blocks(pl, block, sec, header, pe, base);
    if (why) {
      failures.push_back({cand, *why});
      continue;
    }
    std::size_t linked = 0;
    for (const auto& p : pe.parts) linked += p.nested_block >= 0;
    const char* base_text = base == NestedBase::entry     ? "the entry"
                            : base == NestedBase::section ? "the array start"
                                                          : "the block base";
    out.evidence = {EvidenceLevel::hypothesis, cand.number,
                    cand.what + ": " + std::to_string(pe.count) + " part(s)" +
                        (linked ? ", " + std::to_string(linked) + " nested block(s), offsets from " + base_text : "")};
    out.header = header;
    out.base = base;
    out.parts = std::move(pe.parts);
    out.entries = std::move(pe.entries);
    return out;
  }
  out.evidence = {EvidenceLevel::opaque, 0, failures_text(failures)};
  return out;
}

void decode_motion(const Container& c, std::size_t block, const Placement& pl, MotionOut d,
                   const DecodeOptions& options, const Limits& limits) {
  const Block& b = c.blocks[block];
  const PlacedBlock& pb = pl.blocks[block];
  const container::MotionLayout l = container::motion_layout(b);
  decode_translations_of(d, b, pb, l, options, limits);
  if (!b.ani()) return;
  decode_constant_translations(d, b, pb, l, options);
  decode_root_rotations(d, b, pb, l, options);
  decode_root_translations(d, b, pb, l, options);
  PartsRead parts = read_parts(c, block, pl, d.clip.duration, options);
  d.evidence.parts = std::move(parts.evidence);
  d.motion.part_header = parts.header;
  d.motion.nested_base = parts.base;
  d.motion.part_entries = std::move(parts.entries);
  d.clip.parts = std::move(parts.parts);
}

}  // namespace mab::decode

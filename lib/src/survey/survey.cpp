// One file's survey and the aggregates (survey.hpp, docs/survey.md).
#include <mab/survey.hpp>

#include <mab/decode_clip.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>
#include <mab/text.hpp>
#include <mab/validate.hpp>

#include "decode/decode_motion.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace mab::survey {

namespace {

// Power-of-two buckets, zero-padded so they sort: "0004-0007".
std::string log_bucket(std::uint64_t v) {
  char buf[40];
  if (v == 0) return "0";
  std::uint64_t lo = 1;
  while (lo * 2 <= v) lo *= 2;
  if (lo == 1) return "0001";
  std::snprintf(buf, sizeof buf, "%04llu-%04llu", static_cast<unsigned long long>(lo),
                static_cast<unsigned long long>(2 * lo - 1));
  return buf;
}

std::string duration_bucket(double s) {
  if (!std::isfinite(s)) return "not finite";
  if (s < 0) return "negative";
  static constexpr double edges[] = {0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128};
  double lo = 0;
  for (const double e : edges) {
    if (s < e) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%06.2f-%06.2f", lo, e);
      return buf;
    }
    lo = e;
  }
  return "128.00 or more";
}

void fail(FileResult& r, const char* stage, const Error& e, Stats& stats) {
  if (!r.first_error.empty()) return;
  r.first_error = std::string(stage) + ": " + e.message();
  r.error_code = std::string(to_string(e.code));
  stats.at(h::errors).add(std::string(stage) + " " + r.error_code, r.path);
}

void block_stats(const Container& c, const Block& b, const std::string& path, Stats& stats) {
  const std::string v(c.variant->short_name);
  for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
    const int seg = b.slot_segment[slot];
    if (seg < 0) continue;
    const auto size = b.segments[static_cast<std::size_t>(seg)].bytes.size();
    const std::string name(section_name(b, slot));
    char key[96];
    std::snprintf(key, sizeof key, "%s slot %02zu %s", v.c_str(), slot, name.c_str());
    stats.at(h::sections).add(key, path, size);
  }
  if (const auto* a = b.ani()) {
    stats.at(h::ani_flags).add(v + " " + hex(a->flags, 2), path);
    const unsigned high = a->bone_count_field & ~unsigned{a->bone_count_mask()} & 0xFFFFu;
    stats.at(h::count_high).add(v + " " + hex(high, 4), path);
    for (std::size_t i = 0; i < a->data_counts.size(); ++i) {
      const unsigned n = a->data_counts[i];
      char key[64];
      std::snprintf(key, sizeof key, "%s [%zu] %s", v.c_str(), i,
                    n < 16 ? std::to_string(n).c_str() : log_bucket(n).c_str());
      stats.at(h::data_counts, 512).add(key, path);
    }
  } else if (const auto* f = b.fc4()) {
    stats.at(h::ani_flags).add(v + " " + hex(f->flags, 2), path);
  }
  for (const auto& bone : b.bones) stats.at(h::bone_flags).add(v + " " + hex(bone.flags, 2), path);
}

// Format 9 and 4: what a decoded block must look like if its layout was read right.
std::string sanity_of(const DecodedClip& d, const Options& o) {
  const Clip& clip = d.clip;
  if (const auto times = check_key_times(clip.key_times); !times) return times.error().detail;
  auto unit = [&](const Quat& q) {
    const double n = std::sqrt(double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w);
    return std::abs(n - 1.0) <= o.unit_tolerance;
  };
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto& b = clip.bones[i];
    if (b.kind() == BoneKind::constant && !unit(b.constant))
      return "bone " + std::to_string(i) + ": the constant rotation is not a unit quaternion";
    for (std::size_t k = 0; k < b.keys.size(); ++k)
      if (!unit(b.keys[k]))
        return "bone " + std::to_string(i) + " key " + std::to_string(k) + ": not a unit quaternion";
  }
  for (std::size_t i = 0; i < d.constant_codes.size(); ++i)
    if (!quat48_valid(quat48_from_bytes(d.constant_codes[i])))
      return "constant " + std::to_string(i) + ": a code with no valid quaternion";
  // Format 9.4: the duration is the last key's time (WD1: 340 ticks / 2.8333 s = 120/s).
  if (!clip.key_times.empty() && clip.key_rate > 0) {
    const double last = clip.key_times.back() / clip.key_rate;
    if (!std::isfinite(clip.duration) || std::abs(clip.duration - last) > 1.0 / clip.key_rate + 1e-6)
      return "duration " + std::to_string(clip.duration) + " s disagrees with the last key at " + std::to_string(last) +
             " s";
  }
  return {};
}

// Format 13: every stored code holds a quaternion, and the header's duration is lastFrame / rate
// or (lastFrame + 1) / rate (docs/legacy.md, Trims), within a frame.
std::string legacy_sanity_of(const LegacyClip& d) {
  for (std::size_t i = 0; i < d.constant_rotations.size(); ++i)
    if (!quat48_valid(d.constant_rotations[i].code))
      return "bone " + std::to_string(d.constant_rotations[i].bone) + " constant: a code with no valid quaternion";
  for (const auto& t : d.rotations)
    for (std::size_t k = 0; k < t.codes.size(); ++k)
      if (!quat48_valid(t.codes[k]))
        return "bone " + std::to_string(t.bone) + " key " + std::to_string(k) + ": a code with no valid quaternion";
  for (std::size_t f = 0; f < d.trajectory_rotation_codes.size(); ++f)
    if (!quat48_valid(d.trajectory_rotation_codes[f]))
      return "trajectory frame " + std::to_string(f) + ": a code with no valid quaternion";
  if (d.frame_rate > 0) {
    const double rate = d.frame_rate, last = d.last_frame / rate;
    if (!std::isfinite(d.duration) || std::abs(d.duration - last) > 1.0 / rate + 1e-6)
      return "duration " + std::to_string(d.duration) + " s disagrees with lastFrame " + std::to_string(d.last_frame) +
             " at " + std::to_string(d.frame_rate) + " fps";
  }
  return {};
}

std::string sanity_kind(const std::string& why) {
  if (why.rfind("key times", 0) == 0) return "key times do not increase";
  if (why.rfind("duration", 0) == 0) return "duration disagrees with the last key";
  if (why.find("no valid quaternion") != std::string::npos) return "a code with no valid quaternion";
  return "not a unit quaternion";
}

// A refusal's text as a histogram value: numbers become N, so one check is one value.
std::string reason_key(const std::string& detail) {
  std::string out;
  for (const char ch : detail) {
    if (ch >= '0' && ch <= '9') {
      if (out.empty() || out.back() != 'N') out += 'N';
    } else {
      out += ch;
    }
  }
  return out;
}

std::string level_text(const Evidence& e) {
  switch (e.level) {
    case EvidenceLevel::decoded: return "decoded";
    case EvidenceLevel::hypothesis: return "hypothesis " + std::to_string(e.hypothesis);
    case EvidenceLevel::opaque: return "opaque";
    case EvidenceLevel::absent: break;
  }
  return "absent";
}

bool json_selected(const std::string& path, const Options& o) {
  if (o.json_every == 0) return false;
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a of the path
  for (const char ch : path) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h % o.json_every == 0;
}

void check_round_trip(const Container& c, std::span<const std::uint8_t> bytes, FileResult& r, Stats& stats) {
  auto written = write_container(c);
  if (!written) {
    fail(r, "write", written.error(), stats);
  } else if (std::equal(written->begin(), written->end(), bytes.begin(), bytes.end())) {
    r.round_trip = true;
    ++stats.round_trips;
  } else {
    std::size_t at = 0;
    while (at < written->size() && at < bytes.size() && (*written)[at] == bytes[at]) ++at;
    fail(r, "round trip", make_error(ErrorCode::round_trip_mismatch, at, "bytes", "the written file differs"), stats);
  }
}

// One parsed file's decode statistics, block by block, as `mab export` decodes them: 'aNi'
// clips with their translations, root motion and part clips (docs/motion.md), Far Cry 2/3 clips
// with their tracks, tag table and event chain (format 13).
struct FileSurvey {
  FileResult& r;
  Stats& stats;
  const Options& o;
  const Container& c;
  std::span<const std::uint8_t> bytes;
  bool json_check = false;
  bool json_ok = true;
  std::vector<std::vector<bool>> decoded_slots;  // per block: slots whose contents decoded

  // A JSON document (of a block, or of the container alone) must import to the file's bytes.
  void check_json(const Result<std::string>& text) {
    auto back = text ? import_json_bytes(*text, o.limits) : Result<JsonImport>(text.error());
    if (back && std::equal(back->bytes.begin(), back->bytes.end(), bytes.begin(), bytes.end())) return;
    json_ok = false;
    fail(r, "json",
         back ? make_error(ErrorCode::round_trip_mismatch, no_offset, "json", "export + import gives other bytes")
              : back.error(),
         stats);
  }

  void insane(std::size_t bi, const std::string& why, const std::string& kind) {
    r.sane = false;
    if (r.sanity.empty()) r.sanity = "block " + std::to_string(bi) + ": " + why;
    stats.at(h::sanity).add(r.variant + " " + kind, r.path);
  }

  void mark(std::size_t bi, int slot) {
    if (slot >= 0 && static_cast<std::size_t>(slot) < decoded_slots[bi].size())
      decoded_slots[bi][static_cast<std::size_t>(slot)] = true;
  }

  void ani_block(std::size_t bi) {
    const Block& b = c.blocks[bi];
    decoded_slots[bi].assign(b.slot_segment.size(), false);
    auto d = decode_clip(c, bi, o.limits);
    if (!d) {
      // Layouts whose rotations are not specified are not failures; broken streams are.
      if (d.error().code == ErrorCode::not_decodable) {
        stats.at(h::not_decoded).add(r.variant + ": " + d.error().detail, r.path);
      } else {
        insane(bi, d.error().message(), std::string(to_string(d.error().code)));
        fail(r, "decode", d.error(), stats);
      }
      return;
    }
    ++r.decoded_blocks;
    if (const std::string why = sanity_of(*d, o); !why.empty()) insane(bi, why, sanity_kind(why));
    const Clip& clip = d->clip;
    stats.at(h::key_counts).add(r.variant + " " + log_bucket(clip.key_count()), r.path);
    stats.at(h::durations).add(r.variant + " " + duration_bucket(clip.duration), r.path);
    for (const auto& bone : clip.bones)
      if (bone.kind() == BoneKind::animated)
        stats.at(h::bit_depths)
            .add(r.variant + " " + (bone.bit_depth() < 10 ? "0" : "") + std::to_string(bone.bit_depth()), r.path);
    auto& cf = stats.at(h::cflags);
    for (const auto& chunk : d->rotations.chunks)
      for (const auto& codes : chunk) cf.add(hex(codes.cflags, 2), r.path);
    // Translations, root motion and part clips (docs/motion.md): decoded where their evidence is accepted.
    const auto l = container::motion_layout(b);
    const std::pair<const char*, std::pair<const Evidence*, std::array<int, 2>>> kinds[] = {
        {"translations", {&d->evidence.translations, {l.table, l.translations}}},
        {"constant translations", {&d->evidence.constant_translations, {l.constant_translations, -1}}},
        {"root rotations", {&d->evidence.root_rotations, {l.root_rotations, -1}}},
        {"root translations", {&d->evidence.root_translations, {l.root_translations, -1}}},
        {"part clips", {&d->evidence.parts, {l.parts, -1}}}};
    for (const auto& [what, ev] : kinds) {
      if (ev.first->level == EvidenceLevel::absent) continue;
      stats.at(h::evidence).add(r.variant + " " + what + ": " + level_text(*ev.first), r.path);
      if (ev.first->accepted())
        for (const int slot : ev.second) mark(bi, slot);
    }
    // Nested blocks (part clips, format 12) are in the file's document already.
    if (json_check && b.parent < 0) check_json(export_json(*d));
  }

  void legacy_block(std::size_t bi) {
    const Block& b = c.blocks[bi];
    decoded_slots[bi].assign(b.slot_segment.size(), false);
    auto d = decode_legacy_clip(c, bi, o.limits);
    if (!d) {
      // Format 13's consistency checks: the clip stays bytes, with the reason.
      stats.at(h::not_decoded).add(r.variant + ": " + d.error().field + ": " + reason_key(d.error().detail), r.path);
      return;
    }
    ++r.decoded_blocks;
    if (const std::string why = legacy_sanity_of(*d); !why.empty()) insane(bi, why, sanity_kind(why));
    stats.at(h::key_counts).add(r.variant + " " + log_bucket(std::size_t{d->last_frame} + 1), r.path);
    stats.at(h::durations).add(r.variant + " " + duration_bucket(d->duration), r.path);
    for (std::size_t slot = 0; slot < 6; ++slot) mark(bi, d->present[slot] ? static_cast<int>(slot) : -1);
    if (d->tag_table) mark(bi, 6);
    if (d->events) mark(bi, 7);
    for (std::size_t slot = 0; slot < 8 && slot < b.slot_segment.size(); ++slot) {
      if (b.slot_segment[slot] < 0) continue;
      const bool done = decoded_slots[bi][slot];
      stats.at(h::evidence)
          .add(r.variant + " " + std::string(section_name(b, slot)) + ": " + (done ? "decoded" : "opaque"), r.path);
    }
    if (json_check) check_json(export_json(c, *d));
  }

  // Sections nothing decodes: everything but KeyTimes, the rotations, the bone tables and what
  // the block's decode accepted (format 17).
  void opaque_sections() {
    for (std::size_t bi = 0; bi < c.blocks.size(); ++bi) {
      const Block& b = c.blocks[bi];
      for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
        const int seg = b.slot_segment[slot];
        if (seg < 0 || (slot < decoded_slots[bi].size() && decoded_slots[bi][slot])) continue;
        const std::string name(section_name(b, slot));
        if (name == "KeyTimes" || name == "JointConstantRotations" || name == "JointRotations" || name == "BoneFlags" ||
            name == "BoneHashes" || name == "ChainedClip")
          continue;
        stats.at(h::opaque).add(r.variant + " " + name, r.path, b.segments[static_cast<std::size_t>(seg)].bytes.size());
      }
    }
    if (c.is_opaque()) stats.at(h::opaque).add(r.variant + " (whole body)", r.path, c.opaque_body.size());
  }
};

}  // namespace

void Histogram::add(const std::string& value, const std::string& path, std::uint64_t bytes) {
  ++total;
  auto it = buckets.find(value);
  if (it == buckets.end()) {
    if (buckets.size() >= max_values) it = buckets.try_emplace("(other)").first;
    else it = buckets.try_emplace(value).first;
  }
  ++it->second.count;
  it->second.bytes += bytes;
  if (it->second.examples.size() < 3) it->second.examples.push_back(path);
}

void Histogram::merge(const Histogram& other) {
  total += other.total;
  for (const auto& [value, b] : other.buckets) {
    auto it = buckets.find(value);
    if (it == buckets.end()) {
      if (buckets.size() >= max_values && value != "(other)") it = buckets.try_emplace("(other)").first;
      else it = buckets.try_emplace(value).first;
    }
    it->second.count += b.count;
    it->second.bytes += b.bytes;
    for (const auto& e : b.examples)
      if (it->second.examples.size() < 3) it->second.examples.push_back(e);
  }
}

Histogram& Stats::at(const std::string& name, std::size_t max_values) {
  auto [it, added] = histograms.try_emplace(name);
  if (added) it->second.max_values = max_values;
  return it->second;
}

void Stats::merge(const Stats& o) {
  files += o.files, bytes += o.bytes, round_trips += o.round_trips, parsed += o.parsed, sane += o.sane;
  blocks += o.blocks, decoded_blocks += o.decoded_blocks;
  json_ok += o.json_ok, json_checked += o.json_checked;
  for (const auto& [name, hist] : o.histograms) at(name, hist.max_values).merge(hist);
}

FileResult unreadable(const std::string& path, const Error& why, Stats& stats) {
  FileResult r;
  r.path = path;
  r.sane = false;
  r.first_error = "read: " + why.message();
  r.error_code = std::string(to_string(why.code));
  ++stats.files;
  stats.at(h::errors).add("read " + r.error_code, path);
  stats.at(h::variants).add("(unreadable)", path);
  return r;
}

FileResult survey_file(std::span<const std::uint8_t> bytes, const std::string& path, Stats& stats, const Options& o) {
  FileResult r;
  r.path = path;
  r.size = bytes.size();
  ++stats.files;
  stats.bytes += bytes.size();
  auto variant = detect_variant(bytes);
  if (!variant) {
    stats.at(h::variants).add("unknown", path, bytes.size());
    fail(r, "detect", variant.error(), stats);
    r.sane = false;
    return r;
  }
  r.variant = std::string((*variant)->short_name);
  r.confidence = std::string(to_string((*variant)->confidence));
  stats.at(h::variants).add(r.variant, path, bytes.size());
  if (bytes.size() >= 16) {
    char key[24];
    std::snprintf(key, sizeof key, "%02X%02X%02X%02X%02X%02X%02X%02X", bytes[8], bytes[9], bytes[10], bytes[11],
                  bytes[12], bytes[13], bytes[14], bytes[15]);
    stats.at(h::reserved, 64).add(r.variant + " " + key, path);
  }
  auto c = read_container(bytes, o.limits);
  if (!c) {
    fail(r, "parse", c.error(), stats);
    r.sane = false;
    return r;
  }
  r.parsed = true;
  ++stats.parsed;
  check_round_trip(*c, bytes, r, stats);
  // The findings `mab verify` prints: structure, then what decoding finds.
  auto findings = validate(*c, o.limits);
  for (auto& f : validate_decode(*c, o.limits)) findings.push_back(std::move(f));
  for (const auto& f : findings) {
    if (f.severity == Severity::error) {
      ++r.errors;
      if (r.first_error.empty()) fail(r, "validate", make_error(f.code, f.offset, f.field, f.message), stats);
    } else if (f.severity == Severity::warning) {
      ++r.warnings;
    }
  }
  r.blocks = c->blocks.size();
  stats.blocks += r.blocks;
  for (const auto& b : c->blocks) block_stats(*c, b, path, stats);

  FileSurvey fs{r, stats, o, *c, bytes, json_selected(path, o), true, {}};
  fs.decoded_slots.resize(c->blocks.size());
  for (std::size_t bi = 0; bi < c->blocks.size(); ++bi) {
    if (c->blocks[bi].legacy() != nullptr) fs.legacy_block(bi);
    else fs.ani_block(bi);
  }
  stats.decoded_blocks += r.decoded_blocks;
  // Container-only documents for files whose clips do not decode.
  if (fs.json_check && r.decoded_blocks == 0) fs.check_json(export_json(*c, "survey"));
  if (fs.json_check) {
    r.json_identity = fs.json_ok;
    ++stats.json_checked;
    stats.json_ok += fs.json_ok;
  }
  if (r.sane) ++stats.sane;
  fs.opaque_sections();
  return r;
}

}  // namespace mab::survey

// One file's survey and the aggregates (survey.hpp, docs/survey.md).
#include <mab/survey.hpp>

#include <mab/codec_file.hpp>
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mab::survey {

namespace {

std::string hex2(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", v);
  return buf;
}

std::string hex4(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", v);
  return buf;
}

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
    stats.at(h::ani_flags).add(v + " " + hex2(a->flags), path);
    const unsigned high = a->bone_count_field & ~unsigned{a->bone_count_mask()} & 0xFFFFu;
    stats.at(h::count_high).add(v + " " + hex4(high), path);
    for (std::size_t i = 0; i < a->data_counts.size(); ++i) {
      const unsigned n = a->data_counts[i];
      char key[64];
      std::snprintf(key, sizeof key, "%s [%zu] %s", v.c_str(), i, n < 16 ? std::to_string(n).c_str() : log_bucket(n).c_str());
      stats.at(h::data_counts, 512).add(key, path);
    }
  } else if (const auto* f = b.fc4()) {
    stats.at(h::ani_flags).add(v + " " + hex2(f->flags), path);
  }
  for (const auto& bone : b.bones) stats.at(h::bone_flags).add(v + " " + hex2(bone.flags), path);
}

// Spec 9 and 4: what a decoded block must look like if its layout was read right.
std::string sanity_of(const DecodedClip& d, const Options& o) {
  const Clip& clip = d.clip;
  for (std::size_t k = 1; k < clip.key_count(); ++k)
    if (clip.key_times[k] <= clip.key_times[k - 1])
      return "key times do not increase at key " + std::to_string(k);
  auto unit = [&](const Quat& q) {
    const double n = std::sqrt(double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w);
    return std::abs(n - 1.0) <= o.unit_tolerance;
  };
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto& b = clip.bones[i];
    if (b.kind() == BoneKind::constant && !unit(b.constant))
      return "bone " + std::to_string(i) + ": the constant rotation is not a unit quaternion";
    for (std::size_t k = 0; k < b.keys.size(); ++k)
      if (!unit(b.keys[k])) return "bone " + std::to_string(i) + " key " + std::to_string(k) + ": not a unit quaternion";
  }
  // Spec 9.4: the duration is the last key's time (WD1: 340 ticks / 2.8333 s = 120/s).
  if (!clip.key_times.empty() && clip.key_rate > 0) {
    const double last = clip.key_times.back() / clip.key_rate;
    if (!std::isfinite(clip.duration) || std::abs(clip.duration - last) > 1.0 / clip.key_rate + 1e-6)
      return "duration " + std::to_string(clip.duration) + " s disagrees with the last key at " + std::to_string(last) + " s";
  }
  return {};
}

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
  auto written = write_container(*c);
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
  const auto findings = validate(*c, o.limits);
  for (const auto& f : findings) {
    if (f.severity == Severity::error) {
      ++r.errors;
      if (r.first_error.empty()) fail(r, "validate", make_error(f.code, f.offset, f.field, f.message), stats);
    } else if (f.severity == Severity::warning) {
      ++r.warnings;
    }
  }
  r.blocks = c->blocks.size();
  for (const auto& b : c->blocks) block_stats(*c, b, path, stats);

  bool json_check = false;
  if (o.json_every > 0) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a of the path
    for (const char ch : path) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
    json_check = h % o.json_every == 0;
  }
  bool json_ok = true;
  // A JSON document (of a block, or of the container alone) must import to the file's bytes.
  auto check_json = [&](const Result<std::string>& text) {
    auto back = text ? import_json_bytes(*text, o.limits) : Result<JsonImport>(text.error());
    if (back && std::equal(back->bytes.begin(), back->bytes.end(), bytes.begin(), bytes.end())) return;
    json_ok = false;
    fail(r, "json",
         back ? make_error(ErrorCode::round_trip_mismatch, no_offset, "json", "export + import gives other bytes")
              : back.error(),
         stats);
  };
  for (std::size_t bi = 0; bi < c->blocks.size(); ++bi) {
    if (c->blocks[bi].parent >= 0) continue;
    auto d = decode_clip(*c, bi, o.limits);
    if (!d) {
      // Layouts whose rotations are not specified are not failures; broken streams are.
      if (d.error().code == ErrorCode::not_decodable) {
        stats.at(h::not_decoded).add(r.variant + ": " + d.error().detail, path);
      } else {
        r.sane = false;
        if (r.sanity.empty()) r.sanity = "block " + std::to_string(bi) + ": " + d.error().message();
        stats.at(h::sanity).add(r.variant + " " + std::string(to_string(d.error().code)), path);
        fail(r, "decode", d.error(), stats);
      }
      continue;
    }
    ++r.decoded_blocks;
    const std::string why = sanity_of(*d, o);
    if (!why.empty()) {
      r.sane = false;
      if (r.sanity.empty()) r.sanity = "block " + std::to_string(bi) + ": " + why;
      const char* kind = why.rfind("key times", 0) == 0 ? "key times do not increase"
                         : why.rfind("duration", 0) == 0  ? "duration disagrees with the last key"
                                                          : "not a unit quaternion";
      stats.at(h::sanity).add(r.variant + " " + kind, path);
    }
    const Clip& clip = d->clip;
    stats.at(h::key_counts).add(r.variant + " " + log_bucket(clip.key_count()), path);
    stats.at(h::durations).add(r.variant + " " + duration_bucket(clip.duration), path);
    for (const auto& bone : clip.bones)
      if (bone.kind() == BoneKind::animated) stats.at(h::bit_depths).add(r.variant + " " + (bone.bit_depth() < 10 ? "0" : "") + std::to_string(bone.bit_depth()), path);
    auto& cf = stats.at(h::cflags);
    for (const auto& chunk : d->rotations.chunks)
      for (const auto& codes : chunk) cf.add(hex2(codes.cflags), path);
    if (json_check) check_json(export_json(*d));
  }
  // Container-only documents for files whose rotations do not decode.
  if (json_check && r.decoded_blocks == 0) check_json(export_json(*c, "survey"));
  if (json_check) {
    r.json_identity = json_ok;
    ++stats.json_checked;
    stats.json_ok += json_ok;
  }
  if (r.sane) ++stats.sane;
  // Sections nobody decodes yet: everything but KeyTimes and the rotations (spec 17).
  for (std::size_t bi = 0; bi < c->blocks.size(); ++bi) {
    const Block& b = c->blocks[bi];
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
      const int seg = b.slot_segment[slot];
      if (seg < 0) continue;
      const std::string name(section_name(b, slot));
      if (name == "KeyTimes" || name == "JointConstantRotations" || name == "JointRotations" || name == "BoneFlags" ||
          name == "BoneHashes")
        continue;
      stats.at(h::opaque).add(r.variant + " " + name, path, b.segments[static_cast<std::size_t>(seg)].bytes.size());
    }
  }
  if (c->is_opaque()) stats.at(h::opaque).add(r.variant + " (whole body)", path, c->opaque_body.size());
  return r;
}

}  // namespace mab::survey

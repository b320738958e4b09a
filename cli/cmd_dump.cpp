// `mab dump FILE`: the decoded rotations as a table, key by key.
#include "command.hpp"
#include "common.hpp"
#include "fixed_text.hpp"

#include <mab/file_io.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>
#include <mab/text.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

std::string label(const mab::ClipBone& b) { return b.name.empty() ? mab::hex(b.hash, 8) : b.name; }

std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// A bone is named by its name, by a name whose CRC-32 is its hash (decision 11), or by the hash.
bool bone_matches(const mab::ClipBone& b, const std::string& arg) {
  if (!b.name.empty() && b.name == arg) return true;
  if (b.hash == mab::bone_hash(arg)) return true;
  const auto n = parse_number(arg);
  return n && *n == b.hash;
}

struct KeyRange {
  std::size_t first = 0, last = ~std::size_t{0};
};

// "A:B" (inclusive), "A:", ":B" or "A".
std::optional<KeyRange> parse_range(const std::string& s) {
  KeyRange r;
  const auto colon = s.find(':');
  const std::string a = colon == std::string::npos ? s : s.substr(0, colon);
  const std::string b = colon == std::string::npos ? s : s.substr(colon + 1);
  if (!a.empty()) {
    const auto v = parse_number(a);
    if (!v) return std::nullopt;
    r.first = static_cast<std::size_t>(*v);
  }
  if (!b.empty()) {
    const auto v = parse_number(b);
    if (!v) return std::nullopt;
    r.last = static_cast<std::size_t>(*v);
  }
  if (r.first > r.last) return std::nullopt;
  return r;
}

bool looks_like_json(const std::vector<std::uint8_t>& bytes) {
  // No .mab magic starts with '{' (format 2), so the first non-blank byte tells them apart.
  for (const std::uint8_t c : bytes) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

void append_quat(std::string& out, const mab::Quat& q) {
  mab::cli::append_fixed6(out, q.x);
  mab::cli::append_fixed6(out, q.y);
  mab::cli::append_fixed6(out, q.z);
  mab::cli::append_fixed6(out, q.w);
  out += '\n';
}

void print_quat(const mab::Quat& q) {
  std::string line;
  append_quat(line, q);
  std::fputs(line.c_str(), stdout);
}

void print_vec(const mab::Vec3& v) {
  std::printf(" %10.6f %10.6f %10.6f\n", static_cast<double>(v[0]), static_cast<double>(v[1]),
              static_cast<double>(v[2]));
}

// Slots 6 and 7 field by field (JB-DOC's record layout, format 11's nodes), or why not.
void print_tags(const mab::LegacyClip& d) {
  if (d.tag_table) {
    std::printf("\ntag table (slot 6): %zu record(s) of 172 bytes\n", d.tag_table->size());
    static constexpr const char* slots[4] = {"name", "parent", "unused", "reference"};
    for (std::size_t i = 0; i < d.tag_table->size(); ++i) {
      const auto& r = (*d.tag_table)[i];
      std::printf(
          "  record %zu: kind %u, byte 1 0x%02x, id %d, bytes 4..11 %s, start %.6f s, end %.6f s, pointer slot %u\n", i,
          r.kind, r.byte_1, r.id, mab::hex_bytes(r.bytes_4).c_str(), static_cast<double>(r.start),
          static_cast<double>(r.end), r.pointer_slot);
      std::printf("    clip offset %d from the record: %s\n", r.clip_offset,
                  r.clip_block >= 0 ? ("clip " + std::to_string(r.clip_block)).c_str() : "no clip starts there");
      for (std::size_t k = 0; k < 4; ++k) {
        const auto& n = r.names[k];
        const bool matches = n.hash == mab::bone_hash(n.text());
        std::printf("    %-9s %s  %s%s\n", slots[k], mab::hex(n.hash, 8).c_str(),
                    n.plain() ? ("'" + n.text() + "'").c_str() : ("bytes " + mab::hex_bytes(n.bytes)).c_str(),
                    matches ? "" : "  (the hash is not the CRC-32 of the text)");
      }
    }
  } else if (!d.tag_table_note.empty()) {
    std::printf("\ntag table (slot 6): kept as bytes, not decoded: %s\n", d.tag_table_note.c_str());
  }
  if (d.events) {
    std::printf("\nevent chain (slot 7): %zu node(s)\n  %6s %10s %6s %6s %6s  %s\n", d.events->size(), "offset",
                "time (s)", "type", "size", "next", "payload");
    for (const auto& e : *d.events)
      std::printf("  %6u %10.6f %6u %6u %6u  %s\n", e.offset, static_cast<double>(e.time), e.type, e.size, e.next,
                  mab::hex_bytes(e.payload).c_str());
  } else if (!d.events_note.empty()) {
    std::printf("\nevent chain (slot 7): kept as bytes, not decoded: %s\n", d.events_note.c_str());
  }
}

// Far Cry 2/3 clips (format 13): tracks are keyed by skeleton bone id, each rotation track with
// its own stored frames. --bone takes ids, --keys a frame range.
int dump_legacy(const std::string& file, const mab::Container& c, std::size_t block,
                const std::vector<std::string>& bones, const std::optional<KeyRange>& range_arg) {
  auto r = mab::decode_legacy_clip(c, block);
  if (!r) {
    std::fprintf(stderr, "mab: dump: %s: block %zu: %s\n", file.c_str(), block, mab::cli::message(r.error()).c_str());
    return 1;
  }
  const mab::LegacyClip& d = *r;
  std::vector<std::uint32_t> wanted;
  for (const auto& arg : bones) {
    const auto n = parse_number(arg);
    if (!n || *n > 0xFFFFFFFFu) {
      std::fprintf(stderr, "mab: dump: %s: --bone %s: Far Cry 2/3 tracks are named by bone id (a number)\n",
                   file.c_str(), arg.c_str());
      return 1;
    }
    wanted.push_back(static_cast<std::uint32_t>(*n));
  }
  auto keep = [&](std::uint32_t bone) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), bone) != wanted.end();
  };
  KeyRange range = range_arg.value_or(KeyRange{});
  if (range_arg && range.first > d.last_frame) {
    std::fprintf(stderr, "mab: dump: %s: no frame selected: the clip has frames 0 to %u\n", file.c_str(), d.last_frame);
    return 1;
  }
  range.last = std::min<std::size_t>(range.last, d.last_frame);
  auto seconds = [&](std::size_t f) { return d.frame_rate > 0 ? static_cast<double>(f) / d.frame_rate : NAN; };
  std::size_t keys = 0;
  for (const auto& t : d.rotations) keys += t.frames.size();
  std::printf("%s: %s (%s), clip %zu of %zu\n", file.c_str(), std::string(c.variant->game_name).c_str(),
              std::string(c.variant->short_name).c_str(), block, c.blocks.size());
  std::printf("  %u frames (lastFrame %u) at %g fps, duration %.6f s\n", d.last_frame + 1u, d.last_frame,
              static_cast<double>(d.frame_rate), static_cast<double>(d.duration));
  std::printf(
      "  %zu constant rotations, %zu keyed rotation tracks (%zu stored keys), %zu constant translations, "
      "%zu translation tracks, root motion %s\n",
      d.constant_rotations.size(), d.rotations.size(), keys, d.constant_translations.size(), d.translations.size(),
      d.present[0] || d.present[1] ? "yes" : "no");
  if (!d.constant_rotations.empty()) {
    std::printf("\nconstant rotations\n  %6s %10s %10s %10s %10s\n", "bone", "x", "y", "z", "w");
    for (const auto& cr : d.constant_rotations)
      if (keep(cr.bone)) std::printf("  %6u", cr.bone), print_quat(cr.rotation);
  }
  if (!d.rotations.empty()) {
    std::printf(
        "\nkeyed rotations (stored keys only; between them the engine interpolates)\n"
        "  %6s %6s %10s %10s %10s %10s %10s\n",
        "bone", "frame", "time (s)", "x", "y", "z", "w");
    for (const auto& t : d.rotations) {
      if (!keep(t.bone)) continue;
      for (std::size_t k = 0; k < t.frames.size(); ++k)
        if (t.frames[k] >= range.first && t.frames[k] <= range.last)
          std::printf("  %6u %6u %10.6f", t.bone, t.frames[k], seconds(t.frames[k])), print_quat(t.keys[k]);
    }
  }
  if (!d.constant_translations.empty()) {
    std::printf("\nconstant translations\n  %6s %10s %10s %10s\n", "bone", "x", "y", "z");
    for (const auto& ct : d.constant_translations)
      if (keep(ct.bone)) std::printf("  %6u", ct.bone), print_vec(ct.translation);
  }
  if (!d.translations.empty()) {
    std::printf("\ntranslations\n  %6s %6s %10s %10s %10s %10s\n", "bone", "frame", "time (s)", "x", "y", "z");
    for (const auto& t : d.translations)
      if (keep(t.bone))
        for (std::size_t f = range.first; f <= range.last; ++f)
          std::printf("  %6u %6zu %10.6f", t.bone, f, seconds(f)), print_vec(t.frames[f]);
  }
  if (wanted.empty()) print_tags(d);
  if (wanted.empty() && (d.present[0] || d.present[1])) {
    std::printf("\nroot motion\n  %6s %10s %10s %10s %10s %10s %10s %10s %10s\n", "frame", "time (s)", "tx", "ty", "tz",
                "x", "y", "z", "w");
    for (std::size_t f = range.first; f <= range.last; ++f) {
      std::printf("  %6zu %10.6f", f, seconds(f));
      if (d.present[0])
        std::printf(" %10.6f %10.6f %10.6f", static_cast<double>(d.trajectory_translation[f][0]),
                    static_cast<double>(d.trajectory_translation[f][1]),
                    static_cast<double>(d.trajectory_translation[f][2]));
      else std::printf(" %10s %10s %10s", "-", "-", "-");
      if (d.present[1]) print_quat(d.trajectory_rotation[f]);
      else std::printf(" %10s %10s %10s %10s\n", "-", "-", "-", "-");
    }
  }
  return 0;
}

struct Options {
  std::string file;
  std::vector<std::string> bones;
  std::string keys, frames, time;
  std::size_t block = 0;
};

constexpr const char* k_range_usage = "expected A:B, A:, :B or A with A <= B";

// --time "A:B" (seconds, inclusive), "A:", ":B" or "A".
struct TimeRange {
  double first = -INFINITY, last = INFINITY;
};
std::optional<TimeRange> parse_time_range(const std::string& s) {
  TimeRange r;
  const auto colon = s.find(':');
  const std::string a = colon == std::string::npos ? s : s.substr(0, colon);
  const std::string b = colon == std::string::npos ? s : s.substr(colon + 1);
  auto number = [](const std::string& t, double& v) {
    char* end = nullptr;
    v = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size() && std::isfinite(v);
  };
  if (!a.empty() && !number(a, r.first)) return std::nullopt;
  if (!b.empty() && !number(b, r.last)) return std::nullopt;
  if (r.first > r.last) return std::nullopt;
  return r;
}

// A time this close to a range's end is inside it (times print with 6 decimals).
constexpr double k_time_slack = 5e-7;

// The option that selects keys, its text, and its name for messages; nullopt for none.
struct Selection {
  const char* option;
  const std::string* text;
};
std::optional<Selection> selection(const Options& o) {
  if (!o.keys.empty()) return Selection{"--keys", &o.keys};
  if (!o.frames.empty()) return Selection{"--frames", &o.frames};
  if (!o.time.empty()) return Selection{"--time", &o.time};
  return std::nullopt;
}

// Far Cry 2/3: --keys and --frames are frame ranges, --time seconds turned into frames.
int run_legacy(const Options& o, const mab::Container& c) {
  std::optional<KeyRange> range;
  const auto sel = selection(o);
  if (sel && !o.time.empty()) {
    const auto t = parse_time_range(o.time);
    auto d = mab::decode_legacy_clip(c, o.block);
    if (!t) {
      std::fprintf(stderr, "mab: dump: --time %s: %s (seconds)\n", o.time.c_str(), k_range_usage);
      return mab::cli::exit_usage;
    }
    const double rate = d && d->frame_rate > 0 ? double{d->frame_rate} : 0.0;
    range = KeyRange{};
    if (rate > 0 && std::isfinite(t->first))
      range->first = static_cast<std::size_t>(std::max(0.0, std::ceil(t->first * rate - 1e-6)));
    if (rate > 0 && std::isfinite(t->last)) {
      if (t->last * rate + 1e-6 < 0) range->first = ~std::size_t{0};
      else range->last = static_cast<std::size_t>(std::floor(t->last * rate + 1e-6));
    }
  } else if (sel) {
    range = parse_range(*sel->text);
    if (!range) {
      std::fprintf(stderr, "mab: dump: %s %s: %s\n", sel->option, sel->text->c_str(), k_range_usage);
      return mab::cli::exit_usage;
    }
  }
  return dump_legacy(o.file, c, o.block, o.bones, range);
}

// The bones --bone names (every bone without it), in clip order; nullopt after printing the
// first name that matches none.
std::optional<std::vector<std::size_t>> select_bones(const Options& o, const mab::Clip& clip) {
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    bool keep = o.bones.empty();
    for (const auto& arg : o.bones) keep = keep || bone_matches(clip.bones[i], arg);
    if (keep) selected.push_back(i);
  }
  for (const auto& arg : o.bones) {
    const bool found =
        std::any_of(clip.bones.begin(), clip.bones.end(), [&](const auto& b) { return bone_matches(b, arg); });
    if (!found) {
      std::fprintf(stderr, "mab: dump: %s: no bone matches \"%s\"\n", o.file.c_str(), arg.c_str());
      return std::nullopt;
    }
  }
  return selected;
}

// The keys --keys, --frames or --time names, within the clip's; nullopt after printing why
// (status: the exit status). A frame is a key's time at `fps`.
std::optional<KeyRange> select_keys(const Options& o, const mab::Clip& clip, double fps, int& status) {
  const std::size_t key_count = clip.key_count();
  KeyRange range;
  const auto sel = selection(o);
  auto usage = [&](const char* unit) {
    std::fprintf(stderr, "mab: dump: %s %s: %s%s\n", sel->option, sel->text->c_str(), k_range_usage, unit);
    status = mab::cli::exit_usage;
    return std::nullopt;
  };
  if (!sel) {
    range.last = key_count ? key_count - 1 : 0;
    return range;
  }
  if (!o.keys.empty()) {
    const auto r = parse_range(o.keys);
    if (!r) return usage("");
    range = *r;
  } else {
    // Keys whose frame (or time) lies in the range: the first and last of them.
    std::function<bool(std::size_t)> inside;
    if (!o.frames.empty()) {
      const auto r = parse_range(o.frames);
      if (!r) return usage(" (frames)");
      inside = [&clip, fps, r](std::size_t k) {
        const double f = clip.key_times[k] * fps / clip.key_rate;
        return f >= static_cast<double>(r->first) - 1e-6 && f <= static_cast<double>(r->last) + 1e-6;
      };
    } else {
      const auto r = parse_time_range(o.time);
      if (!r) return usage(" (seconds)");
      inside = [&clip, r](std::size_t k) {
        const double t = clip.key_seconds(k);
        return t >= r->first - k_time_slack && t <= r->last + k_time_slack;
      };
    }
    range.first = key_count;
    for (std::size_t k = 0; k < key_count; ++k)
      if (inside(k)) range.first = std::min(range.first, k), range.last = k;
    if (range.first == key_count) {
      std::fprintf(
          stderr,
          "mab: dump: %s: %s %s: no key there; the clip's keys are at frames %s to %s (%g fps), %.6f s to %.6f s\n",
          o.file.c_str(), sel->option, sel->text->c_str(),
          key_count ? std::to_string(std::llround(clip.key_times.front() * fps / clip.key_rate)).c_str() : "-",
          key_count ? std::to_string(std::llround(clip.key_times.back() * fps / clip.key_rate)).c_str() : "-", fps,
          key_count ? clip.key_seconds(0) : 0.0, key_count ? clip.key_seconds(key_count - 1) : 0.0);
      status = mab::cli::exit_refused;
      return std::nullopt;
    }
    return range;
  }
  if (key_count == 0 || range.first >= key_count) {
    std::fprintf(stderr, "mab: dump: %s: --keys %s: the clip has keys 0 to %zu\n", o.file.c_str(), o.keys.c_str(),
                 key_count ? key_count - 1 : 0);
    status = mab::cli::exit_refused;
    return std::nullopt;
  }
  range.last = std::min(range.last, key_count - 1);
  return range;
}

// "  key frame time  ": the columns every per-key row of an 'aNi' clip starts with.
std::string key_prefix(const mab::Clip& clip, double fps, std::size_t k) {
  const double t = clip.key_seconds(k);
  char prefix[96];
  int n = 0;
  if (std::isfinite(t))
    n = std::snprintf(prefix, sizeof prefix, "  %5zu %6lld %10.6f  ", k,
                      std::llround(clip.key_times[k] * fps / clip.key_rate), t);
  else n = std::snprintf(prefix, sizeof prefix, "  %5zu %6u %10s  ", k, clip.key_times[k], "-");
  return std::string(prefix, n > 0 ? std::min(static_cast<std::size_t>(n), sizeof prefix - 1) : 0);
}

void append_vec(std::string& out, const mab::Vec3& v) {
  for (unsigned j = 0; j < 3; ++j) mab::cli::append_fixed6(out, v[j]);
}

// One row per key and animated bone: the key's columns and each bone's padded label are
// formatted once, the quaternions by append_fixed6, and the text leaves in large writes.
void print_animated(const mab::Clip& clip, double fps, const std::vector<std::size_t>& animated, std::size_t width,
                    const KeyRange& range) {
  std::printf("\nanimated bones\n  %5s %6s %10s  %-*s %10s %10s %10s %10s\n", "key", "frame", "time (s)",
              static_cast<int>(width), "bone", "x", "y", "z", "w");
  std::vector<std::string> labels;
  for (const std::size_t i : animated) {
    std::string l = label(clip.bones[i]);
    if (l.size() < width) l.append(width - l.size(), ' ');
    labels.push_back(std::move(l));
  }
  std::string out;
  constexpr std::size_t flush_at = 1 << 20;
  out.reserve(flush_at + 4096);
  std::fflush(stdout);
  for (std::size_t k = range.first; k <= range.last; ++k) {
    const std::string prefix = key_prefix(clip, fps, k);
    for (std::size_t j = 0; j < animated.size(); ++j) {
      out += prefix;
      out += labels[j];
      append_quat(out, clip.bones[animated[j]].keys[k]);
    }
    if (out.size() >= flush_at) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

// Translations and root motion (docs/motion.md), as `mab export` writes them: constant
// translations once, then per key each translated bone, then per key the root motion (only
// without --bone, as for Far Cry 2/3 clips).
void print_motion(const Options& o, const mab::Clip& clip, double fps, const std::vector<std::size_t>& selected,
                  std::size_t width, const KeyRange& range) {
  const int w = static_cast<int>(width);
  std::vector<std::size_t> constant, keyed;
  for (const std::size_t i : selected) {
    if (!clip.bones[i].translations.empty()) keyed.push_back(i);
    else if (clip.bones[i].constant_translation) constant.push_back(i);
  }
  if (!constant.empty()) {
    std::printf("\nconstant translations\n  %-*s %10s %10s %10s\n", w, "bone", "x", "y", "z");
    for (const std::size_t i : constant)
      std::printf("  %-*s", w, label(clip.bones[i]).c_str()), print_vec(*clip.bones[i].constant_translation);
  }
  const std::size_t keys = clip.key_count();
  if (!keyed.empty() && keys > 0) {
    std::printf("\ntranslations\n  %5s %6s %10s  %-*s %10s %10s %10s\n", "key", "frame", "time (s)", w, "bone", "x",
                "y", "z");
    std::string out;
    for (std::size_t k = range.first; k <= range.last; ++k)
      for (const std::size_t i : keyed) {
        std::string l = label(clip.bones[i]);
        l.resize(std::max(l.size(), width), ' ');
        out += key_prefix(clip, fps, k) + l;
        append_vec(out, clip.bones[i].translations[k]);
        out += '\n';
      }
    std::fputs(out.c_str(), stdout);
  }
  const auto& m = clip.root_motion;
  if (!o.bones.empty() || m.empty() || keys == 0) return;
  std::printf("\nroot motion\n  %5s %6s %10s  %10s %10s %10s %10s %10s %10s %10s\n", "key", "frame", "time (s)", "tx",
              "ty", "tz", "x", "y", "z", "w");
  std::string out;
  for (std::size_t k = range.first; k <= range.last; ++k) {
    out += key_prefix(clip, fps, k);
    if (!m.translations.empty()) append_vec(out, m.translations[k]);
    else out += "          -          -          -";
    if (!m.rotations.empty()) append_quat(out, m.rotations[k]);
    else out += "          -          -          -          -\n";
  }
  std::fputs(out.c_str(), stdout);
}

// An 'aNi' clip (or a JSON document's): a summary, the constant bones, then the keys.
int dump_clip(const Options& o, const mab::Result<mab::DecodedClip>& d) {
  if (!d) {
    std::fprintf(stderr, "mab: dump: %s: %s\n", o.file.c_str(), mab::cli::message(d.error()).c_str());
    return mab::cli::exit_refused;
  }
  const mab::Clip& clip = d->clip;
  const auto selected = select_bones(o, clip);
  if (!selected) return mab::cli::exit_refused;
  int status = mab::cli::exit_ok;
  const std::size_t key_count = clip.key_count();
  const double fps = mab::whole_frame_rate(clip.key_times, clip.key_rate);
  const auto range = select_keys(o, clip, fps, status);
  if (!range) return status;

  std::size_t n_const = 0, n_anim = 0, width = 10;
  std::vector<std::size_t> constants, animated, none;
  for (const auto& b : clip.bones) {
    n_const += b.kind() == mab::BoneKind::constant;
    n_anim += b.kind() == mab::BoneKind::animated;
  }
  for (const std::size_t i : *selected) {
    width = std::max(width, label(clip.bones[i]).size());
    switch (clip.bones[i].kind()) {
      case mab::BoneKind::constant: constants.push_back(i); break;
      case mab::BoneKind::animated: animated.push_back(i); break;
      case mab::BoneKind::none: none.push_back(i); break;
    }
  }
  const auto& c = d->container;
  std::printf("%s: %s (%s), block %zu of %zu\n", o.file.c_str(), std::string(c.variant->game_name).c_str(),
              std::string(c.variant->short_name).c_str(), d->block, c.blocks.size());
  std::printf(
      "  %zu keys at %g key-time units per second (frames at %g fps, the scene rate of `mab export`), "
      "duration %.6f s\n",
      key_count, clip.key_rate, fps, static_cast<double>(clip.duration));
  std::printf("  %zu bones: %zu constant, %zu animated, %zu without rotation\n", clip.bones.size(), n_const, n_anim,
              clip.bones.size() - n_const - n_anim);
  std::size_t n_translated = 0, n_const_translated = 0;
  for (const auto& b : clip.bones) {
    n_translated += !b.translations.empty();
    n_const_translated += b.translations.empty() && b.constant_translation.has_value();
  }
  const auto& m = clip.root_motion;
  std::printf("  %zu translated bones, %zu constant translations, root motion %s\n", n_translated, n_const_translated,
              m.empty()                                         ? "none"
              : !m.translations.empty() && !m.rotations.empty() ? "rotations and translations"
              : m.rotations.empty()                             ? "translations"
                                                                : "rotations");
  const int w = static_cast<int>(width);
  if (!constants.empty()) {
    std::printf("\nconstant bones\n  %-*s %10s %10s %10s %10s\n", w, "bone", "x", "y", "z", "w");
    for (const std::size_t i : constants) {
      std::printf("  %-*s", w, label(clip.bones[i]).c_str());
      print_quat(clip.bones[i].constant);
    }
  }
  if (!none.empty()) {
    std::printf("\nbones without rotation:");
    for (const std::size_t i : none) std::printf(" %s", label(clip.bones[i]).c_str());
    std::printf("\n");
  }
  if (!animated.empty() && key_count > 0) print_animated(clip, fps, animated, width, *range);
  print_motion(o, clip, fps, *selected, width, *range);
  return mab::cli::exit_ok;
}

int run(const Options& o) {
  // A JSON document is larger than the file it stands for (hex, decimal floats).
  mab::Limits limits;
  limits.max_file_size = 4 * mab::default_limits.max_file_size;
  auto bytes = mab::read_file(o.file, limits);
  if (!bytes) {
    std::fprintf(stderr, "mab: dump: %s\n", mab::cli::message(bytes.error()).c_str());
    return mab::cli::exit_status(bytes.error());
  }
  if (looks_like_json(*bytes))
    return dump_clip(o,
                     mab::import_json(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size())));
  auto c = mab::read_container(*bytes);
  if (c && o.block < c->blocks.size() && c->blocks[o.block].legacy() != nullptr) return run_legacy(o, *c);
  return dump_clip(o, c ? mab::decode_clip(std::move(c).value(), o.block) : mab::Result<mab::DecodedClip>(c.error()));
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("dump",
                         "Print every decoded channel of FILE (a .mab or a JSON from `mab export`): constant "
                         "bones once, then per key its frame, its time in seconds and each animated bone's quaternion, "
                         "then translations and root motion");
  cmd->add_option("FILE", o->file, "A .mab, or a JSON document from `mab export`")->required();
  cmd->add_option("--bone", o->bones, "Only this bone: a name, or its hash (0xB6C65665); repeatable");
  auto* keys = cmd->add_option("--keys", o->keys, "Only keys A to B inclusive: A:B, A:, :B or A (key indices)");
  auto* frames = cmd->add_option("--frames", o->frames,
                                 "Only the keys at frames A to B inclusive (the frame column: Blender's frame "
                                 "at the scene rate `mab export` prints)");
  auto* time = cmd->add_option("--time", o->time, "Only the keys at A to B seconds inclusive (e.g. 1.2:1.6)");
  keys->excludes(frames)->excludes(time);
  frames->excludes(time);
  cmd->add_option("--block", o->block,
                  "Block to decode (Far Cry 5 files hold several, Far Cry 2/3 banks one per chained clip; default 0)");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab dump corpus/wd2/long_k40.mab --bone Root --keys 0:9\n"
      "  mab dump corpus/wdl/long_k60_alias.mab --frames 40:48\n"
      "  mab dump corpus/wd2/translations_all_bones_root_motion.mab --time 0.1:0.2\n"
      "  mab dump corpus/fc2/many_tracks.mab --bone 3\n"
      "The first prints Root's quaternion (x y z w, 6 decimals) at keys 0 to 9, each with its frame\n"
      "and its time in seconds; the second the keys at frames 40 to 48, the frames Blender shows once\n"
      "its scene rate is the one `mab export` prints (its keys are sparse: frame 40 is key 22). Every\n"
      "channel `mab export` writes is shown: rotations, constant translations, translations per key\n"
      "and translated bone, and the root motion per key (without --bone).\n"
      "Bones are shown by name when known (in a JSON document), otherwise by hash.\n"
      "Far Cry 2/3 clips: tracks by bone id (--bone 12), stored keys with their frames (--keys and\n"
      "--frames are frame ranges), translations and root motion per frame.\n"
      "Exit status: 0 printed; 1 the file, a --bone or a selection with no key is refused; 2 usage or\n"
      "I/O error.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(dump, setup);

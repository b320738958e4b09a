// Trims of legacy 'AnD' clips (format 13; docs/legacy.md, "Trims"): a new frame range for every
// timed track of a decoded clip, ready for encode_legacy_clip.
#include <mab/legacy.hpp>

#include "encode/legacy_duration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace mab {

namespace {

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::uint32_t first, std::uint32_t last) {
  return {v.begin() + first, v.begin() + last + 1};
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

}  // namespace

// The duration keeps the clip's own rule where it held one exactly (JB-DOC: duration x rate
// never exceeds lastFrame + 1).
float legacy_duration_for(const LegacyClip& clip, std::uint16_t new_last, std::string* rule) {
  const double rate = clip.frame_rate;
  auto say = [&](const char* r) {
    if (rule != nullptr) *rule = r;
  };
  if (same_bits(clip.duration, static_cast<float>(clip.last_frame / rate))) {
    say("lastFrame / rate");
    return static_cast<float>(new_last / rate);
  }
  if (same_bits(clip.duration, static_cast<float>((clip.last_frame + 1.0) / rate))) {
    say("(lastFrame + 1) / rate");
    return static_cast<float>((new_last + 1.0) / rate);
  }
  say("duration minus the removed frames");
  return static_cast<float>(std::max(0.0, clip.duration - (clip.last_frame - new_last) / rate));
}

Result<LegacyClip> trim_legacy_clip(const LegacyClip& clip, std::uint32_t first, std::uint32_t last,
                                    LegacyTrimReport* report) {
  const bool timed = clip.present[0] || clip.present[1] || clip.present[3] || clip.present[5];
  if (!timed || !(clip.frame_rate > 0) || !std::isfinite(clip.frame_rate))
    return make_error(ErrorCode::invalid_argument, no_offset, "last_frame",
                      "the clip has no timed section (slots 0, 1, 3, 5): there are no frames to trim");
  if (first > last || last > clip.last_frame)
    return make_error(ErrorCode::invalid_argument, no_offset, "trim",
                      "frames " + std::to_string(first) + ".." + std::to_string(last) +
                          " are not inside the clip's 0.." + std::to_string(clip.last_frame));
  LegacyTrimReport rep;
  LegacyClip out = clip;
  const auto new_last = static_cast<std::uint16_t>(last - first);
  out.last_frame = new_last;
  if (clip.present[0]) out.trajectory_translation = slice(clip.trajectory_translation, first, last);
  if (clip.present[1]) {
    out.trajectory_rotation = slice(clip.trajectory_rotation, first, last);
    out.trajectory_rotation_codes = slice(clip.trajectory_rotation_codes, first, last);
  }
  for (auto& t : out.translations) t.frames = slice(t.frames, first, last);
  for (auto& t : out.rotations) {
    const LegacyRotationTrack& src = clip.rotations[static_cast<std::size_t>(&t - out.rotations.data())];
    LegacyRotationTrack cut;
    cut.bone = src.bone;
    auto add = [&](std::uint32_t f) {
      cut.frames.push_back(static_cast<std::uint16_t>(f - first));
      cut.keys.push_back(legacy_rotation_at(src, f));
    };
    add(first);  // the stored key there, or the interpolated rotation
    for (std::size_t k = 0; k < src.frames.size(); ++k)
      if (src.frames[k] > first && src.frames[k] < last) {
        cut.frames.push_back(static_cast<std::uint16_t>(src.frames[k] - first));
        cut.keys.push_back(src.keys[k]);
      }
    if (last > first) add(last);
    t = std::move(cut);
  }
  out.duration = legacy_duration_for(clip, new_last, &rep.duration_rule);
  // Event times are the clip's (format 11, JB-DOC's GetEventAtTime): they move with the frames.
  if (out.events && first > 0)
    for (auto& e : *out.events) {
      e.time = static_cast<float>(e.time - first / double{clip.frame_rate});
      ++rep.events_shifted;
    }
  if (out.events)
    for (const auto& e : *out.events) rep.events_outside += e.time < 0.0f || e.time > out.duration;
  if (out.tag_table) rep.tag_records_kept = out.tag_table->size();
  if (report != nullptr) *report = std::move(rep);
  return out;
}

}  // namespace mab

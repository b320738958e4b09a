// A second, independent trim of a decoded Far Cry 2/3 clip (format 13; docs/legacy.md, "Trims"),
// cut straight on the codec's LegacyClip: the oracle the tests hold `mab edit --trim` (edit::trim
// on the one Clip, then legacy_from_clip) and encode_legacy_clip's rewrite of a new lastFrame to.
// It was the library's trim_legacy_clip until the one editable model (issue 33) made that route
// the only one; test code, not product.
#pragma once

#include <mab/legacy.hpp>

#include "model/legacy_duration.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace mab::test {

template <class T>
std::vector<T> slice_frames(const std::vector<T>& v, std::uint32_t first, std::uint32_t last) {
  return {v.begin() + first, v.begin() + last + 1};
}

struct LegacyTrimReport {
  // How the header duration was set: "lastFrame / rate" or "(lastFrame + 1) / rate" (the rule
  // the clip held exactly), else "duration minus the removed frames".
  std::string duration_rule;
  std::size_t events_shifted = 0;
  // Events whose shifted time falls outside [0, new duration]: kept (a node cannot be removed).
  std::size_t events_outside = 0;
  std::size_t tag_records_kept = 0;  // their start and end are the scene's, not changed
};

// Keeps frames first..last of `clip` (a trim), shifted to start at frame 0: trajectory and
// translations are cut; a keyed track keeps its stored keys inside the range and gets keys at
// both new ends from legacy_rotation_at; constant values stay; lastFrame becomes last - first
// and the duration follows (LegacyTrimReport); event times move by -first / rate. Encode the
// result with encode_legacy_clip. invalid_argument for an empty or out-of-range span, or a
// clip without timed sections.
inline Result<LegacyClip> trim_legacy_clip(const LegacyClip& clip, std::uint32_t first, std::uint32_t last,
                                           LegacyTrimReport* report = nullptr) {
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
  if (clip.present[0]) out.trajectory_translation = slice_frames(clip.trajectory_translation, first, last);
  if (clip.present[1]) {
    out.trajectory_rotation = slice_frames(clip.trajectory_rotation, first, last);
    out.trajectory_rotation_codes = slice_frames(clip.trajectory_rotation_codes, first, last);
  }
  for (auto& t : out.translations) t.frames = slice_frames(t.frames, first, last);
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

}  // namespace mab::test

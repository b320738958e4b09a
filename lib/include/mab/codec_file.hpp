// Container + codecs <-> editable clip, for the 'aNi' family (WD1, WD2, WDL, FC5; FC4
// where its layout is read). Keeps the exact codes so an unedited clip re-encodes to
// the same bytes; changed chunks are re-quantised with a measured error.
#pragma once

#include <mab/clip.hpp>
#include <mab/container.hpp>
#include <mab/rotation_codec.hpp>

#include <array>
#include <vector>

namespace mab {

struct DecodedClip {
  Container container;  // the file, with every section and header field
  std::size_t block = 0;
  Clip clip;  // as decoded from the codes below: edit a copy
  // Exact codes, for lossless re-encoding of what the user did not change.
  std::vector<std::array<std::uint8_t, 6>> constant_codes;  // per constant bone, in bone order
  RotationStream rotations;                                 // [chunk][animated bone]
};

// Key time units per second for a block (decision D7): WD1 ticks at 120; WDL/WD2 frames
// at the header's frame rate; FC4/FC5 frames at 30 unless the header says otherwise.
double key_rate(const Container& c, std::size_t block) noexcept;

Result<DecodedClip> decode_clip(Container container, std::size_t block = 0,
                                const Limits& limits = default_limits);

struct EncodeOptions {
  double max_error_deg = 0.01;  // bound for choose_depth and raise_depth
  bool choose_depth = false;    // re-pick each changed bone's bit depth (spec 5.3 low nibble)
  // Keep a changed bone's bit depth (so only its changed chunks are re-quantised) unless
  // its error then exceeds max_error_deg; then re-pick it as choose_depth does. A bone the
  // original lacks (added, or constant before) always gets a chosen depth.
  bool raise_depth = false;
  // Re-quantise every animated bone, unchanged ones too, at the smallest depth meeting
  // max_error_deg (`mab edit --max-error`).
  bool requantise_all = false;
};

struct EncodeReport {
  std::size_t chunks_reused = 0, chunks_requantised = 0;
  std::size_t constants_reused = 0, constants_encoded = 0;
  double max_error_deg = 0;              // over every re-quantised key
  std::vector<double> bone_error_deg;    // per bone of the edited clip (0 when reused)
};

// Writes `edited` into a copy of `original.container`: KeyTimes, constant rotations,
// JointRotations (chunk table included), bone table, m_dataCounts[2] and [4],
// m_lastFrame, duration, offsets and m_animationDataSize. A chunk of a bone whose
// floats equal the original decode keeps its codes; others are re-quantised.
Result<std::vector<std::uint8_t>> encode_clip(const DecodedClip& original, const Clip& edited,
                                              const EncodeOptions& options = {},
                                              EncodeReport* report = nullptr);

// As encode_clip, returning the container instead of bytes.
Result<Container> encode_clip_container(const DecodedClip& original, const Clip& edited,
                                        const EncodeOptions& options = {},
                                        EncodeReport* report = nullptr);

}  // namespace mab

// Internal: a glTF track read back against its template (docs/gltf.md, "Which keys are
// edits"). A tool hands back what it interpolates from the keys it imported: the same keys
// (Blender with sampling off), or its curve sampled on a frame grid of its own (Blender's
// default "Always Sample Animations"). Judged here, per track: whether the file only repeats
// the template (kept bit for bit, however it was resampled), which of the block's keys a user
// changed, and where the clip's timeline must gain a key time to carry a key set between the
// template's times; and, for what no output can carry, which track, time and how far.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mab::gltf {

// A rotation (x, y, z, w) or a translation (x, y, z, 0).
using Value = std::array<double, 4>;

class Metric {
 public:
  static Metric rotation(double tolerance_deg) noexcept;
  static Metric translation(double tolerance_units) noexcept;  // per component, relative to max(1, |value|)

  bool is_rotation() const noexcept { return rotation_; }
  bool near(const Value& a, const Value& b) const noexcept;
  double distance(const Value& a, const Value& b) const noexcept;  // degrees, or the largest component difference
  // The clip's own interpolation: slerp on the shortest arc (the decoders' reading of format 9.3),
  // lerp for translations. u in [0, 1].
  Value interpolate(const Value& a, const Value& b, double u) const noexcept;
  // Whether `v` is where a tool interpolating from a (u = 0) to b (u = 1) puts it: slerp, or
  // nlerp (Blender interpolates quaternion components linearly), within tolerance.
  bool on_segment(const Value& v, const Value& a, const Value& b, double u) const noexcept;

 private:
  bool rotation_ = true;
  double tolerance_ = 0;
  double cos_half_ = 1;  // rotations: cos(tolerance / 2)
};

// A track as keys in time: seconds increasing, a value each.
struct Keys {
  std::vector<double> t;
  std::vector<Value> v;

  // The clip's interpolation at time s, held before the first key and after the last; a key's
  // own value at its time.
  Value at(const Metric& m, double s) const noexcept;
  // `value` at time s is what a tool interpolating these keys gives there.
  bool explains(const Metric& m, double s, const Value& value) const noexcept;
};

// Whether `v` is a pose of the path through `keys` whatever their times: at a key, or where a
// tool interpolating between two neighbours puts it (slerp or nlerp; lerp for translations).
// A Far Cry 2/3 bank node a clip does not key, held where another clip's track left it.
bool on_path(const Metric& m, const Value& v, std::span<const Value> keys) noexcept;

// The frame rate at which every one of `units` (key units at `rate` per second, decision 7) is a whole
// frame: rate / gcd(rate, units) for a whole rate (WD1 ticks every 4 of 120 per second: 30),
// else the rate itself. The scene rate Blender should have so every key sits on a frame.
double whole_frame_rate(std::span<const std::uint32_t> units, double rate) noexcept;

// A tool's sampling: at least three times evenly spaced (within 0.1% of a step).
struct Grid {
  double start = 0, step = 0;
  std::size_t count = 0;
};
std::optional<Grid> uniform_grid(std::span<const double> times) noexcept;

// What a file gives for one track of a block. Times are indices into `times`, every time the
// file was evaluated at (seconds, increasing).
struct TrackEvidence {
  const Keys* tmpl = nullptr;  // the template's keys, at its own times
  std::span<const double> times;
  std::span<const Value> file;         // the file's value at each of `times`
  std::span<const std::size_t> block;  // the block's output key times (the template's; FC2/3: every frame)
  std::span<const Value> block_tmpl;   // the template's value at each, bit for bit
  std::vector<std::size_t> keys;       // the file's own key times for this track, increasing
  std::vector<std::size_t> checks;     // midway between keys of a curved (CUBICSPLINE, STEP) channel
};

struct TrackVerdict {
  bool untouched = false;         // the file only repeats the template: every value is the template's
  std::optional<Grid> resampled;  // the file's keys are a grid that misses some of the block's times
  std::vector<Value> values;      // at each block time: the template's (exactly) or the file's
  std::vector<char> changed;      // at each block time
  std::size_t matched = 0;        // block times within tolerance of the template (or its interpolation)
  double max_matched = 0;         // the largest distance among those
  // Resampled and edited: block keys read between the file's samples, and the error resampling
  // alone puts there (the template's curve against its resampled self).
  struct Between {
    std::size_t key = 0;
    double error = 0;
  };
  std::vector<Between> between;
};

// snap: a file key this close to a block time (seconds) is at that time.
TrackVerdict judge_track(const Metric& m, const TrackEvidence& e, double snap);

// The timeline of an 'aNi' block (shared by all its bones, in key units at `rate` per second)
// extended by the key times edited tracks need.
struct TimelineTrack {
  const TrackEvidence* evidence = nullptr;
  const TrackVerdict* verdict = nullptr;
};
struct AddedTime {
  std::uint32_t unit = 0;  // key units
  std::size_t source = 0;  // the file time it stands for (index into `times`)
};
struct Uncarried {
  std::size_t track = 0;  // index into the tracks given
  std::size_t at = 0;     // index into `times`
  double distance = 0;    // from what the output plays there
  enum class Why : std::uint8_t { not_added, collides, off_limits } why = Why::not_added;
  std::uint32_t unit = 0;  // collides: the key time it would round to
};
struct TimelinePlan {
  std::vector<AddedTime> added;      // increasing units
  std::vector<Uncarried> uncarried;  // one per track and time, worst first
  double max_shift_s = 0;            // largest move of an added key onto the key grid
};
// Every key (and check point) of `tracks` that the output's keys do not explain gets a key
// time of its own, rounded to the key grid, until all are explained (`add`), or is listed
// (without `add`, or when it rounds onto a time that is already a key, or beyond 65535).
// `units` are the block's key times, increasing; tracks' evidence shares one `times`.
TimelinePlan plan_timeline(const Metric& m, std::span<const TimelineTrack> tracks, std::span<const std::uint32_t> units,
                           double rate, bool add, double snap);

// A track's values at `out_units` (the block's times and the added ones, increasing): its
// verdict's value at a block time; at an added time the file's value where the file's curve
// leaves the track's interpolation there, else that interpolation (the template's, for an
// untouched track).
std::vector<Value> values_on_timeline(const Metric& m, const TrackEvidence& e, const TrackVerdict& v,
                                      std::span<const std::uint32_t> block_units, std::span<const AddedTime> added,
                                      double rate, double snap);

}  // namespace mab::gltf

// Surveying many files (docs/survey.md, `mab survey`): per file, what mabkit makes of it
// (variant, layout confidence, byte-identical round trip, structural checks, decode sanity,
// JSON identity, the first error), and aggregates over all files for format work (histograms of
// flags, depths, sections, counts...). Aggregates are bounded in size whatever the number of
// files, so a survey's memory does not grow with the dump; rows are for the caller to stream.
#pragma once

#include <mab/container.hpp>
#include <mab/limits.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mab::survey {

struct Options {
  // Export + import the JSON form of the file's blocks for one file in json_every (chosen by
  // a hash of the path, so a rerun checks the same files); 1: every file, 0: none.
  unsigned json_every = 1;
  double unit_tolerance = 1e-3;  // | |q| - 1 | above this is not a unit quaternion
  Limits limits = default_limits;
};

struct FileResult {
  std::string path;
  std::uint64_t size = 0;
  std::string variant = "unknown";  // VariantInfo::short_name
  std::string confidence;           // to_string(Confidence), empty when unknown
  bool parsed = false;
  bool round_trip = false;               // written back byte for byte
  std::size_t errors = 0, warnings = 0;  // findings of validate and validate_decode (`mab verify`'s)
  // Blocks, and those that decode as `mab export` decodes them: an 'aNi' block's rotations, a
  // Far Cry 2/3 clip's tracks (format 13).
  std::size_t blocks = 0, decoded_blocks = 0;
  bool sane = true;                   // every decoded block passed the sanity checks
  std::string sanity;                 // the first sanity failure
  std::optional<bool> json_identity;  // nullopt: not checked
  std::string first_error;            // "stage: message"; empty when there is none
  std::string error_code;             // to_string(ErrorCode) of first_error
};

// One histogram: value -> count (and bytes where that means something), with the first
// paths seen for each value, so rare values come with examples. At most `max_values` distinct
// values; later ones are counted under "(other)".
struct Histogram {
  struct Bucket {
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
    std::vector<std::string> examples;  // up to 3
  };
  std::map<std::string, Bucket> buckets;
  std::size_t max_values = 256;
  std::uint64_t total = 0;

  void add(const std::string& value, const std::string& path, std::uint64_t bytes = 0);
  void merge(const Histogram& other);
};

struct Stats {
  std::uint64_t files = 0, bytes = 0;
  std::uint64_t round_trips = 0, parsed = 0, sane = 0, json_ok = 0, json_checked = 0;
  std::uint64_t blocks = 0, decoded_blocks = 0;  // FileResult's, summed
  // Named histograms, in the order the report shows them.
  std::map<std::string, Histogram> histograms;
  Histogram& at(const std::string& name, std::size_t max_values = 256);
  void merge(const Stats& other);
};

// Names of the histograms `survey_file` fills (docs/survey.md).
namespace h {
inline constexpr const char* variants = "files and bytes by variant";
inline constexpr const char* errors = "first errors by code";
inline constexpr const char* bone_flags = "bone flag bytes";
inline constexpr const char* bit_depths = "bit depths of animated bones";
inline constexpr const char* cflags = "cflags of chunk blocks (constant mask | signs | wInd)";
inline constexpr const char* sections = "sections present, by variant and slot (bytes)";
inline constexpr const char* opaque = "opaque sections, by variant and name (bytes)";
inline constexpr const char* data_counts = "m_dataCounts by index";
inline constexpr const char* ani_flags = "'aNi' flags byte";
inline constexpr const char* reserved = "header bytes +0x08..+0x0F";
inline constexpr const char* count_high = "bone count field: bits above the count";
inline constexpr const char* key_counts = "key counts";
inline constexpr const char* durations = "durations (seconds)";
inline constexpr const char* sanity = "decode sanity failures";
inline constexpr const char* not_decoded = "blocks not decoded, by reason";
// 'aNi' translations, root motion and part clips by evidence (docs/motion.md); Far Cry 2/3 sections
// decoded or kept as bytes (format 13).
inline constexpr const char* evidence = "sections by evidence (decoded, hypothesis N, opaque)";
}  // namespace h

FileResult survey_file(std::span<const std::uint8_t> bytes, const std::string& path, Stats& stats,
                       const Options& options = {});

// A file that could not be read at all (permissions, a vanished file): counted and reported.
FileResult unreadable(const std::string& path, const Error& why, Stats& stats);

}  // namespace mab::survey

// The re-quantiser (format 9.2 "Encoder notes"): float keys back into the codes of
// rotation_codec.hpp, at a given bit depth or the smallest one meeting an error bound.
#pragma once

#include <mab/quat.hpp>
#include <mab/result.hpp>
#include <mab/rotation_codec.hpp>

#include <span>
#include <vector>

namespace mab {

// True when key `key` (0..7) takes the s > 1 path of decision 2: its decode is divided by
// sqrt(s), off the code grid, so quantising it again need not give these codes back.
bool key_renormalised(const BoneChunkCodes& codes, unsigned key, unsigned nbits) noexcept;

struct QuantisedChunk {
  BoneChunkCodes codes;
  double max_error_deg = 0;  // largest angular_error_deg between a key and its decode
};

struct QuantisedTrack {
  unsigned nbits = 16;
  double max_error_deg = 0;
  std::vector<BoneChunkCodes> chunks;  // one per chunk of the clip
};

// Flips keys so each has a non-negative dot product with the one before (q and -q are the
// same rotation; the engine may blend neighbouring keys component-wise, format 9.2).
void make_hemisphere_continuous(std::span<Quat> keys) noexcept;

// Codes for 1..8 keys of one bone, taken on the hemisphere given. Keys within 1e-6 of unit
// length are used as they are (so decoded keys re-quantise to the same codes); others are
// normalised. Picks wInd among the components by the smallest resulting error, a constant
// for a component when that is no less accurate than the varying form (or within half a
// constant quantum), and sets sign bits only when some key needs a negative omitted value.
// Errors: invalid_argument for an empty or > 8 key span or n outside 1..16; bad_value for a
// non-finite or zero key.
Result<QuantisedChunk> quantise_chunk(std::span<const Quat> keys, unsigned nbits);

// All chunks of one bone at depth n, after make_hemisphere_continuous. The codes are a fixed
// point: quantising their decoded keys again at the same n gives the same codes (quantise_chunk
// shows it from the result where it can, and otherwise walks decode + re-quantise to a cycle
// to make sure of it). The exception is a chunk with a
// key on the s > 1 path of decision 2 (key_renormalised), possible when keys of one chunk
// point in unrelated directions at a coarse depth: its decode is off the code grid and the
// walk can drift for hundreds of steps, so the accurate codes are returned as they are.
Result<QuantisedTrack> quantise_track(std::span<const Quat> keys, unsigned nbits);

// The smallest n in 1..16 whose error over all chunks is <= max_error_deg, with its codes;
// n = 16 with its (larger) error when no depth meets the bound. Each chunk is quantised from
// the hemisphere-continuous keys and, where that negates a key, from the keys as given too;
// the codes with the smaller error are kept.
Result<QuantisedTrack> choose_bit_depth(std::span<const Quat> keys, double max_error_deg = 0.01);

// Transposes per-bone chunk codes into a stream with its table; tracks[b].chunks must all
// have chunk_count(key_count) entries and tracks[b].nbits is bone b's depth.
Result<RotationStream> build_rotation_stream(std::span<const QuantisedTrack> tracks, std::uint32_t key_count);

}  // namespace mab

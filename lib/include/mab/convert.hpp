// One clip rewrapped in another 'aNi' game's header and section layout (docs/edit.md,
// `mab convert`): wd1, wd2, wdl, fc5. Key times keep their seconds (decision 7: WD1 ticks at
// 120/s, the others frames at their frame rate); rotations are re-quantised at the same bit
// depths, which gives the same codes (the re-quantiser's fixed point) except in chunks the
// decoder renormalised (decision 2). Fields the source lacks get documented defaults; sections the
// target has no slot for are refused by name unless dropped on request.
#pragma once

#include <mab/container.hpp>
#include <mab/encode_clip.hpp>

#include <string>
#include <vector>

namespace mab {

struct ConvertOptions {
  bool drop_unmappable = false;  // drop sections and flags the target cannot hold, listed
};

struct ConvertReport {
  std::vector<NewFieldDefault> defaults;  // target fields the source lacks
  std::vector<std::string> carried;       // source fields and sections copied verbatim
  std::vector<std::string> dropped;       // with drop_unmappable
  std::size_t keys_merged = 0;            // keys that fell on one time at the target's rate
  double max_time_shift_s = 0;            // largest move onto the target's time grid
  double source_rate = 0, target_rate = 0;
  EncodeReport encode;
};

Result<std::vector<std::uint8_t>> convert_clip(const Container& source, std::size_t block, Game target,
                                               const ConvertOptions& options = {}, ConvertReport* report = nullptr);

}  // namespace mab

// JointTranslations codec (format 10.1). Input: byte 0 -> key count (b % 64 + 1), byte 1 -> bone
// count (b % 4 + 1), then one little-endian u32 TranslationTable entry per bone, then the
// section bytes. If the section decodes:
//  1. encoding its codes gives the section back byte for byte (the decoder accepts only what
//     the encoder writes, plus the tail);
//  2. every decoded value is finite, and every decoded chunk fits its entry
//     (translation_chunk_fits), since a stream's own values are what its scale reaches;
//  3. re-quantising each decoded chunk succeeds within half a step of the depth (for n = 1,
//     half the chunk's spread), its codes survive the stream writer and reader, and their
//     decode is within the reported error.
// Aborts on any mismatch.
#include "harness_util.hpp"

#include <mab/translation_codec.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using fuzz::check;

double depth_bound(mab::TranslationEntry e, std::span<const mab::Vec3> keys) {
  const double steps = static_cast<double>((1u << e.bit_depth()) - 1u);
  double b = e.scale() * (std::max((2.0 + 2.0 / 127.5) / steps / 2, 0.5 / 32767.5) + 1e-6);
  if (e.bit_depth() == 1) {
    double spread = 0;
    for (unsigned j = 0; j < 3; ++j) {
      double lo = 1e300, hi = -1e300;
      for (const auto& k : keys) lo = std::min(lo, double{k[j]}), hi = std::max(hi, double{k[j]});
      spread = std::max(spread, hi - lo);
    }
    b += spread / 2;
  }
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint32_t keys = in.u8() % 64u + 1u;
  const std::size_t bones = in.u8() % 4u + 1u;
  std::vector<mab::TranslationEntry> entries(bones);
  for (auto& e : entries) e.raw = in.u32();
  const auto section = in.rest();
  auto s = mab::decode_translation_stream(section, keys, entries, 0);
  if (!s) return 0;

  auto bytes = mab::encode_translation_stream(*s, keys, entries);
  if (!bytes) {
    std::fprintf(stderr, "%s\n", bytes.error().message().c_str());
    fuzz::fail("decoded translation codes failed to encode");
  }
  check(bytes->size() == section.size() && std::equal(bytes->begin(), bytes->end(), section.begin()),
        "decoded translation stream re-encoded to different bytes");

  auto values = mab::decode_translations(*s, keys, entries);
  check(values.ok(), "decode_translations refused a decoded stream");
  mab::TranslationStream again;
  again.chunks.resize(s->chunks.size());
  for (std::size_t b = 0; b < bones; ++b) {
    for (std::size_t c = 0; c < s->chunks.size(); ++c) {
      const auto chunk =
          std::span<const mab::Vec3>((*values)[b]).subspan(c * mab::keys_per_chunk, mab::chunk_key_count(keys, c));
      for (const auto& v : chunk)
        for (float x : v) check(std::isfinite(x), "a decoded translation is not finite");
      check(mab::translation_chunk_fits(chunk, entries[b]), "a decoded chunk does not fit its own entry");
      auto q = mab::quantise_translation_chunk(chunk, entries[b]);
      if (!q) {
        std::fprintf(stderr, "%s\n", q.error().message().c_str());
        fuzz::fail("re-quantising a decoded chunk failed");
      }
      const double bound = depth_bound(entries[b], chunk);
      if (!(q->max_error <= bound)) {
        std::fprintf(stderr, "n %u scale %g: error %.9g, bound %.9g\n", entries[b].bit_depth(),
                     static_cast<double>(entries[b].scale()), q->max_error, bound);
        fuzz::fail("re-quantised decoded chunk is further off than half a step");
      }
      for (unsigned f = 0; f < chunk.size(); ++f) {
        const mab::Vec3 d = mab::decode_translation_key(q->codes, f, entries[b]);
        for (unsigned j = 0; j < 3; ++j)
          check(std::fabs(double{d[j]} - double{chunk[f][j]}) <= q->max_error,
                "a re-quantised key is further off than the reported error");
      }
      again.chunks[c].push_back(q->codes);
    }
  }
  auto rewritten = mab::encode_translation_stream(again, keys, entries);
  check(rewritten.ok(), "re-quantised codes failed to encode");
  auto reread = mab::decode_translation_stream(*rewritten, keys, entries, 0);
  check(reread.ok() && reread->chunks == again.chunks, "re-quantised codes did not read back");
  return 0;
}

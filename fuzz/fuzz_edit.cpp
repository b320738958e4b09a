// Any bytes as a .mab, then edits (lib/include/mab/edit.hpp) and a conversion
// (mab/convert.hpp) chosen from a hash of the input. Whatever the edits and the encoder accept
// must be a file that reads back and writes back byte for byte; a conversion's result must
// read back as one block of the target game whose rotations are within the reported error of
// the source's. Errors are fine; crashes, hangs, leaks and exceptions are not.
#include "harness_util.hpp"

#include <mab/convert.hpp>
#include <mab/edit.hpp>

#include <cstdio>

namespace {

[[noreturn]] void fail_with(const char* what, const mab::Error& e) {
  std::fprintf(stderr, "%s\n", e.message().c_str());
  fuzz::fail(what);
}

// Edits may lengthen a clip (slower, resampled): the result is read with the library's own
// limits, not the input's.
void check_file(const std::vector<std::uint8_t>& bytes) {
  auto c = mab::read_container(bytes);
  if (!c) fail_with("an edited file does not read back", c.error());
  auto w = mab::write_container(*c);
  if (!w) fail_with("an edited file does not write back", w.error());
  fuzz::check(*w == bytes, "an edited file does not write back byte for byte");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  auto c = mab::read_container(std::span<const std::uint8_t>(data, size), limits);
  if (!c) return 0;
  auto d = mab::decode_clip(*c, 0, limits);
  if (!d) return 0;
  fuzz::Rng rng(fuzz::hash_bytes(data, size));
  mab::Clip clip = d->clip;
  const std::size_t ops = 1 + rng.below(3);
  for (std::size_t i = 0; i < ops; ++i) {
    const auto bone = clip.bones.empty() ? 0 : rng.below(clip.bones.size());
    const mab::Quat q{static_cast<float>(rng.unit() - 0.5), static_cast<float>(rng.unit() - 0.5),
                      static_cast<float>(rng.unit() - 0.5), 1.0f};
    mab::Status st;
    switch (rng.below(11)) {
      // Bounded so a run stays small: at most 4x the keys' time span, a few hundred keys.
      case 0: st = mab::edit::speed(clip, 0.25 + 4 * rng.unit()); break;
      case 1: st = mab::edit::trim(clip, rng.unit(), rng.unit() * 4); break;
      case 2: st = mab::edit::reverse(clip); break;
      case 3: st = mab::edit::loop_fix(clip); break;
      case 4:
        if (clip.key_count() > 0 && clip.key_rate > 0 &&
            (clip.key_times.back() - clip.key_times.front()) / clip.key_rate * 61 < 2048)
          st = mab::edit::resample(clip, 1 + 60 * rng.unit());
        break;
      case 5: st = mab::edit::rotate_bone(clip, bone, q); break;
      case 6: st = mab::edit::set_constant(clip, bone, q); break;
      case 7: st = mab::edit::remove_bone(clip, bone); break;
      case 8: st = mab::edit::add_bone(clip, "fuzz" + std::to_string(rng.below(4)), q); break;
      case 9: st = mab::edit::set_bits(clip, bone, static_cast<unsigned>(1 + rng.below(16))); break;
      default: {
        auto r = mab::edit::reduce(clip, rng.unit());
        if (r) fuzz::check(r->keys_after <= r->keys_before, "reduce added keys");
        break;
      }
    }
    if (!st) break;
  }
  mab::EncodeOptions eo;
  eo.raise_depth = rng.below(2) == 0;
  auto edited = mab::encode_clip(*d, clip, eo);
  if (edited) check_file(*edited);

  static constexpr mab::Game games[] = {mab::Game::watch_dogs, mab::Game::watch_dogs_2, mab::Game::watch_dogs_legion,
                                        mab::Game::far_cry_5};
  mab::ConvertOptions co;
  co.drop_unmappable = rng.below(2) == 0;
  mab::ConvertReport rep;
  const auto target = games[rng.below(4)];
  auto converted = mab::convert_clip(*c, 0, target, co, &rep);
  if (!converted) return 0;
  check_file(*converted);
  auto back = mab::read_container(*converted);
  fuzz::check(back->blocks.size() == 1 && back->variant->game == target, "a conversion gave another file shape");
  auto bd = mab::decode_clip(*back, 0, limits);
  if (!bd) fail_with("a converted clip does not decode", bd.error());
  if (rep.keys_merged == 0) {
    // The same keys (their times moved onto the target's grid): each rotation within the
    // error the encoder reported.
    fuzz::check(bd->clip.bones.size() == d->clip.bones.size(), "a conversion changed the bones");
    for (std::size_t i = 0; i < d->clip.bones.size(); ++i) {
      const auto& a = d->clip.bones[i];
      const auto& b = bd->clip.bones[i];
      fuzz::check(a.hash == b.hash && a.kind() == b.kind() && a.keys.size() == b.keys.size(),
                  "a conversion changed a bone");
      for (std::size_t k = 0; k < a.keys.size(); ++k)
        fuzz::check(!(mab::angular_error_deg(a.keys[k], b.keys[k]) > rep.encode.max_error_deg + 1e-3),
                    "a conversion moved a key beyond its report");
    }
  }
  return 0;
}

// Translations, root motion and part entries (format 10, 12) of damaged files: each motion
// section of each corpus file that has one is corrupted the ways a bad copy, a wrong tool or a
// hostile file corrupt it (a word set to NaN, infinity, a huge or a tiny value, a byte flipped,
// padding that is not zero, the section cut short or grown), the file is written and read
// again, and then the contract holds: the clip decodes or fails with a one-line error; a
// section no reading fits is kept opaque with the reason; whatever was decoded, the unedited
// clip writes back the file's exact bytes.
#include <mab/container.hpp>
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>

#include "decode/decode_motion.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <map>

namespace {

using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

struct Slot {
  const char* name;
  int mab::container::MotionLayout::*slot;
  mab::Evidence mab::BlockEvidence::*evidence;
};

const Slot kSlots[] = {
    {"TranslationTable", &mab::container::MotionLayout::table, &mab::BlockEvidence::translations},
    {"JointTranslations", &mab::container::MotionLayout::translations, &mab::BlockEvidence::translations},
    {"JointConstantTranslations", &mab::container::MotionLayout::constant_translations,
     &mab::BlockEvidence::constant_translations},
    {"DisplacementOrientations", &mab::container::MotionLayout::root_rotations, &mab::BlockEvidence::root_rotations},
    {"DisplacementTranslations", &mab::container::MotionLayout::root_translations,
     &mab::BlockEvidence::root_translations},
    {"parts", &mab::container::MotionLayout::parts, &mab::BlockEvidence::parts},
};

// The ways a section is damaged; each returns the new bytes (or nothing to skip).
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> damaged(const std::vector<std::uint8_t>& s) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
  const std::size_t words = s.size() / 4;
  // Words at the start (headers, first entries), the end, and a stride through the middle.
  std::vector<std::size_t> at;
  for (std::size_t w = 0; w < words; ++w)
    if (w < 6 || w + 3 >= words || w % 5 == 0) at.push_back(w);
  const std::uint32_t patterns[] = {
      0x7FC00000u /* NaN */, 0x7F800000u /* inf */, 0x501502F9u /* 1e10 */, 0x00000001u /* denormal */,
      0xFFFFFFFFu,           0x00000000u,           0x3F800000u /* 1.0 */,  0x00010000u};
  for (const std::size_t w : at)
    for (const std::uint32_t p : patterns) {
      auto b = s;
      for (unsigned i = 0; i < 4; ++i) b[4 * w + i] = static_cast<std::uint8_t>(p >> (8 * i));
      if (b != s) out.push_back({"word " + std::to_string(w) + " = " + std::to_string(p), std::move(b)});
    }
  for (std::size_t i = 0; i < s.size(); i += 3) {
    auto b = s;
    b[i] ^= 0x80;
    out.push_back({"byte " + std::to_string(i) + " ^ 0x80", std::move(b)});
  }
  if (!s.empty()) {
    out.push_back({"cut by 4", {s.begin(), s.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, s.size()))}});
    out.push_back({"cut in half", {s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2)}});
  }
  auto grown = s;
  grown.insert(grown.end(), {0, 0, 0, 7});
  out.push_back({"4 bytes of non-zero padding", grown});
  grown = s;
  grown.insert(grown.end(), 16, 0);
  out.push_back({"16 bytes of padding", grown});
  grown = s;
  grown.insert(grown.end(), s.begin(), s.end());
  out.push_back({"twice", grown});
  out.push_back({"removed", {}});
  return out;
}

TEST(MotionCorruption, DamagedSectionsAreDecodedKeptOpaqueOrRefusedAndWriteBackExactly) {
  std::map<std::string, std::size_t> opaque, accepted, refused;
  std::size_t cases = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    if (!c || c->blocks.empty() || c->blocks[0].legacy()) continue;
    for (std::size_t b = 0; b < c->blocks.size() && b < 2; ++b) {
      if (!mab::decode_clip(*c, b)) continue;
      const auto layout = mab::container::motion_layout(c->blocks[b]);
      for (const auto& slot : kSlots) {
        const int s = layout.*(slot.slot);
        if (s < 0 || c->blocks[b].section(static_cast<std::size_t>(s)).empty()) continue;
        const std::vector<std::uint8_t> original(c->blocks[b].section(static_cast<std::size_t>(s)).begin(),
                                                 c->blocks[b].section(static_cast<std::size_t>(s)).end());
        for (auto& [what, bytes] : damaged(original)) {
          const std::string where = name_of(p) + " block " + std::to_string(b) + " " + slot.name + ": " + what;
          mab::Container edited = *c;
          *edited.blocks[b].section_mut(static_cast<std::size_t>(s)) = bytes;
          auto file = mab::write_container(edited);
          if (!file) continue;  // the layout cannot hold it (a section overlapping another)
          ++cases;
          auto back = mab::read_container(*file);
          if (!back) {
            ++refused[slot.name];
            continue;
          }
          auto d = mab::decode_clip(*back, b);
          if (!d) {
            EXPECT_EQ(d.error().message().find('\n'), std::string::npos) << where;
            ++refused[slot.name];
            continue;
          }
          const mab::Evidence& ev = d->evidence.*(slot.evidence);
          if (ev.level == mab::EvidenceLevel::opaque) {
            EXPECT_FALSE(ev.detail.empty()) << where;
            ++opaque[slot.name];
          } else {
            ++accepted[slot.name];
          }
          auto again = mab::encode_clip(*d, d->clip);
          ASSERT_TRUE(again.ok()) << where << ": " << again.error().message();
          ASSERT_EQ(*again, *file) << where << " (" << ev.text() << ")";
        }
      }
    }
  }
  EXPECT_GT(cases, 1000u);
  for (const auto& slot : kSlots) {
    std::printf("[ damage   ] %-26s %5zu opaque, %5zu still decoded, %4zu refused\n", slot.name, opaque[slot.name],
                accepted[slot.name], refused[slot.name]);
    EXPECT_GT(opaque[slot.name], 0u) << slot.name << ": no damage was noticed";
  }
}

}  // namespace

// Far Cry 2/3 clips of damaged files (format 13): every section of every FC2/FC3 corpus clip
// corrupted the ways a bad copy or a hostile file corrupts it (array headers and counts, frame
// numbers, values, cut short or grown), written, read again. The contract: the clip decodes or
// is refused with a one-line error naming a field; a clip that decodes writes back, unedited,
// the file's exact bytes.
#include <mab/container.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <map>

namespace {

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> damaged(const std::vector<std::uint8_t>& s) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
  const std::size_t words = s.size() / 4;
  const std::uint32_t patterns[] = {0x7FC00000u, 0xFFFFFFFFu, 0x00000000u, 0x00010000u, 0x0000FFFFu, 0x00000003u};
  for (std::size_t w = 0; w < words; ++w) {
    if (!(w < 8 || w + 2 >= words || w % 7 == 0)) continue;
    for (const std::uint32_t p : patterns) {
      auto b = s;
      for (unsigned i = 0; i < 4; ++i) b[4 * w + i] = static_cast<std::uint8_t>(p >> (8 * i));
      if (b != s) out.push_back({"word " + std::to_string(w) + " = " + std::to_string(p), std::move(b)});
    }
  }
  for (std::size_t i = 0; i < s.size() && i < 64; i += 2) {
    auto b = s;
    b[i] ^= 0x81;
    out.push_back({"byte " + std::to_string(i) + " ^ 0x81", std::move(b)});
  }
  if (s.size() >= 4) {
    out.push_back({"cut by 4", {s.begin(), s.end() - 4}});
    out.push_back({"cut in half", {s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2)}});
  }
  auto grown = s;
  grown.insert(grown.end(), 16, 0x5A);
  out.push_back({"16 bytes more", grown});
  return out;
}

TEST(LegacyCorruption, DamagedClipsDecodeOrAreRefusedAndWriteBackExactly) {
  std::size_t cases = 0, decoded = 0, refused = 0;
  for (const auto& p : mab::test::legacy_files()) {
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok()) << p;
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      if (!mab::decode_legacy_clip(*c, b)) continue;
      for (std::size_t slot = 0; slot < 6; ++slot) {  // the array sections (format 13.3)
        const auto sec = c->blocks[b].section(slot);
        if (sec.empty()) continue;
        const std::vector<std::uint8_t> original(sec.begin(), sec.end());
        for (auto& [what, bytes] : damaged(original)) {
          const std::string where =
              mab::test::name_of(p) + " clip " + std::to_string(b) + " slot " + std::to_string(slot) + ": " + what;
          mab::Container edited = *c;
          *edited.blocks[b].section_mut(slot) = bytes;
          auto file = mab::write_container(edited);
          if (!file) continue;
          auto back = mab::read_container(*file);
          if (!back) continue;
          ++cases;
          auto l = mab::decode_legacy_clip(*back, b);
          if (!l) {
            ++refused;
            EXPECT_FALSE(l.error().field.empty()) << where << ": " << l.error().message();
            EXPECT_EQ(l.error().message().find('\n'), std::string::npos) << where;
            continue;
          }
          ++decoded;
          auto again = mab::encode_legacy_clip(*back, b, *l);
          ASSERT_TRUE(again.ok()) << where << ": " << again.error().message();
          auto written = mab::write_container(*again);
          ASSERT_TRUE(written.ok()) << where;
          ASSERT_EQ(*written, *file) << where;
        }
      }
    }
  }
  std::printf("[ damage   ] %zu damaged clips: %zu still decode (and write back exactly), %zu refused by name\n", cases,
              decoded, refused);
  EXPECT_GT(cases, 1000u);
  EXPECT_GT(refused, 100u);
  EXPECT_GT(decoded, 100u);
}

}  // namespace

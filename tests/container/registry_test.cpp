#include <mab/container.hpp>
#include <mab/variant.hpp>

#include <gtest/gtest.h>

#include <set>

namespace {

std::vector<std::uint8_t> header_with(std::uint32_t word) {
  std::vector<std::uint8_t> f(16, 0);
  for (int i = 0; i < 4; ++i) f[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(word >> (8 * i));
  return f;
}

TEST(Registry, HasTheNineVariantsOfSpecSection2) {
  const std::set<std::pair<std::string_view, std::uint32_t>> expected{
      {"fc2", 0x4C}, {"fc3", 0x61},   {"fc3bd", 0x62}, {"fc4", 0x81},  {"primal", 0x82},
      {"fc5", 0xB0}, {"wd1", 0x329B}, {"wd2", 0x46AF}, {"wdl", 0x46B4}};
  std::set<std::pair<std::string_view, std::uint32_t>> got;
  for (const auto& v : mab::all_variants()) got.insert({v.short_name, v.magic});
  EXPECT_EQ(got, expected);
}

TEST(Registry, DetectsEachMagic) {
  for (const auto& v : mab::all_variants()) {
    auto f = header_with(v.magic_bytes == 4 ? v.magic : (v.magic | 0x00030000u));
    auto r = mab::detect_variant(f);
    ASSERT_TRUE(r.ok()) << v.short_name;
    EXPECT_EQ((*r)->game, v.game);
  }
}

TEST(Registry, UnknownMagicNamesTheValue) {
  auto f = header_with(0x12345678);
  auto r = mab::detect_variant(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::unsupported_version);
  EXPECT_EQ(r.error().field, "magic");
  EXPECT_EQ(r.error().offset, 0u);
  EXPECT_NE(r.error().detail.find("0x12345678"), std::string::npos) << r.error().detail;
}

TEST(Registry, WatchDogsMagicNeedsTheWholeWord) {
  // 0x9B alone is no FC magic; with a non-zero high half it is no WD magic either.
  auto r = mab::detect_variant(header_with(0x0001329B));
  EXPECT_FALSE(r.ok());
}

TEST(Registry, OpaqueVariantsRoundTrip) {
  for (const char* name : {"primal", "fc3bd"}) {
    const auto* v = mab::find_variant(name);
    ASSERT_NE(v, nullptr);
    auto f = header_with(v->magic);
    for (int i = 0; i < 37; ++i) f.push_back(static_cast<std::uint8_t>(i * 7));
    auto c = mab::read_container(f);
    ASSERT_TRUE(c.ok()) << c.error().message();
    EXPECT_TRUE(c->is_opaque());
    auto w = mab::write_container(*c);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(*w, f);
  }
}

TEST(BoneHash, MatchesDecisionD11) {
  EXPECT_EQ(mab::bone_hash("Root"), 0xB6C65665u);
  EXPECT_EQ(mab::bone_hash("Pelvis"), 0xB021FD58u);
  EXPECT_EQ(mab::bone_hash(""), 0u);
  EXPECT_NE(mab::bone_hash("root"), mab::bone_hash("Root"));  // case-sensitive
}

}  // namespace

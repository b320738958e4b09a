// crc-search options that narrow or bound the search (crc_search.hpp): each family switched
// off is said in the notes, a field the solver cannot take is said too, a bad field length
// is refused, and the result count cap counts what it drops.
#include "checksum/plant.hpp"

#include <mab/crc_search.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace mab::checksum;

std::vector<InputFile> planted(const char* spec, std::vector<std::size_t> sizes, std::uint64_t seed) {
  mab::test::GenOptions g;
  g.sizes = std::move(sizes);
  g.seed = seed;
  auto files = mab::test::generate(g);
  auto s = parse_spec(spec);
  EXPECT_TRUE(s.ok()) << spec;
  EXPECT_TRUE(mab::test::plant(files, *s));
  return files;
}

bool has_note(const SearchReport& r, const std::string& text) {
  return std::any_of(r.stats.notes.begin(), r.stats.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(SearchOptions, FamiliesSwitchedOffAreSaidAndNotTried) {
  const auto files = planted("algo=CRC-32/ISO-HDLC range=0x10..eof field=0x4:4:le", {400, 400, 300}, 31);
  SearchOptions o = mab::test::quiet_options();
  o.catalogue = false;
  o.free_init = false;
  o.solver = false;
  auto r = search(files, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->matches.empty());
  EXPECT_TRUE(has_note(*r, "catalogue and checksum sweep disabled"));
  // A 2-byte field: the solver (32-bit CRCs into 4 bytes) is skipped, the catalogue still runs.
  const auto two = planted("algo=CRC-16/ARC range=0x10..eof field=0x4:2:le", {400, 400, 300}, 32);
  o = mab::test::quiet_options();
  o.field.length = 2;
  r = search(two, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(has_note(*r, "solver skipped: it needs a 4-byte field"));
  ASSERT_FALSE(r->matches.empty());
  EXPECT_EQ(r->matches[0].spec.algo.name(), "CRC-16/ARC");
  EXPECT_EQ(method_name(r->matches[0].method), "catalogue");
}

TEST(SearchOptions, TheResultCapCountsWhatItDrops) {
  // A sum over the whole file is matched by several ranges and byte orders of the same kind.
  const auto files = planted("algo=sum32 range=0x0..eof,zeroed field=0x4:4:le", {400, 350, 300, 250}, 33);
  SearchOptions o = mab::test::quiet_options();
  o.solver = false;
  o.free_init = false;
  auto all = search(files, o);
  ASSERT_TRUE(all.ok());
  ASSERT_FALSE(all->matches.empty());
  EXPECT_EQ(method_name(all->matches[0].method), "checksum");
  o.max_results = 0;
  auto none = search(files, o);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->matches.empty());
  EXPECT_EQ(none->stats.suppressed, all->matches.size() + all->stats.suppressed);
}

TEST(SearchOptions, BadFieldsAreRefused) {
  const auto files = planted("algo=sum32", {100, 90, 80}, 34);
  SearchOptions o = mab::test::quiet_options();
  for (const unsigned len : {0u, 9u}) {
    o.field.length = len;
    auto r = search(files, o);
    ASSERT_FALSE(r.ok()) << len;
    EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
    EXPECT_EQ(r.error().field, "field");
  }
  EXPECT_EQ(method_name(Method::free_init), "catalogue-free-init");
  EXPECT_EQ(method_name(Method::solver), "solver");
}

// refin != refout (no 32-bit catalogue CRC has it): found by the solver only when asked to
// try the mixed reflections, which doubles its work.
TEST(SearchOptions, MixedReflectionsAreSolvedOnlyWhenAsked) {
  const char* spec = "width=32 poly=0x1f3a5c71 init=0 refin=true refout=false xorout=0 range=0x8..eof field=0x4:4:le";
  const auto files = planted(spec, {900, 900, 700}, 35);
  SearchOptions o = mab::test::quiet_options();
  o.catalogue = false;
  o.free_init = false;
  auto plain = search(files, o);
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_TRUE(plain->matches.empty());
  o.solver_mixed_reflection = true;
  std::size_t progress = 0;
  o.progress = [&](const std::string&) { ++progress; };
  auto mixed = search(files, o);
  ASSERT_TRUE(mixed.ok()) << mixed.error().message();
  ASSERT_FALSE(mixed->matches.empty());
  const auto& top = mixed->matches[0];
  EXPECT_EQ(method_name(top.method), "solver");
  EXPECT_EQ(top.spec.algo.crc.poly, 0x1f3a5c71u);
  EXPECT_TRUE(top.spec.algo.crc.refin);
  EXPECT_FALSE(top.spec.algo.crc.refout);
  EXPECT_GT(progress, 0u);
}

}  // namespace

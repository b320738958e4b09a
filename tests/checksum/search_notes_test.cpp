// crc-search's notes say why something was not tried, each once: the solver noted every
// range it skipped, so three copies of one file printed the same note five times.
#include <mab/crc_search.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <set>

namespace {

using namespace mab::checksum;

TEST(SearchNotes, EachNoteOnce) {
  const auto bytes = mab::test::load(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  ASSERT_FALSE(bytes.empty());
  const std::vector<InputFile> files{{"a", bytes}, {"b", bytes}, {"c", bytes}};
  SearchOptions o;
  o.field = *parse_field("0x4:4:le");
  o.both_endians = false;
  o.max_ranges = 64;
  o.catalogue = false;
  o.free_init = false;
  o.threads = 1;
  const auto report = search(files, o);
  ASSERT_TRUE(report.ok()) << report.error().message();
  std::set<std::string> seen;
  bool skipped = false;
  for (const auto& n : report->stats.notes) {
    EXPECT_TRUE(seen.insert(n).second) << "noted twice: " << n;
    skipped = skipped || n.find("fewer than 2 distinct files") != std::string::npos;
  }
  EXPECT_TRUE(skipped) << "the solver skipped no range: the test no longer tests the note";
}

}  // namespace

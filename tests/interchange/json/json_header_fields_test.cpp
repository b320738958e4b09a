// JSON import reads each header through its field table (lib/src/container/header_fields.hpp,
// CONTRIBUTING.md): every field the table lists for a layout is a member import needs, by the table's
// key, and a member the table does not list is refused, so a field added to the table is read,
// written and exported with no other change.
#include <mab/json.hpp>

#include "container/header_fields.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace {

using Json = nlohmann::ordered_json;

Json exported(const char* rel) {
  auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / rel));
  EXPECT_TRUE(c.ok()) << rel;
  auto text = mab::export_json(*c);
  EXPECT_TRUE(text.ok()) << rel;
  return Json::parse(*text);
}

template <class H, class Visit>
std::vector<std::string_view> table_keys(Visit visit) {
  H h{};
  mab::container::FieldKeys keys;
  EXPECT_TRUE(visit(h, keys).ok());
  return keys.keys;
}

// Each key of the table, left out of the header object at `pointer`, fails import naming it;
// an extra member is refused by name.
void expect_table_read(const char* rel, const std::string& pointer, const std::vector<std::string_view>& keys) {
  const Json base = exported(rel);
  ASSERT_TRUE(mab::import_json_bytes(base.dump()).ok()) << rel;
  const Json::json_pointer ptr(pointer);
  for (const auto key : keys) {
    Json doc = base;
    ASSERT_TRUE(doc.at(ptr).contains(std::string(key))) << rel << " " << key;
    doc.at(ptr).erase(std::string(key));
    const auto r = mab::import_json_bytes(doc.dump());
    ASSERT_FALSE(r.ok()) << rel << ": import without " << key;
    EXPECT_EQ(r.error().field, pointer + "/" + std::string(key)) << r.error().message();
  }
  Json doc = base;
  doc.at(ptr)["not_a_field"] = 1;
  const auto r = mab::import_json_bytes(doc.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, pointer + "/not_a_field") << r.error().message();
}

TEST(JsonHeaderFields, EveryTableFieldIsReadByItsKey) {
  using namespace mab;
  const auto ani = [](auto& h, auto&& v) { return container::ani_header_fields(h, v); };
  const auto fc4 = [](auto& h, auto&& v) { return container::fc4_header_fields(h, v); };
  const auto legacy = [](auto& h, auto&& v) { return container::legacy_header_fields(h, v); };
  const auto outer = [](auto& h, auto&& v) { return container::outer_header_fields(h, v); };
  for (const char* rel : {"wd1/const_only_k9.mab", "wdl/const_only_k7.mab", "fc5/const_only_k8.mab"})
    expect_table_read(rel, "/container/blocks/0/header", table_keys<AniHeader>(ani));
  expect_table_read("fc4/const_only_k8.mab", "/container/blocks/0/header", table_keys<Fc4Header>(fc4));
  expect_table_read("fc2/all_arrays.mab", "/container/blocks/0/header", table_keys<LegacyHeader>(legacy));
  expect_table_read("wdl/const_only_k7.mab", "/container/header", table_keys<OuterHeader>(outer));
}

}  // namespace

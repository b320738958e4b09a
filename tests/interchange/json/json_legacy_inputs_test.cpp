// Far Cry 2/3 documents as a hand edit or a hostile file makes them (docs/json-format.md,
// "`legacy_clip`" and "Far Cry 2 and 3 in version 3"): each malformed member of `legacy_clip`
// and of version 3's `legacy` is refused as a parse_error naming its path; a null keeps the
// stored value, and a null with nothing stored is refused; a track id, a keyed track or a tag
// record the file cannot hold is refused by name; nothing is written on a refusal.
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <functional>
#include <set>
#include <string>

namespace {

using mab::test::corpus_dir;
using mab::test::load_container;
using nlohmann::json;

// The version `version` document of block `block` of `c`.
json document(const mab::Container& c, std::size_t block, std::uint32_t version = 2) {
  mab::JsonExportOptions o;
  o.version = version;
  auto text = mab::export_block_json(c, block, o);
  EXPECT_TRUE(text.ok()) << text.error().message();
  return text ? json::parse(*text) : json();
}

mab::Result<mab::JsonImport> import(const json& doc) {
  mab::JsonImportOptions o;
  o.encode = mab::edit_policy(0.01);
  return mab::import_json_bytes(doc.dump(), mab::default_limits, o);
}

struct Case {
  const char* what;
  std::function<void(json&)> edit;
  mab::ErrorCode code;
  std::string field;
};

void expect_refused(const json& doc, const Case& k) {
  json edited = doc;
  k.edit(edited);
  auto r = import(edited);
  ASSERT_FALSE(r.ok()) << k.what;
  EXPECT_EQ(r.error().code, k.code) << k.what << ": " << r.error().message();
  EXPECT_EQ(r.error().field, k.field) << k.what << ": " << r.error().message();
}

const auto k_parse = mab::ErrorCode::parse_error;

// A member missing, or of another JSON type than docs/json-format.md gives it: a parse_error at
// that member, for every list of "legacy_clip" and each list inside its entries.
TEST(JsonLegacyInputs, MissingOrMistypedMembersAreRefusedAtTheirPath) {
  const json doc = document(load_container(corpus_dir() / "fc2" / "all_arrays.mab"), 0);
  ASSERT_TRUE(doc.contains("legacy_clip"));
  const auto& l = doc["legacy_clip"];
  for (const char* list : {"constant_rotations", "rotations", "constant_translations", "translations"})
    ASSERT_FALSE(l[list].empty()) << list;
  ASSERT_TRUE(l.contains("trajectory_translation") && l.contains("trajectory_rotation"));
  const std::string p = "/legacy_clip";
  const auto erase = [](const char* key) { return [key](json& d) { d["legacy_clip"].erase(key); }; };
  const auto set = [](const std::string& pointer, json v) {
    return [pointer, v](json& d) { d[json::json_pointer(pointer)] = v; };
  };
  const Case cases[] = {
      {"no last_frame", erase("last_frame"), k_parse, p + "/last_frame"},
      {"no frame_rate", erase("frame_rate"), k_parse, p + "/frame_rate"},
      {"a frame_rate in words", set(p + "/frame_rate", "thirty"), k_parse, p + "/frame_rate"},
      {"a trajectory translation that is a number", set(p + "/trajectory_translation", 3), k_parse,
       p + "/trajectory_translation"},
      {"a trajectory rotation that is an object", set(p + "/trajectory_rotation", json::object()), k_parse,
       p + "/trajectory_rotation"},
      {"no constant_rotations", erase("constant_rotations"), k_parse, p + "/constant_rotations"},
      {"constant_rotations a number", set(p + "/constant_rotations", 1), k_parse, p + "/constant_rotations"},
      {"no rotations", erase("rotations"), k_parse, p + "/rotations"},
      {"rotations null", set(p + "/rotations", nullptr), k_parse, p + "/rotations"},
      {"a keyed track without frames", [](json& d) { d["legacy_clip"]["rotations"][0].erase("frames"); }, k_parse,
       p + "/rotations/0/frames"},
      {"a keyed track's frames a number", set(p + "/rotations/0/frames", 3), k_parse, p + "/rotations/0/frames"},
      {"a keyed track without keys", [](json& d) { d["legacy_clip"]["rotations"][0].erase("keys"); }, k_parse,
       p + "/rotations/0/keys"},
      {"a keyed track's keys a string", set(p + "/rotations/0/keys", "x"), k_parse, p + "/rotations/0/keys"},
      {"no constant_translations", erase("constant_translations"), k_parse, p + "/constant_translations"},
      {"constant_translations an object", set(p + "/constant_translations", json::object()), k_parse,
       p + "/constant_translations"},
      {"a constant translation in words", set(p + "/constant_translations/0/translation", "up"), k_parse,
       p + "/constant_translations/0/translation"},
      {"no translations", erase("translations"), k_parse, p + "/translations"},
      {"translations a boolean", set(p + "/translations", true), k_parse, p + "/translations"},
  };
  for (const auto& k : cases) expect_refused(doc, k);
}

// The tag records' name slots and the event nodes (docs/json-format.md, "`tag_table` and
// `events`"), in version 2's "legacy_clip" and version 3's "legacy".
TEST(JsonLegacyInputs, MalformedTagRecordsAndEventsAreRefusedAtTheirPath) {
  const auto c = load_container(corpus_dir() / "fc3" / "retail_bank.mab");
  for (const std::uint32_t version : {2u, 3u}) {
    const json doc = document(c, 0, version);
    const std::string p = version == 2 ? "/legacy_clip" : "/legacy";
    ASSERT_TRUE(doc.contains(json::json_pointer(p + "/tag_table"))) << version;
    ASSERT_TRUE(doc.contains(json::json_pointer(p + "/events"))) << version;
    const std::string slot = p + "/tag_table/0/names/0";
    const auto set = [](const std::string& pointer, json v) {
      return [pointer, v](json& d) { d[json::json_pointer(pointer)] = v; };
    };
    const Case cases[] = {
        {"a tag table that is a number", set(p + "/tag_table", 5), k_parse, p + "/tag_table"},
        {"events that are a string", set(p + "/events", "x"), k_parse, p + "/events"},
        {"an event type in words", set(p + "/events/0/type", "sound"), k_parse, p + "/events/0/type"},
        {"a name slot with a length", set(slot + "/length", 4), k_parse, slot + "/length"},
        {"a name slot without its hash", [&](json& d) { d[json::json_pointer(slot)].erase("hash"); }, k_parse,
         slot + "/hash"},
        {"a name that is a number", set(slot + "/text", 5), k_parse, slot + "/text"},
        // A NUL would end the name early in the 32 NUL-padded bytes: the text after it lost.
        {"a name holding a NUL",
         set(slot + "/text", std::string("ak\0"
                                         "47",
                                         5)),
         k_parse, slot + "/text"},
        {"name bytes that are not hex", set(slot, json{{"hash", "0x00000000"}, {"bytes", std::string(64, 'z')}}),
         k_parse, slot + "/bytes"},
    };
    for (const auto& k : cases) expect_refused(doc, k);
  }
  // Version 3's "legacy" holds the records alone.
  const json v3 = document(c, 0, 3);
  expect_refused(v3, {"a misspelt legacy member", [](json& d) { d["legacy"]["tag_tables"] = json::array(); }, k_parse,
                      "/legacy/tag_tables"});
}

// "new": false is "new" left out: the unedited document still gives the file back, and a moved
// id marked false is refused as one without the member.
TEST(JsonLegacyInputs, NewFalseIsTheSameAsNoNew) {
  const auto path = corpus_dir() / "fc2" / "all_arrays.mab";
  json doc = document(load_container(path), 0);
  for (const char* list : {"constant_rotations", "rotations", "constant_translations", "translations"})
    doc["legacy_clip"][list][0]["new"] = false;
  auto r = import(doc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, mab::test::load(path));
}

// Ids below 160 (Far Cry 2's 5 mask words) that the clip gives no translation.
std::vector<std::uint32_t> untranslated_ids(const json& l) {
  std::set<std::uint32_t> used;
  for (const char* list : {"constant_translations", "translations"})
    for (const auto& t : l[list]) used.insert(t["bone"].get<std::uint32_t>());
  std::vector<std::uint32_t> out;
  for (std::uint32_t id = 0; id < 160 && out.size() < 2; ++id)
    if (!used.count(id)) out.push_back(id);
  return out;
}

// Decision 24: a translation's id is its identity; an id the file has no translation for would
// move the track to another bone (docs/json-format.md, "`legacy_clip`").
TEST(JsonLegacyInputs, ATranslationMovedToAnotherIdIsRefusedNamingTheTrack) {
  const json doc = document(load_container(corpus_dir() / "fc2" / "all_arrays.mab"), 0);
  const auto ids = untranslated_ids(doc["legacy_clip"]);
  ASSERT_EQ(ids.size(), 2u);
  for (const char* list : {"constant_translations", "translations"}) {
    json moved = doc;
    moved["legacy_clip"][list][0]["bone"] = ids[0];
    auto r = import(moved);
    ASSERT_FALSE(r.ok()) << list;
    EXPECT_EQ(r.error().code, k_parse) << list;
    EXPECT_EQ(r.error().field, "/legacy_clip/" + std::string(list) + "/0/bone") << r.error().message();
    EXPECT_NE(r.error().detail.find("no translation for bone " + std::to_string(ids[0])), std::string::npos)
        << r.error().message();
  }
}

// clip_from_legacy reads a keyed track at every frame 0..last_frame: a track without keys, or
// with a key past last_frame, cannot be read as written (docs/json-format.md: "keyed frames out
// of order or past `last_frame`" are refused).
TEST(JsonLegacyInputs, KeyedTracksWithoutKeysOrPastTheLastFrameAreRefused) {
  const json doc = document(load_container(corpus_dir() / "fc2" / "all_arrays.mab"), 0);
  const unsigned last = doc["legacy_clip"]["last_frame"];
  ASSERT_LE(doc["legacy_clip"]["rotations"][0]["frames"].back(), last);
  const Case cases[] = {
      {"a keyed track emptied",
       [](json& d) {
         d["legacy_clip"]["rotations"][0]["frames"] = json::array();
         d["legacy_clip"]["rotations"][0]["keys"] = json::array();
       },
       mab::ErrorCode::invalid_argument, "rotations"},
      {"a key a frame past last_frame",
       [&](json& d) {
         auto& t = d["legacy_clip"]["rotations"][0];
         t["frames"].push_back(last + 1);
         t["keys"].push_back(t["keys"].back());
       },
       mab::ErrorCode::invalid_argument, "rotations"},
  };
  for (const auto& k : cases) expect_refused(doc, k);
}

// "frame_rate": null is the stored rate (docs/json-format.md): the file comes back as it was.
TEST(JsonLegacyInputs, ANullFrameRateIsTheStoredOne) {
  for (const char* rel : {"fc2/all_arrays.mab", "fc3/retail_bank.mab"}) {
    const auto path = corpus_dir() / rel;
    json doc = document(load_container(path), 0);
    doc["legacy_clip"]["frame_rate"] = nullptr;
    auto r = import(doc);
    ASSERT_TRUE(r.ok()) << rel << ": " << r.error().message();
    EXPECT_EQ(r->bytes, mab::test::load(path)) << rel;
  }
}

// Tag record and event times (docs/json-format.md, "`tag_table` and `events`"): null stands for
// the stored value, so a null end and a null event time give the file back; a null in a record
// or a node the file does not have has nothing to stand for and is refused at its path.
TEST(JsonLegacyInputs, NullTimesKeepTheStoredValueAndNeedOne) {
  const auto path = corpus_dir() / "fc3" / "retail_bank.mab";
  const json doc = document(load_container(path), 0);
  const auto& l = doc["legacy_clip"];
  ASSERT_EQ(l["tag_table"].size(), 2u);
  ASSERT_EQ(l["events"].size(), 3u);
  // A null read as 0 would change these bytes.
  ASSERT_NE(l["tag_table"][0]["end"].get<double>(), 0.0);
  ASSERT_NE(l["events"][1]["time"].get<double>(), 0.0);
  json nulls = doc;
  nulls["legacy_clip"]["tag_table"][0]["end"] = nullptr;
  nulls["legacy_clip"]["events"][1]["time"] = nullptr;
  auto r = import(nulls);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, mab::test::load(path));

  const auto with_null = [](json v, const char* key) {
    v[key] = nullptr;
    return v;
  };
  const json record = with_null(l["tag_table"][0], "start"), node = with_null(l["events"][2], "time");
  const json plain = document(load_container(corpus_dir() / "fc3" / "all_arrays.mab"), 0);
  ASSERT_FALSE(plain["legacy_clip"].contains("tag_table"));
  ASSERT_FALSE(plain["legacy_clip"].contains("events"));
  const Case cases[] = {
      {"a null start in a record the file lacks", [&](json& d) { d["legacy_clip"]["tag_table"].push_back(record); },
       k_parse, "/legacy_clip/tag_table/2/start"},
      {"a null time in a node the file lacks", [&](json& d) { d["legacy_clip"]["events"].push_back(node); }, k_parse,
       "/legacy_clip/events/3/time"},
  };
  for (const auto& k : cases) expect_refused(doc, k);
  const Case none[] = {
      {"a null start in a tag table the clip lacks",
       [&](json& d) { d["legacy_clip"]["tag_table"] = json::array({record}); }, k_parse,
       "/legacy_clip/tag_table/0/start"},
      {"a null time in events the clip lacks", [&](json& d) { d["legacy_clip"]["events"] = json::array({node}); },
       k_parse, "/legacy_clip/events/0/time"},
  };
  for (const auto& k : none) expect_refused(plain, k);
}

// A tag record added, or a tag table given to a clip without one, changes the layout, which a
// document cannot (docs/legacy.md, "Writing": refused with invalid_argument, never dropped).
TEST(JsonLegacyInputs, AddedTagRecordsAreRefused) {
  const json doc = document(load_container(corpus_dir() / "fc3" / "retail_bank.mab"), 0);
  const json record = doc["legacy_clip"]["tag_table"][0];
  expect_refused(doc, {"a third record", [&](json& d) { d["legacy_clip"]["tag_table"].push_back(record); },
                       mab::ErrorCode::invalid_argument, "tag_table"});
  const json plain = document(load_container(corpus_dir() / "fc3" / "all_arrays.mab"), 0);
  expect_refused(plain, {"a tag table for a clip without one",
                         [&](json& d) { d["legacy_clip"]["tag_table"] = json::array({record}); },
                         mab::ErrorCode::invalid_argument, "tag_table"});
}

// clip_block is informational (docs/json-format.md): where clip_offset lands, or null. A record
// whose block is 2 given null is refused; a record whose offset reaches no block (its own start:
// offset 0) keeps null, and is refused a block number, the message naming "none".
TEST(JsonLegacyInputs, ClipBlockMustBeTheDecodedOneOrNull) {
  const auto path = corpus_dir() / "fc3" / "retail_bank.mab";
  auto c = load_container(path);
  const json doc = document(c, 0);
  ASSERT_EQ(doc["legacy_clip"]["tag_table"][1]["clip_block"], 2);
  expect_refused(doc, {"a block given null", [](json& d) { d["legacy_clip"]["tag_table"][1]["clip_block"] = nullptr; },
                       k_parse, "/legacy_clip/tag_table/1/clip_block"});

  // Slot 6: a u32 count, then 172-byte records; clip_offset is the i32 at +0x0C of a record.
  auto* tags = c.blocks[0].section_mut(6);
  ASSERT_NE(tags, nullptr);
  ASSERT_GE(tags->size(), 4 + mab::legacy_tag_record_size);
  std::fill_n(tags->begin() + 4 + 0x0C, 4, std::uint8_t{0});
  auto bytes = mab::write_container(c);
  ASSERT_TRUE(bytes.ok());
  auto reread = mab::read_container(*bytes);
  ASSERT_TRUE(reread.ok());
  const json own = document(*reread, 0);
  ASSERT_EQ(own["legacy_clip"]["tag_table"][0]["clip_offset"], 0);
  ASSERT_TRUE(own["legacy_clip"]["tag_table"][0]["clip_block"].is_null());
  auto r = import(own);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, *bytes);
  json numbered = own;
  numbered["legacy_clip"]["tag_table"][0]["clip_block"] = 0;
  auto refused = import(numbered);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "/legacy_clip/tag_table/0/clip_block");
  EXPECT_NE(refused.error().detail.find("(none)"), std::string::npos) << refused.error().message();
}

// Version 3: Far Cry 2/3 bones are skeleton ids (format 13), the file stores no names. A new
// bone given by its name is refused at that name (docs/json-format.md, "Far Cry 2 and 3 in
// version 3").
TEST(JsonLegacyInputs, ANewFarCryBoneGivenByNameIsRefusedAtTheName) {
  json doc = document(load_container(corpus_dir() / "fc2" / "all_arrays.mab"), 0, 3);
  auto& bones = doc["clip"]["bones"];
  const auto constant = std::find_if(bones.begin(), bones.end(), [](const json& b) { return b.contains("constant"); });
  ASSERT_NE(constant, bones.end());
  json named = *constant;
  named.erase("hash");
  named["name"] = "Spine";
  named["new"] = true;
  bones.push_back(named);
  expect_refused(
      doc, {"a named new bone", [](json&) {}, k_parse, "/clip/bones/" + std::to_string(bones.size() - 1) + "/name"});
}

// Version 3 trims a Far Cry 2/3 clip by its key times (docs/json-format.md: "a new last key time
// is a new lastFrame"). The duration then follows lastFrame by the clip's own rule
// (docs/legacy.md, "Trims": lastFrame / rate or (lastFrame + 1) / rate where the original held
// one of them exactly, else the removed frames' time subtracted), and a document may state that
// value: the trim lands with it.
TEST(JsonLegacyInputs, AVersion3TrimMayStateTheDurationLastFrameGives) {
  const auto c = load_container(corpus_dir() / "fc2" / "all_arrays.mab");
  const auto before = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(before.ok());
  json doc = document(c, 0, 3);
  auto& clip = doc["clip"];
  ASSERT_EQ(clip["key_times"].size(), std::size_t{before->last_frame} + 1);
  clip["key_times"].erase(clip["key_times"].size() - 1);
  for (auto& b : clip["bones"])
    if (b.contains("keys")) b["keys"].erase(b["keys"].size() - 1);
  auto& motion = doc["motion"];
  for (auto& t : motion["translations"]) t["keys"].erase(t["keys"].size() - 1);
  for (const char* k : {"translations", "rotations"})
    if (motion["root_motion"].contains(k)) motion["root_motion"][k].erase(motion["root_motion"][k].size() - 1);
  const double rate = before->frame_rate, last = before->last_frame;
  const auto bits = [](double d) { return std::bit_cast<std::uint32_t>(static_cast<float>(d)); };
  const std::uint32_t held = std::bit_cast<std::uint32_t>(before->duration);
  double want = before->duration - 1.0 / rate;
  if (held == bits(last / rate)) want = (last - 1) / rate;
  if (held == bits((last + 1) / rate)) want = last / rate;
  ASSERT_NE(bits(want), held) << "the trim must change the duration for the test to mean anything";
  clip["duration"] = want;
  auto r = import(doc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto back = mab::read_container(r->bytes);
  ASSERT_TRUE(back.ok());
  const auto after = mab::decode_legacy_clip(*back, 0);
  ASSERT_TRUE(after.ok()) << after.error().message();
  EXPECT_EQ(after->last_frame, before->last_frame - 1);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(after->duration), bits(want));
  // Any other duration is refused at /clip/duration.
  clip["duration"] = want + 0.5;
  expect_refused(doc, {"a duration off the rule", [](json&) {}, k_parse, "/clip/duration"});
}

}  // namespace

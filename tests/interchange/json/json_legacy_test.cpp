// Far Cry 2/3 clips in the "mabkit-clip" JSON ("legacy_clip", docs/json-format.md): every
// corpus clip exports its tracks and an unedited document imports to the same bytes; edits in
// the document come back in the file within the reported error; malformed or unsupported
// edits are refused with their JSON path.
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace {

using nlohmann::json;

using mab::test::legacy_files;
using mab::test::load_container;

std::string document(const mab::Container& c, std::size_t block) {
  auto d = mab::decode_legacy_clip(c, block);
  EXPECT_TRUE(d.ok()) << d.error().message();
  // Version 2's "legacy_clip" (version 3 documents: json_v3_test.cpp).
  auto text = mab::export_json(c, *d, mab::JsonExportOptions{2});
  EXPECT_TRUE(text.ok()) << text.error().message();
  return *text;
}

mab::Result<mab::JsonImport> import(const json& doc, double max_error = 0.01) {
  mab::JsonImportOptions o;
  o.encode = mab::edit_policy(max_error);
  return mab::import_json_bytes(doc.dump(), mab::default_limits, o);
}

TEST(JsonLegacy, EveryCorpusClipExportsItsTracksAndImportsToTheSameBytes) {
  std::size_t clips = 0;
  for (const auto& p : legacy_files()) {
    const auto c = load_container(p);
    const auto bytes = mab::test::load(p);
    for (std::size_t b = 0; b < c.blocks.size(); ++b) {
      const std::string text = document(c, b);
      const json doc = json::parse(text);
      ASSERT_TRUE(doc.contains("legacy_clip")) << p;
      EXPECT_FALSE(doc.contains("clip")) << p;
      EXPECT_EQ(doc["block"], b);
      // The document's tracks are the decoder's, count for count.
      const auto d = mab::decode_legacy_clip(c, b);
      const auto& l = doc["legacy_clip"];
      EXPECT_EQ(l["last_frame"], d->last_frame);
      EXPECT_EQ(l["rotations"].size(), d->rotations.size());
      EXPECT_EQ(l["constant_rotations"].size(), d->constant_rotations.size());
      EXPECT_EQ(l["translations"].size(), d->translations.size());
      EXPECT_EQ(l["constant_translations"].size(), d->constant_translations.size());
      EXPECT_EQ(l.contains("trajectory_translation"), d->present[0]);
      EXPECT_EQ(l.contains("trajectory_rotation"), d->present[1]);
      auto imported = mab::import_json_bytes(text);
      ASSERT_TRUE(imported.ok()) << p << " " << imported.error().message();
      EXPECT_TRUE(imported->legacy_encoded);
      EXPECT_EQ(imported->legacy_report.sections_rewritten, 0u) << p;
      EXPECT_EQ(imported->bytes, bytes) << p << " block " << b;
      // Streamed, the document is the same text.
      std::string streamed;
      ASSERT_TRUE(mab::export_json(
                      c, *d,
                      [&](std::string_view piece) {
                        streamed.append(piece);
                        return true;
                      },
                      mab::JsonExportOptions{2})
                      .ok());
      EXPECT_EQ(streamed, text) << p;
      ++clips;
    }
  }
  EXPECT_GE(clips, 20u);
}

// The values in the document are the decoder's, float for float (shortest round-trip text).
TEST(JsonLegacy, ValuesReadBackBitForBit) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  auto doc = mab::import_legacy_json(document(c, 0));
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  const auto d = mab::decode_legacy_clip(c, 0);
  const auto& got = doc->clip;
  ASSERT_EQ(got.translations.size(), d->translations.size());
  for (std::size_t t = 0; t < got.translations.size(); ++t)
    for (std::size_t f = 0; f < got.translations[t].frames.size(); ++f)
      for (unsigned k = 0; k < 3; ++k)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got.translations[t].frames[f][k]),
                  std::bit_cast<std::uint32_t>(d->translations[t].frames[f][k]));
  ASSERT_EQ(got.rotations.size(), d->rotations.size());
  for (std::size_t t = 0; t < got.rotations.size(); ++t) {
    EXPECT_EQ(got.rotations[t].frames, d->rotations[t].frames);
    for (std::size_t k = 0; k < got.rotations[t].keys.size(); ++k)
      for (unsigned i = 0; i < 4; ++i)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got.rotations[t].keys[k][i]),
                  std::bit_cast<std::uint32_t>(d->rotations[t].keys[k][i]));
  }
}

double angle_deg(const mab::Quat& a, const mab::Quat& b) { return mab::angular_error_deg(a, b); }

// An edited key and an edited translation in the document: the written clip holds them (the
// rotation within the reported error, the translation exactly); the bank's other clips and
// the untouched sections keep their bytes.
TEST(JsonLegacy, EditsInTheDocumentComeBackInTheFile) {
  for (const char* game : {"fc2", "fc3"}) {
    const auto path = mab::test::corpus_dir() / game / "chain_3.mab";
    const auto c = load_container(path);
    const auto d1 = mab::decode_legacy_clip(c, 1);
    ASSERT_TRUE(d1.ok());
    ASSERT_FALSE(d1->rotations.empty());
    json doc = json::parse(document(c, 1));
    // Frame 3 of the first keyed track set to a rotation of 40 degrees about z.
    const float s = std::sin(0.3490658f), co = std::cos(0.3490658f);
    const mab::Quat target{0.0f, 0.0f, s, co};
    auto& track = doc["legacy_clip"]["rotations"][0];
    json frames = json::array(), keys = json::array();
    bool inserted = false;
    for (std::size_t i = 0; i < track["frames"].size(); ++i) {
      const unsigned f = track["frames"][i];
      if (f == 3) continue;
      if (f > 3 && !inserted)
        frames.push_back(3), keys.push_back({target.x, target.y, target.z, target.w}), inserted = true;
      frames.push_back(f), keys.push_back(track["keys"][i]);
    }
    if (!inserted) frames.push_back(3), keys.push_back({target.x, target.y, target.z, target.w});
    track["frames"] = frames, track["keys"] = keys;
    auto imported = import(doc);
    ASSERT_TRUE(imported.ok()) << imported.error().message();
    EXPECT_EQ(imported->legacy_report.sections_rewritten, 1u) << game;
    EXPECT_LE(imported->legacy_report.max_error_deg, 0.01) << game;
    auto out = mab::read_container(imported->bytes);
    ASSERT_TRUE(out.ok());
    auto d = mab::decode_legacy_clip(*out, 1);
    ASSERT_TRUE(d.ok()) << d.error().message();
    EXPECT_LE(angle_deg(mab::legacy_rotation_at(d->rotations[0], 3), target), 0.01) << game;
    // The other tracks read back unchanged, code for code.
    for (std::size_t t = 1; t < d->rotations.size(); ++t) EXPECT_EQ(d->rotations[t].codes, d1->rotations[t].codes);
    // Clips 0 and 2 of the bank are byte-identical.
    for (std::size_t other : {std::size_t{0}, std::size_t{2}})
      for (std::size_t slot = 0; slot < 6; ++slot) {
        const auto a = c.blocks[other].section(slot), b = out->blocks[other].section(slot);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()))
            << game << " block " << other << " slot " << slot;
      }
  }
  // A translation: exact.
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  json doc = json::parse(document(c, 0));
  doc["legacy_clip"]["translations"][1]["frames"][4] = {1.5, -2.25, 1e-3};
  auto imported = import(doc);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->legacy_report.sections_rewritten, 1u);
  auto out = mab::read_container(imported->bytes);
  ASSERT_TRUE(out.ok());
  auto d = mab::decode_legacy_clip(*out, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->translations[1].frames[4], (mab::Vec3{1.5f, -2.25f, 1e-3f}));
  const auto before = mab::decode_legacy_clip(c, 0);
  EXPECT_EQ(d->translations[0].frames, before->translations[0].frames);
}

// A non-finite stored translation is written null and comes back bit for bit.
TEST(JsonLegacy, NonFiniteTranslationsAreNullAndKeepTheirBits) {
  auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  auto* s = c.blocks[0].section_mut(4);  // constant translations: header (8 bytes), then 3 x f32 each
  ASSERT_NE(s, nullptr);
  ASSERT_GE(s->size(), 20u);
  const std::uint32_t nan_bits = 0x7FC01234u, inf_bits = 0xFF800000u;
  for (unsigned i = 0; i < 4; ++i) {
    (*s)[8 + i] = static_cast<std::uint8_t>(nan_bits >> (8 * i));
    (*s)[16 + i] = static_cast<std::uint8_t>(inf_bits >> (8 * i));
  }
  auto bytes = mab::write_container(c);
  ASSERT_TRUE(bytes.ok());
  auto reread = mab::read_container(*bytes);
  ASSERT_TRUE(reread.ok());
  const std::string text = document(*reread, 0);
  const json doc = json::parse(text);
  EXPECT_TRUE(doc["legacy_clip"]["constant_translations"][0]["translation"][0].is_null());
  EXPECT_TRUE(doc["legacy_clip"]["constant_translations"][0]["translation"][2].is_null());
  auto imported = mab::import_json_bytes(text);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->bytes, *bytes);
  // A null where the original has no value (a bone it does not translate) is refused.
  json bad = doc;
  bad["legacy_clip"]["constant_translations"][0]["bone"] = 31;
  bad["legacy_clip"]["constant_translations"][0]["new"] = true;  // else a moved track (decision 24)
  auto r = import(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/legacy_clip/constant_translations/0/translation/0");
}

struct BadEdit {
  const char* name;
  const char* pointer;  // JSON pointer into the document
  json value;
  mab::ErrorCode code;
  const char* field;
};

TEST(JsonLegacy, UnsupportedOrMalformedEditsAreRefusedWithTheirPath) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  const json doc = json::parse(document(c, 0));
  const BadEdit cases[] = {
      {"rate changed", "/legacy_clip/frame_rate", 25.0, mab::ErrorCode::parse_error, "/legacy_clip/frame_rate"},
      {"trim", "/legacy_clip/last_frame", 10, mab::ErrorCode::invalid_argument, "last_frame"},
      {"frame past the end", "/legacy_clip/rotations/0/frames/1", 400, mab::ErrorCode::invalid_argument, "rotations"},
      {"keys and frames differ", "/legacy_clip/rotations/0/keys", json::array(), mab::ErrorCode::parse_error,
       "/legacy_clip/rotations/0/keys"},
      {"unknown field", "/legacy_clip/speed", 2, mab::ErrorCode::parse_error, "/legacy_clip/speed"},
      {"short vector", "/legacy_clip/translations/0/frames/2", json::array({1.0, 2.0}), mab::ErrorCode::parse_error,
       "/legacy_clip/translations/0/frames/2"},
      {"string for a float", "/legacy_clip/constant_rotations/1/rotation/3", "one", mab::ErrorCode::parse_error,
       "/legacy_clip/constant_rotations/1/rotation/3"},
      {"emptied section", "/legacy_clip/translations", json::array(), mab::ErrorCode::invalid_argument, "sections[5]"},
      // Read as the Clip of every frame (clip_from_legacy), these would be sampled otherwise than
      // written, or lose a value: refused instead.
      {"frames out of order", "/legacy_clip/rotations/0/frames/1", 0, mab::ErrorCode::invalid_argument, "rotations"},
      {"a translation track emptied", "/legacy_clip/translations/1/frames", json::array(),
       mab::ErrorCode::invalid_argument, "translations"},
      {"a trajectory translation a frame short", "/legacy_clip/trajectory_translation",
       json(doc["legacy_clip"]["trajectory_translation"].begin(),
            doc["legacy_clip"]["trajectory_translation"].end() - 1),
       mab::ErrorCode::invalid_argument, "trajectory_translation"},
      {"a trajectory rotation a frame short", "/legacy_clip/trajectory_rotation",
       json(doc["legacy_clip"]["trajectory_rotation"].begin(), doc["legacy_clip"]["trajectory_rotation"].end() - 1),
       mab::ErrorCode::invalid_argument, "trajectory_rotation"},
      {"a bone listed twice", "/legacy_clip/constant_rotations/1/bone",
       doc["legacy_clip"]["constant_rotations"][0]["bone"], mab::ErrorCode::parse_error,
       "/legacy_clip/constant_rotations/1/bone"},
      {"bone id changed", "/legacy_clip/constant_rotations/3/bone", 160, mab::ErrorCode::parse_error,
       "/legacy_clip/constant_rotations/3/bone"},
      {"new bone beyond the masks",
       "/legacy_clip/constant_rotations/3",
       {{"bone", 160}, {"rotation", doc["legacy_clip"]["constant_rotations"][3]["rotation"]}, {"new", true}},
       mab::ErrorCode::invalid_argument,
       "constant_rotations"},
      {"a clip too", "/clip", json::object(), mab::ErrorCode::parse_error, "/legacy_clip"},
  };
  for (const auto& k : cases) {
    json edited = doc;
    edited[json::json_pointer(k.pointer)] = k.value;
    auto r = import(edited);
    ASSERT_FALSE(r.ok()) << k.name;
    EXPECT_EQ(r.error().code, k.code) << k.name << ": " << r.error().message();
    EXPECT_EQ(r.error().field, k.field) << k.name << ": " << r.error().message();
  }
  // A legacy clip on a block that is not legacy.
  const auto wd = load_container(mab::test::good_files().back());
  if (wd.blocks.empty() || wd.blocks[0].legacy() == nullptr) {
    auto text = mab::export_json(wd, "test", mab::JsonExportOptions{2});
    ASSERT_TRUE(text.ok());
    json other = json::parse(*text);
    other["legacy_clip"] = doc["legacy_clip"];
    auto r = import(other);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().field, "/block");
  }
}

// Versions 1 and 2 import through the version 3 route (issue 33 item 3): every Far Cry 2, 3 and
// Blood Dragon block that decodes comes back byte for byte from either, every keyed track kept;
// an edit in a version 1 document lands as in version 2; the lists may come in any order.
TEST(JsonLegacy, VersionOneAndTwoDocumentsOfEveryFarCryBlockImport) {
  std::size_t clips = 0;
  for (const auto& p : mab::test::good_files()) {
    const auto bytes = mab::test::load(p);
    const auto c = load_container(p);
    for (std::size_t b = 0; b < c.blocks.size(); ++b) {
      if (c.blocks[b].legacy() == nullptr) continue;
      const auto d = mab::decode_legacy_clip(c, b);
      if (!d) continue;
      for (const std::uint32_t v : {1u, 2u}) {
        auto text = mab::export_json(c, *d, mab::JsonExportOptions{v});
        ASSERT_TRUE(text.ok()) << text.error().message();
        auto imported = mab::import_json_bytes(*text);
        ASSERT_TRUE(imported.ok()) << p << " block " << b << " v" << v << ": " << imported.error().message();
        EXPECT_EQ(imported->bytes, bytes) << p << " block " << b << " v" << v;
        EXPECT_EQ(imported->bridge.tracks_edited, 0u) << p << " block " << b << " v" << v;
        EXPECT_EQ(imported->bridge.tracks_kept, d->rotations.size()) << p << " block " << b << " v" << v;
      }
      ++clips;
    }
  }
  EXPECT_GE(clips, 30u);

  const auto path = mab::test::corpus_dir() / "fc2" / "all_arrays.mab";
  const auto c = load_container(path);
  const auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  json v1 = json::parse(*mab::export_json(c, *d, mab::JsonExportOptions{1}));
  ASSERT_EQ(v1["version"], 1);
  v1["legacy_clip"]["constant_translations"][0]["translation"] = {0.5, 0.25, -8.0};
  auto edited = import(v1);
  ASSERT_TRUE(edited.ok()) << edited.error().message();
  auto back = mab::decode_legacy_clip(*mab::read_container(edited->bytes), 0);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->constant_translations[0].translation, (mab::Vec3{0.5f, 0.25f, -8.0f}));

  // Every list reversed: the same tracks, the same file.
  json reversed = json::parse(document(c, 0));
  for (const char* list : {"constant_rotations", "rotations", "constant_translations", "translations"}) {
    auto& l = reversed["legacy_clip"][list];
    ASSERT_GE(l.size(), 2u) << list;
    std::reverse(l.begin(), l.end());
  }
  auto same = import(reversed);
  ASSERT_TRUE(same.ok()) << same.error().message();
  EXPECT_EQ(same->bytes, mab::test::load(path));
}

// Tag records and event nodes in the document ("tag_table", "events"): the fields given come
// back in the file; a null time keeps the stored one; what is informational or would change
// the layout is refused with its path; a table that did not decode travels as its note.
TEST(JsonLegacy, TagRecordsAndEventsAreEditableInTheDocument) {
  const auto path = mab::test::corpus_dir() / "fc3" / "retail_bank.mab";
  const auto c = load_container(path);
  const json doc = json::parse(document(c, 0));
  ASSERT_EQ(doc["legacy_clip"]["tag_table"].size(), 2u);
  ASSERT_EQ(doc["legacy_clip"]["events"].size(), 3u);
  EXPECT_EQ(doc["legacy_clip"]["tag_table"][0]["names"][0]["text"], "ak47");
  EXPECT_EQ(doc["legacy_clip"]["tag_table"][1]["clip_block"], 2);

  json edited = doc;
  edited["legacy_clip"]["tag_table"][0]["names"][0] = {{"hash", "0x2BC8BAC3"}, {"text", "m249"}};
  edited["legacy_clip"]["tag_table"][0]["start"] = nullptr;  // the stored value
  edited["legacy_clip"]["tag_table"][1]["names"][2] = {{"hash", "0x00000000"}, {"bytes", std::string(62, '0') + "7f"}};
  edited["legacy_clip"]["events"][1]["time"] = 0.5;
  edited["legacy_clip"]["events"][1]["type"] = 3;
  auto r = import(edited);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->legacy_report.tag_records_edited, 2u);
  EXPECT_EQ(r->legacy_report.events_edited, 1u);
  auto back = mab::read_container(r->bytes);
  ASSERT_TRUE(back.ok());
  const auto d = *mab::decode_legacy_clip(*back, 0), o = *mab::decode_legacy_clip(c, 0);
  EXPECT_EQ((*d.tag_table)[0].names[0].text(), "m249");
  EXPECT_EQ((*d.tag_table)[0].names[0].hash, mab::bone_hash("m249"));
  EXPECT_EQ(std::bit_cast<std::uint32_t>((*d.tag_table)[0].start),
            std::bit_cast<std::uint32_t>((*o.tag_table)[0].start));
  EXPECT_FALSE((*d.tag_table)[1].names[2].plain());
  EXPECT_EQ((*d.tag_table)[1].names[2].bytes[31], 0x7F);
  EXPECT_EQ((*d.events)[1].time, 0.5f);
  EXPECT_EQ((*d.events)[1].type, 3u);
  EXPECT_EQ(r->bytes.size(), mab::test::load(path).size());
  // Exported again, the non-text slot is written as bytes and imports to the same file.
  auto again = import(json::parse(document(*back, 0)));
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->bytes, r->bytes);

  const BadEdit cases[] = {
      {"clip_block changed", "/legacy_clip/tag_table/1/clip_block", 1, mab::ErrorCode::parse_error,
       "/legacy_clip/tag_table/1/clip_block"},
      {"clip_offset changed", "/legacy_clip/tag_table/0/clip_offset", 0, mab::ErrorCode::invalid_argument, "tag_table"},
      {"a name too long", "/legacy_clip/tag_table/0/names/1/text", std::string(33, 'a'), mab::ErrorCode::parse_error,
       "/legacy_clip/tag_table/0/names/1/text"},
      {"text and bytes", "/legacy_clip/tag_table/0/names/1/bytes", std::string(64, '0'), mab::ErrorCode::parse_error,
       "/legacy_clip/tag_table/0/names/1"},
      {"three names", "/legacy_clip/tag_table/0/names",
       json::array({doc["legacy_clip"]["tag_table"][0]["names"][0], doc["legacy_clip"]["tag_table"][0]["names"][1],
                    doc["legacy_clip"]["tag_table"][0]["names"][2]}),
       mab::ErrorCode::parse_error, "/legacy_clip/tag_table/0/names"},
      {"an id out of range", "/legacy_clip/tag_table/0/id", 40000, mab::ErrorCode::parse_error,
       "/legacy_clip/tag_table/0/id"},
      {"a record dropped", "/legacy_clip/tag_table", json::array({doc["legacy_clip"]["tag_table"][0]}),
       mab::ErrorCode::invalid_argument, "tag_table"},
      {"a payload grown", "/legacy_clip/events/2/payload", "00112233", mab::ErrorCode::invalid_argument, "events"},
      {"next moved", "/legacy_clip/events/0/next", 40, mab::ErrorCode::invalid_argument, "events"},
  };
  for (const auto& k : cases) {
    json bad = doc;
    bad[json::json_pointer(k.pointer)] = k.value;
    auto res = import(bad);
    ASSERT_FALSE(res.ok()) << k.name;
    EXPECT_EQ(res.error().code, k.code) << k.name << ": " << res.error().message();
    EXPECT_EQ(res.error().field, k.field) << k.name << ": " << res.error().message();
  }
  // A tag table that does not decode is a note in the document, ignored on import.
  const auto chain = load_container(mab::test::corpus_dir() / "fc2" / "chain_3.mab");
  const json cdoc = json::parse(document(chain, 1));
  EXPECT_FALSE(cdoc["legacy_clip"].contains("tag_table"));
  ASSERT_TRUE(cdoc["legacy_clip"].contains("tag_table_note"));
  json noted = cdoc;
  noted["legacy_clip"]["tag_table_note"] = "anything";
  auto kept = import(noted);
  ASSERT_TRUE(kept.ok()) << kept.error().message();
  EXPECT_EQ(kept->bytes, mab::test::load(mab::test::corpus_dir() / "fc2" / "chain_3.mab"));
}

}  // namespace

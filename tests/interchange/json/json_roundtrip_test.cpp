// "mabkit-clip" JSON: every corpus file survives export -> import byte for byte, floats
// read back bit for bit, and an edited key changes only the chunk that holds it.
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include "container/clip_layout.hpp"
#include "decode/decode_motion.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>

namespace {

using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

bool same_bits(const mab::Quat& a, const mab::Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_clip(const mab::Clip& a, const mab::Clip& b, const std::string& what) {
  EXPECT_EQ(a.key_rate, b.key_rate) << what;
  EXPECT_TRUE(same_bits(a.duration, b.duration)) << what;
  EXPECT_EQ(a.key_times, b.key_times) << what;
  ASSERT_EQ(a.bones.size(), b.bones.size()) << what;
  for (std::size_t i = 0; i < a.bones.size(); ++i) {
    const auto& x = a.bones[i];
    const auto& y = b.bones[i];
    EXPECT_EQ(x.hash, y.hash) << what << " bone " << i;
    EXPECT_EQ(x.name, y.name) << what << " bone " << i;
    EXPECT_EQ(x.flags, y.flags) << what << " bone " << i;
    EXPECT_TRUE(same_bits(x.constant, y.constant)) << what << " bone " << i;
    ASSERT_EQ(x.keys.size(), y.keys.size()) << what << " bone " << i;
    for (std::size_t k = 0; k < x.keys.size(); ++k)
      EXPECT_TRUE(same_bits(x.keys[k], y.keys[k])) << what << " bone " << i << " key " << k;
  }
}

// Each decodable block of every good file, and each file as a container only.
TEST(JsonRoundTrip, EveryGoodFileExportsAndImportsToTheSameBytes) {
  std::size_t decoded = 0, container_only = 0;
  for (const auto& p : good_files()) {
    const auto bytes = load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok()) << name_of(p);
    const std::size_t blocks = std::max<std::size_t>(c->blocks.size(), 1);
    bool any_decoded = false;
    for (std::size_t k = 0; k < blocks; ++k) {
      auto d = mab::decode_clip(*c, k);
      if (!d) continue;
      any_decoded = true;
      // Version 3 (the default, without and with codes), version 2 and version 1 documents.
      for (const auto& [version, codes] :
           {std::pair{3u, false}, std::pair{3u, true}, std::pair{2u, false}, std::pair{1u, false}}) {
        const std::string what = name_of(p) + " block " + std::to_string(k) + " version " + std::to_string(version) +
                                 (codes ? " with codes" : "");
        mab::JsonExportOptions o;
        o.version = version;
        o.codes = codes;
        auto text = mab::export_json(*d, o);
        ASSERT_TRUE(text.ok()) << what << ": " << text.error().message();
        auto imported = mab::import_json_bytes(*text);
        ASSERT_TRUE(imported.ok()) << what << ": " << imported.error().message();
        // Read in place (the CLI's way): the same result.
        auto in_place = mab::import_json_bytes(mab::PaddedJson(std::vector<std::uint8_t>(text->begin(), text->end())));
        ASSERT_TRUE(in_place.ok()) << what << ": " << in_place.error().message();
        EXPECT_EQ(in_place->bytes, imported->bytes) << what;
        EXPECT_TRUE(imported->clip_encoded) << what;
        EXPECT_EQ(imported->bytes, bytes) << what;
        EXPECT_EQ(imported->report.chunks_requantised, 0u) << what;
        EXPECT_EQ(imported->report.constants_encoded, 0u) << what;

        auto back = mab::import_json(*text);
        ASSERT_TRUE(back.ok()) << what << ": " << back.error().message();
        EXPECT_EQ(back->block, k) << what;
        expect_same_clip(back->clip, d->clip, what);
        EXPECT_EQ(back->constant_codes, d->constant_codes) << what;
        EXPECT_EQ(back->rotations, d->rotations) << what;
      }
      ++decoded;
    }
    // The container-only form works for every file, decodable or not, in every version.
    for (const std::uint32_t version : {3u, 2u, 1u}) {
      mab::JsonExportOptions o;
      o.version = version;
      auto text = mab::export_json(*c, any_decoded ? "" : "not decodable", o);
      ASSERT_TRUE(text.ok()) << name_of(p);
      auto imported = mab::import_json_bytes(*text);
      ASSERT_TRUE(imported.ok()) << name_of(p) << ": " << imported.error().message();
      EXPECT_FALSE(imported->clip_encoded);
      EXPECT_EQ(imported->bytes, bytes) << name_of(p);
    }
    ++container_only;
  }
  EXPECT_GT(decoded, 20u);
  EXPECT_EQ(container_only, good_files().size());
}

// Awkward floats (denormals, -0, the largest float, values with 9 significant digits)
// must come back bit for bit, even where they are not unit quaternions.
TEST(JsonRoundTrip, FloatsReadBackBitForBit) {
  const auto bytes = load(mab::test::corpus_dir() / "wd1" / "bit15_k7.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  auto d = mab::decode_clip(std::move(c).value());
  ASSERT_TRUE(d.ok()) << d.error().message();
  const float odd[] = {
      1e-45f,      -0.0f,       0.1f,     FLT_MAX,      -FLT_MIN, 1.0f / 3.0f, -1e-7f,     0.0f,
      16777217.0f, 0.74764216f, 2.5e-38f, -0.70710677f, 1.0f,     -1.0f,       123456.79f, std::nextafter(1.0f, 0.0f)};
  std::size_t n = 0;
  for (auto& b : d->clip.bones) {
    for (auto& q : b.keys)
      for (unsigned i = 0; i < 4; ++i) q[i] = odd[n++ % std::size(odd)];
    if (b.kind() == mab::BoneKind::constant)
      for (unsigned i = 0; i < 4; ++i) b.constant[i] = odd[n++ % std::size(odd)];
  }
  d->clip.duration = 1.0f / 3.0f;
  auto text = mab::export_json(*d);
  ASSERT_TRUE(text.ok()) << text.error().message();
  auto back = mab::import_json(*text);
  ASSERT_TRUE(back.ok()) << back.error().message();
  expect_same_clip(back->clip, d->clip, "odd floats");
  // Shortest round-trip text, not 17 digits: the value as a float would print.
  EXPECT_NE(text->find("0.74764216"), std::string::npos);
  EXPECT_NE(text->find("-0.0"), std::string::npos);
}

std::uint32_t le32(std::span<const std::uint8_t> s, std::size_t at) {
  return std::uint32_t{s[at]} | std::uint32_t{s[at + 1]} << 8 | std::uint32_t{s[at + 2]} << 16 |
         std::uint32_t{s[at + 3]} << 24;
}

// Fields the writer recomputes (offsets, m_animationDataSize) aside, the header is unchanged.
void expect_same_header(const mab::Block& a, const mab::Block& b, const std::string& what) {
  if (const auto* x = a.ani()) {
    const auto* y = b.ani();
    ASSERT_NE(y, nullptr) << what;
    EXPECT_EQ(x->skeleton_bone_crc, y->skeleton_bone_crc) << what;
    EXPECT_EQ(x->skeleton_path_id, y->skeleton_path_id) << what;
    EXPECT_EQ(x->signature, y->signature) << what;
    EXPECT_EQ(x->flags, y->flags) << what;
    EXPECT_EQ(x->duration_bits, y->duration_bits) << what;
    EXPECT_EQ(x->frame_rate_bits, y->frame_rate_bits) << what;
    EXPECT_EQ(x->bone_count_field, y->bone_count_field) << what;
    EXPECT_EQ(x->data_counts, y->data_counts) << what;
    EXPECT_EQ(x->counts_padding, y->counts_padding) << what;
    EXPECT_EQ(x->padding_ps3, y->padding_ps3) << what;
    EXPECT_EQ(x->last_frame, y->last_frame) << what;
    EXPECT_EQ(x->tail_padding, y->tail_padding) << what;
    if (a.size_rule == mab::SizeRule::verbatim) {
      EXPECT_EQ(x->animation_data_size, y->animation_data_size) << what;
    }
  } else if (const auto* f = a.fc4()) {
    const auto* g = b.fc4();
    ASSERT_NE(g, nullptr) << what;
    EXPECT_EQ(f->unknown_10, g->unknown_10) << what;
    EXPECT_EQ(f->flags, g->flags) << what;
    EXPECT_EQ(f->bone_count, g->bone_count) << what;
    EXPECT_EQ(f->duration_bits, g->duration_bits) << what;
    EXPECT_EQ(f->unknown_24, g->unknown_24) << what;
    EXPECT_EQ(f->unknown_30, g->unknown_30) << what;
  }
  EXPECT_EQ(a.slot_segment, b.slot_segment) << what;
  EXPECT_EQ(a.bones.size(), b.bones.size()) << what;
  for (std::size_t i = 0; i < a.bones.size() && i < b.bones.size(); ++i) {
    EXPECT_EQ(a.bones[i].hash, b.bones[i].hash) << what;
    EXPECT_EQ(a.bones[i].flags, b.bones[i].flags) << what;
  }
}

// A quarter-turn-ish rotation applied on the left: far enough from the original that the
// chunk cannot be reused, any depth.
mab::Quat rotated(const mab::Quat& q) {
  const double half = 0.35, s = std::sin(half);
  const double ax = 0.48 * s, ay = 0.6 * s, az = 0.64 * s, aw = std::cos(half);
  const double x = q.x, y = q.y, z = q.z, w = q.w;
  return {static_cast<float>(aw * x + ax * w + ay * z - az * y), static_cast<float>(aw * y - ax * z + ay * w + az * x),
          static_cast<float>(aw * z + ax * y - ay * x + az * w), static_cast<float>(aw * w - ax * x - ay * y - az * z)};
}

TEST(JsonEdit, OneQuaternionChangesOnlyItsChunk) {
  std::size_t edited_files = 0;
  for (const auto& p : good_files()) {
    const auto bytes = load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    for (std::size_t blk = 0; blk < c->blocks.size(); ++blk) {
      auto d = mab::decode_clip(*c, blk);
      if (!d) continue;
      const std::string what = name_of(p) + " block " + std::to_string(blk);
      const mab::Clip& clip = d->clip;
      int bone = -1;
      std::size_t animated_bones = 0, constant_bones = 0;
      for (std::size_t i = 0; i < clip.bones.size(); ++i) {
        if (clip.bones[i].kind() == mab::BoneKind::animated && bone < 0) bone = static_cast<int>(i);
        animated_bones += clip.bones[i].kind() == mab::BoneKind::animated;
        constant_bones += clip.bones[i].kind() == mab::BoneKind::constant;
      }
      if (bone < 0 || clip.key_count() == 0) continue;
      const auto b = static_cast<std::size_t>(bone);
      const std::size_t key = clip.key_count() / 2, chunk = key / mab::keys_per_chunk;
      const std::size_t chunks = mab::chunk_count(static_cast<std::uint32_t>(clip.key_count()));

      // Edit the document as a user would: one quaternion in the JSON text.
      auto text = mab::export_json(*d);
      ASSERT_TRUE(text.ok()) << what;
      auto doc = nlohmann::ordered_json::parse(*text);
      const mab::Quat q = rotated(clip.bones[b].keys[key]);
      doc["clip"]["bones"][b]["keys"][key] = {q.x, q.y, q.z, q.w};
      // The encoder keeping the bone's depth: the error policy's default would raise it where
      // the edit misses 0.01 degree at that depth, re-quantising the whole bone
      // (JsonIdentity.EveryCorpusEditMeetsTheBound).
      mab::JsonImportOptions keep_depth;
      keep_depth.encode = mab::EncodeOptions{};
      auto imported = mab::import_json_bytes(doc.dump(), mab::default_limits, keep_depth);
      ASSERT_TRUE(imported.ok()) << what << ": " << imported.error().message();
      const auto& rep = imported->report;
      EXPECT_EQ(rep.chunks_requantised, 1u) << what;
      EXPECT_EQ(rep.chunks_reused, animated_bones * chunks - 1) << what;
      EXPECT_EQ(rep.constants_reused, constant_bones) << what;
      EXPECT_EQ(rep.constants_encoded, 0u) << what;

      auto out = mab::read_container(imported->bytes);
      ASSERT_TRUE(out.ok()) << what << ": " << out.error().message();
      EXPECT_FALSE(mab::has_errors(mab::validate(*out))) << what;
      EXPECT_EQ(out->header.magic_word, c->header.magic_word);
      EXPECT_EQ(out->header.checksum, c->header.checksum);
      EXPECT_EQ(out->header.reserved, c->header.reserved);
      ASSERT_EQ(out->blocks.size(), c->blocks.size()) << what;

      // Every segment of every block is unchanged but the edited JointRotations, where
      // only the edited chunk's bytes differ and later chunk ends move by its growth.
      const auto layout = mab::container::clip_layout(c->blocks[blk]);
      ASSERT_TRUE(layout);
      const int rot_segment = c->blocks[blk].slot_segment[static_cast<std::size_t>(layout->rotations_slot)];
      std::int64_t growth = 0;
      for (std::size_t k = 0; k < c->blocks.size(); ++k) {
        const auto& ob = c->blocks[k];
        const auto& nb = out->blocks[k];
        expect_same_header(ob, nb, what);
        ASSERT_EQ(ob.segments.size(), nb.segments.size()) << what;
        // A part array's nested-block offsets are positions (format 12, docs/motion.md): when the edit
        // moves blocks they change, and only they, so that each entry names the same block.
        const auto parts_before = mab::decode_clip(*c, k);
        std::vector<std::size_t> nested_fields;
        int parts_segment = -1;
        if (parts_before && parts_before->evidence.parts.accepted()) {
          parts_segment = ob.slot_segment[static_cast<std::size_t>(mab::container::motion_layout(ob).parts)];
          for (std::size_t i = 0; i < parts_before->clip.parts.size(); ++i)
            if (parts_before->clip.parts[i].nested_block >= 0)
              nested_fields.push_back(mab::container::part_header_size(parts_before->motion.part_header) +
                                      mab::container::part_entry_size * i + mab::container::part_nested_at);
        }
        for (std::size_t s = 0; s < ob.segments.size(); ++s) {
          if (static_cast<int>(s) == parts_segment && !nested_fields.empty()) {
            auto masked = [&](std::vector<std::uint8_t> v) {
              for (const std::size_t at : nested_fields) std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(at), 4, 0);
              return v;
            };
            EXPECT_EQ(masked(ob.segments[s].bytes), masked(nb.segments[s].bytes)) << what << " part array";
            auto parts_after = mab::decode_clip(*out, k);
            ASSERT_TRUE(parts_after.ok()) << what;
            EXPECT_EQ(parts_after->clip.parts, parts_before->clip.parts) << what << " part entries";
            continue;
          }
          if (k != blk || static_cast<int>(s) != rot_segment) {
            EXPECT_EQ(ob.segments[s].bytes, nb.segments[s].bytes) << what << " segment " << s;
            continue;
          }
          const auto& os = ob.segments[s].bytes;
          const auto& ns = nb.segments[s].bytes;
          std::vector<std::uint32_t> ot(chunks + 1), nt(chunks + 1);
          for (std::size_t i = 0; i <= chunks; ++i) {
            ot[i] = le32(os, 4 * i);
            nt[i] = le32(ns, 4 * i);
          }
          growth = (std::int64_t{nt[chunk + 1]} - nt[chunk]) - (std::int64_t{ot[chunk + 1]} - ot[chunk]);
          for (std::size_t i = 0; i < chunks; ++i) {
            EXPECT_EQ(std::int64_t{nt[i + 1]}, std::int64_t{ot[i + 1]} + (i >= chunk ? growth : 0))
                << what << " chunk end " << i;
            if (i == chunk) continue;
            EXPECT_TRUE(
                std::equal(os.begin() + ot[i], os.begin() + ot[i + 1], ns.begin() + nt[i], ns.begin() + nt[i + 1]))
                << what << " chunk " << i;
          }
          EXPECT_TRUE(std::equal(os.begin() + ot[chunks], os.end(), ns.begin() + nt[chunks], ns.end()))
              << what << " tail";
        }
      }
      EXPECT_EQ(static_cast<std::int64_t>(imported->bytes.size()), static_cast<std::int64_t>(bytes.size()) + growth)
          << what;

      // Decoding gives the edit back within the reported error; everything else is exact.
      auto again = mab::decode_clip(std::move(out).value(), blk);
      ASSERT_TRUE(again.ok()) << what << ": " << again.error().message();
      for (std::size_t i = 0; i < clip.bones.size(); ++i) {
        for (std::size_t k = 0; k < clip.bones[i].keys.size(); ++k) {
          const auto& got = again->clip.bones[i].keys[k];
          if (i == b && k / mab::keys_per_chunk == chunk) {
            const mab::Quat& want = k == key ? q : clip.bones[i].keys[k];
            EXPECT_LE(mab::angular_error_deg(got, want), rep.max_error_deg + 1e-9) << what << " key " << k;
          } else {
            EXPECT_TRUE(same_bits(got, clip.bones[i].keys[k])) << what << " bone " << i << " key " << k;
          }
        }
      }
      ++edited_files;
    }
  }
  EXPECT_GT(edited_files, 10u);
}

TEST(JsonEdit, AConstantBoneChangesOnlyItsSixBytes) {
  const auto bytes = load(mab::test::corpus_dir() / "wd1" / "bit15_k7.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  auto d = mab::decode_clip(*c);
  ASSERT_TRUE(d.ok());
  auto text = mab::export_json(*d);
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  doc["clip"]["bones"][2]["constant"] = {0.0, 0.0, 0.0, 1.0};
  auto imported = mab::import_json_bytes(doc.dump());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->report.constants_encoded, 1u);
  EXPECT_EQ(imported->report.chunks_requantised, 0u);
  ASSERT_EQ(imported->bytes.size(), bytes.size());
  std::size_t differing = 0, first = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != imported->bytes[i] && differing++ == 0) first = i;
  EXPECT_GT(differing, 0u);
  EXPECT_LE(differing, 6u);
  // The identity code (format 9.1), within the JointConstantRotations section.
  const auto& seg = c->blocks[0];
  const std::size_t slot = 4;
  ASSERT_GE(seg.slot_segment[slot], 0);
  const std::vector<std::uint8_t> identity{0xFF, 0xBF, 0xFF, 0xBF, 0xFF, 0x3F};
  auto out = mab::read_container(imported->bytes);
  ASSERT_TRUE(out.ok());
  const auto sec = out->blocks[0].section(slot);
  EXPECT_TRUE(std::equal(identity.begin(), identity.end(), sec.begin())) << "first differing byte " << first;
}

TEST(JsonEdit, NullDurationAndKeyRateKeepTheStoredValues) {
  const auto bytes = load(mab::test::corpus_dir() / "wd1" / "bit15_k7.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  auto d = mab::decode_clip(*c);
  ASSERT_TRUE(d.ok());
  auto text = mab::export_json(*d);
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  doc["clip"]["duration"] = nullptr;
  doc["clip"]["key_rate"] = nullptr;
  auto imported = mab::import_json_bytes(doc.dump());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->bytes, bytes);
}

TEST(JsonContainer, UndecodableFilesRoundTripAndEditAsContainers) {
  const auto path = mab::test::corpus_dir() / "fc2" / "chain_3.mab";
  const auto bytes = load(path);
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(mab::decode_clip(*c).ok());
  auto text = mab::export_json(*c, "legacy");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find("\"clip\""), std::string::npos);
  auto imported = mab::import_json_bytes(*text);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->bytes, bytes);
  auto as_clip = mab::import_json(*text);
  ASSERT_FALSE(as_clip.ok());
  EXPECT_EQ(as_clip.error().code, mab::ErrorCode::not_decodable);

  // The header checksum (decision 9) is editable through the container: 4 bytes change.
  auto doc = nlohmann::json::parse(*text);
  doc["container"]["header"]["checksum"] = "0x12345678";
  auto edited = mab::import_json_bytes(doc.dump());
  ASSERT_TRUE(edited.ok()) << edited.error().message();
  ASSERT_EQ(edited->bytes.size(), bytes.size());
  EXPECT_EQ(edited->bytes[4], 0x78);
  EXPECT_EQ(edited->bytes[7], 0x12);
  EXPECT_TRUE(std::equal(bytes.begin() + 8, bytes.end(), edited->bytes.begin() + 8));
}

TEST(JsonContainer, OpaqueBodiesRoundTrip) {
  for (const char* variant : {"primal", "fc3bd"}) {
    bool seen = false;
    for (const auto& p : good_files()) {
      if (p.parent_path().filename() != variant) continue;
      // Blood Dragon files in the guessed FC3 layout read as clips; the others stay opaque.
      if (p.filename().string().rfind("opaque_", 0) != 0) continue;
      const auto bytes = load(p);
      auto c = mab::read_container(bytes);
      ASSERT_TRUE(c.ok());
      ASSERT_TRUE(c->is_opaque());
      auto text = mab::export_json(*c, "opaque");
      ASSERT_TRUE(text.ok());
      EXPECT_NE(text->find("\"opaque_body\""), std::string::npos);
      auto imported = mab::import_json_bytes(*text);
      ASSERT_TRUE(imported.ok()) << imported.error().message();
      EXPECT_EQ(imported->bytes, bytes) << name_of(p);
      seen = true;
    }
    EXPECT_TRUE(seen) << variant;
  }
}

}  // namespace

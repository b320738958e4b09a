// The rotation and translation codecs' public calls given shapes they do not write
// (rotation_codec.hpp, translation_codec.hpp): each is refused with invalid_argument or
// bad_value naming the field, never written.
#include <mab/requantise.hpp>
#include <mab/rotation_codec.hpp>
#include <mab/translation_codec.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace {

const mab::TranslationEntry kEntry = mab::TranslationEntry::make(4, 1000);

mab::TranslationStream stream_of(std::uint32_t keys, std::size_t bones) {
  mab::TranslationStream s;
  s.chunks.assign(mab::chunk_count(keys), std::vector<mab::TranslationChunkCodes>(bones));
  return s;
}

void refused(const mab::Result<std::vector<std::uint8_t>>& r, const std::string& field) {
  ASSERT_FALSE(r.ok()) << field;
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument) << r.error().message();
  EXPECT_EQ(r.error().field, field) << r.error().message();
}

TEST(TranslationApi, StreamsOfTheWrongShapeAreNotWritten) {
  const std::vector<mab::TranslationEntry> two{kEntry, kEntry};
  ASSERT_TRUE(mab::encode_translation_stream(stream_of(9, 2), 9, two).ok());
  refused(mab::encode_translation_stream(stream_of(17, 2), 9, two), "JointTranslations.chunks");
  refused(mab::encode_translation_stream(stream_of(9, 1), 9, two), "JointTranslations.chunk[0]");
  auto s = stream_of(9, 2);
  s.chunks[1][1].cflags = 8;
  refused(mab::encode_translation_stream(s, 9, two), "JointTranslations.chunk[1].bone[1].cflags");
  s = stream_of(9, 2);
  s.chunks[0][1].raw[2][5] = 16;  // 4 bits hold 0..15
  refused(mab::encode_translation_stream(s, 9, two), "JointTranslations.chunk[0].bone[1].raw[2][5]");
  s.chunks[0][1].cflags = 4;  // component 2 constant: its raw values are not stored
  s.chunks[0][1].raw[2][5] = 0;
  EXPECT_TRUE(mab::encode_translation_stream(s, 9, two).ok());
}

TEST(TranslationApi, ChunksOfTheWrongSizeOrDepthAreNotQuantised) {
  const std::vector<mab::Vec3> none;
  const std::vector<mab::Vec3> nine(9, mab::Vec3{0.1f, 0.2f, 0.3f});
  const std::vector<mab::Vec3> one{{0.1f, 0.2f, 0.3f}};
  auto q = mab::quantise_translation_chunk(none, kEntry);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().field, "keys");
  q = mab::quantise_translation_chunk(nine, kEntry);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().field, "keys");
  for (const unsigned n : {0u, 17u}) {
    q = mab::quantise_translation_chunk(one, mab::TranslationEntry::make(n, 1000));
    ASSERT_FALSE(q.ok()) << n;
    EXPECT_EQ(q.error().field, "TranslationTable");
  }
  ASSERT_TRUE(mab::quantise_translation_chunk(one, kEntry).ok());
  // An entry of scale 0 (a file may hold one) holds zeros only.
  const auto zero = mab::TranslationEntry::make(4, 0);
  const std::vector<mab::Vec3> zeros(3, mab::Vec3{0, 0, 0});
  EXPECT_TRUE(mab::translation_chunk_fits(zeros, zero));
  EXPECT_FALSE(mab::translation_chunk_fits(one, zero));
  auto z = mab::quantise_translation_chunk(zeros, zero);
  ASSERT_TRUE(z.ok()) << z.error().message();
  EXPECT_EQ(z->max_error, 0.0);
  for (unsigned f = 0; f < 3; ++f) EXPECT_EQ(mab::decode_translation_key(z->codes, f, zero), (mab::Vec3{0, 0, 0}));
  EXPECT_TRUE(mab::translation_chunk_fits(none, kEntry));
  const std::vector<mab::Vec3> inf{{INFINITY, 0, 0}};
  EXPECT_FALSE(mab::translation_chunk_fits(inf, kEntry));
  EXPECT_FALSE(mab::quantise_translation_chunk(inf, kEntry).ok());
}

TEST(TranslationApi, AStreamWithoutAFileOffsetReportsNone) {
  // Decoded from memory (no place in a file): errors carry no offset rather than a made-up one.
  const std::vector<std::uint8_t> cut{8, 0, 0, 0};  // a table of 8 bytes, cut after its size
  auto r = mab::decode_translation_stream(cut, 8, std::vector<mab::TranslationEntry>{kEntry}, mab::no_offset);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, mab::no_offset) << r.error().message();
}

TEST(RotationApi, TracksAndStreamsOfTheWrongShapeAreRefused) {
  const std::vector<mab::Quat> keys(9, mab::Quat{});
  auto t = mab::quantise_track(keys, 5);
  ASSERT_TRUE(t.ok());
  std::vector<mab::QuantisedTrack> tracks{*t};
  auto s = mab::build_rotation_stream(tracks, 9);
  ASSERT_TRUE(s.ok());
  auto wrong = mab::build_rotation_stream(tracks, 17);  // the track has 2 chunks, 17 keys need 3
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().field, "tracks[0]");
  tracks[0].nbits = 17;
  EXPECT_FALSE(mab::build_rotation_stream(tracks, 9).ok());
  EXPECT_FALSE(mab::quantise_track(keys, 0).ok());

  const std::vector<std::uint8_t> depths{5};
  std::vector<mab::Quat> out(9);
  std::vector<std::span<mab::Quat>> spans{out};
  ASSERT_TRUE(mab::decode_rotations_into(*s, 9, depths, spans).ok());
  auto refused = [](mab::Status st, const std::string& field) {
    ASSERT_FALSE(st.ok()) << field;
    EXPECT_EQ(st.error().code, mab::ErrorCode::invalid_argument) << st.error().message();
    EXPECT_EQ(st.error().field, field) << st.error().message();
  };
  const std::vector<std::uint8_t> two_depths{5, 5};
  refused(mab::decode_rotations_into(*s, 9, two_depths, spans), "JointRotations.chunk[0]");
  std::vector<std::span<mab::Quat>> none;
  refused(mab::decode_rotations_into(*s, 9, depths, none), "tracks");
  std::vector<mab::Quat> short_track(8);
  std::vector<std::span<mab::Quat>> short_spans{short_track};
  refused(mab::decode_rotations_into(*s, 9, depths, short_spans), "tracks");
  refused(mab::decode_rotations_into(*s, 17, depths, spans), "JointRotations.chunks");
}

}  // namespace

// The header field tables (lib/src/container/header_fields.hpp, CONTRIBUTING.md): the binary reader,
// writer and sizes they give agree with the layouts of format 3, 4.1-4.4 and 13, field by
// field; errors name the field the bytes ran out in; the JSON member lists are the format's.
#include "container/header_fields.hpp"
#include "container/layouts.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using namespace mab;
using namespace mab::container;

template <class H, class Fields>
std::vector<std::uint8_t> write_fields(const H& h, Fields fields) {
  std::vector<std::uint8_t> out;
  io::ByteWriter w(out);
  EXPECT_TRUE(fields(h, FieldWriter(w)).ok());
  return out;
}

template <class H, class Fields>
Result<H> read_fields(std::span<const std::uint8_t> bytes, H h, Fields fields) {
  io::ByteReader r(bytes, 0x10);
  MAB_TRY(fields(h, FieldReader(r, default_limits)));
  return h;
}

template <class H, class Fields>
std::uint64_t size_until(const H& h, Fields fields, std::string_view key = {}) {
  FieldSizer sizer(key);
  EXPECT_TRUE(fields(std::as_const(h), sizer).ok());
  return sizer.bytes();
}

template <class H, class Fields>
std::vector<std::string_view> keys_of(const H& h, Fields fields) {
  FieldKeys keys;
  EXPECT_TRUE(fields(std::as_const(h), keys).ok());
  return keys.keys;
}

const auto ani = [](auto& h, auto&& v) { return ani_header_fields(h, v); };
const auto fc4 = [](auto& h, auto&& v) { return fc4_header_fields(h, v); };
const auto legacy = [](auto& h, auto&& v) { return legacy_header_fields(h, v); };
const auto outer = [](auto& h, auto&& v) { return outer_header_fields(h, v); };

// Every field a distinct value, so a swapped, dropped or resized field shows.
AniHeader sample_ani(AniShape shape) {
  AniHeader h;
  h.shape = shape;
  h.skeleton_bone_crc = shape == AniShape::wd1 ? 0x89ABCDEFu : 0x0123456789ABCDEFull;
  h.skeleton_path_id = shape == AniShape::wd1 ? 0 : 0xFEDCBA9876543210ull;
  h.flags = 0x5A;
  h.animation_data_size = 0x11223344;
  h.duration_bits = 0x3F800000;
  h.frame_rate_bits = shape == AniShape::wd1 ? 0 : 0x41F00000;
  h.bone_count_field = 0x8003;
  h.data_counts.resize(ani_shape_info(shape).counts);
  for (std::size_t i = 0; i < h.data_counts.size(); ++i) h.data_counts[i] = static_cast<std::uint16_t>(0x100 + i);
  h.counts_padding = shape == AniShape::wd1 ? 0 : 0x7777;
  h.offsets.resize(ani_shape_info(shape).offsets);
  for (std::size_t i = 0; i < h.offsets.size(); ++i) h.offsets[i] = static_cast<std::uint32_t>(0x10000 + i);
  h.padding_ps3 = shape == AniShape::wdl ? 0xCAFEBABE : 0;
  h.last_frame = shape == AniShape::fc5 ? 0 : 0x0042;
  h.tail_padding = shape == AniShape::fc5 ? 0 : 0x0099;
  return h;
}

bool same(const AniHeader& a, const AniHeader& b) {
  return a.shape == b.shape && a.skeleton_bone_crc == b.skeleton_bone_crc && a.skeleton_path_id == b.skeleton_path_id &&
         a.signature == b.signature && a.flags == b.flags && a.animation_data_size == b.animation_data_size &&
         a.duration_bits == b.duration_bits && a.frame_rate_bits == b.frame_rate_bits &&
         a.bone_count_field == b.bone_count_field && a.data_counts == b.data_counts &&
         a.counts_padding == b.counts_padding && a.offsets == b.offsets && a.padding_ps3 == b.padding_ps3 &&
         a.last_frame == b.last_frame && a.tail_padding == b.tail_padding;
}

TEST(HeaderFields, AniSizesArePinnedByTheFormat) {
  // Format 4.2 (WD1), 4.1 (WDL/WD2), 4.3 (FC5): bone hashes at base+0x50 / 0x70 / 0x68, and
  // m_offsets after the counts (and their padding).
  EXPECT_EQ(ani_header_size(AniShape::wd1), 0x50u);
  EXPECT_EQ(ani_header_size(AniShape::wdl), 0x70u);
  EXPECT_EQ(ani_header_size(AniShape::fc5), 0x68u);
  EXPECT_EQ(ani_offsets_position(AniShape::wd1), 0x20u);
  EXPECT_EQ(ani_offsets_position(AniShape::wdl), 0x38u);
  EXPECT_EQ(ani_offsets_position(AniShape::fc5), 0x38u);
}

TEST(HeaderFields, OtherSizesArePinnedByTheFormat) {
  // Format 13: 4 masks of 5 (FC2) or 9 (FC3) words, 2 x f32[4], tag, duration, i32[9], pointer.
  EXPECT_EQ(legacy_header_size(5), 0xA0u);
  EXPECT_EQ(legacy_header_size(9), 0xE0u);
  // Format 4.4: FC4's header runs from file 0x10 to 0x54.
  EXPECT_EQ(size_until(Fc4Header{}, fc4), fc4_header_size + (fc4_base - 0x10));
  EXPECT_EQ(size_until(Fc4Header{}, fc4, "flag_table_offset"), 0x28u - 0x10u);
  EXPECT_EQ(size_until(Fc4Header{}, fc4, "section_offsets"), 0x40u - 0x10u);
  // Format 3: 16 bytes.
  EXPECT_EQ(size_until(OuterHeader{}, outer), 16u);
}

TEST(HeaderFields, AniWritesAndReadsBackEveryShape) {
  for (const AniShape shape : {AniShape::wd1, AniShape::wdl, AniShape::fc5}) {
    const AniHeader h = sample_ani(shape);
    const auto bytes = write_fields(h, ani);
    ASSERT_EQ(bytes.size(), ani_header_size(shape));
    AniHeader blank;
    blank.shape = shape;
    auto back = read_fields(bytes, blank, ani);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE(same(*back, h)) << static_cast<int>(shape);
    // The same bytes as the public reader takes them.
    auto pub = read_ani_header(bytes, 0x10, shape, default_limits);
    ASSERT_TRUE(pub.ok()) << pub.error().message();
    EXPECT_TRUE(same(*pub, h));
  }
  // Field positions of format 4.1: m_flags right after 'aNi' at +0x13, the CRC first.
  const auto wdl = write_fields(sample_ani(AniShape::wdl), ani);
  EXPECT_EQ(wdl[0x13], 0x5A);
  EXPECT_EQ(wdl[0], 0xEF);
  EXPECT_EQ(wdl[0x10], 'a');
  // WD1 stores the CRC in 4 bytes (format 4.2): 'aNi' at +4.
  const auto wd1 = write_fields(sample_ani(AniShape::wd1), ani);
  EXPECT_EQ(wd1[4], 'a');
}

TEST(HeaderFields, AniErrorsNameTheFieldAndItsOffset) {
  const auto bytes = write_fields(sample_ani(AniShape::wdl), ani);
  // Cut inside m_dataCounts[3]: the counts follow the bone count (+0x20) at +0x22.
  const std::size_t cut = 0x22 + 2 * 3 + 1;
  AniHeader blank;
  auto r = read_fields(std::span(bytes).first(cut), blank, ani);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "m_dataCounts[3]");
  EXPECT_EQ(r.error().code, ErrorCode::truncated);
  // A bad signature is reported at the signature, before anything after it is read.
  auto bad = bytes;
  bad[0x11] = 'X';
  auto s = read_fields(std::span(bad).first(0x14), blank, ani);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::bad_signature);
  EXPECT_EQ(s.error().offset, 0x10u + 0x10u);
  // The bone count limit at the count field.
  Limits tight = default_limits;
  tight.max_bones = 2;
  io::ByteReader rd(bytes, 0x10);
  AniHeader h;
  const auto limited = ani_header_fields(h, FieldReader(rd, tight));
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().field, "m_nbBonesInAnim");
  EXPECT_EQ(limited.error().offset, 0x10u + 0x20u);
}

TEST(HeaderFields, LegacyMasksAreNamedByGroup) {
  LegacyHeader h;
  h.mask_words = 9;
  h.masks.assign(36, 0xFFFFFFFFu);
  for (std::size_t i = 0; i < h.sections.size(); ++i) h.sections[i] = -static_cast<std::int32_t>(i);
  h.pointer_slot = 7;
  const auto bytes = write_fields(h, legacy);
  ASSERT_EQ(bytes.size(), legacy_header_size(9));
  LegacyHeader blank;
  blank.mask_words = 9;
  auto back = read_fields(bytes, blank, legacy);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->masks, h.masks);
  EXPECT_EQ(back->sections, h.sections);
  EXPECT_EQ(back->pointer_slot, 7u);
  // Word 20 of the masks is the third mask (constTranslationMask) of 9-word masks.
  auto cut = read_fields(std::span(bytes).first(4 * 20 + 2), blank, legacy);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().field, "constTranslationMask");
  auto traj = read_fields(std::span(bytes).first(4 * 36 + 4 * 2 + 1), blank, legacy);
  ASSERT_FALSE(traj.ok());
  EXPECT_EQ(traj.error().field, "trajectoryReference");
  auto tag = bytes;
  tag[4 * 36 + 32] = 'X';
  auto bad = read_fields(tag, blank, legacy);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::bad_signature);
  EXPECT_EQ(bad.error().field, "tag");
}

TEST(HeaderFields, Fc4WithoutSignatureIsBadSignature) {
  Fc4Header h;
  h.bone_count = 3;
  h.section_offsets[9] = 0x1234;
  auto bytes = write_fields(h, fc4);
  auto back = read_fields(bytes, Fc4Header{}, fc4);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->section_offsets[9], 0x1234);
  EXPECT_EQ(back->bone_count, 3);
  bytes[8] = 'x';
  auto bad = read_fields(bytes, Fc4Header{}, fc4);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::bad_signature);
}

TEST(HeaderFields, VectorsAreWrittenAsTheyAre) {
  // A data count too many makes a header of the wrong size, which write_container refuses,
  // rather than a value silently cut off.
  AniHeader h = sample_ani(AniShape::wdl);
  h.data_counts.push_back(9);
  EXPECT_EQ(write_fields(h, ani).size(), ani_header_size(AniShape::wdl) + 2);
  for (const char* file : {"wdl/highflags_k17.mab", "fc2/all_arrays.mab"}) {
    Container c = test::load_container(test::corpus_dir() / file);
    ASSERT_TRUE(write_container(c).ok()) << file;
    if (auto* a = c.blocks.front().ani()) a->data_counts.push_back(9);
    if (const auto* l = c.blocks.front().legacy()) {
      LegacyHeader shorter = *l;
      shorter.masks.pop_back();
      c.blocks.front().header = shorter;
    }
    const auto w = write_container(c);
    ASSERT_FALSE(w.ok()) << file;
    EXPECT_EQ(w.error().field, "header") << file;
  }
}

// The JSON members of docs/json-format.md, in order; the JSON import's lists of allowed
// members are these (json_import.cpp).
TEST(HeaderFields, JsonKeys) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(keys_of(AniHeader{}, ani),
            (V{"skeleton_bone_crc", "skeleton_path_id", "signature", "flags", "animation_data_size", "duration_bits",
               "frame_rate_bits", "bone_count_field", "data_counts", "counts_padding", "offsets", "padding_ps3",
               "last_frame", "tail_padding"}));
  EXPECT_EQ(keys_of(Fc4Header{}, fc4),
            (V{"unknown_10", "signature", "flags", "bone_count", "unknown_1e", "duration_bits", "unknown_24",
               "flag_table_offset", "hash_table_offset", "unknown_30", "section_offsets"}));
  EXPECT_EQ(keys_of(LegacyHeader{}, legacy),
            (V{"mask_words", "masks", "trajectory_reference_bits", "per_loop_rotation_bits", "tag", "duration_bits",
               "sections", "pointer_slot"}));
  EXPECT_EQ(keys_of(OuterHeader{}, outer), (V{"magic_word", "checksum", "reserved"}));
}

}  // namespace

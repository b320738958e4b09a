// One bone-name hash (issue 33, item 4): bone_hash (bone_hash.hpp) is the CRC-32 of the name's
// bytes (decision 11), and the edit operations that name bones (find_bone, parse_bone_id,
// add_bone, rename_bone) use it, for ASCII names and UTF-8 ones alike. `mab hash` prints it
// (tests/blender_addon/test_packaging.py checks the add-on's matching.crc32 against that, and
// python/tests/test_read.py the Python module's).
#include <mab/bone_hash.hpp>
#include <mab/clip.hpp>
#include <mab/edit.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(BoneHash, IsTheCrc32OfTheNamesBytes) {
  EXPECT_EQ(mab::bone_hash("123456789"), 0xCBF43926u);  // the CRC-32 check value
  EXPECT_EQ(mab::bone_hash("Root"), 0xB6C65665u);
  EXPECT_EQ(mab::bone_hash("\xC3\x89paule gauche"), 0x37513863u);  // "Épaule gauche" in UTF-8
  EXPECT_EQ(mab::bone_hash(""), 0u);
}

TEST(BoneHash, EditOperationsNameBonesByIt) {
  for (const std::string name : {"Root", "L Thigh", "\xC3\x89paule gauche", "\xE8\x82\xA9"}) {
    const std::uint32_t h = mab::bone_hash(name);
    auto id = mab::parse_bone_id(name);
    ASSERT_TRUE(id.ok()) << name;
    EXPECT_EQ(id->hash, h) << name;
    mab::Clip c;
    ASSERT_TRUE(mab::edit::add_bone(c, name, mab::Quat{}).ok()) << name;
    EXPECT_EQ(c.bones.back().hash, h) << name;
    c.bones.back().name.clear();  // found by the hash of the name, not by the name it keeps
    auto at = mab::find_bone(c, name);
    ASSERT_TRUE(at.ok()) << name;
    EXPECT_EQ(*at, 0u) << name;
    ASSERT_TRUE(mab::edit::add_bone(c, "Other", mab::Quat{}).ok());
    ASSERT_TRUE(mab::edit::rename_bone(c, 1, name + " 2").ok()) << name;
    EXPECT_EQ(c.bones[1].hash, mab::bone_hash(name + " 2")) << name;
  }
}

}  // namespace

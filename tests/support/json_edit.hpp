// Test helper: a file made the way a user makes one by hand: a corpus file exported to its
// mabkit-clip document, the document edited, imported back.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

namespace mab::test {

// The .mab bytes of corpus file `rel` (relative to corpus/) after `edit` of its document (the
// "codes" view removed, so edits of the clip need not agree with it). Empty, with a test
// failure, when the document does not import.
inline std::vector<std::uint8_t> edited_via_json(const std::string& rel,
                                                 const std::function<void(nlohmann::json&)>& edit) {
  auto d = decode_clip(load_container(corpus_dir() / rel));
  EXPECT_TRUE(d.ok()) << rel;
  if (!d) return {};
  auto doc = nlohmann::json::parse(*export_json(*d));
  doc.erase("codes");
  edit(doc);
  auto r = import_json_bytes(doc.dump());
  EXPECT_TRUE(r.ok()) << rel << ": " << (r ? "" : r.error().message());
  return r ? r->bytes : std::vector<std::uint8_t>{};
}

// The .mab bytes of corpus file `rel` with bone `to` of block 0 given bone `from`'s hash: two
// bones sharing a hash, as a damaged file or another tool can hold them (a JSON document
// cannot: its import checks each bone against the file's, docs/json-format.md "Bone identity").
inline std::vector<std::uint8_t> with_hash_shared(const std::string& rel, std::size_t from, std::size_t to) {
  Container c = load_container(corpus_dir() / rel);
  c.blocks[0].bones[to].hash = c.blocks[0].bones[from].hash;
  auto bytes = write_container(c);
  EXPECT_TRUE(bytes.ok()) << rel;
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

// The .mab bytes of Watch Dogs corpus file `rel` with block 0's stored key times (the u16s of
// KeyTimes, format 9.4) given to `edit`: times that do not increase, as a damaged file or another
// tool can hold them (a JSON document's import refuses them, docs/json-format.md).
inline std::vector<std::uint8_t> with_key_times(const std::string& rel,
                                                const std::function<void(std::vector<std::uint32_t>&)>& edit) {
  Container c = load_container(corpus_dir() / rel);
  const auto* a = c.blocks[0].ani();
  const int slot = a ? ani_slots(a->shape).key_times : -1;
  auto* bytes = slot >= 0 ? c.blocks[0].section_mut(static_cast<std::size_t>(slot)) : nullptr;
  EXPECT_NE(bytes, nullptr) << rel << ": no KeyTimes section";
  if (!bytes) return {};
  std::vector<std::uint32_t> times(bytes->size() / 2);
  for (std::size_t k = 0; k < times.size(); ++k) times[k] = (*bytes)[2 * k] | std::uint32_t{(*bytes)[2 * k + 1]} << 8;
  edit(times);
  for (std::size_t k = 0; k < times.size(); ++k) {
    (*bytes)[2 * k] = static_cast<std::uint8_t>(times[k] & 0xFF);
    (*bytes)[2 * k + 1] = static_cast<std::uint8_t>(times[k] >> 8);
  }
  auto out = write_container(c);
  EXPECT_TRUE(out.ok()) << rel;
  return out ? *out : std::vector<std::uint8_t>{};
}

}  // namespace mab::test

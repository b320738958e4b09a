// The "container" member of a mabkit-clip document (docs/json-format.md): the variant, the
// file header, each block's header, bones, segments and links.
#include "interchange/json/json_import_parts.hpp"

#include "container/header_fields.hpp"

#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace mab::interchange::json_in {

namespace {

AniShape shape_for(Game g) {
  return g == Game::watch_dogs ? AniShape::wd1 : g == Game::far_cry_5 ? AniShape::fc5 : AniShape::wdl;
}

std::string_view shape_name(AniShape s) { return s == AniShape::wd1 ? "wd1" : s == AniShape::fc5 ? "fc5" : "wdl"; }

// Reads a header's members by its field table (container/header_fields.hpp: the same list the
// binary reader and writer and the JSON export use), in file order, each checked against its
// member's type; `after(info)` runs after each field for checks the JSON needs at once (a
// count that sizes a later field). Fields the layout does not store are in the JSON all the same.
template <class After>
class JsonFields {
 public:
  JsonFields(const Val& obj, const Path& path, After after) : obj_(obj), path_(path), after_(std::move(after)) {}

  template <class T>
  Status operator()(const container::FieldInfo& f, T& value) {
    if constexpr (container::is_byte_array<T>) {
      MAB_ASSIGN(value, read_hex_fixed<std::tuple_size_v<T>>(obj_, path_, f.key));
    } else if constexpr (std::is_integral_v<T>) {
      MAB_ASSIGN(value, read_u_field<T>(obj_, path_, f.key));
    } else if constexpr (requires { value.resize(f.count); }) {
      MAB_TRY(read_u_vector(obj_, path_, f.key, f.count, value));
    } else {
      MAB_TRY(read_u_array(obj_, path_, f.key, value));
    }
    return after_(f);
  }

  template <class H, class Check>
  Status check(const H&, Check&&) {
    return {};  // the binary reader's checks; the written file is read back instead (check_reads_back)
  }

 private:
  const Val& obj_;
  const Path& path_;
  After after_;
};

// The member names a header object may hold: its fields' keys and `extra`.
template <class H, class Visit>
std::vector<std::string_view> member_keys(Visit&& visit, std::initializer_list<std::string_view> extra = {}) {
  H h{};
  container::FieldKeys keys;
  (void)visit(h, keys);
  keys.keys.insert(keys.keys.end(), extra.begin(), extra.end());
  return std::move(keys.keys);
}

constexpr auto no_check = [](const container::FieldInfo&) -> Status { return {}; };

Result<AniHeader> read_ani_header(const Val& j, const Path& path, const VariantInfo& variant) {
  const auto visit = [](auto& h, auto&& v) { return container::ani_header_fields(h, v); };
  MAB_TRY(check_object(j, path, member_keys<AniHeader>(visit, {"shape"})));
  AniHeader h;
  h.shape = shape_for(variant.game);
  MAB_ASSIGN(const Val shape, need(j, path, "shape"));
  MAB_ASSIGN(const std::string shape_text, read_string(shape, at(path, "shape")));
  if (shape_text != shape_name(h.shape))
    return perr(at(path, "shape"), "variant " + std::string(variant.short_name) + " has the \"" +
                                       std::string(shape_name(h.shape)) + "\" shape, not \"" + shape_text + "\"");
  MAB_TRY(visit(h, JsonFields(j, path, [&](const container::FieldInfo& f) -> Status {
                  // WD1's CRC is a u32 in the file (width 4): a larger value would not write back.
                  if (f.width != 0 && f.key == "skeleton_bone_crc" && h.skeleton_bone_crc > 0xFFFFFFFFu)
                    return perr(at(path, f.key), "Watch Dogs stores a 32-bit value here");
                  return {};
                })));
  return h;
}

Result<Fc4Header> read_fc4_header(const Val& j, const Path& path) {
  const auto visit = [](auto& h, auto&& v) { return container::fc4_header_fields(h, v); };
  MAB_TRY(check_object(j, path, member_keys<Fc4Header>(visit)));
  Fc4Header h;
  MAB_TRY(visit(h, JsonFields(j, path, no_check)));
  return h;
}

Result<LegacyHeader> read_legacy_header(const Val& j, const Path& path, const VariantInfo& variant) {
  const auto visit = [](auto& h, auto&& v) { return container::legacy_header_fields(h, v); };
  MAB_TRY(check_object(j, path, member_keys<LegacyHeader>(visit)));
  LegacyHeader h;
  const std::uint32_t want_words = variant.game == Game::far_cry_2 ? 5 : 9;  // FC3 and Blood Dragon: 9
  MAB_TRY(visit(h, JsonFields(j, path, [&](const container::FieldInfo& f) -> Status {
                  // mask_words sizes the masks that follow: checked before they are read.
                  if (f.key == "mask_words" && h.mask_words != want_words)
                    return perr(at(path, "mask_words"), std::string(variant.short_name) + " clips have " +
                                                            std::to_string(want_words) + "-word masks");
                  return {};
                })));
  return h;
}

Result<SizeRule> read_size_rule(const Val& j, const Path& path) {
  MAB_ASSIGN(const std::string s, read_string(j, path));
  if (s == "file_minus_16") return SizeRule::file_minus_16;
  if (s == "block_extent") return SizeRule::block_extent;
  if (s == "verbatim") return SizeRule::verbatim;
  return perr(path, "expected \"file_minus_16\", \"block_extent\" or \"verbatim\", found \"" + s + "\"");
}

Result<Block> read_block(const Val& j, const Path& path, const VariantInfo& variant, const Limits& limits,
                         std::uint64_t& budget) {
  MAB_TRY(check_object(
      j, path, {"original_base", "layout", "header", "bones", "segments", "slot_segment", "size_rule", "parent"}));
  Block b;
  MAB_ASSIGN(b.original_base, read_u_field<std::uint64_t>(j, path, "original_base"));
  MAB_ASSIGN(const Val layout, need(j, path, "layout"));
  MAB_ASSIGN(const std::string layout_text, read_string(layout, at(path, "layout")));
  const std::string want = variant.layout == LayoutKind::ani      ? "ani"
                           : variant.layout == LayoutKind::fc4    ? "fc4"
                           : variant.layout == LayoutKind::legacy ? "legacy"
                                                                  : "opaque";
  if (layout_text != want)
    return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has \"" + want +
                                        "\" blocks, not \"" + layout_text + "\"");
  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  std::size_t slots = 0;
  switch (variant.layout) {
    case LayoutKind::ani: {
      MAB_ASSIGN(auto h, read_ani_header(header, hp, variant));
      slots = h.offsets.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::fc4: {
      MAB_ASSIGN(auto h, read_fc4_header(header, hp));
      slots = h.section_offsets.size() + 2;  // + flag and hash table offsets
      b.header = h;
      break;
    }
    case LayoutKind::legacy: {
      MAB_ASSIGN(auto h, read_legacy_header(header, hp, variant));
      slots = h.sections.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::opaque:
      return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has no block layout");
  }

  MAB_ASSIGN(const Val bones, need(j, path, "bones"));
  const Path bp = at(path, "bones");
  MAB_TRY(check_array(bones, bp, limits.max_bones));
  MAB_TRY(each(bones, [&](std::size_t i, const Val& jb) -> Status {
    const Path p = at(bp, i);
    MAB_TRY(check_object(jb, p, {"hash", "flags"}));
    Bone bone;
    MAB_ASSIGN(bone.hash, read_u_field<std::uint32_t>(jb, p, "hash"));
    MAB_ASSIGN(bone.flags, read_u_field<std::uint8_t>(jb, p, "flags"));
    b.bones.push_back(bone);
    return {};
  }));
  if (const auto* a = b.ani(); a && b.bones.size() > a->bone_count_mask())
    return perr(bp, std::to_string(b.bones.size()) + " bones do not fit m_nbBonesInAnim");

  MAB_ASSIGN(const Val segments, need(j, path, "segments"));
  const Path sp = at(path, "segments");
  // The reader makes a preamble plus at most one segment per offset slot.
  MAB_TRY(check_array(segments, sp, slots + 1));
  if (segments.empty()) return perr(sp, "at least the preamble segment is needed");
  MAB_TRY(each(segments, [&](std::size_t i, const Val& js) -> Status {
    const Path p = at(sp, i);
    MAB_TRY(check_object(js, p, {"original_offset", "bytes", "child_block"}));
    Segment s;
    MAB_ASSIGN(s.original_offset, read_u_field<std::uint64_t>(js, p, "original_offset"));
    MAB_ASSIGN(const Val bytes, need(js, p, "bytes"));
    MAB_ASSIGN(s.bytes, read_hex(bytes, at(p, "bytes"), budget));
    if (const auto child = maybe(js, "child_block")) {
      if (variant.layout != LayoutKind::legacy)
        return perr(at(p, "child_block"), "only legacy clips chain other clips");
      MAB_ASSIGN(const std::int64_t c, read_int(*child, at(p, "child_block"), -1, limits.max_blocks));
      s.child_block = static_cast<int>(c);
      if (s.child_block >= 0 && !s.bytes.empty())
        return perr(at(p, "bytes"), "a chained-clip segment holds no bytes of its own (the chained block does)");
    }
    b.segments.push_back(std::move(s));
    return {};
  }));

  MAB_ASSIGN(const Val slot_segment, need(j, path, "slot_segment"));
  const Path ssp = at(path, "slot_segment");
  MAB_TRY(check_size(slot_segment, ssp, slots));
  b.slot_segment.resize(slots);
  MAB_TRY(each(slot_segment, [&](std::size_t i, const Val& e) -> Status {
    MAB_ASSIGN(const std::int64_t v, read_int(e, at(ssp, i), -1, static_cast<std::int64_t>(b.segments.size()) - 1));
    if (v == 0) return perr(at(ssp, i), "segment 0 is the preamble, which no offset points at; use -1 for absent");
    b.slot_segment[i] = static_cast<int>(v);
    return {};
  }));
  MAB_ASSIGN(const Val size_rule, need(j, path, "size_rule"));
  MAB_ASSIGN(b.size_rule, read_size_rule(size_rule, at(path, "size_rule")));
  MAB_ASSIGN(const Val parent, need(j, path, "parent"));
  MAB_ASSIGN(const std::int64_t par, read_int(parent, at(path, "parent"), -1, limits.max_blocks));
  b.parent = static_cast<int>(par);
  return b;
}

// The writer lays chained clips out inside the segment that links to them; a block that
// claims a parent no segment links to would have no place in the file.
Status check_links(const Container& c, const Path& where) {
  const std::string path = where.str();
  const std::size_t n = c.blocks.size();
  std::vector<int> links(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string p = at(at(path, k), "parent");
    if (b.parent >= static_cast<int>(k)) return perr(p, "a chained clip comes after the clip that holds it");
    if (b.parent >= 0 && c.variant->layout != LayoutKind::legacy) return perr(p, "only legacy clips are chained");
    if (b.parent < 0 && c.variant->layout == LayoutKind::legacy && k > 0)
      return perr(p, "a legacy file has one top-level clip; later blocks are chained clips");
    if (b.parent < 0 && k > 0 && c.variant->layout == LayoutKind::ani && shape_for(c.variant->game) != AniShape::fc5)
      return perr(p, "only Far Cry 5 files hold several 'aNi' blocks");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string bp = at(path, k);
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const int child = b.segments[s].child_block;
      if (child < 0) continue;
      const std::string p = at(at(at(bp, "segments"), s), "child_block");
      if (static_cast<std::size_t>(child) <= k || static_cast<std::size_t>(child) >= n)
        return perr(p, "block " + std::to_string(child) + " is not a later block");
      if (c.blocks[static_cast<std::size_t>(child)].parent != static_cast<int>(k))
        return perr(p,
                    "block " + std::to_string(child) + " does not name block " + std::to_string(k) + " as its parent");
      ++links[static_cast<std::size_t>(child)];
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (c.blocks[k].parent >= 0 && links[k] != 1)
      return perr(at(at(path, k), "parent"), "block " + std::to_string(c.blocks[k].parent) + " links to this block " +
                                                 std::to_string(links[k]) + " times; exactly once is needed");
  }
  return {};
}

}  // namespace

Result<Container> read_container_json(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"variant", "header", "original_size", "blocks", "opaque_body", "opaque_reason"}));
  Container c;
  MAB_ASSIGN(const Val variant, need(j, path, "variant"));
  MAB_ASSIGN(const std::string name, read_string(variant, at(path, "variant")));
  c.variant = find_variant(name);
  if (!c.variant) return perr(at(path, "variant"), "unknown variant \"" + name + "\"");

  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  const auto visit = [](auto& h, auto&& v) { return container::outer_header_fields(h, v); };
  MAB_TRY(check_object(header, hp, member_keys<OuterHeader>(visit)));
  MAB_TRY(visit(c.header, JsonFields(header, hp, no_check)));
  MAB_ASSIGN(c.original_size, read_u_field<std::uint64_t>(j, path, "original_size"));

  std::uint64_t budget = limits.max_file_size;
  const auto blocks = maybe(j, "blocks");
  const auto opaque = maybe(j, "opaque_body");
  if (blocks.has_value() == opaque.has_value())
    return perr(path, "exactly one of \"blocks\" and \"opaque_body\" is needed");
  if (opaque) {
    MAB_ASSIGN(c.opaque_body, read_hex(*opaque, at(path, "opaque_body"), budget));
    if (const auto reason = maybe(j, "opaque_reason")) {
      MAB_ASSIGN(c.opaque_reason, read_string(*reason, at(path, "opaque_reason")));
    }
    return c;
  }
  if (maybe(j, "opaque_reason")) return perr(at(path, "opaque_reason"), "only an opaque container has a reason");
  const Path bp = at(path, "blocks");
  MAB_TRY(check_array(*blocks, bp, limits.max_blocks));
  if (blocks->empty()) return perr(bp, "a container with no block is written as \"opaque_body\"");
  if (c.variant->layout == LayoutKind::opaque)
    return perr(bp, "variant " + name + " has no public layout: its body is \"opaque_body\"");
  if (c.variant->layout == LayoutKind::fc4 && blocks->size() != 1) return perr(bp, "a Far Cry 4 file holds one block");
  MAB_TRY(each(*blocks, [&](std::size_t k, const Val& jb) -> Status {
    MAB_ASSIGN(Block b, read_block(jb, at(bp, k), *c.variant, limits, budget));
    c.blocks.push_back(std::move(b));
    return {};
  }));
  MAB_TRY(check_links(c, bp));
  return c;
}
}  // namespace mab::interchange::json_in

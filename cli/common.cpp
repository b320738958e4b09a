#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mab::cli {

std::vector<std::filesystem::path> collect_inputs(const std::vector<std::string>& args,
                                                  std::vector<std::string>& missing) {
  std::vector<std::filesystem::path> out;
  for (const auto& a : args) {
    std::error_code ec;
    const std::filesystem::path p(a);
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> found;
      for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".mab") found.push_back(it->path());
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(p, ec)) {
      out.push_back(p);
    } else {
      missing.push_back(a);
    }
  }
  return out;
}

std::string hex(std::uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llX", width, static_cast<unsigned long long>(v));
  return buf;
}

nlohmann::json to_json(const Error& e) {
  nlohmann::json j{{"code", std::string(to_string(e.code))}, {"field", e.field}, {"detail", e.detail},
                   {"message", e.message()}};
  j["offset"] = e.offset == no_offset ? nlohmann::json(nullptr) : nlohmann::json(e.offset);
  if (e.bit) j["bit"] = *e.bit;
  return j;
}

nlohmann::json to_json(const Finding& f) {
  nlohmann::json j{{"severity", std::string(to_string(f.severity))},
                   {"code", std::string(to_string(f.code))},
                   {"field", f.field},
                   {"message", f.message},
                   {"block", f.block}};
  j["offset"] = f.offset == no_offset ? nlohmann::json(nullptr) : nlohmann::json(f.offset);
  return j;
}

std::optional<std::uint64_t> header_key_count(const Block& b) {
  if (const auto* a = b.ani()) {
    if (a->shape != AniShape::fc5) return std::uint64_t{a->last_frame} + 1;
    return b.segments.empty() ? 0 : b.segments[0].bytes.size() / 2;
  }
  if (b.fc4()) return b.section(2).size() / 2;
  return std::nullopt;
}

double block_duration(const Block& b) {
  if (const auto* a = b.ani()) return a->duration();
  if (const auto* f = b.fc4()) return f->duration();
  if (const auto* l = b.legacy()) return l->duration();
  return std::nan("");
}

double block_frame_rate(const Block& b) {
  if (const auto* a = b.ani()) return a->shape == AniShape::wd1 ? 120.0 : a->frame_rate();  // D7
  if (b.fc4()) return 30.0;  // D7
  return std::nan("");
}

namespace {
nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
}  // namespace

nlohmann::json summary_json(const Container& c, const Placement& pl) {
  const VariantInfo& v = *c.variant;
  nlohmann::json j{{"variant", std::string(v.short_name)},
                   {"game", std::string(v.game_name)},
                   {"magic", v.magic},
                   {"layout", std::string(to_string(v.layout))},
                   {"confidence", std::string(to_string(v.confidence))},
                   {"evidence", std::string(v.evidence)},
                   {"file_size", pl.file_size},
                   {"checksum", c.header.checksum}};
  if (c.is_opaque()) j["opaque_reason"] = c.opaque_reason;
  nlohmann::json blocks = nlohmann::json::array();
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    const Block& b = c.blocks[k];
    const PlacedBlock& pb = pl.blocks[k];
    nlohmann::json jb{{"base", pb.base}, {"extent", pb.extent}, {"bone_count", b.bones.size()},
                      {"duration", number_or_null(block_duration(b))},
                      {"frame_rate", number_or_null(block_frame_rate(b))}};
    if (b.parent >= 0) jb["chained_from"] = b.parent;
    const auto keys = header_key_count(b);
    jb["key_count"] = keys ? nlohmann::json(*keys) : nlohmann::json(nullptr);
    if (const auto* a = b.ani()) {
      jb["signature"] = std::string(a->signature.begin(), a->signature.end());
      jb["flags"] = a->flags;
      jb["bone_count_field"] = a->bone_count_field;
      jb["animation_data_size"] = a->animation_data_size;
      jb["data_counts"] = a->data_counts;
      if (a->shape != AniShape::fc5) jb["last_frame"] = a->last_frame;
    }
    std::size_t constant = 0, animated = 0;
    nlohmann::json bones = nlohmann::json::array();
    for (const auto& bone : b.bones) {
      constant += (bone.flags & 0x30) == 0x30;
      animated += (bone.flags & 0x30) == 0x10;
      bones.push_back({{"hash", bone.hash}, {"flags", bone.flags}});
    }
    jb["constant_bones"] = constant;
    jb["animated_bones"] = animated;
    jb["bones"] = std::move(bones);
    nlohmann::json sections = nlohmann::json::array();
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
      const int s = b.slot_segment[slot];
      if (s < 0) continue;
      const auto& ps = pb.segments[static_cast<std::size_t>(s)];
      sections.push_back({{"slot", slot},
                          {"name", std::string(section_name(b, slot))},
                          {"offset", ps.offset},
                          {"file_offset", pb.base + ps.offset},
                          {"size", ps.size}});
    }
    jb["sections"] = std::move(sections);
    jb["preamble_size"] = pb.segments.empty() ? 0 : pb.segments[0].size;
    blocks.push_back(std::move(jb));
  }
  j["blocks"] = std::move(blocks);
  return j;
}

}  // namespace mab::cli

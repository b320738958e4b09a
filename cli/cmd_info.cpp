// `mab info FILE...`: what a file is and how it is laid out.
#include "command.hpp"
#include "common.hpp"

#include <mab/decode_clip.hpp>
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <span>

namespace {

using mab::cli::hex;

// Slots 6 and 7 (JB-DOC, format 11): a line per tag record, the event nodes in one line, or why
// a present section did not decode (its bytes are kept either way).
void print_legacy_tags(const mab::LegacyTags& d) {
  if (d.tag_table) {
    std::printf("    tags      %zu record(s) (slot 6, JB-DOC)\n", d.tag_table->size());
    for (std::size_t i = 0; i < d.tag_table->size(); ++i) {
      const auto& r = (*d.tag_table)[i];
      auto name = [&](std::size_t k) {
        return r.names[k].plain() ? "'" + r.names[k].text() + "'" : std::string("(not text)");
      };
      std::printf("              %zu: kind %u, id %d, %s on %s%s, %g..%g s, clip offset %d -> %s\n", i, r.kind, r.id,
                  name(0).c_str(), name(1).c_str(), r.names[3].text().empty() ? "" : (", reference " + name(3)).c_str(),
                  static_cast<double>(r.start), static_cast<double>(r.end), r.clip_offset,
                  r.clip_block >= 0 ? ("clip " + std::to_string(r.clip_block)).c_str() : "no clip start");
    }
  } else if (!d.tag_table_note.empty()) {
    std::printf("    tags      kept as bytes, not decoded: %s\n", d.tag_table_note.c_str());
  }
  if (d.events) {
    std::string times;
    for (const auto& e : *d.events) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%s%g s (type %u)", times.empty() ? "" : ", ", static_cast<double>(e.time),
                    e.type);
      times += buf;
    }
    std::printf("    events    %zu node(s) (slot 7): %s\n", d.events->size(), times.c_str());
  } else if (!d.events_note.empty()) {
    std::printf("    events    kept as bytes, not decoded: %s\n", d.events_note.c_str());
  }
}

// Format 13 sections as tracks, or why they do not decode (the clip stays bytes either way).
void print_legacy_tracks(const mab::Container& c, std::size_t block) {
  auto d = mab::decode_legacy_clip(c, block);
  if (!d) {
    std::printf("    tracks    not decoded: %s\n", mab::cli::message(d.error()).c_str());
    if (auto tags = mab::decode_legacy_tags(c, block)) print_legacy_tags(*tags);
    return;
  }
  std::size_t keys = 0;
  for (const auto& t : d->rotations) keys += t.keys.size();
  std::printf(
      "    tracks    decoded: %zu constant rotation(s), %zu keyed rotation track(s) (%zu keys), "
      "%zu constant translation(s), %zu translation track(s)\n",
      d->constant_rotations.size(), d->rotations.size(), keys, d->constant_translations.size(), d->translations.size());
  const bool root_t = d->present[0], root_r = d->present[1];
  const char* root = root_t && root_r ? "translation and rotation"
                     : root_t         ? "translation"
                     : root_r         ? "rotation"
                                      : "none";
  if (d->frame_rate == 0.0f)  // JB-DOC: constant sections store lastFrame 0 and rate 0
    std::printf("    frames    none: constant sections only (stored lastFrame 0, rate 0); root motion: %s\n", root);
  else
    std::printf("    frames    %u (lastFrame %u) at %g fps; root motion: %s\n", d->last_frame + 1u, d->last_frame,
                static_cast<double>(d->frame_rate), root);
  print_legacy_tags({d->tag_table, d->tag_table_note, d->events, d->events_note});
}

const char* part_type_name(unsigned type) {
  // The editor's PartEventType (format 12, OSM-MAC); other values are unnamed there.
  switch (type) {
    case 1: return "InPossession";
    case 6: return "IKPath";
    case 7: return "Anchor";
    case 8: return "SubPartInPossession";
    default: return "unnamed";
  }
}

std::string level_name(mab::EvidenceLevel l) {
  switch (l) {
    case mab::EvidenceLevel::absent: return "absent";
    case mab::EvidenceLevel::decoded: return "decoded";
    case mab::EvidenceLevel::hypothesis: return "hypothesis";
    case mab::EvidenceLevel::opaque: return "opaque";
  }
  return "absent";
}

// Translations, root motion and part clips of an 'aNi' or FC4 block, each with its evidence
// (docs/motion.md): "decoded", "hypothesis N accepted", "opaque: reason" or "absent".
void print_motion(const mab::Container& c, std::size_t block, const mab::DecodeOptions& options) {
  auto d = mab::decode_clip(c, block, options);
  if (!d) {
    std::printf("    motion    not decoded (the rotations do not decode): %s\n", mab::cli::message(d.error()).c_str());
    return;
  }
  const auto& e = d->evidence;
  std::size_t translated = 0, constants = 0;
  for (const auto& b : d->clip.bones) {
    translated += !b.translations.empty();
    constants += b.constant_translation.has_value();
  }
  std::printf("    motion    translations: %s\n", mab::cli::spelled(e.translations.text()).c_str());
  if (translated) std::printf("              %zu translated bone(s), %zu keys each\n", translated, d->clip.key_count());
  std::printf("              constant translations: %s\n", mab::cli::spelled(e.constant_translations.text()).c_str());
  if (constants) std::printf("              %zu bone(s) with a constant translation\n", constants);
  std::printf("              root rotations: %s\n", mab::cli::spelled(e.root_rotations.text()).c_str());
  std::printf("              root translations: %s\n", mab::cli::spelled(e.root_translations.text()).c_str());
  std::printf("              part clips: %s\n", mab::cli::spelled(e.parts.text()).c_str());
  for (std::size_t i = 0; i < d->clip.parts.size(); ++i) {
    const auto& p = d->clip.parts[i];
    std::string nested = "no nested block";
    if (p.nested_block >= 0) {
      nested = "nested block " + std::to_string(p.nested_block);
      if (auto child = mab::decode_clip(c, static_cast<std::size_t>(p.nested_block), options))
        nested += " (" + std::to_string(child->clip.bones.size()) + " bone(s), " +
                  std::to_string(child->clip.key_count()) + " keys)";
    }
    std::printf("    part %-5zu type %u (%s), %g..%g s, parent %s, attachment %s, %s\n", i, p.type,
                part_type_name(p.type), static_cast<double>(p.start), static_cast<double>(p.end),
                hex(p.parent_hash, 8).c_str(), hex(p.attachment_hash, 8).c_str(), nested.c_str());
  }
}

nlohmann::json motion_json(const mab::Container& c, std::size_t block, const mab::DecodeOptions& options) {
  auto d = mab::decode_clip(c, block, options);
  if (!d) return {{"error", mab::cli::to_json(d.error())}};
  auto ev = [](const mab::Evidence& e) {
    nlohmann::json j{{"level", level_name(e.level)}, {"text", mab::cli::spelled(e.text())}};
    if (e.level == mab::EvidenceLevel::hypothesis) j["hypothesis"] = e.hypothesis;
    return j;
  };
  nlohmann::json j{{"translations", ev(d->evidence.translations)},
                   {"constant_translations", ev(d->evidence.constant_translations)},
                   {"root_rotations", ev(d->evidence.root_rotations)},
                   {"root_translations", ev(d->evidence.root_translations)},
                   {"parts", ev(d->evidence.parts)}};
  nlohmann::json translated = nlohmann::json::array();
  for (const auto& b : d->clip.bones)
    if (!b.translations.empty()) translated.push_back(b.hash);
  j["translated_bones"] = std::move(translated);
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : d->clip.parts)
    parts.push_back({{"type", p.type},
                     {"start", p.start},
                     {"end", p.end},
                     {"parent_hash", p.parent_hash},
                     {"attachment_hash", p.attachment_hash},
                     {"nested_block", p.nested_block >= 0 ? nlohmann::json(p.nested_block) : nlohmann::json(nullptr)}});
  j["part_entries"] = std::move(parts);
  return j;
}

void print_text(const std::string& path, const mab::Container& c, const mab::Placement& pl,
                const std::vector<mab::Finding>& findings, const mab::DecodeOptions& options) {
  const auto& v = *c.variant;
  std::printf("%s\n", path.c_str());
  std::printf("  game        %s (%s, magic %s)\n", std::string(v.game_name).c_str(), std::string(v.short_name).c_str(),
              hex(v.magic).c_str());
  std::printf("  layout      %s, %s\n", std::string(mab::to_string(v.layout)).c_str(),
              std::string(mab::to_string(v.confidence)).c_str());
  std::printf("  evidence    %s\n", std::string(v.evidence).c_str());
  std::printf("  size        %llu bytes, header checksum %s (algorithm unknown, format 14)\n",
              static_cast<unsigned long long>(pl.file_size), hex(c.header.checksum, 8).c_str());
  if (c.is_opaque())
    std::printf("  body        %zu bytes kept opaque: %s\n", c.opaque_body.size(), c.opaque_reason.c_str());
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    const auto& b = c.blocks[k];
    const auto& pb = pl.blocks[k];
    std::size_t constant = 0, animated = 0;
    for (const auto& bone : b.bones) {
      constant += (bone.flags & 0x30) == 0x30;
      animated += (bone.flags & 0x30) == 0x10;
    }
    std::printf("  block %zu     base %s, %llu bytes%s\n", k, hex(pb.base).c_str(),
                static_cast<unsigned long long>(pb.extent),
                b.parent >= 0 ? (", chained from clip " + std::to_string(b.parent)).c_str() : "");
    const double d = mab::cli::block_duration(b), fr = mab::cli::block_frame_rate(b);
    const auto keys = mab::cli::header_key_count(b);
    std::printf("    duration  %s s, frame rate %s, keys %s\n", std::isfinite(d) ? std::to_string(d).c_str() : "-",
                std::isfinite(fr) ? std::to_string(fr).c_str() : "-", keys ? std::to_string(*keys).c_str() : "-");
    if (const auto* a = b.ani())
      std::printf("    bones     %zu (%zu constant, %zu animated), count field %s, 'aNi' flags %s\n", b.bones.size(),
                  constant, animated, hex(a->bone_count_field, 4).c_str(), hex(a->flags, 2).c_str());
    else if (b.fc4())
      std::printf("    bones     %zu (%zu constant, %zu animated)\n", b.bones.size(), constant, animated);
    else if (b.legacy()) print_legacy_tracks(c, k);
    if (b.ani() || b.fc4()) print_motion(c, k, options);
    std::printf("    sections  %-5s %-10s %-10s %-8s %s\n", "slot", "offset", "file", "size", "name");
    if (!pb.segments.empty() && pb.segments[0].size > 0)
      std::printf("              %-5s %-10s %-10s %-8llu %s\n", "-", hex(pb.segments[0].offset).c_str(),
                  hex(pb.base + pb.segments[0].offset).c_str(), static_cast<unsigned long long>(pb.segments[0].size),
                  "(preamble)");
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
      const int s = b.slot_segment[slot];
      if (s < 0) continue;
      const auto& ps = pb.segments[static_cast<std::size_t>(s)];
      // JB-DOC: the last clip of a bank points slot 8 at its own end.
      const bool chain_end = b.legacy() != nullptr && slot == 8 && ps.size == 0;
      std::printf("              %-5zu %-10s %-10s %-8llu %s%s\n", slot, hex(ps.offset).c_str(),
                  hex(pb.base + ps.offset).c_str(), static_cast<unsigned long long>(ps.size),
                  std::string(mab::section_name(b, slot)).c_str(), chain_end ? " (none: the chain ends here)" : "");
    }
  }
  for (const auto& f : findings) {
    const std::string code = f.code == mab::ErrorCode::ok ? "" : " " + std::string(mab::to_string(f.code));
    std::printf("  %-9s%s at %s (%s): %s\n", std::string(mab::to_string(f.severity)).c_str(), code.c_str(),
                hex(f.offset).c_str(), f.field.c_str(), f.message.c_str());
  }
}

// A glTF or a JSON document given to `mab info` by mistake: what it is, and the command that
// reads it (no .mab magic is "glTF" or starts with '{', format 2).
std::optional<mab::Error> other_format(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::string p = path.string();
  std::string what;
  if (text.substr(0, 4) == "glTF") {
    what = "a binary glTF 2.0 file (.glb), not a .mab; read it with mab import " + p +
           " --template ORIGINAL.mab -o OUT.mab (or --game GAME for a new clip)";
  } else {
    const auto first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first == std::string_view::npos || text[first] != '{') return std::nullopt;
    const std::string_view head = text.substr(0, 4096);
    if (head.find("\"mabkit-clip\"") != std::string_view::npos)
      what = "a mabkit JSON document (from mab export), not a .mab; mab dump " + p + " shows its clip, mab import " +
             p + " -o OUT.mab writes it back";
    else if (head.find("\"asset\"") != std::string_view::npos)
      what = "a glTF 2.0 file (.gltf), not a .mab; read it with mab import " + p +
             " --template ORIGINAL.mab -o OUT.mab (or --game GAME for a new clip)";
    else what = "a JSON file, not a .mab";
  }
  return mab::make_error(mab::ErrorCode::unsupported_version, 0, "magic", "this is " + what);
}

struct Options {
  std::vector<std::string> files;
  bool json = false;
  bool strict_layout = false;
};

int run(const Options& o) {
  std::vector<std::string> missing;
  const auto files = mab::cli::collect_inputs(o.files, missing);
  int status = missing.empty() ? mab::cli::exit_ok : mab::cli::exit_usage;
  for (const auto& m : missing) std::fprintf(stderr, "mab: info: %s: no such file or directory\n", m.c_str());
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : files) {
    auto bytes = mab::read_file(path);
    const auto wrong = bytes ? other_format(path, *bytes) : std::nullopt;
    auto c = !bytes  ? mab::Result<mab::Container>(bytes.error())
             : wrong ? mab::Result<mab::Container>(*wrong)
                     : mab::read_container(*bytes);
    if (!c) {
      status = std::max(status, mab::cli::exit_status(c.error()));
      if (o.json) all.push_back({{"path", path.string()}, {"error", mab::cli::to_json(c.error())}});
      else
        std::fprintf(stderr, "mab: info: %s: %s\n", path.string().c_str(),
                     (wrong ? mab::cli::spelled(c.error().detail) : mab::cli::message(c.error())).c_str());
      continue;
    }
    const auto pl = mab::place(*c);
    if (!pl) {
      status = std::max(status, mab::cli::exit_refused);
      std::fprintf(stderr, "mab: info: %s: %s\n", path.string().c_str(), mab::cli::message(pl.error()).c_str());
      continue;
    }
    const auto findings = mab::validate(*c);
    mab::DecodeOptions options;
    options.strict_layout = o.strict_layout;
    options.keys = false;  // evidence and counts only: the keys' floats are not shown
    if (o.json) {
      auto j = mab::cli::summary_json(*c, *pl);
      j["path"] = path.string();
      for (std::size_t k = 0; k < c->blocks.size(); ++k)
        if (c->blocks[k].ani() || c->blocks[k].fc4()) j["blocks"][k]["motion"] = motion_json(*c, k, options);
      nlohmann::json fj = nlohmann::json::array();
      for (const auto& f : findings) fj.push_back(mab::cli::to_json(f));
      j["findings"] = std::move(fj);
      all.push_back(std::move(j));
    } else {
      print_text(path.string(), *c, *pl, findings, options);
    }
  }
  if (o.json) std::cout << all.dump(2) << "\n";
  return status;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("info",
                                 "Show game, version, layout confidence, duration, frame rate, "
                                 "bones, keys and the section table of each FILE");
  cmd->add_option("FILE", o->files, "Files or directories (*.mab, recursive)")->required();
  cmd->add_flag("--json", o->json, "Print one JSON document (an array, one object per file)");
  cmd->add_flag("--strict-layout", o->strict_layout,
                "Try no hypothesis for translations, root motion and part clips: only what a public "
                "decoder reads is decoded, the rest is reported opaque (docs/motion.md)");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab info corpus/wd1/many_bones_150.mab\n"
      "  mab info --strict-layout corpus/fc5/parts_nested.mab\n"
      "  mab info --json corpus/fc2\n"
      "A glTF or JSON file is named for what it is, with the command that reads it.\n"
      "Exit status: 0 every file was read; 1 a file is refused (not a .mab, or damaged); 2 a file\n"
      "is missing or unreadable.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(info, setup);

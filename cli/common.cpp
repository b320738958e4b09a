#include "common.hpp"

#include <mab/checksum.hpp>
#include <mab/file_io.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace mab::cli {

std::vector<std::filesystem::path> collect_inputs(const std::vector<std::string>& args,
                                                  std::vector<std::string>& missing) {
  std::vector<std::filesystem::path> out;
  for (const auto& a : args) {
    std::error_code ec;
    const std::filesystem::path p = path_from_utf8(a);
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

std::string message(const Error& e) { return e.message(flag_spelling); }

std::string spelled(std::string_view text) { return spell_options(text, flag_spelling); }

int exit_status(const Error& e) { return e.code == ErrorCode::io_error ? exit_usage : exit_refused; }

namespace {

// `out` naming one of `inputs` needs `in_place`, and then a backup that never replaces an
// earlier one (the first .bak is the original).
bool may_replace(const std::string& c, const std::vector<std::filesystem::path>& inputs, const std::string& out,
                 bool in_place) {
  // By identity (device and inode; volume and file index on Windows), whatever the names.
  const auto target = file_identity(out);
  if (!target) return true;  // nothing there yet
  for (const auto& input : inputs) {
    const auto id = file_identity(input);
    if (!id || *id != *target) continue;
    if (!in_place) {
      std::fprintf(stderr, "mab: %s: %s is an input file; pass --in-place to overwrite it (a .bak copy is kept)\n",
                   c.c_str(), out.c_str());
      return false;
    }
    auto bak = keep_backup(out);
    if (!bak) {
      std::fprintf(stderr, "mab: %s: nothing written: %s\n", c.c_str(), mab::cli::message(bak.error()).c_str());
      return false;
    }
    std::printf("kept %s as %s\n", out.c_str(), bak->string().c_str());
    return true;
  }
  return true;
}

bool write_stdout(const std::string& c, std::string_view piece) {
  if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size()) {
    std::fprintf(stderr, "mab: %s: cannot write to standard output\n", c.c_str());
    return false;
  }
  return true;
}

// Standard output carried the file: what the command reports next goes to standard error.
bool finish_stdout(const std::string& c) {
  if (std::fflush(stdout) != 0) {
    std::fprintf(stderr, "mab: %s: cannot write to standard output\n", c.c_str());
    return false;
  }
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return true;
}

}  // namespace

bool write_output(std::string_view cmd, int& exit_code, const std::vector<std::filesystem::path>& inputs,
                  const std::string& out, bool in_place, std::span<const std::uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return write_output_stream(cmd, exit_code, inputs, out, in_place, {},
                             [&](const std::function<bool(std::string_view)>& sink) -> Status {
                               if (!sink(text)) return make_error(ErrorCode::io_error, no_offset, out, "write failed");
                               return {};
                             });
}

bool may_replace_original(std::string_view cmd, int& exit_code, const std::string& out, bool in_place,
                          std::span<const std::uint8_t> original, std::string_view what,
                          std::vector<std::filesystem::path>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (out == "-" || !fs::is_regular_file(out, ec) || fs::file_size(out, ec) != original.size() || ec) return true;
  const auto bytes = read_file(out);
  if (!bytes || !std::equal(bytes->begin(), bytes->end(), original.begin(), original.end())) return true;
  if (!in_place) {
    std::fprintf(stderr, "mab: %.*s: %s holds %.*s; pass --in-place to overwrite it (a .bak copy is kept)\n",
                 static_cast<int>(cmd.size()), cmd.data(), out.c_str(), static_cast<int>(what.size()), what.data());
    exit_code = exit_usage;
    return false;
  }
  inputs.push_back(out);
  return true;
}

bool write_output_stream(std::string_view cmd, int& exit_code, const std::vector<std::filesystem::path>& inputs,
                         const std::string& out, bool in_place, std::string_view source,
                         const StreamProducer& produce) {
  const std::string c(cmd), src(source);
  // A failure of the sink was printed where it happened; one of `produce` is the input's.
  auto produce_failed = [&](const Status& st, bool sink_failed) {
    exit_code = sink_failed ? exit_usage : exit_status(st.error());
    if (!sink_failed)
      std::fprintf(stderr, "mab: %s: %s%s%s\n", c.c_str(), src.c_str(), src.empty() ? "" : ": ",
                   mab::cli::message(st.error()).c_str());
    return false;
  };
  if (out == "-") {
    bool sink_failed = false;
    const Status st = produce([&](std::string_view piece) {
      if (!write_stdout(c, piece)) sink_failed = true;
      return !sink_failed;
    });
    if (!st) return produce_failed(st, sink_failed);
    if (!finish_stdout(c)) return (exit_code = exit_usage, false);
    return true;
  }
  if (!may_replace(c, inputs, out, in_place)) return (exit_code = exit_usage, false);
  auto file = AtomicFile::open(out);
  if (!file) {
    std::fprintf(stderr, "mab: %s: %s\n", c.c_str(), mab::cli::message(file.error()).c_str());
    return (exit_code = exit_usage, false);
  }
  bool sink_failed = false;
  const Status st = produce([&](std::string_view piece) {
    if (auto w = file->write(piece); !w) {
      std::fprintf(stderr, "mab: %s: %s\n", c.c_str(), mab::cli::message(w.error()).c_str());
      sink_failed = true;
      return false;
    }
    return true;
  });
  // On failure `file` is dropped uncommitted: its temporary goes, `out` keeps its contents.
  if (!st) return produce_failed(st, sink_failed);
  if (auto done = file->commit(); !done) {
    std::fprintf(stderr, "mab: %s: %s\n", c.c_str(), mab::cli::message(done.error()).c_str());
    return (exit_code = exit_usage, false);
  }
  return true;
}

struct OutputStream::Buffer : std::streambuf {
  std::string cmd;
  std::optional<AtomicFile> file;
  std::string pending;
  bool failed = false;

  bool hand_over() {
    if (failed) return false;
    if (pending.empty()) return true;
    if (auto st = file->write(pending); !st) {
      std::fprintf(stderr, "mab: %s: %s\n", cmd.c_str(), mab::cli::message(st.error()).c_str());
      failed = true;
      return false;
    }
    pending.clear();
    return true;
  }
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    pending.push_back(traits_type::to_char_type(ch));
    if (pending.size() >= k_piece && !hand_over()) return traits_type::eof();
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending.append(s, static_cast<std::size_t>(n));
    if (pending.size() >= k_piece && !hand_over()) return 0;
    return n;
  }
  static constexpr std::size_t k_piece = 1 << 14;
};

OutputStream::OutputStream(std::unique_ptr<Buffer> buffer) : std::ostream(buffer.get()), buffer_(std::move(buffer)) {}
OutputStream::~OutputStream() = default;

std::unique_ptr<OutputStream> OutputStream::open(std::string_view cmd, const std::string& path) {
  auto f = AtomicFile::open(path);
  if (!f) {
    std::fprintf(stderr, "mab: %.*s: %s\n", static_cast<int>(cmd.size()), cmd.data(),
                 mab::cli::message(f.error()).c_str());
    return nullptr;
  }
  auto b = std::make_unique<Buffer>();
  b->cmd = std::string(cmd);
  b->file.emplace(std::move(f).value());
  return std::unique_ptr<OutputStream>(new OutputStream(std::move(b)));
}

bool OutputStream::commit() {
  if (!buffer_->hand_over() || !*this) return false;
  if (auto st = buffer_->file->commit(); !st) {
    std::fprintf(stderr, "mab: %s: %s\n", buffer_->cmd.c_str(), mab::cli::message(st.error()).c_str());
    return false;
  }
  return true;
}

MabOrigin mab_origin(const std::string& path, std::span<const std::uint8_t> written) {
  MabOrigin o;
  o.name = path;
  if (auto bytes = read_file(path)) {
    o.size = bytes->size();
    o.identical = std::equal(bytes->begin(), bytes->end(), written.begin(), written.end());
  }
  return o;
}

void print_mab_written(const std::string& out, std::span<const std::uint8_t> bytes, const MabOrigin& origin) {
  if (origin.name.empty()) std::printf("wrote %s (%zu bytes, a new clip)\n", out.c_str(), bytes.size());
  else if (origin.size)
    std::printf("wrote %s (%zu bytes; %s: %zu bytes)\n", out.c_str(), bytes.size(), origin.name.c_str(), *origin.size);
  else std::printf("wrote %s (%zu bytes)\n", out.c_str(), bytes.size());
  // FieldSpec's default is the header's checksum field, u32 little-endian at +4 (format 3).
  const auto field = mab::checksum::read_field(bytes, mab::checksum::FieldSpec{});
  if (!field) return;  // under 8 bytes: no checksum field
  const auto sum = static_cast<std::uint32_t>(*field);
  // format 14: nobody knows what the checksum covers, so a file whose bytes changed must assume it stale.
  if (origin.identical)
    std::printf("  header checksum   %s at +4 still valid: the bytes are identical to %s\n", hex(sum, 8).c_str(),
                origin.name.c_str());
  else if (origin.name.empty())
    std::printf("  header checksum   %s at +4 is a placeholder (its algorithm is unknown, format 14)\n",
                hex(sum, 8).c_str());
  else
    std::printf(
        "  header checksum   %s at +4 kept from %s, now stale: the bytes changed and its algorithm is "
        "unknown (format 14; docs/crc-search.md, mab crc-apply)\n",
        hex(sum, 8).c_str(), origin.name.c_str());
}

std::optional<Container> load_container(std::string_view cmd, int& exit_code, const std::string& path,
                                        std::string_view what) {
  const std::string c(cmd), w = what.empty() ? std::string() : std::string(what) + " ";
  auto bytes = read_file(path);
  if (!bytes) {
    std::fprintf(stderr, "mab: %s: %s%s\n", c.c_str(), w.c_str(), mab::cli::message(bytes.error()).c_str());
    exit_code = exit_status(bytes.error());
    return std::nullopt;
  }
  auto container = read_container(*bytes);
  if (!container) {
    std::fprintf(stderr, "mab: %s: %s%s: %s\n", c.c_str(), w.c_str(), path.c_str(),
                 mab::cli::message(container.error()).c_str());
    exit_code = exit_status(container.error());
    return std::nullopt;
  }
  return std::move(container).value();
}

std::optional<GltfSkeleton> load_skeleton(std::string_view cmd, int& exit_code, const std::string& path) {
  const std::string c(cmd);
  auto bytes = read_file(path);
  if (!bytes) {
    std::fprintf(stderr, "mab: %s: --skeleton: %s\n", c.c_str(), mab::cli::message(bytes.error()).c_str());
    exit_code = exit_status(bytes.error());
    return std::nullopt;
  }
  auto sk = read_gltf_skeleton(*bytes, std::filesystem::path(path).parent_path());
  if (!sk) {
    std::fprintf(stderr, "mab: %s: --skeleton %s: %s\n", c.c_str(), path.c_str(),
                 mab::cli::message(sk.error()).c_str());
    exit_code = exit_status(sk.error());
    return std::nullopt;
  }
  return std::move(sk).value();
}

void print_legacy_encode_report(const mab::LegacyEncodeReport& rep, double bound, std::string_view cmd) {
  std::printf("  legacy sections   %zu kept, %zu rewritten\n", rep.sections_kept, rep.sections_rewritten);
  std::printf(
      "  keyed rotations   %zu stored keys before, %zu after: %zu kept at their frames and codes, %zu at new "
      "frames\n",
      rep.keys_before, rep.keys_after, rep.keys_kept, rep.keys_added);
  if (rep.keys_moved != 0)
    std::printf("  moved keys        %zu stored key(s) at a moved frame with their original codes\n", rep.keys_moved);
  if (rep.tag_records_edited != 0 || rep.events_edited != 0)
    std::printf("  tags and events   %zu tag record(s), %zu event node(s) written with new fields\n",
                rep.tag_records_edited, rep.events_edited);
  std::printf("  max angular error %.6f degrees (--max-error %g)\n", rep.max_error_deg, bound);
  // JB-DOC: a tag record's clip offset counts from the record; those that reached a clip follow it.
  for (const auto& u : rep.tag_offsets_updated)
    std::printf("  tag record        clip %zu record %zu: clip offset %d -> %d (still clip %d)\n", u.block, u.record,
                u.before, u.after, u.clip_block);
  if (rep.moved_clips != 0 && (rep.tag_tables_undecoded != 0 || !rep.tag_offsets_kept.empty()))
    std::fprintf(stderr,
                 "mab: %.*s: warning: the clip changed size by %lld bytes, moving %zu later clip(s) of the bank; %zu "
                 "tag table(s) that do not decode and %zu tag record(s) that reach no clip start keep their stored "
                 "clip offsets (nothing shows what they point at): check the bank in game\n",
                 static_cast<int>(cmd.size()), cmd.data(), static_cast<long long>(rep.size_change), rep.moved_clips,
                 rep.tag_tables_undecoded, rep.tag_offsets_kept.size());
}

void print_encode_report(const mab::EncodeReport& rep, std::string_view error_note) {
  // Decision 21: the timeline, the bone table and the depths as the edit left them, then the error
  // against the bound every command shares (edit_policy).
  std::printf("  key times         %zu -> %zu (%zu added, %zu removed)\n", rep.key_times_before, rep.key_times_after,
              rep.key_times_added, rep.key_times_removed);
  {
    std::vector<std::string> renamed, parts;
    for (const auto& [from, to] : rep.bones_renamed) renamed.push_back(hex(from, 8) + " -> " + hex(to, 8));
    if (!renamed.empty()) parts.push_back(std::to_string(renamed.size()) + " renamed (" + short_list(renamed) + ")");
    if (!rep.bones_added.empty())
      parts.push_back(std::to_string(rep.bones_added.size()) + " added (" + short_list(rep.bones_added) + ")");
    if (!rep.bones_removed.empty())
      parts.push_back(std::to_string(rep.bones_removed.size()) + " removed (" + short_list(rep.bones_removed) + ")");
    std::string line;
    for (const auto& part : parts) line += (line.empty() ? "" : "; ") + part;
    if (!line.empty()) std::printf("  bones             %s\n", line.c_str());
  }
  constexpr std::size_t depth_lines = 8;
  for (std::size_t i = 0; i < rep.depth_changes.size() && i < depth_lines; ++i) {
    const auto& d = rep.depth_changes[i];
    std::printf("  bit depth         %s %u -> %u bits (%s)\n", hex(d.hash, 8).c_str(), d.before, d.after,
                d.requested ? "as the edit asks" : "chosen to meet --max-error");
  }
  if (rep.depth_changes.size() > depth_lines)
    std::printf("  bit depth         ... and %zu more bone(s) at another depth\n",
                rep.depth_changes.size() - depth_lines);
  std::printf("  rotation chunks   %zu reused, %zu re-quantised\n", rep.chunks_reused, rep.chunks_requantised);
  std::printf("  constant bones    %zu reused, %zu encoded\n", rep.constants_reused, rep.constants_encoded);
  std::printf("  max angular error %.6f degrees (--max-error %g)%s%.*s\n", rep.max_error_deg, rep.max_error_bound,
              error_note.empty() ? "" : " ", static_cast<int>(error_note.size()), error_note.data());
  // docs/motion.md: translations and other sections decoded beyond the rotations (docs/motion.md).
  if (rep.translation_chunks_reused + rep.translation_chunks_requantised > 0)
    std::printf(
        "  translation chunks %zu reused, %zu re-quantised (%zu scale(s) widened, %zu depth(s) raised), max "
        "error %.6g units\n",
        rep.translation_chunks_reused, rep.translation_chunks_requantised, rep.translation_scales_widened,
        rep.translation_depths_raised, rep.max_translation_error);
  if (!rep.motion_sections_rewritten.empty())
    std::printf("  also rewritten    %s\n", short_list(rep.motion_sections_rewritten).c_str());
  for (const auto& w : rep.warnings) std::fprintf(stderr, "mab: warning: %s\n", w.c_str());
}

std::string short_list(const std::vector<std::string>& items, std::size_t max) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < max; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > max) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}

std::string short_list(const std::vector<std::uint32_t>& hashes, std::size_t max) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < hashes.size() && i < max; ++i) items.push_back(hex(hashes[i], 8));
  std::string s = short_list(items, max);
  if (hashes.size() > max) s += ", ... (" + std::to_string(hashes.size()) + " in all)";
  return s;
}

bool has_extension(const std::filesystem::path& p, std::string_view ext) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return e == ext;
}

nlohmann::json to_json(const Error& e) {
  nlohmann::json j{{"code", std::string(to_string(e.code))},
                   {"field", e.field},
                   {"detail", spelled(e.detail)},
                   {"message", mab::cli::message(e)}};
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
  if (const auto* a = b.ani()) return a->shape == AniShape::wd1 ? 120.0 : a->frame_rate();  // decision 7
  if (b.fc4()) return 30.0;                                                                 // decision 7
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
    nlohmann::json jb{{"base", pb.base},
                      {"extent", pb.extent},
                      {"bone_count", b.bones.size()},
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

// `mab export FILE -o OUT`: the lossless "mabkit-clip" JSON of one block
// (docs/json-format.md), or a glTF 2.0 animation of every block (docs/gltf.md).
#include "command.hpp"
#include "common.hpp"

#include <mab/file_io.hpp>
#include <mab/gltf.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

namespace {

namespace fs = std::filesystem;

// One bone name per line (decision 11 hashes them); blank lines and "#" comments are skipped. A
// UTF-8 byte order mark, "\r\n" line ends (files from Windows editors) and spaces or tabs at
// the end of a line are dropped; spaces inside and before a name are kept ("L Thigh").
mab::Result<std::vector<std::string>> read_names(const std::string& path) {
  auto bytes = mab::read_file(path);
  if (!bytes) return std::move(bytes).error();
  std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::string> names;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (!line.empty() && line.front() != '#') names.emplace_back(line);
  }
  return names;
}

// The names of a --names file whose CRC-32 is the hash of no bone of the file (decision 11): typos,
// or names of another skeleton.
std::vector<std::string> names_matching_no_bone(const mab::Container& c, const std::vector<std::string>& names) {
  std::set<std::uint32_t> hashes;
  for (const auto& b : c.blocks)
    for (const auto& bone : b.bones) hashes.insert(bone.hash);
  std::vector<std::string> out;
  for (const auto& n : names)
    if (!hashes.count(mab::bone_hash(n))) out.push_back("\"" + n + "\"");
  return out;
}

struct Options {
  std::string file, output, format, names, skeleton;
  std::optional<std::size_t> block;
  bool in_place = false, codes = false;
  std::uint32_t json_version = mab::json_format_version;
};

// The output format: --format, else the output's extension; empty after printing why the
// options do not fit it.
std::string output_format(const Options& o) {
  std::string format = o.format;
  if (format.empty())
    format = mab::cli::has_extension(o.output, ".glb")    ? "glb"
             : mab::cli::has_extension(o.output, ".gltf") ? "gltf"
                                                          : "json";
  const char* why = nullptr;
  if (format == "json" && (!o.names.empty() || !o.skeleton.empty()))
    why = "--names and --skeleton are for glTF output (-o FILE.gltf or .glb)";
  else if (format != "json" && o.block) why = "--block is for JSON; a glTF holds one animation per block";
  else if (format != "json" && (o.codes || o.json_version != mab::json_format_version))
    why = "--codes and --json-version are for JSON output";
  if (why == nullptr) return format;
  std::fprintf(stderr, "mab: export: %s\n", why);
  return {};
}

int export_json(const Options& o, const mab::Container& c) {
  const std::size_t block = o.block.value_or(0);
  // A file kept opaque has no block, and its document (block 0) is the container's.
  if (o.block && block >= std::max<std::size_t>(c.blocks.size(), 1)) {
    std::fprintf(stderr, "mab: export: %s: no block %zu (the file has %zu)\n", o.file.c_str(), block, c.blocks.size());
    return mab::cli::exit_usage;
  }
  // Streamed: the document (7 MB for a 100-bone, 1,000-key clip) is never held whole, nor
  // are the clip's floats (export_block_json decodes each bone's keys as it writes them).
  mab::JsonExportOptions jo;
  jo.version = o.json_version;
  jo.codes = o.codes;
  mab::JsonExportReport report;
  auto produce = [&](const mab::JsonSink& sink) { return mab::export_block_json(c, block, sink, jo, &report); };
  int status = mab::cli::exit_ok;
  if (!mab::cli::write_output_stream("export", status, {o.file}, o.output, o.in_place, o.file, produce)) return status;
  if (!report.clip)
    std::fprintf(stderr, "mab: export: note: %s: clip not decoded (%s); exported the container only\n", o.file.c_str(),
                 report.clip_absent.c_str());
  return mab::cli::exit_ok;
}

// What a glTF export wrote, named and left out.
void print_gltf_report(const Options& o, const mab::Container& c, const mab::GltfExportOptions& go,
                       const mab::GltfExportReport& rep, std::size_t bytes) {
  const bool legacy_file = c.variant != nullptr && c.variant->layout == mab::LayoutKind::legacy;
  std::FILE* info = stdout;  // standard error when the glTF itself went to standard output
  std::fprintf(info, "wrote %s (%zu bytes): %zu animation(s), %zu rotation channels, %zu keys, %zu nodes\n",
               o.output.c_str(), bytes, rep.animations, rep.channels - rep.translation_channels, rep.keys, rep.nodes);
  if (rep.translation_channels != 0)
    std::fprintf(info, "  translations      %zu channel(s) (bones and root motion)\n", rep.translation_channels);
  if (legacy_file) std::fprintf(info, "  named             bone_<id> (Far Cry 2/3 store skeleton ids, not names)\n");
  else if (!go.names.empty() || go.skeleton != nullptr)
    std::fprintf(info, "  named             %zu bone(s) (the rest are bone_0xHASH)\n", rep.named);
  else std::fprintf(info, "  named             none: give --names FILE (one bone name per line) for names\n");
  if (legacy_file && !go.names.empty())
    std::fprintf(info, "  --names           not used: Far Cry 2/3 bones have ids, not name hashes\n");
  else if (const auto unmatched = names_matching_no_bone(c, go.names); !unmatched.empty())
    std::fprintf(info, "  --names           %zu of %zu name(s) match no bone of the file: %s\n", unmatched.size(),
                 go.names.size(), mab::cli::short_list(unmatched).c_str());
  for (const auto& s : rep.skipped_blocks)
    std::fprintf(info, "  skipped block %zu  %s\n", s.block, mab::cli::spelled(s.reason).c_str());
  if (rep.scene_fps > 0)
    std::fprintf(info,
                 "  Blender           set the scene frame rate to %g fps before importing: every key is then "
                 "a whole frame (docs/gltf.md)\n",
                 rep.scene_fps);
  if (go.skeleton != nullptr) {
    if (!rep.bones_without_node.empty())
      std::fprintf(info, "  not in skeleton   %zu bone(s), added under the skeleton root: %s\n",
                   rep.bones_without_node.size(), mab::cli::short_list(rep.bones_without_node).c_str());
    if (!rep.nodes_without_bone.empty())
      std::fprintf(info, "  not in the clip   %zu skeleton joint(s) keep their rest pose: %s\n",
                   rep.nodes_without_bone.size(), mab::cli::short_list(rep.nodes_without_bone).c_str());
  }
}

int export_gltf_file(const Options& o, const mab::Container& c, bool binary) {
  std::vector<fs::path> inputs{o.file};
  mab::GltfExportOptions go;
  go.binary = binary;
  go.rig_name = fs::path(o.file).stem().string();
  if (go.rig_name.empty()) go.rig_name = "mabkit_rig";
  if (!o.names.empty()) {
    auto names = read_names(o.names);
    if (!names) {
      std::fprintf(stderr, "mab: export: --names: %s\n", mab::cli::message(names.error()).c_str());
      return mab::cli::exit_status(names.error());
    }
    go.names = std::move(names).value();
    inputs.push_back(o.names);
  }
  int status = mab::cli::exit_ok;
  std::optional<mab::GltfSkeleton> skeleton;
  if (!o.skeleton.empty()) {
    skeleton = mab::cli::load_skeleton("export", status, o.skeleton);
    if (!skeleton) return status;
    go.skeleton = &*skeleton;
    inputs.push_back(o.skeleton);
  }
  mab::GltfExportReport rep;
  auto out = mab::export_gltf(c, go, &rep);
  if (!out) {
    std::fprintf(stderr, "mab: export: %s: %s\n", o.file.c_str(), mab::cli::message(out.error()).c_str());
    return mab::cli::exit_refused;
  }
  if (!mab::cli::write_output("export", status, inputs, o.output, o.in_place, *out)) return status;
  print_gltf_report(o, c, go, rep, out->size());
  return mab::cli::exit_ok;
}

int run(const Options& o) {
  const std::string format = output_format(o);
  if (format.empty()) return mab::cli::exit_usage;
  int status = mab::cli::exit_ok;
  const auto c = mab::cli::load_container("export", status, o.file);
  if (!c) return status;
  return format == "json" ? export_json(o, *c) : export_gltf_file(o, *c, format == "glb");
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("export",
                                 "Write FILE as lossless JSON (the container and the editable clip; --codes adds the "
                                 "exact rotation codes) or as a glTF 2.0 "
                                 "animation for Blender and other tools; `mab import` turns either back into a .mab");
  cmd->add_option("FILE", o->file, "The .mab to export")->required();
  cmd->add_option("-o,--output", o->output,
                  "File to write: .json, .gltf or .glb (the format follows the extension), or - for standard output")
      ->required();
  cmd->add_option("--format", o->format, "json, gltf or glb, whatever the output's name")
      ->transform(CLI::IsMember({"json", "gltf", "glb"}, CLI::ignore_case));
  cmd->add_option("--block", o->block, "JSON: the block to export (Far Cry 5 files hold several; default 0)");
  cmd->add_option("--names", o->names,
                  "glTF: a text file with one bone name per line; bones whose hash is the CRC-32 of a name get "
                  "that name (others are called bone_0xHASH)");
  cmd->add_option("--skeleton", o->skeleton,
                  "glTF: a .gltf/.glb whose node names, hierarchy and rest pose to use (bones matched by the CRC-32 "
                  "of the node names)");
  cmd->add_flag("--codes", o->codes,
                "JSON: also write the exact rotation codes (\"codes\", a second view of the stored bytes, for "
                "inspection; a third of the document)");
  cmd->add_option("--json-version", o->json_version,
                  "JSON: the format version to write, 1, 2 or 3 (default 3; versions 1 and 2 hold a Far Cry 2/3 "
                  "block as \"legacy_clip\", version 1 always carries the codes, byte for byte as mabkit wrote "
                  "them before)")
      ->check(CLI::Range(mab::json_format_oldest_version, mab::json_format_version));
  cmd->add_flag("--in-place", o->in_place,
                "Allow -o to name FILE itself (FILE is kept as FILE.bak, or FILE.bak.1, .bak.2, ... when that exists)");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab export corpus/wd2/mixed_k8.mab -o walk.json     # edit \"clip\" in walk.json, then\n"
      "  mab import walk.json -o walk2.mab    # only the edited chunks are re-quantised\n"
      "  mab export corpus/wd2/mixed_k8.mab -o walk.glb --names corpus/bone_names.txt\n"
      "  (import walk.glb in Blender, edit, export it back to walk.glb with \"Always Sample Animations\" off)\n"
      "  mab import walk.glb --template corpus/wd2/mixed_k8.mab -o walk_new.mab\n"
      "  mab export corpus/fc2/chain_2.mab --block 1 -o clip1.json   # Far Cry 2/3: a bank's second clip\n"
      "  mab export corpus/wd2/mixed_k8.mab --codes -o walk.json     # with the stored codes, to inspect them\n"
      "  mab export corpus/wd1/one_bone_k8.mab -o clip.glb --skeleton corpus/external/RiggedSimple.gltf\n"
      "JSON: every game's tracks are in \"clip\" and \"motion\" (Far Cry 2/3: bones by skeleton id, one key\n"
      "per frame, tag records and events under \"legacy\"); files whose tracks cannot be decoded (opaque\n"
      "versions, damaged streams) are\n"
      "exported as their container only, still byte for byte (docs/json-format.md). glTF: one node per\n"
      "bone and one animation per block whose rotations decode (docs/gltf.md).\n"
      "-o: a link is kept and the file it leads to replaced; a FIFO or device (/dev/null) is written to.\n"
      "Exit status: 0 written; 1 the file is refused; 2 usage or I/O error (nothing is written then).");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(export, setup);

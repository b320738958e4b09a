// `mab import CLIP.json -o OUT.mab`: a "mabkit-clip" document back to a .mab, re-quantising
// only what was edited (docs/json-format.md).
#include "command.hpp"

#include <mab/file_io.hpp>
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <system_error>

namespace {

namespace fs = std::filesystem;

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// Hex doubles every byte and a key costs some 40 characters of text: a document may be
// several times the size of the largest file it stands for.
mab::Limits text_limits() {
  mab::Limits l;
  l.max_file_size = 4 * mab::default_limits.max_file_size;
  return l;
}

mab::Result<std::string> read_text(const std::string& path) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (text.size() > text_limits().max_file_size)
      return mab::make_error(mab::ErrorCode::limit_exceeded, mab::no_offset, "stdin", "document too large");
    return text;
  }
  auto bytes = mab::read_file(path, text_limits());
  if (!bytes) return std::move(bytes).error();
  return std::string(bytes->begin(), bytes->end());
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "import", "Turn a JSON document written by `mab export` back into a .mab: unedited parts keep "
                "their exact bytes, edited chunks are re-quantised and their error reported");
  struct Opts {
    std::string file, output;
    bool choose_depth = false;
    std::optional<double> max_error;
    bool in_place = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("JSON", o->file, "Document from `mab export` (- for standard input)")->required();
  cmd->add_option("-o,--output", o->output, "The .mab to write")->required();
  cmd->add_flag("--choose-depth", o->choose_depth,
                "Re-pick the bit depth of each edited bone: the smallest meeting --max-error");
  cmd->add_option("--max-error", o->max_error,
                  "Largest angular error in degrees: the bound for --choose-depth (default 0.01); "
                  "nothing is written if a re-quantised key is further off")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--in-place", o->in_place, "Allow -o to name the JSON input itself (kept as JSON.bak)");
  cmd->footer(
      "Example:\n"
      "  mab export walk.mab -o walk.json\n"
      "  (change one quaternion under \"clip\" -> \"bones\" -> N -> \"keys\" in walk.json)\n"
      "  mab import walk.json -o walk2.mab --max-error 0.05\n"
      "prints how many chunks were reused and re-quantised and the largest angular error.\n"
      "An unedited document gives the exported file back byte for byte.\n"
      "Exit status: 0 when written, 1 on any error (nothing is written then).");
  cmd->callback([o, &exit_code] {
    exit_code = 1;
    auto text = read_text(o->file);
    if (!text) {
      std::fprintf(stderr, "mab: import: %s\n", text.error().message().c_str());
      return;
    }
    mab::EncodeOptions options;
    options.choose_depth = o->choose_depth;
    if (o->max_error) options.max_error_deg = *o->max_error;
    auto imported = mab::import_json_bytes(*text, mab::default_limits, options);
    if (!imported) {
      std::fprintf(stderr, "mab: import: %s: %s\n", o->file.c_str(), imported.error().message().c_str());
      return;
    }
    const auto& rep = imported->report;
    if (o->max_error && rep.max_error_deg > *o->max_error) {
      std::fprintf(stderr,
                   "mab: import: %s: a re-quantised key is %.6f degrees off, above --max-error %g; "
                   "nothing written (try --choose-depth)\n",
                   o->file.c_str(), rep.max_error_deg, *o->max_error);
      return;
    }
    if (o->file != "-" && same_file(o->file, o->output)) {
      if (!o->in_place) {
        std::fprintf(stderr, "mab: import: %s is the input file; pass --in-place to overwrite it (a .bak copy is kept)\n",
                     o->output.c_str());
        return;
      }
      std::error_code ec;
      fs::copy_file(o->file, fs::path(o->output + ".bak"), fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::fprintf(stderr, "mab: import: cannot keep %s.bak: %s\n", o->output.c_str(), ec.message().c_str());
        return;
      }
    }
    if (auto st = mab::write_file_atomic(o->output, imported->bytes); !st) {
      std::fprintf(stderr, "mab: import: %s\n", st.error().message().c_str());
      return;
    }
    std::printf("wrote %s (%zu bytes)\n", o->output.c_str(), imported->bytes.size());
    if (imported->clip_encoded) {
      std::printf("  rotation chunks   %zu reused, %zu re-quantised\n", rep.chunks_reused, rep.chunks_requantised);
      std::printf("  constant bones    %zu reused, %zu encoded\n", rep.constants_reused, rep.constants_encoded);
      std::printf("  max angular error %.6f degrees\n", rep.max_error_deg);
    } else {
      std::printf("  container only (no clip in the document): written as stored\n");
    }
    // Import only returns files that read back; hand-edited container bytes may still break
    // the structural rules, which is worth a warning, not a refusal.
    if (auto c = mab::read_container(imported->bytes)) {
      const auto findings = mab::validate(*c);
      std::size_t errors = 0;
      for (const auto& f : findings) errors += f.severity == mab::Severity::error;
      if (errors)
        std::fprintf(stderr, "mab: import: warning: %s has %zu structural error(s); see `mab info %s`\n",
                     o->output.c_str(), errors, o->output.c_str());
    }
    exit_code = 0;
  });
}

}  // namespace

MAB_REGISTER_COMMAND(import, setup);

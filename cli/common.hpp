// Helpers shared by sub-commands: input discovery, one-line errors, JSON of
// library types. Public API only.
#pragma once

#include <mab/container.hpp>
#include <mab/encode_clip.hpp>
#include <mab/gltf.hpp>
#include <mab/legacy.hpp>
#include <mab/text.hpp>
#include <mab/validate.hpp>

#include "flag_spelling.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mab::cli {

// Expands files and directories (recursively, *.mab only, sorted). Paths that do
// not exist are returned in `missing`.
std::vector<std::filesystem::path> collect_inputs(const std::vector<std::string>& args,
                                                  std::vector<std::string>& missing);

// The library names options {opt:NAME} in snake_case (mab/error.hpp); the CLI spells them as
// its flags (flag_spelling.hpp: max_error -> --max-error).
// An error's one line, and any library text (a note, a report line), with flags spelled.
std::string message(const Error& e);
std::string spelled(std::string_view text);

// mab/text.hpp's, under the name some commands qualify (mab::cli::hex).
using mab::hex;

// --help of --max-translation-error, which mab edit and mab import share (decision 21).
inline constexpr const char* max_translation_error_help =
    "largest error in file units of a re-quantised translation key (default 0.001): a bone whose translation "
    "chunks are re-quantised (edited, or regrouped by a key time added or removed) keeps its depth unless that "
    "misses the bound, then gets a finer one, 16 bits at most; what 16 bits still miss is refused, nothing written "
    "(the message names the bound that accepts it)";

// Exit statuses of every command (docs/cli.md, `mab --help`). A command that meets several
// problems exits with the largest.
inline constexpr int exit_ok = 0;       // done; every check passed
inline constexpr int exit_refused = 1;  // a check failed, or the input's data was refused
inline constexpr int exit_usage = 2;    // a wrong command line, or a file that cannot be read or written
// io_error -> exit_usage; any other error (of the data) -> exit_refused.
int exit_status(const Error& e);

// Writes `bytes` to `out` ("-": standard output) by mab::write_file_atomic's rules (a regular
// file atomically, a link's target with the link kept, a device or FIFO streamed to, anything
// else refused). `out` naming one of `inputs` needs `in_place`, which first keeps a copy as
// OUT.bak, or OUT.bak.1, .bak.2, ... when that exists (mab::keep_backup): a mistyped -o must
// not destroy the only copy of a clip, nor a second run the first backup. After standard
// output received the bytes, the rest of the report goes to standard error. Errors are printed
// as one line, "mab: CMD: ...", and set `exit_code` (exit_usage).
bool write_output(std::string_view cmd, int& exit_code, const std::vector<std::filesystem::path>& inputs,
                  const std::string& out, bool in_place, std::span<const std::uint8_t> bytes);

// An existing regular file `out` whose bytes are `original` (the .mab a document or an
// animation was made from, found by its content under any name) is treated as an input: only
// `in_place` replaces it, and then `inputs` gains it so that write_output keeps the backup.
// False after printing "mab: CMD: OUT holds WHAT; pass --in-place ..." (exit_code: exit_usage).
bool may_replace_original(std::string_view cmd, int& exit_code, const std::string& out, bool in_place,
                          std::span<const std::uint8_t> original, std::string_view what,
                          std::vector<std::filesystem::path>& inputs);

// The same for output produced in pieces: `produce` hands each piece to the sink it is
// given and returns its status. A file is written atomically and committed only if
// `produce` succeeds; on standard output, a device or a FIFO the pieces go out as they come,
// so `produce` must find errors of its input before its first piece (export_json does). Those
// errors are printed as "mab: CMD: SOURCE: ..." and set `exit_code` by exit_status.
using StreamProducer = std::function<Status(const std::function<bool(std::string_view)>&)>;
bool write_output_stream(std::string_view cmd, int& exit_code, const std::vector<std::filesystem::path>& inputs,
                         const std::string& out, bool in_place, std::string_view source, const StreamProducer& produce);

// A text report written as it is produced (mab survey's rows), by the same rules: opened
// before the work starts (a refused path fails at once), committed at the end.
class OutputStream : public std::ostream {
 public:
  // nullptr after printing "mab: CMD: ..." when `path` cannot be written.
  static std::unique_ptr<OutputStream> open(std::string_view cmd, const std::string& path);
  ~OutputStream() override;
  // Hands over what is buffered and commits; prints "mab: CMD: ..." and returns false on failure.
  bool commit();

 private:
  struct Buffer;
  explicit OutputStream(std::unique_ptr<Buffer> buffer);
  std::unique_ptr<Buffer> buffer_;
};

// The .mab an output was made from, for the report of a command that writes one.
struct MabOrigin {
  std::string name;                 // empty: a new clip, made from no .mab
  std::optional<std::size_t> size;  // unknown when the file could not be read again
  bool identical = false;           // the output is byte-identical to it
};
// Reads `path` (before the output may replace it) and compares it with `written`.
MabOrigin mab_origin(const std::string& path, std::span<const std::uint8_t> written);

// "wrote OUT (N bytes; ORIGIN: M bytes)", then whether the header checksum at +4 (format 14,
// algorithm unknown) still holds: it does when the bytes are identical, else it is stale.
void print_mab_written(const std::string& out, std::span<const std::uint8_t> bytes, const MabOrigin& origin);

// A .mab read and parsed; nullopt after printing "mab: CMD: [WHAT ]PATH: ..." on failure and
// setting `exit_code` by exit_status.
std::optional<Container> load_container(std::string_view cmd, int& exit_code, const std::string& path,
                                        std::string_view what = {});

// The --skeleton glTF of `mab export`/`mab import` (its external buffers read from its own
// folder); nullopt after printing "mab: CMD: --skeleton PATH: ..." on failure and setting
// `exit_code` by exit_status.
std::optional<GltfSkeleton> load_skeleton(std::string_view cmd, int& exit_code, const std::string& path);

// "a, b, c, ... (N in all)": the first `max` items of a list for a one-line report; hashes
// as 0xHHHHHHHH.
std::string short_list(const std::vector<std::string>& items, std::size_t max = 8);
std::string short_list(const std::vector<std::uint32_t>& hashes, std::size_t max = 8);

// What encode_clip reused and re-quantised, as `mab import` and `mab edit` print it;
// `error_note` (may be empty) follows the largest angular error.
void print_encode_report(const mab::EncodeReport& rep, std::string_view error_note);

// What encode_legacy_clip kept and rewrote (Far Cry 2/3), as `mab import` and `mab edit` print
// it; a warning on stderr, "mab: CMD: warning: ...", when moved clips may leave tag records stale.
void print_legacy_encode_report(const mab::LegacyEncodeReport& rep, double bound, std::string_view cmd);

// "walk.glb" -> true: by the extension, case-insensitively.
bool has_extension(const std::filesystem::path& p, std::string_view ext);

nlohmann::json to_json(const Error& e);
nlohmann::json to_json(const Finding& f);

// Key count as the header states it: lastFrame + 1 (format 7), or the KeyTimes
// region size / 2 where the layout has no lastFrame (FC5 preamble, FC4 slot 2).
std::optional<std::uint64_t> header_key_count(const Block& b);

// Duration in seconds and frame rate (decision 7), NaN when the layout has none.
double block_duration(const Block& b);
double block_frame_rate(const Block& b);

nlohmann::json summary_json(const Container& c, const Placement& pl);

}  // namespace mab::cli

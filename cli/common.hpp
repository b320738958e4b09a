// Helpers shared by sub-commands: input discovery, one-line errors, JSON of
// library types. Public API only.
#pragma once

#include <mab/codec_file.hpp>
#include <mab/container.hpp>
#include <mab/gltf.hpp>
#include <mab/validate.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
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

std::string hex(std::uint64_t v, int width = 0);

// Writes `bytes` to `out` ("-": standard output), atomically. `out` naming one of `inputs`
// needs `in_place`, which keeps a .bak copy first: a mistyped -o must not destroy the only
// copy of a clip. Errors are printed as one line, "mab: CMD: ...".
bool write_output(std::string_view cmd, const std::vector<std::filesystem::path>& inputs, const std::string& out,
                  bool in_place, std::span<const std::uint8_t> bytes);

// The same for output produced in pieces: `produce` hands each piece to the sink it is
// given and returns its status. A file is written atomically and committed only if
// `produce` succeeds; on standard output the pieces go out as they come, so `produce`
// must find errors of its input before its first piece (export_json does). Those errors
// are printed as "mab: CMD: SOURCE: ...".
using StreamProducer = std::function<Status(const std::function<bool(std::string_view)>&)>;
bool write_output_stream(std::string_view cmd, const std::vector<std::filesystem::path>& inputs,
                         const std::string& out, bool in_place, std::string_view source,
                         const StreamProducer& produce);

// A .mab read and parsed; nullopt after printing "mab: CMD: [WHAT ]PATH: ..." on failure.
std::optional<Container> load_container(std::string_view cmd, const std::string& path, std::string_view what = {});

// The --skeleton glTF of `mab export`/`mab import` (its external buffers read from its own
// folder); nullopt after printing "mab: CMD: --skeleton PATH: ..." on failure.
std::optional<GltfSkeleton> load_skeleton(std::string_view cmd, const std::string& path);

// "a, b, c, ... (N in all)": the first `max` items of a list for a one-line report; hashes
// as 0xHHHHHHHH.
std::string short_list(const std::vector<std::string>& items, std::size_t max = 8);
std::string short_list(const std::vector<std::uint32_t>& hashes, std::size_t max = 8);

// What encode_clip reused and re-quantised, as `mab import` and `mab edit` print it;
// `error_note` (may be empty) follows the largest angular error.
void print_encode_report(const mab::EncodeReport& rep, std::string_view error_note);

// "walk.glb" -> true: by the extension, case-insensitively.
bool has_extension(const std::filesystem::path& p, std::string_view ext);

nlohmann::json to_json(const Error& e);
nlohmann::json to_json(const Finding& f);

// Key count as the header states it: lastFrame + 1 (spec 7), or the KeyTimes
// region size / 2 where the layout has no lastFrame (FC5 preamble, FC4 slot 2).
std::optional<std::uint64_t> header_key_count(const Block& b);

// Duration in seconds and frame rate (D7), NaN when the layout has none.
double block_duration(const Block& b);
double block_frame_rate(const Block& b);

nlohmann::json summary_json(const Container& c, const Placement& pl);

}  // namespace mab::cli

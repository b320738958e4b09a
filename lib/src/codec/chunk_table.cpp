#include "chunk_table.hpp"

#include <mab/rotation_codec.hpp>

#include "io/bytes.hpp"

#include <string>

namespace mab::detail {

Status check_stream_counts(std::string_view section, std::uint32_t key_count, std::size_t tracks,
                           std::string_view tracks_what, std::uint64_t base, const Limits& limits) {
  const std::string name(section);
  if (key_count > limits.max_keys)
    return make_error(ErrorCode::limit_exceeded, base, name + ".key_count",
                      std::to_string(key_count) + " keys, limit " + std::to_string(limits.max_keys));
  if (tracks > limits.max_bones)
    return make_error(
        ErrorCode::limit_exceeded, base, name + ".bones",
        std::to_string(tracks) + " " + std::string(tracks_what) + ", limit " + std::to_string(limits.max_bones));
  const std::size_t nchunks = chunk_count(key_count);
  if (nchunks > limits.max_chunks)
    return make_error(ErrorCode::limit_exceeded, base, name + ".chunks",
                      std::to_string(nchunks) + " chunks, limit " + std::to_string(limits.max_chunks));
  return {};
}

Result<std::vector<std::uint32_t>> read_chunk_table(std::span<const std::uint8_t> section, std::size_t nchunks,
                                                    std::uint32_t key_count, std::uint64_t base,
                                                    std::string_view section_name) {
  const std::string name(section_name);
  const std::uint64_t table_bytes = 4 * (std::uint64_t{nchunks} + 1);
  if (section.size() < 4)
    return make_error(ErrorCode::truncated, base, name + ".table_size",
                      "need 4 bytes, " + std::to_string(section.size()) + " left");
  const std::uint32_t stated = io::load_u32(section, 0);
  if (stated != table_bytes)
    return make_error(ErrorCode::bad_chunk_table, base, name + ".table_size",
                      "table size " + std::to_string(stated) + ", " + std::to_string(key_count) + " keys need " +
                          std::to_string(table_bytes));
  if (section.size() < table_bytes)
    return make_error(
        ErrorCode::truncated, at(base, section.size()), name + ".chunk_table",
        "table needs " + std::to_string(table_bytes) + " bytes, section has " + std::to_string(section.size()));
  std::vector<std::uint32_t> table(nchunks + 1);
  table[0] = stated;
  for (std::size_t i = 1; i <= nchunks; ++i) {
    const std::uint32_t end = io::load_u32(section, 4 * i);
    if (end < table[i - 1])
      return make_error(ErrorCode::bad_chunk_table, at(base, 4 * i), name + ".chunk_table[" + std::to_string(i) + "]",
                        "chunk end " + std::to_string(end) + " is below the previous " + std::to_string(table[i - 1]));
    if (end > section.size())
      return make_error(
          ErrorCode::out_of_bounds, at(base, 4 * i), name + ".chunk_table[" + std::to_string(i) + "]",
          "chunk end " + std::to_string(end) + " is past the section size " + std::to_string(section.size()));
    table[i] = end;
  }
  return table;
}

}  // namespace mab::detail

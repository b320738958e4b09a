// mabkit.read, File.to_bytes/write, and what a File and its blocks say about themselves
// (the fields `mab info` prints), for python/mabkit/__init__.py.
#include "ani_state.hpp"
#include "arrays.hpp"
#include "handle.hpp"

#include <mab/decode_clip.hpp>
#include <mab/text.hpp>
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>
#include <mab/validate.hpp>

#include <pybind11/stl.h>

#include <cstdio>

namespace mabpy {

namespace py = pybind11;

const mab::Block& FileHandle::block(std::size_t index) const {
  if (index >= container->blocks.size())
    raise(mab::ErrorCode::not_found, "block",
          "no block " + std::to_string(index) + " (the file has " + std::to_string(container->blocks.size()) + ")");
  return container->blocks[index];
}

namespace {

py::bytes as_bytes(const std::vector<std::uint8_t>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

FileHandle from_bytes(std::span<const std::uint8_t> bytes) {
  return FileHandle{std::make_shared<const mab::Container>(take(mab::read_container(bytes)))};
}

FileHandle read_buffer(const py::buffer& b) {
  const py::buffer_info info = b.request();
  if (info.ndim != 1 || info.itemsize != 1 || info.strides[0] != 1)
    raise(mab::ErrorCode::invalid_argument, "data", "a contiguous bytes-like object is needed");
  return from_bytes({static_cast<const std::uint8_t*>(info.ptr), static_cast<std::size_t>(info.size)});
}

FileHandle read_path(const std::string& path) { return from_bytes(take(mab::read_file(path))); }

// A file of `variant` (wd1, wd2, wdl, fc5) with no bones and one key at time 0, the fields no
// source gives at their documented defaults (new_container), plus those defaults.
py::tuple new_file(const std::string& variant) {
  const mab::VariantInfo* v = mab::find_variant(variant);
  if (v == nullptr)
    raise(mab::ErrorCode::invalid_argument, "variant", "no game \"" + variant + "\" (wd1, wd2, wdl, fc5)");
  std::vector<mab::NewFieldDefault> defaults;
  mab::Container c = take(mab::new_container(v->game, &defaults));
  // Through the writer and the reader, so the File is what a read of its bytes gives.
  const auto bytes = take(mab::write_container(c));
  py::list d;
  for (const auto& x : defaults) d.append(py::make_tuple(x.field, x.value, mab::spell_options(x.why)));
  return py::make_tuple(from_bytes(bytes), d);
}

py::dict ani_header(const mab::AniHeader& a) {
  static const char* shapes[] = {"wd1", "wdl", "fc5"};
  py::dict h;
  h["shape"] = shapes[static_cast<int>(a.shape)];
  h["skeleton_bone_crc"] = a.skeleton_bone_crc;
  h["skeleton_path_id"] = a.skeleton_path_id;
  h["signature"] = py::bytes(reinterpret_cast<const char*>(a.signature.data()), a.signature.size());
  h["flags"] = a.flags;
  h["animation_data_size"] = a.animation_data_size;
  h["duration"] = a.duration();
  h["frame_rate"] = a.frame_rate();
  h["bone_count_field"] = a.bone_count_field;
  h["data_counts"] = a.data_counts;
  h["offsets"] = a.offsets;
  h["last_frame"] = a.last_frame;
  return h;
}

py::dict fc4_header(const mab::Fc4Header& f) {
  py::dict h;
  h["signature"] = py::bytes(reinterpret_cast<const char*>(f.signature.data()), f.signature.size());
  h["flags"] = f.flags;
  h["bone_count"] = f.bone_count;
  h["duration"] = f.duration();
  h["flag_table_offset"] = f.flag_table_offset;
  h["hash_table_offset"] = f.hash_table_offset;
  h["section_offsets"] = std::vector<std::uint16_t>(f.section_offsets.begin(), f.section_offsets.end());
  return h;
}

py::dict legacy_header(const mab::LegacyHeader& l) {
  py::dict h;
  h["mask_words"] = l.mask_words;
  h["masks"] = l.masks;
  h["tag"] = py::bytes(reinterpret_cast<const char*>(l.tag.data()), l.tag.size());
  h["duration"] = l.duration();
  h["sections"] = std::vector<std::int32_t>(l.sections.begin(), l.sections.end());
  return h;
}

// Whether the block decodes (evidence and counts only, as `mab info` checks it) and why not.
void decodability(const mab::Container& c, std::size_t k, py::dict& out) {
  const mab::Block& b = c.blocks[k];
  out["decodable"] = false;
  out["reason"] = "";
  out["evidence"] = py::dict();
  if (b.legacy() != nullptr) {
    auto d = mab::decode_legacy_clip(c, k);
    out["decodable"] = d.ok();
    if (!d) out["reason"] = d.error().message();
    return;
  }
  mab::DecodeOptions options;
  options.keys = false;
  auto d = mab::decode_clip(c, k, options);
  out["decodable"] = d.ok();
  if (!d) {
    out["reason"] = d.error().message();
    return;
  }
  out["evidence"] = evidence_dict(d->evidence);
}

py::list block_infos(const FileHandle& f) {
  py::list out;
  const mab::Container& c = f.c();
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    const mab::Block& b = c.blocks[k];
    py::dict d;
    d["index"] = k;
    d["kind"] = b.ani() ? "ani" : b.fc4() ? "fc4" : "legacy";
    d["header"] = b.ani() ? ani_header(*b.ani()) : b.fc4() ? fc4_header(*b.fc4()) : legacy_header(*b.legacy());
    py::list hashes, flags;
    for (const auto& bone : b.bones) hashes.append(bone.hash), flags.append(bone.flags);
    d["bone_hashes"] = hashes;
    d["bone_flags"] = flags;
    d["parent"] = b.parent;
    d["key_rate"] = b.legacy() ? 0.0 : mab::key_rate(c, k);
    py::list sections;
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot)
      if (b.slot_segment[slot] >= 0)
        sections.append(py::make_tuple(slot, std::string(mab::section_name(b, slot)), b.section(slot).size()));
    d["sections"] = sections;
    decodability(c, k, d);
    out.append(d);
  }
  return out;
}

// The layout's short name, as Block.kind and the corpus's expected.json name it.
const char* layout_name(mab::LayoutKind k) {
  switch (k) {
    case mab::LayoutKind::ani: return "ani";
    case mab::LayoutKind::fc4: return "fc4";
    case mab::LayoutKind::legacy: return "legacy";
    case mab::LayoutKind::opaque: break;
  }
  return "opaque";
}

py::dict file_info(const FileHandle& f) {
  const mab::Container& c = f.c();
  const mab::VariantInfo& v = *c.variant;
  py::dict d;
  d["variant"] = std::string(v.short_name);
  d["game"] = std::string(v.game_name);
  d["layout"] = c.is_opaque() ? "opaque" : layout_name(v.layout);  // a guessed layout that did not fit: bytes
  d["confidence"] = std::string(mab::to_string(v.confidence));
  d["magic"] = v.magic;
  d["checksum"] = c.header.checksum;
  py::dict h;
  h["magic_word"] = c.header.magic_word;
  h["checksum"] = c.header.checksum;
  h["reserved"] = py::bytes(reinterpret_cast<const char*>(c.header.reserved.data()), c.header.reserved.size());
  d["header"] = h;
  d["size"] = c.original_size;
  d["opaque_reason"] = c.opaque_reason;
  py::list evidence;
  evidence.append("game " + std::string(v.game_name) + " (" + std::string(v.short_name) + ")");
  evidence.append("layout " + std::string(mab::to_string(v.layout)) + ", " + std::string(mab::to_string(v.confidence)));
  evidence.append("evidence " + std::string(v.evidence));
  evidence.append("header checksum " + mab::hex(c.header.checksum, 8) + " (algorithm unknown, format 14)");
  if (c.is_opaque()) evidence.append("body kept opaque: " + c.opaque_reason);
  d["evidence"] = evidence;
  return d;
}

py::list findings(const FileHandle& f) {
  py::list out;
  for (const auto& x : mab::validate(f.c())) {
    py::dict d;
    d["severity"] = std::string(mab::to_string(x.severity));
    d["code"] = std::string(mab::to_string(x.code));
    d["offset"] = x.offset == mab::no_offset ? py::object(py::none()) : py::object(py::int_(x.offset));
    d["field"] = x.field;
    d["message"] = x.message;
    d["block"] = x.block;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_file(py::module_& m) {
  py::class_<FileHandle>(m, "FileHandle")
      .def_static("from_buffer", &read_buffer)
      .def_static("from_path", &read_path)
      .def_static("new_file", &new_file)
      .def("to_bytes", [](const FileHandle& f) { return as_bytes(take(mab::write_container(f.c()))); })
      .def("write",
           [](const FileHandle& f, const std::string& path) {
             take(mab::write_file_atomic(path, take(mab::write_container(f.c()))));
           })
      .def("info", &file_info)
      .def("blocks", &block_infos)
      .def("findings", &findings)
      .def("block_count", [](const FileHandle& f) { return f.c().blocks.size(); });
  m.def("write_bytes_atomic", [](const std::string& path, const py::bytes& data) {
    const std::string s = data;
    take(mab::write_file_atomic(path, {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}));
  });
  m.def("hash", [](std::string_view name) { return mab::bone_hash(name); });
}

}  // namespace mabpy

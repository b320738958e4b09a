// Far Cry 2/3 bank -> glTF 2.0 (docs/gltf.md, "Far Cry 2 and 3"): a node per skeleton bone
// id and one for root motion, one animation per clip. A keyed rotation track keeps its own
// sparse key times (a LINEAR glTF sampler is a slerp between them, the reading of format 13 the
// decoder uses); translations and root motion are sampled at every frame, as stored.
#include "interchange/gltf/gltf_legacy.hpp"

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_rig.hpp"

#include <mab/legacy.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace mab::gltf {

namespace {

enum class Path : std::uint8_t { rotation, translation };

// One glTF channel before its accessors exist: times in seconds and values (4 or 3 floats).
struct PendingChannel {
  int node = -1;
  Path path = Path::rotation;
  std::vector<float> times;
  std::vector<float> values;
};

struct PendingAnimation {
  std::size_t block = 0;
  double frame_rate = 0;
  std::uint16_t last_frame = 0;
  float duration = 0;
  std::vector<PendingChannel> channels;
};

Error not_finite(std::size_t block, const std::string& what, std::size_t frame) {
  return make_error(ErrorCode::bad_value, no_offset, what,
                    "clip " + std::to_string(block) + ": the value at frame " + std::to_string(frame) +
                        " is not finite; glTF cannot hold it (`mab export -o FILE.json` keeps it)");
}

void put_quats(std::vector<float>& out, const std::vector<Quat>& keys) {
  const std::size_t at = out.size();
  out.resize(at + 4 * keys.size());
  write_continuous_quats(keys, out.data() + at);
}

// Every clip of the bank that decodes; the others are listed in the report. An error when none does.
Result<std::vector<LegacyClip>> decode_clips(const Container& c, GltfExportReport& rep) {
  std::vector<LegacyClip> clips;
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    auto d = decode_legacy_clip(c, b);
    if (!d) {
      rep.skipped_blocks.push_back({b, d.error().message()});
      continue;
    }
    clips.push_back(std::move(d).value());
  }
  if (clips.empty())
    return make_error(ErrorCode::not_decodable, c.blocks.empty() ? 0x10 : c.blocks.front().original_base, "clip",
                      "no clip of this file decodes" +
                          (rep.skipped_blocks.empty() ? std::string() : ": " + rep.skipped_blocks.front().reason));
  return clips;
}

// The model with its asset record and the rig root, node 0.
tinygltf::Model new_model(const Container& c, const GltfExportOptions& o) {
  tinygltf::Model m;
  m.asset.version = "2.0";
  m.asset.generator = "mabkit 0.1.0";
  m.asset.extras = object({{"mabkit", object({{"variant", tinygltf::Value(std::string(c.variant->short_name))},
                                              {"game", tinygltf::Value(std::string(c.variant->game_name))}})}});
  tinygltf::Node root;
  root.name = o.rig_name;
  // Format 3: Dunia is Z-up, glTF Y-up; the rig root turns one into the other, as for 'aNi'.
  root.rotation = {zup_to_yup.x, zup_to_yup.y, zup_to_yup.z, zup_to_yup.w};
  m.nodes.push_back(std::move(root));
  return m;
}

struct Nodes {
  std::map<std::uint32_t, int> node_of, constant_node_of;
  int trajectory = -1;
};

// Nodes: every bone id any clip moves, ascending, then the constant nodes of bones a clip
// both holds constant and animates (glTF 3.11 allows one channel per node and path in an
// animation), then the trajectory.
Nodes add_nodes(tinygltf::Model& m, const std::vector<LegacyClip>& clips) {
  Nodes n;
  bool any_trajectory = false;
  for (const auto& l : clips) {
    for (const auto& r : l.constant_rotations) n.node_of[r.bone];
    for (const auto& r : l.rotations) n.node_of[r.bone];
    for (const auto& t : l.constant_translations) n.node_of[t.bone];
    for (const auto& t : l.translations) n.node_of[t.bone];
    for (const auto bone : legacy_doubled_bones(l)) n.constant_node_of[bone];
    any_trajectory = any_trajectory || l.present[0] || l.present[1];
  }
  auto add_node = [&](const std::string& name) {
    tinygltf::Node node;
    node.name = name;
    node.extras = object({{"mabkit", object({{"hash", tinygltf::Value(hash_text(bone_hash(name)))}})}});
    m.nodes.push_back(std::move(node));
    const int idx = static_cast<int>(m.nodes.size() - 1);
    m.nodes[0].children.push_back(idx);
    return idx;
  };
  for (auto& [bone, node] : n.node_of) node = add_node(legacy_node_name(bone));
  for (auto& [bone, node] : n.constant_node_of) node = add_node(legacy_constant_node_name(bone));
  n.trajectory = any_trajectory ? add_node(std::string(trajectory_node_name)) : -1;
  return n;
}

bool has_tracks(const LegacyClip& l) {
  return !l.constant_rotations.empty() || !l.rotations.empty() || !l.constant_translations.empty() ||
         !l.translations.empty() || l.present[0] || l.present[1];
}

// A clip's channels: rotations at their own key frames, translations and root motion at
// every frame, constants as one key at time 0.
Result<PendingAnimation> pending_animation(const LegacyClip& l, const Nodes& nodes) {
  // The constant value of a bone the clip also animates goes to its constant node.
  auto animates_rotation = [&](std::uint32_t bone) {
    return std::any_of(l.rotations.begin(), l.rotations.end(), [&](const auto& k) { return k.bone == bone; });
  };
  auto animates_translation = [&](std::uint32_t bone) {
    return std::any_of(l.translations.begin(), l.translations.end(), [&](const auto& k) { return k.bone == bone; });
  };
  PendingAnimation a;
  a.block = l.block;
  a.frame_rate = l.frame_rate;
  a.last_frame = l.last_frame;
  a.duration = l.duration;
  // A clip of untimed constant sections alone (JB-DOC: lastFrame 0, rate 0) has no rate and
  // needs none: its channels hold one key at time 0.
  const bool timed = !l.rotations.empty() || !l.translations.empty() || l.present[0] || l.present[1];
  if (timed && (!(l.frame_rate > 0) || !std::isfinite(l.frame_rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "clip " + std::to_string(l.block) + ": frame rate " + std::to_string(l.frame_rate) +
                          " cannot place keys in time");
  const auto seconds = [&](std::uint32_t frame) {
    return frame == 0 ? 0.0f : static_cast<float>(frame / static_cast<double>(l.frame_rate));
  };
  std::vector<float> all_frames(std::size_t{l.last_frame} + 1);
  for (std::size_t f = 0; f < all_frames.size(); ++f) all_frames[f] = seconds(static_cast<std::uint32_t>(f));
  const auto& node_of = nodes.node_of;
  const auto& constant_node_of = nodes.constant_node_of;
  for (const auto& r : l.constant_rotations) {
    PendingChannel ch{animates_rotation(r.bone) ? constant_node_of.at(r.bone) : node_of.at(r.bone), Path::rotation,
                      {0.0f}, {}};
    put_quats(ch.values, {r.rotation});
    a.channels.push_back(std::move(ch));
  }
  for (const auto& r : l.rotations) {
    PendingChannel ch{node_of.at(r.bone), Path::rotation, {}, {}};
    for (const auto f : r.frames) ch.times.push_back(seconds(f));
    put_quats(ch.values, r.keys);
    a.channels.push_back(std::move(ch));
  }
  auto vec3s = [&](const std::vector<Vec3>& v, const std::string& what, std::vector<float>& out) -> Status {
    for (std::size_t f = 0; f < v.size(); ++f) {
      if (!std::isfinite(v[f][0]) || !std::isfinite(v[f][1]) || !std::isfinite(v[f][2]))
        return not_finite(l.block, what, f);
      out.insert(out.end(), v[f].begin(), v[f].end());
    }
    return {};
  };
  for (const auto& t : l.constant_translations) {
    PendingChannel ch{animates_translation(t.bone) ? constant_node_of.at(t.bone) : node_of.at(t.bone),
                      Path::translation, {0.0f}, {}};
    MAB_TRY(vec3s({t.translation}, "constant translation of bone " + std::to_string(t.bone), ch.values));
    a.channels.push_back(std::move(ch));
  }
  for (const auto& t : l.translations) {
    PendingChannel ch{node_of.at(t.bone), Path::translation, all_frames, {}};
    MAB_TRY(vec3s(t.frames, "translation of bone " + std::to_string(t.bone), ch.values));
    a.channels.push_back(std::move(ch));
  }
  if (l.present[0]) {
    PendingChannel ch{nodes.trajectory, Path::translation, all_frames, {}};
    MAB_TRY(vec3s(l.trajectory_translation, "trajectory translation", ch.values));
    a.channels.push_back(std::move(ch));
  }
  if (l.present[1]) {
    PendingChannel ch{nodes.trajectory, Path::rotation, all_frames, {}};
    put_quats(ch.values, l.trajectory_rotation);
    a.channels.push_back(std::move(ch));
  }
  return a;
}

// One buffer, two views: every time array, then every output; one glTF animation per clip.
void write_animations(tinygltf::Model& m, const std::vector<PendingAnimation>& anims, GltfExportReport& rep) {
  tinygltf::Buffer buffer;
  auto& data = buffer.data;
  // Identical time arrays (every frame of a clip, the single key at 0) share an accessor.
  std::map<std::vector<float>, int> time_accessor;
  std::vector<std::vector<int>> inputs(anims.size());
  for (std::size_t i = 0; i < anims.size(); ++i)
    for (const auto& ch : anims[i].channels) {
      auto [it, fresh] = time_accessor.emplace(ch.times, -1);
      if (fresh) {
        it->second = add_float_accessor(m, data.size(), ch.times.size(), TINYGLTF_TYPE_SCALAR, 0);
        m.accessors.back().minValues = {ch.times.front()};
        m.accessors.back().maxValues = {ch.times.back()};
        append_floats(data, ch.times.data(), ch.times.size());
      }
      inputs[i].push_back(it->second);
    }
  const std::size_t times_bytes = data.size();
  for (std::size_t i = 0; i < anims.size(); ++i) {
    const auto& a = anims[i];
    tinygltf::Animation anim;
    anim.name = "block_" + std::to_string(a.block);
    anim.extras = object({{"mabkit", object({{"block", tinygltf::Value(static_cast<int>(a.block))},
                                             {"frame_rate", tinygltf::Value(a.frame_rate)},
                                             {"last_frame", tinygltf::Value(static_cast<int>(a.last_frame))},
                                             {"duration", tinygltf::Value(static_cast<double>(a.duration))}})}});
    for (std::size_t k = 0; k < a.channels.size(); ++k) {
      const auto& ch = a.channels[k];
      const bool rot = ch.path == Path::rotation;
      const int out =
          add_float_accessor(m, data.size() - times_bytes, ch.times.size(), rot ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, 1);
      append_floats(data, ch.values.data(), ch.values.size());
      add_linear_channel(anim, inputs[i][k], out, ch.node, rot ? "rotation" : "translation");
      ++rep.channels;
      rep.translation_channels += !rot;
      rep.keys += ch.times.size();
    }
    m.animations.push_back(std::move(anim));
  }
  rep.animations = m.animations.size();
  if (!data.empty()) {
    tinygltf::BufferView times_view;
    times_view.buffer = 0;
    times_view.byteLength = times_bytes;
    tinygltf::BufferView out_view;
    out_view.buffer = 0;
    out_view.byteOffset = times_bytes;
    out_view.byteLength = data.size() - times_bytes;
    m.bufferViews.push_back(times_view);
    m.bufferViews.push_back(out_view);
    buffer.name = "mabkit";
    m.buffers.push_back(std::move(buffer));
  }
}

// Every node but the root is a joint; the scene records the rate and the flat rig.
void add_skin_and_scene(tinygltf::Model& m, const GltfExportOptions& o, const std::vector<PendingAnimation>& anims,
                        GltfExportReport& rep) {
  if (m.nodes.size() > 1) {
    tinygltf::Skin skin;
    skin.name = o.rig_name;
    for (std::size_t i = 1; i < m.nodes.size(); ++i) skin.joints.push_back(static_cast<int>(i));
    skin.skeleton = 0;
    m.skins.push_back(std::move(skin));
  }
  tinygltf::Scene scene;
  scene.name = o.rig_name;
  scene.nodes = {0};
  rep.scene_fps = anims.empty() ? 0.0 : anims.front().frame_rate;
  scene.extras = object({{"mabkit", object({{"fps", tinygltf::Value(rep.scene_fps)},
                                            {"animations", tinygltf::Value(static_cast<int>(m.animations.size()))},
                                            {"rig", rig_record(nullptr)}})}});
  m.scenes.push_back(std::move(scene));
  m.defaultScene = 0;
}

}  // namespace

Result<std::vector<std::uint8_t>> export_legacy_gltf(const Container& c, const GltfExportOptions& o,
                                                     GltfExportReport* report) {
  if (o.skeleton != nullptr || !o.names.empty())
    return make_error(ErrorCode::invalid_argument, no_offset, o.skeleton ? "skeleton" : "names",
                      "Far Cry 2/3 clips name bones by skeleton id, not by the CRC-32 of a name: their nodes are "
                      "bone_<id>, and --names and --skeleton do not apply");
  if (c.is_opaque())  // Blood Dragon when the guessed FC3 layout does not fit (decision 10)
    return make_error(ErrorCode::not_decodable, 0x10, "body", "kept opaque: " + c.opaque_reason);
  GltfExportReport rep;
  MAB_ASSIGN(const std::vector<LegacyClip> clips, decode_clips(c, rep));
  tinygltf::Model m = new_model(c, o);
  const Nodes nodes = add_nodes(m, clips);
  std::vector<PendingAnimation> anims;
  for (const auto& l : clips) {
    if (!has_tracks(l)) {
      rep.skipped_blocks.push_back({l.block, "the clip has no tracks"});
      continue;
    }
    MAB_ASSIGN(PendingAnimation a, pending_animation(l, nodes));
    anims.push_back(std::move(a));
  }
  write_animations(m, anims, rep);
  add_skin_and_scene(m, o, anims, rep);
  rep.nodes = m.nodes.size();
  MAB_ASSIGN(auto bytes, serialize(std::move(m), o.binary));
  if (report) *report = std::move(rep);
  return bytes;
}

}  // namespace mab::gltf

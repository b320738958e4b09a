// .mab -> glTF 2.0 (docs/gltf.md): one node per bone, one animation per decodable block.
#include <mab/gltf.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_legacy.hpp"
#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_rig.hpp"
#include "interchange/gltf/gltf_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

namespace mab {

namespace {

using gltf::append_floats;
using gltf::hash_text;
using gltf::object;
using gltf::add_linear_channel;
using gltf::write_continuous_quats;

// Format 3 and common knowledge of Dunia: the engine is Z-up; glTF is Y-up (glTF 3.4). The
// bones' local rotations are written unchanged and the rig's root turns +Z to +Y, so
// any glTF viewer shows the clip upright and Blender, which turns +Y back to +Z, gives the
// bones the game's own local frames.
constexpr double zup_to_yup[4] = {-0.70710678118654752, 0, 0, 0.70710678118654752};

struct Channel {
  int node;
  const ClipBone* bone;  // in the block's decoded clip
  bool constant() const noexcept { return bone->kind() == BoneKind::constant; }
  std::size_t keys() const noexcept { return constant() ? 1 : bone->keys.size(); }
};

// docs/motion.md: a translation (bone or root motion) or root-rotation channel, its values ready.
struct MotionChannel {
  int node;
  bool translation;           // else rotation (root motion)
  bool constant;              // one key at the clip's first key time
  std::vector<float> values;  // 3 or 4 floats per key
  std::size_t keys() const noexcept { return values.size() / (translation ? 3 : 4); }
};

struct BlockAnim {
  std::size_t block;
  std::vector<float> times;  // seconds
  double key_rate;
  double fps;  // every key a whole frame at this rate (the scene rate for Blender)
  float duration;
  std::vector<Channel> channels;
  std::vector<MotionChannel> motion;
  std::vector<ClipPart> parts;
};

std::vector<float> vec3_values(const std::vector<Vec3>& v) {
  std::vector<float> out;
  out.reserve(3 * v.size());
  for (const auto& x : v) out.insert(out.end(), x.begin(), x.end());
  return out;
}

// Root-motion rotations as the bone rotations are written.
std::vector<float> quat_values(const std::vector<Quat>& v) {
  std::vector<float> out(4 * v.size());
  write_continuous_quats(v, out.data());
  return out;
}

// Every top-level block that decodes (chained legacy clips are part of their parent); the
// others are listed in the report. An error when none does.
Result<std::vector<DecodedClip>> decode_blocks(const Container& c, GltfExportReport& rep) {
  std::vector<DecodedClip> clips;
  std::string first_reason;
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    if (c.blocks[b].parent >= 0) continue;  // chained legacy clips: part of their parent
    auto d = decode_clip(c, b);
    if (!d) {
      rep.skipped_blocks.push_back({b, d.error().message()});
      if (first_reason.empty()) first_reason = d.error().message();
      continue;
    }
    clips.push_back(std::move(d).value());
  }
  if (clips.empty())
    return make_error(ErrorCode::not_decodable, c.is_opaque() ? 0x10 : c.blocks.front().original_base, "clip",
                      "no block of this file decodes to rotations" +
                          (first_reason.empty() ? (c.is_opaque() ? ": kept opaque: " + c.opaque_reason : std::string())
                                                : ": " + first_reason));
  return clips;
}

// The glTF model as it is built: the rig's nodes, a node per bone, the blocks' animations.
class GltfBuilder {
 public:
  GltfBuilder(const Container& c, const GltfExportOptions& o) : o_(o) {
    // Names: the skeleton's node names, then the names file (decision 11: CRC-32 of the name).
    for (const auto& n : o.names) names_.emplace(bone_hash(n), n);
    m_.asset.version = "2.0";
    m_.asset.generator = "mabkit 0.1.0";
    m_.asset.extras = object({{"mabkit", object({{"variant", tinygltf::Value(std::string(c.variant->short_name))},
                                                 {"game", tinygltf::Value(std::string(c.variant->game_name))}})}});
  }

  Result<std::vector<std::uint8_t>> build(const std::vector<DecodedClip>& clips, GltfExportReport& rep) && {
    rep_ = &rep;
    add_rig_nodes();
    for (const auto& d : clips) {
      MAB_ASSIGN(BlockAnim a, block_anim(d));
      anims_.push_back(std::move(a));
    }
    list_nodes_without_bone();
    trs_for_animated_nodes();
    write_animations();
    MAB_TRY(add_skin());
    add_scene();
    rep.nodes = m_.nodes.size();
    return gltf::serialize(std::move(m_), o_.binary);
  }

 private:
  // With a skeleton: its nodes as they are, bones matched by the CRC-32 of the names, and the
  // node bones without one hang from. Without: one root turning the game's Z-up to Y-up.
  void add_rig_nodes() {
    if (o_.skeleton) {
      const auto& sk = *o_.skeleton;
      for (std::size_t i = 0; i < sk.nodes.size(); ++i) {
        const auto& sn = sk.nodes[i];
        tinygltf::Node n;
        n.name = sn.name;
        n.children = sn.children;
        if (sn.has_matrix) {
          n.matrix.assign(sn.matrix.begin(), sn.matrix.end());
        } else {
          n.translation.assign(sn.translation.begin(), sn.translation.end());
          n.rotation = {sn.rotation.x, sn.rotation.y, sn.rotation.z, sn.rotation.w};
          n.scale.assign(sn.scale.begin(), sn.scale.end());
        }
        m_.nodes.push_back(std::move(n));
        if (!sn.name.empty()) nodes_of_hash_[sn.hash].push_back(static_cast<int>(i));
      }
      attach_ = sk.skin_root >= 0 ? sk.skin_root : (sk.roots.empty() ? -1 : sk.roots.front());
      if (attach_ < 0) {
        tinygltf::Node root;
        root.name = o_.rig_name;
        m_.nodes.push_back(std::move(root));
        attach_ = static_cast<int>(m_.nodes.size() - 1);
      }
    } else {
      tinygltf::Node root;
      root.name = o_.rig_name;
      root.rotation.assign(std::begin(zup_to_yup), std::end(zup_to_yup));
      m_.nodes.push_back(std::move(root));
      attach_ = 0;
    }
    animated_node_.assign(m_.nodes.size(), false);
  }

  // A node under the attach node, named and tagged with its hash.
  int add_node(tinygltf::Node n) {
    m_.nodes.push_back(std::move(n));
    animated_node_.push_back(false);
    const int idx = static_cast<int>(m_.nodes.size() - 1);
    m_.nodes[static_cast<std::size_t>(attach_)].children.push_back(idx);
    return idx;
  }

  // Bone nodes: one per (hash, occurrence) over all blocks, so a bone shared by two blocks
  // (FC5 "Root") is one node, and a hash repeated inside one block still gets its own.
  int node_for(std::uint32_t hash, unsigned occurrence) {
    const auto key = std::make_pair(hash, occurrence);
    if (auto it = bone_node_.find(key); it != bone_node_.end()) return it->second;
    int idx = -1;
    if (auto it = nodes_of_hash_.find(hash); it != nodes_of_hash_.end() && occurrence < it->second.size()) {
      idx = it->second[occurrence];
      ++rep_->named;
    } else {
      tinygltf::Node n;
      auto nm = names_.find(hash);
      if (nm != names_.end()) {
        n.name = nm->second;
        ++rep_->named;
      } else {
        n.name = gltf::generated_bone_name(hash);
      }
      if (occurrence > 0) n.name += gltf::duplicate_suffix(occurrence);
      n.extras = object({{"mabkit", object({{"hash", tinygltf::Value(hash_text(hash))}})}});
      idx = add_node(std::move(n));
      if (o_.skeleton) rep_->bones_without_node.push_back(hash);
    }
    bone_node_.emplace(key, idx);
    joints_.push_back(idx);
    return idx;
  }

  // Key times in seconds, which glTF needs increasing (glTF 3.11).
  static Result<std::vector<float>> key_seconds(const DecodedClip& d) {
    const Clip& clip = d.clip;
    std::vector<float> times(clip.key_count());
    for (std::size_t k = 0; k < clip.key_count(); ++k) {
      times[k] = static_cast<float>(clip.key_times[k] / clip.key_rate);
      if (k > 0 && !(times[k] > times[k - 1]))
        return make_error(ErrorCode::bad_value, no_offset, "KeyTimes",
                          "block " + std::to_string(d.block) + ": key " + std::to_string(k) + " (time " +
                              std::to_string(clip.key_times[k]) + ") does not come after key " +
                              std::to_string(k - 1) + " (time " + std::to_string(clip.key_times[k - 1]) +
                              "); glTF needs increasing times (glTF 3.11), `mab export -o FILE.json` keeps them");
    }
    return times;
  }

  // A block's channels: a rotation per bone with one, its translations, its root motion.
  Result<BlockAnim> block_anim(const DecodedClip& d) {
    const Clip& clip = d.clip;
    BlockAnim a;
    a.block = d.block;
    a.key_rate = clip.key_rate;
    a.fps = gltf::whole_frame_rate(clip.key_times, clip.key_rate);
    a.duration = clip.duration;
    MAB_ASSIGN(a.times, key_seconds(d));
    std::unordered_map<std::uint32_t, unsigned> seen;
    for (const auto& bone : clip.bones) {
      const unsigned occ = seen[bone.hash]++;
      const int node = node_for(bone.hash, occ);
      // Translations decoded under the block's evidence (docs/motion.md, docs/motion.md): the node's
      // local translation, which replaces the rig's rest translation while the clip plays.
      if (!bone.translations.empty()) {
        a.motion.push_back({node, true, false, vec3_values(bone.translations)});
        animated_node_[static_cast<std::size_t>(node)] = true;
      } else if (bone.constant_translation) {
        a.motion.push_back({node, true, true, vec3_values({*bone.constant_translation})});
        animated_node_[static_cast<std::size_t>(node)] = true;
      }
      if (bone.kind() == BoneKind::none) continue;
      animated_node_[static_cast<std::size_t>(node)] = true;
      a.channels.push_back({node, &bone});
    }
    // Root motion on a "trajectory" node beside the bones, as for Far Cry 2/3 (docs/gltf.md).
    if (!clip.root_motion.empty()) {
      if (trajectory_ < 0) {
        tinygltf::Node n;
        n.name = std::string(gltf::trajectory_node_name);
        trajectory_ = add_node(std::move(n));
      }
      animated_node_[static_cast<std::size_t>(trajectory_)] = true;
      if (!clip.root_motion.rotations.empty())
        a.motion.push_back({trajectory_, false, false, quat_values(clip.root_motion.rotations)});
      if (!clip.root_motion.translations.empty())
        a.motion.push_back({trajectory_, true, false, vec3_values(clip.root_motion.translations)});
    }
    a.parts = clip.parts;
    return a;
  }

  void list_nodes_without_bone() {
    if (!o_.skeleton) return;
    for (std::size_t i = 0; i < o_.skeleton->nodes.size(); ++i)
      if (o_.skeleton->nodes[i].joint && !animated_node_[i] &&
          std::find(joints_.begin(), joints_.end(), static_cast<int>(i)) == joints_.end())
        rep_->nodes_without_bone.push_back(o_.skeleton->nodes[i].name);
  }

  // Animated nodes need TRS, not a matrix (glTF 3.7.3.1).
  void trs_for_animated_nodes() {
    for (std::size_t i = 0; i < m_.nodes.size(); ++i) {
      auto& n = m_.nodes[i];
      if (!animated_node_[i] || n.matrix.empty()) continue;
      const auto& sn = o_.skeleton->nodes[i];
      n.matrix.clear();
      n.translation.assign(sn.translation.begin(), sn.translation.end());
      n.rotation = {sn.rotation.x, sn.rotation.y, sn.rotation.z, sn.rotation.w};
      n.scale.assign(sn.scale.begin(), sn.scale.end());
    }
  }

  struct TimeAccessors {
    int all = -1, first = -1;
  };

  // Each animation's time accessors (its key times, and its first time for constants) at the
  // start of the buffer.
  std::vector<TimeAccessors> write_times(std::vector<unsigned char>& data) {
    std::size_t total_keys = 0, total_times = 0;
    for (const auto& a : anims_) {
      total_times += a.times.size() + 1;
      for (const auto& ch : a.channels) total_keys += ch.keys();
      for (const auto& ch : a.motion) total_keys += ch.keys();
    }
    data.reserve(4 * total_times + 16 * total_keys);
    std::vector<TimeAccessors> time_acc(anims_.size());
    for (std::size_t i = 0; i < anims_.size(); ++i) {
      const auto& a = anims_[i];
      if (a.channels.empty() && a.motion.empty()) continue;
      bool any_animated = false, any_constant = false;
      for (const auto& ch : a.channels) (ch.constant() ? any_constant : any_animated) = true;
      for (const auto& ch : a.motion) (ch.constant ? any_constant : any_animated) = true;
      if (any_animated) {
        time_acc[i].all = gltf::add_float_accessor(m_, data.size(), a.times.size(), TINYGLTF_TYPE_SCALAR, 0);
        m_.accessors.back().minValues = {a.times.front()};
        m_.accessors.back().maxValues = {a.times.back()};
        append_floats(data, a.times.data(), a.times.size());
      }
      if (any_constant) {
        // "constant bones as one key", at the clip's first key time.
        const float t0 = a.times.empty() ? 0.0f : a.times.front();
        time_acc[i].first = gltf::add_float_accessor(m_, data.size(), 1, TINYGLTF_TYPE_SCALAR, 0);
        m_.accessors.back().minValues = {t0};
        m_.accessors.back().maxValues = {t0};
        append_floats(data, &t0, 1);
      }
    }
    return time_acc;
  }

  // The animation's extras: block, rates, duration and its part entries (format 12, docs/motion.md).
  static tinygltf::Value animation_extras(const BlockAnim& a) {
    tinygltf::Value::Object extras{{"block", tinygltf::Value(static_cast<int>(a.block))},
                                   {"key_rate", tinygltf::Value(a.key_rate)},
                                   {"fps", tinygltf::Value(a.fps)},
                                   {"duration", tinygltf::Value(static_cast<double>(a.duration))}};
    if (!a.parts.empty()) {
      // A nested block is its own animation, "block_N".
      tinygltf::Value::Array parts;
      for (const auto& p : a.parts) {
        tinygltf::Value::Object e{{"start", tinygltf::Value(static_cast<double>(p.start))},
                                  {"end", tinygltf::Value(static_cast<double>(p.end))},
                                  {"parent", tinygltf::Value(hash_text(p.parent_hash))},
                                  {"attachment", tinygltf::Value(hash_text(p.attachment_hash))},
                                  {"type", tinygltf::Value(static_cast<int>(p.type))}};
        if (p.nested_block >= 0) e.emplace("nested_animation", tinygltf::Value("block_" + std::to_string(p.nested_block)));
        parts.emplace_back(std::move(e));
      }
      extras.emplace("parts", tinygltf::Value(std::move(parts)));
    }
    return object({{"mabkit", tinygltf::Value(std::move(extras))}});
  }

  // One animation's channels, their outputs appended after the times (view 1).
  tinygltf::Animation animation(const BlockAnim& a, const TimeAccessors& times, std::vector<unsigned char>& data,
                                std::size_t times_bytes) {
    tinygltf::Animation anim;
    anim.name = "block_" + std::to_string(a.block);
    anim.extras = animation_extras(a);
    for (const auto& ch : a.channels) {
      const int out = gltf::add_float_accessor(m_, data.size() - times_bytes, ch.keys(), TINYGLTF_TYPE_VEC4, 1);
      static_assert(sizeof(Quat) == 4 * sizeof(float));
      const std::size_t at = data.size();
      data.resize(at + ch.keys() * sizeof(Quat));
      write_continuous_quats(ch.constant() ? std::span<const Quat>(&ch.bone->constant, 1)
                                           : std::span<const Quat>(ch.bone->keys),
                             data.data() + at);
      add_linear_channel(anim, ch.constant() ? times.first : times.all, out, ch.node, "rotation").extras =
          object({{"mabkit", object({{"flags", tinygltf::Value(static_cast<int>(ch.bone->flags))}})}});
      ++rep_->channels;
      rep_->keys += ch.keys();
    }
    for (const auto& ch : a.motion) {
      const int out = gltf::add_float_accessor(m_, data.size() - times_bytes, ch.keys(),
                                               ch.translation ? TINYGLTF_TYPE_VEC3 : TINYGLTF_TYPE_VEC4, 1);
      append_floats(data, ch.values.data(), ch.values.size());
      add_linear_channel(anim, ch.constant ? times.first : times.all, out, ch.node,
                         ch.translation ? "translation" : "rotation");
      ++rep_->channels;
      rep_->translation_channels += ch.translation;
      rep_->keys += ch.keys();
    }
    return anim;
  }

  // One buffer: every time array, then every rotation output, in two buffer views.
  void write_animations() {
    tinygltf::Buffer buffer;
    std::vector<unsigned char>& data = buffer.data;
    const std::vector<TimeAccessors> time_acc = write_times(data);
    const std::size_t times_bytes = data.size();
    tinygltf::BufferView times_view;
    times_view.buffer = 0;
    times_view.byteOffset = 0;
    times_view.byteLength = times_bytes;
    tinygltf::BufferView rot_view;
    rot_view.buffer = 0;
    rot_view.byteOffset = times_bytes;
    for (std::size_t i = 0; i < anims_.size(); ++i) {
      if (anims_[i].channels.empty() && anims_[i].motion.empty()) continue;
      m_.animations.push_back(animation(anims_[i], time_acc[i], data, times_bytes));
    }
    rot_view.byteLength = data.size() - times_bytes;
    rep_->animations = m_.animations.size();
    if (!data.empty()) {
      // Every channel has a time accessor and an output: both views are non-empty.
      m_.bufferViews.push_back(times_view);
      m_.bufferViews.push_back(rot_view);
      buffer.name = "mabkit";
      m_.buffers.push_back(std::move(buffer));
    }
  }

  Status add_skin() {
    if (joints_.empty()) return {};
    tinygltf::Skin skin;
    skin.name = o_.rig_name;
    if (o_.skeleton) {
      // Keep the skeleton's own joints first (their order may matter to its meshes).
      for (std::size_t i = 0; i < o_.skeleton->nodes.size(); ++i)
        if (o_.skeleton->nodes[i].joint) skin.joints.push_back(static_cast<int>(i));
      for (const int j : joints_)
        if (std::find(skin.joints.begin(), skin.joints.end(), j) == skin.joints.end()) skin.joints.push_back(j);
    } else {
      skin.joints = joints_;
    }
    skin.skeleton = gltf::common_root(m_, skin.joints);
    if (skin.skeleton < 0)
      return make_error(ErrorCode::invalid_argument, no_offset, "skeleton",
                        "the skeleton's joints and the clip's bones have no common root node");
    m_.skins.push_back(std::move(skin));
    return {};
  }

  void add_scene() {
    tinygltf::Scene scene;
    scene.name = o_.rig_name;
    if (o_.skeleton && !o_.skeleton->roots.empty())
      scene.nodes = o_.skeleton->roots;
    else
      scene.nodes = {attach_};
    if (o_.skeleton && std::find(scene.nodes.begin(), scene.nodes.end(), attach_) == scene.nodes.end() &&
        m_.nodes.size() > o_.skeleton->nodes.size() && attach_ == static_cast<int>(o_.skeleton->nodes.size()))
      scene.nodes.push_back(attach_);
    // Blender shows scene extras as custom properties (and writes them back when asked): the
    // frame rate to set before importing, and the rig import reads rotations against.
    rep_->scene_fps = m_.animations.empty() ? 0.0 : anims_.front().fps;
    scene.extras = object({{"mabkit", object({{"fps", tinygltf::Value(rep_->scene_fps)},
                                              {"animations", tinygltf::Value(static_cast<int>(m_.animations.size()))},
                                              {"rig", gltf::rig_record(o_.skeleton)}})}});
    m_.scenes.push_back(std::move(scene));
    m_.defaultScene = 0;
  }

  const GltfExportOptions& o_;
  GltfExportReport* rep_ = nullptr;
  tinygltf::Model m_;
  std::unordered_map<std::uint32_t, std::string> names_;
  std::unordered_map<std::uint32_t, std::vector<int>> nodes_of_hash_;  // skeleton nodes per hash
  int attach_ = -1;                                                    // parent of bones without a node
  std::vector<bool> animated_node_;
  std::map<std::pair<std::uint32_t, unsigned>, int> bone_node_;
  std::vector<int> joints_;
  int trajectory_ = -1;  // root motion node, made when a block has root motion
  std::vector<BlockAnim> anims_;
};

}  // namespace

Result<std::vector<std::uint8_t>> export_gltf(const Container& c, const GltfExportOptions& o,
                                              GltfExportReport* report) {
  if (c.variant != nullptr && c.variant->layout == LayoutKind::legacy) return gltf::export_legacy_gltf(c, o, report);
  GltfExportReport rep;
  MAB_ASSIGN(const std::vector<DecodedClip> clips, decode_blocks(c, rep));
  MAB_ASSIGN(auto bytes, GltfBuilder(c, o).build(clips, rep));
  if (report) *report = std::move(rep);
  return bytes;
}

}  // namespace mab

// .mab -> glTF 2.0 (docs/gltf.md): one node per bone, one animation per decodable block.
#include <mab/gltf.hpp>

#include <mab/legacy_bridge.hpp>
#include <mab/text.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_rig.hpp"
#include "interchange/gltf/gltf_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

namespace mab {

namespace {

using gltf::add_linear_channel;
using gltf::append_floats;
using gltf::object;
using gltf::write_continuous_quats;

// Format 3 and common knowledge of Dunia: the engine is Z-up; glTF is Y-up (glTF 3.4). The
// bones' local rotations are written unchanged and the rig's root turns +Z to +Y, so
// any glTF viewer shows the clip upright and Blender, which turns +Y back to +Z, gives the
// bones the game's own local frames.
constexpr double zup_to_yup[4] = {-0.70710678118654752, 0, 0, 0.70710678118654752};

struct Channel {
  int node;
  const ClipBone* bone;  // in the block's decoded clip
  // Far Cry 2/3: the keyed track's stored frames (its keys at those frames), empty: every key.
  std::vector<std::uint32_t> frames;
  bool constant() const noexcept { return bone->kind() == BoneKind::constant; }
  std::size_t keys() const noexcept { return constant() ? 1 : frames.empty() ? bone->keys.size() : frames.size(); }
};

// docs/motion.md: a translation (bone or root motion) or root-rotation channel, its values ready.
struct MotionChannel {
  int node;
  bool translation;           // else rotation (root motion)
  bool constant;              // one key at the clip's first key time
  std::vector<float> values;  // 3 or 4 floats per key
  std::size_t keys() const noexcept { return values.size() / (translation ? 3 : 4); }
};

// A Far Cry 2/3 clip (format 13) beyond its Clip (clip_from_legacy): the stored frame rate and
// lastFrame the animation's extras record, and each keyed track's stored frames.
struct LegacyInfo {
  float frame_rate = 0;
  std::uint16_t last_frame = 0;
  std::map<std::uint32_t, std::vector<std::uint32_t>> stored_frames;  // bone id -> frames
};

// One block to write: its clip, and for a Far Cry 2/3 clip what export keeps beyond it.
struct ExportBlock {
  std::size_t block = 0;
  Clip clip;
  std::optional<LegacyInfo> legacy;
};

struct BlockAnim {
  std::size_t block;
  std::optional<LegacyInfo> legacy;
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
Result<std::vector<ExportBlock>> decode_blocks(const Container& c, GltfExportReport& rep) {
  std::vector<ExportBlock> clips;
  std::string first_reason;
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    if (c.blocks[b].parent >= 0) continue;  // chained legacy clips: part of their parent
    auto d = decode_clip(c, b);
    if (!d) {
      rep.skipped_blocks.push_back({b, d.error().message()});
      if (first_reason.empty()) first_reason = d.error().message();
      continue;
    }
    clips.push_back({b, std::move(d->clip), std::nullopt});
  }
  if (clips.empty())
    return make_error(ErrorCode::not_decodable, c.is_opaque() ? 0x10 : c.blocks.front().original_base, "clip",
                      "no block of this file decodes to rotations" +
                          (first_reason.empty() ? (c.is_opaque() ? ": kept opaque: " + c.opaque_reason : std::string())
                                                : ": " + first_reason));
  return clips;
}

// A Far Cry 2/3 clip with something to write: a value glTF cannot hold, or a timed clip without a
// rate, is an error (JSON keeps both).
Status check_legacy_clip(const LegacyClip& l) {
  const bool timed = !l.rotations.empty() || !l.translations.empty() || l.present[0] || l.present[1];
  if (timed && (!(l.frame_rate > 0) || !std::isfinite(l.frame_rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "clip " + std::to_string(l.block) + ": frame rate " + std::to_string(l.frame_rate) +
                          " cannot place keys in time");
  auto finite = [&](const std::vector<Vec3>& v, const std::string& what) -> Status {
    for (std::size_t f = 0; f < v.size(); ++f)
      if (!std::isfinite(v[f][0]) || !std::isfinite(v[f][1]) || !std::isfinite(v[f][2]))
        return make_error(ErrorCode::bad_value, no_offset, what,
                          "clip " + std::to_string(l.block) + ": the value at frame " + std::to_string(f) +
                              " is not finite; glTF cannot hold it (`mab export -o FILE.json` keeps it)");
    return {};
  };
  for (const auto& t : l.constant_translations)
    MAB_TRY(finite({t.translation}, "constant translation of bone " + std::to_string(t.bone)));
  for (const auto& t : l.translations) MAB_TRY(finite(t.frames, "translation of bone " + std::to_string(t.bone)));
  return finite(l.trajectory_translation, "trajectory translation");
}

// Far Cry 2/3 banks (format 13): every clip, chained ones too, as the one editable Clip
// (clip_from_legacy), with its stored frames; clips that do not decode or hold no track are
// listed in the report. An error when none decodes.
Result<std::vector<ExportBlock>> legacy_blocks(const Container& c, GltfExportReport& rep) {
  if (c.is_opaque())  // Blood Dragon when the guessed FC3 layout does not fit (decision 10)
    return make_error(ErrorCode::not_decodable, 0x10, "body", "kept opaque: " + c.opaque_reason);
  std::vector<ExportBlock> out;
  std::size_t decoded = 0;
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    auto l = decode_legacy_clip(c, b);
    if (!l) {
      rep.skipped_blocks.push_back({b, l.error().message()});
      continue;
    }
    ++decoded;
    if (l->constant_rotations.empty() && l->rotations.empty() && l->constant_translations.empty() &&
        l->translations.empty() && !l->present[0] && !l->present[1]) {
      rep.skipped_blocks.push_back({b, "the clip has no tracks"});
      continue;
    }
    MAB_TRY(check_legacy_clip(*l));
    LegacyInfo info{l->frame_rate, l->last_frame, {}};
    for (const auto& t : l->rotations) info.stored_frames[t.bone].assign(t.frames.begin(), t.frames.end());
    out.push_back({b, clip_from_legacy(*l), std::move(info)});
  }
  if (decoded == 0)
    return make_error(ErrorCode::not_decodable, c.blocks.empty() ? 0x10 : c.blocks.front().original_base, "clip",
                      "no clip of this file decodes" +
                          (rep.skipped_blocks.empty() ? std::string() : ": " + rep.skipped_blocks.front().reason));
  return out;
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

  Result<std::vector<std::uint8_t>> build(const std::vector<ExportBlock>& clips, GltfExportReport& rep) && {
    rep_ = &rep;
    add_rig_nodes();
    if (!clips.empty() && clips.front().legacy) add_legacy_nodes(clips);
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
      if (legacy_) {
        // Far Cry 2/3 name bones by skeleton id (the ClipBone's hash): bone_<id>, found again on
        // import by the CRC-32 of that name; a second value of one bone (constant and animated
        // at once) is bone_<id>_constant (gltf_names.hpp).
        n.name = occurrence > 0 ? gltf::legacy_constant_node_name(hash) : gltf::legacy_node_name(hash);
      } else if (nm != names_.end()) {
        n.name = nm->second;
        ++rep_->named;
      } else {
        n.name = gltf::generated_bone_name(hash);
      }
      if (occurrence > 0 && !legacy_) n.name += gltf::duplicate_suffix(occurrence);
      n.extras = object({{"mabkit", object({{"hash", tinygltf::Value(hex(legacy_ ? bone_hash(n.name) : hash, 8))}})}});
      idx = add_node(std::move(n));
      if (o_.skeleton) rep_->bones_without_node.push_back(hash);
    }
    bone_node_.emplace(key, idx);
    joints_.push_back(idx);
    return idx;
  }

  // Key times in seconds, which glTF needs increasing (glTF 3.11).
  static Result<std::vector<float>> key_seconds(const ExportBlock& d) {
    const Clip& clip = d.clip;
    std::vector<float> times(clip.key_count());
    for (std::size_t k = 0; k < clip.key_count(); ++k) {
      times[k] = static_cast<float>(clip.key_times[k] / clip.key_rate);
      if (k > 0 && !(times[k] > times[k - 1]))
        return make_error(ErrorCode::bad_value, no_offset, "KeyTimes",
                          "block " + std::to_string(d.block) + ": key " + std::to_string(k) + " (time " +
                              std::to_string(clip.key_times[k]) + ") does not come after key " + std::to_string(k - 1) +
                              " (time " + std::to_string(clip.key_times[k - 1]) +
                              "); glTF needs increasing times (glTF 3.11), `mab export -o FILE.json` keeps them");
    }
    return times;
  }

  // A block's channels: a rotation per bone with one, its translations, its root motion.
  Result<BlockAnim> block_anim(const ExportBlock& d) {
    const Clip& clip = d.clip;
    BlockAnim a;
    a.block = d.block;
    a.legacy = d.legacy;
    a.key_rate = clip.key_rate;
    a.fps = d.legacy ? double{d.legacy->frame_rate} : gltf::whole_frame_rate(clip.key_times, clip.key_rate);
    a.duration = clip.duration;
    MAB_ASSIGN(a.times, key_seconds(d));
    std::unordered_map<std::uint32_t, unsigned> seen;
    for (const auto& bone : clip.bones) {
      const unsigned occ = seen[bone.hash]++;
      const int node = node_for(bone.hash, occ);
      auto motion = [&](int n, bool constant, std::vector<float> values) {
        a.motion.push_back({n, true, constant, std::move(values)});
        animated_node_[static_cast<std::size_t>(n)] = true;
      };
      // Translations decoded under the block's evidence (docs/motion.md): the node's local
      // translation, which replaces the rig's rest translation while the clip plays.
      if (!bone.translations.empty()) {
        motion(node, false, vec3_values(bone.translations));
        // Far Cry 2/3 masks may also hold the bone's constant translation: its second node.
        if (d.legacy && bone.constant_translation)
          motion(node_for(bone.hash, 1), true, vec3_values({*bone.constant_translation}));
      } else if (bone.constant_translation) {
        motion(node, true, vec3_values({*bone.constant_translation}));
      }
      if (bone.kind() == BoneKind::none) continue;
      animated_node_[static_cast<std::size_t>(node)] = true;
      Channel ch{node, &bone, {}};
      if (d.legacy && bone.kind() == BoneKind::animated) ch.frames = d.legacy->stored_frames.at(bone.hash);
      a.channels.push_back(std::move(ch));
    }
    if (d.legacy) {
      // The order the Far Cry 2/3 sections come in (format 13): constants, then keyed tracks.
      std::stable_partition(a.channels.begin(), a.channels.end(), [](const Channel& c) { return c.constant(); });
      std::stable_partition(a.motion.begin(), a.motion.end(), [](const MotionChannel& c) { return c.constant; });
    }
    // Root motion on a "trajectory" node beside the bones (docs/gltf.md); Far Cry 2/3 store its
    // translation first (slot 0).
    if (!clip.root_motion.empty()) {
      const int traj = trajectory_node();
      animated_node_[static_cast<std::size_t>(traj)] = true;
      if (!clip.root_motion.translations.empty() && d.legacy)
        a.motion.push_back({traj, true, false, vec3_values(clip.root_motion.translations)});
      if (!clip.root_motion.rotations.empty())
        a.motion.push_back({traj, false, false, quat_values(clip.root_motion.rotations)});
      if (!clip.root_motion.translations.empty() && !d.legacy)
        a.motion.push_back({traj, true, false, vec3_values(clip.root_motion.translations)});
    }
    a.parts = clip.parts;
    return a;
  }

  int trajectory_node() {
    if (trajectory_ >= 0) return trajectory_;
    tinygltf::Node n;
    n.name = std::string(gltf::trajectory_node_name);
    // Far Cry 2/3: a joint like the bones, tagged as they are (Blender makes it a bone of the rig).
    if (legacy_) n.extras = object({{"mabkit", object({{"hash", tinygltf::Value(hex(bone_hash(n.name), 8))}})}});
    trajectory_ = add_node(std::move(n));
    if (legacy_) joints_.push_back(trajectory_);
    return trajectory_;
  }

  // Far Cry 2/3: one node per bone id any clip of the bank moves, ascending, then the second
  // nodes of bones a clip holds both constant and animated, then the trajectory, so that every
  // clip of the bank plays on one rig.
  void add_legacy_nodes(const std::vector<ExportBlock>& clips) {
    legacy_ = true;
    std::set<std::uint32_t> ids, second;
    bool root_motion = false;
    for (const auto& b : clips) {
      std::unordered_map<std::uint32_t, unsigned> seen;
      for (const auto& bone : b.clip.bones) {
        (seen[bone.hash]++ > 0 ? second : ids).insert(bone.hash);
        if (!bone.translations.empty() && bone.constant_translation) second.insert(bone.hash);
      }
      root_motion = root_motion || !b.clip.root_motion.empty();
    }
    for (const auto id : ids) node_for(id, 0);
    for (const auto id : second) node_for(id, 1);
    if (root_motion) trajectory_node();
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

  // Each channel's time accessor (channels, then motion), per animation: its key times, or its
  // first time for constants (Far Cry 2/3: a keyed track's stored frames), at the start of the
  // buffer.
  using TimeAccessors = std::vector<int>;
  std::vector<TimeAccessors> write_times(std::vector<unsigned char>& data) {
    if (legacy_) return write_channel_times(data);
    std::size_t total_keys = 0, total_times = 0;
    for (const auto& a : anims_) {
      total_times += a.times.size() + 1;
      for (const auto& ch : a.channels) total_keys += ch.keys();
      for (const auto& ch : a.motion) total_keys += ch.keys();
    }
    data.reserve(4 * total_times + 16 * total_keys);
    struct AllFirst {
      int all = -1, first = -1;
    };
    std::vector<AllFirst> time_acc(anims_.size());
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
    std::vector<TimeAccessors> inputs(anims_.size());
    for (std::size_t i = 0; i < anims_.size(); ++i) {
      for (const auto& ch : anims_[i].channels)
        inputs[i].push_back(ch.constant() ? time_acc[i].first : time_acc[i].all);
      for (const auto& ch : anims_[i].motion) inputs[i].push_back(ch.constant ? time_acc[i].first : time_acc[i].all);
    }
    return inputs;
  }

  // Far Cry 2/3: each channel's own times (a keyed track keeps its stored frames); identical
  // arrays (every frame of a clip, the one key at 0) share an accessor.
  std::vector<TimeAccessors> write_channel_times(std::vector<unsigned char>& data) {
    std::map<std::vector<float>, int> shared;
    std::vector<TimeAccessors> inputs(anims_.size());
    auto add = [&](std::size_t i, std::vector<float> times) {
      auto [it, fresh] = shared.emplace(std::move(times), -1);
      if (fresh) {
        const auto& t = it->first;
        it->second = gltf::add_float_accessor(m_, data.size(), t.size(), TINYGLTF_TYPE_SCALAR, 0);
        m_.accessors.back().minValues = {t.front()};
        m_.accessors.back().maxValues = {t.back()};
        append_floats(data, t.data(), t.size());
      }
      inputs[i].push_back(it->second);
    };
    for (std::size_t i = 0; i < anims_.size(); ++i) {
      const auto& a = anims_[i];
      const std::vector<float> first{a.times.empty() ? 0.0f : a.times.front()};
      for (const auto& ch : a.channels) {
        std::vector<float> t;
        for (const auto f : ch.frames) t.push_back(a.times.at(f));
        add(i, ch.constant() ? first : ch.frames.empty() ? a.times : std::move(t));
      }
      for (const auto& ch : a.motion) add(i, ch.constant ? first : a.times);
    }
    return inputs;
  }

  // The animation's extras: block, rates, duration and its part entries (format 12, docs/motion.md).
  static tinygltf::Value animation_extras(const BlockAnim& a) {
    if (a.legacy)  // the clip's stored rate and lastFrame (format 13)
      return object({{"mabkit", object({{"block", tinygltf::Value(static_cast<int>(a.block))},
                                        {"frame_rate", tinygltf::Value(double{a.legacy->frame_rate})},
                                        {"last_frame", tinygltf::Value(static_cast<int>(a.legacy->last_frame))},
                                        {"duration", tinygltf::Value(static_cast<double>(a.duration))}})}});
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
                                  {"parent", tinygltf::Value(hex(p.parent_hash, 8))},
                                  {"attachment", tinygltf::Value(hex(p.attachment_hash, 8))},
                                  {"type", tinygltf::Value(static_cast<int>(p.type))}};
        if (p.nested_block >= 0)
          e.emplace("nested_animation", tinygltf::Value("block_" + std::to_string(p.nested_block)));
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
    std::size_t input = 0;
    for (const auto& ch : a.channels) {
      const int out = gltf::add_float_accessor(m_, data.size() - times_bytes, ch.keys(), TINYGLTF_TYPE_VEC4, 1);
      static_assert(sizeof(Quat) == 4 * sizeof(float));
      const std::size_t at = data.size();
      data.resize(at + ch.keys() * sizeof(Quat));
      std::vector<Quat> stored;
      for (const auto f : ch.frames) stored.push_back(ch.bone->keys.at(f));
      write_continuous_quats(ch.constant()       ? std::span<const Quat>(&ch.bone->constant, 1)
                             : ch.frames.empty() ? std::span<const Quat>(ch.bone->keys)
                                                 : std::span<const Quat>(stored),
                             data.data() + at);
      auto& channel = add_linear_channel(anim, times[input++], out, ch.node, "rotation");
      if (!a.legacy)  // Far Cry 2/3 bones have no flag byte
        channel.extras = object({{"mabkit", object({{"flags", tinygltf::Value(static_cast<int>(ch.bone->flags))}})}});
      ++rep_->channels;
      rep_->keys += ch.keys();
    }
    for (const auto& ch : a.motion) {
      const int out = gltf::add_float_accessor(m_, data.size() - times_bytes, ch.keys(),
                                               ch.translation ? TINYGLTF_TYPE_VEC3 : TINYGLTF_TYPE_VEC4, 1);
      append_floats(data, ch.values.data(), ch.values.size());
      add_linear_channel(anim, times[input++], out, ch.node, ch.translation ? "translation" : "rotation");
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
    if (o_.skeleton && !o_.skeleton->roots.empty()) scene.nodes = o_.skeleton->roots;
    else scene.nodes = {attach_};
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
  bool legacy_ = false;  // a Far Cry 2/3 bank (format 13)
  std::vector<BlockAnim> anims_;
};

}  // namespace

Result<std::vector<std::uint8_t>> export_gltf(const Container& c, const GltfExportOptions& o,
                                              GltfExportReport* report) {
  const bool legacy = c.variant != nullptr && c.variant->layout == LayoutKind::legacy;
  if (legacy && (o.skeleton != nullptr || !o.names.empty()))
    return make_error(ErrorCode::invalid_argument, no_offset, o.skeleton ? "skeleton" : "names",
                      "Far Cry 2/3 clips name bones by skeleton id, not by the CRC-32 of a name: their nodes are "
                      "bone_<id>, and {opt:names} and {opt:skeleton} do not apply");
  GltfExportReport rep;
  MAB_ASSIGN(const std::vector<ExportBlock> clips, legacy ? legacy_blocks(c, rep) : decode_blocks(c, rep));
  MAB_ASSIGN(auto bytes, GltfBuilder(c, o).build(clips, rep));
  if (report) *report = std::move(rep);
  return bytes;
}

}  // namespace mab

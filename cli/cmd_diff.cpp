// `mab diff A B`: what an edit or a conversion changed, bone by bone (lib edit.hpp's diff_clips),
// for 'aNi' clips and Far Cry 2/3 clips (as clip_from_legacy Clips), from .mab files or mabkit
// JSON documents.
#include "command.hpp"
#include "common.hpp"
#include "fixed_text.hpp"

#include <mab/edit.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace {

// One side of the comparison: the clip, and whether it is a Far Cry 2/3 clip (bones are skeleton
// ids, not name hashes).
struct Side {
  mab::Clip clip;
  bool legacy = false;
};

bool is_json(const std::string& path, std::span<const std::uint8_t> head) {
  if (mab::cli::has_extension(path, ".json")) return true;
  for (const auto c : head) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{';
  }
  return false;
}

// A mabkit JSON document (docs/json-format.md): its clip as the document states it, before any
// re-quantisation, so a diff against the .mab it came from shows exactly the edit.
std::optional<Side> load_json(const std::string& path, std::string& error) {
  auto text = mab::PaddedJson::read_file(path);
  if (!text) return error = mab::cli::message(text.error()), std::nullopt;
  auto legacy = mab::import_legacy_json(text->text());
  if (legacy) return Side{mab::clip_from_legacy(legacy->clip), true};
  if (legacy.error().code != mab::ErrorCode::not_decodable)
    return error = mab::cli::message(legacy.error()), std::nullopt;
  auto ani = mab::import_json(text->text());
  if (!ani) {
    error = ani.error().code == mab::ErrorCode::not_decodable
                ? "the document holds the container only (its clip did not decode when exported): nothing to compare"
                : mab::cli::message(ani.error());
    return std::nullopt;
  }
  return Side{std::move(ani->clip), false};
}

// The clip of one block; nullopt after printing a one-line error.
std::optional<Side> load(const std::string& path, std::size_t block) {
  std::string error;
  std::optional<Side> side;
  auto bytes = mab::read_file(path);
  if (bytes && is_json(path, std::span(*bytes).first(std::min<std::size_t>(bytes->size(), 64)))) {
    side = load_json(path, error);
  } else {
    int status = 0;  // unused: every error of diff exits 2 (1 means "the clips differ")
    auto c = mab::cli::load_container("diff", status, path);
    if (!c) return std::nullopt;
    if (c->variant != nullptr && c->variant->layout == mab::LayoutKind::legacy) {
      auto d = mab::decode_legacy_clip(*c, block);
      if (d) side = Side{mab::clip_from_legacy(*d), true};
      else error = mab::cli::message(d.error());
    } else {
      auto d = mab::decode_clip(std::move(*c), block);
      if (d) side = Side{std::move(d->clip), false};
      else error = mab::cli::message(d.error());
    }
  }
  if (!side) std::fprintf(stderr, "mab: diff: %s: %s\n", path.c_str(), error.c_str());
  return side;
}

std::string bone_label(std::uint32_t id, bool legacy) {
  return legacy ? mab::skeleton_bone_name(id) : mab::cli::hex(id, 8);
}

std::string row_label(const mab::BoneDiff& bd, bool legacy) {
  if (bd.root_motion) return legacy ? "trajectory" : "root motion";
  return !legacy && !bd.name.empty() ? bd.name : bone_label(bd.hash, legacy);
}

bool bone_differs(const mab::BoneDiff& bd) { return bd.max_deg > 0 || (bd.translation && bd.translation->max > 0); }

nlohmann::json key_json(std::ptrdiff_t k) { return k < 0 ? nlohmann::json(nullptr) : nlohmann::json(k); }

nlohmann::json quat_json(const mab::Quat& q) { return {q.x, q.y, q.z, q.w}; }

nlohmann::json channel_json(const mab::ChannelDiff& c) {
  return {{"max", c.max},
          {"mean", c.mean},
          {"worst_time_s", c.worst_time_s},
          {"times", c.times},
          {"key_a", key_json(c.key_a)},
          {"key_b", key_json(c.key_b)},
          {"value_a", c.value_a},
          {"value_b", c.value_b}};
}

void print_json(const mab::ClipDiff& d, const std::string& a, const std::string& b, bool legacy) {
  auto ids = [&](const std::vector<std::uint32_t>& v) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto h : v) j.push_back(bone_label(h, legacy));
    return j;
  };
  nlohmann::json j;
  j["a"] = a;
  j["b"] = b;
  j["family"] = legacy ? "far cry 2/3" : "ani";
  j["max_deg"] = d.max_deg;
  j["max_translation"] = d.max_translation;
  j["identical"] = d.identical();
  j["bones"] = nlohmann::json::array();
  for (const auto& bd : d.bones) {
    nlohmann::json e;
    if (bd.root_motion) e["root_motion"] = true;
    if (legacy) e["bone"] = bd.root_motion ? std::string("trajectory") : bone_label(bd.hash, true);
    else if (!bd.root_motion) e["hash"] = bone_label(bd.hash, false);
    if (!legacy && !bd.name.empty() && !bd.root_motion) e["name"] = bd.name;
    e["rotated"] = bd.rotated;
    e["max_deg"] = bd.max_deg, e["mean_deg"] = bd.mean_deg, e["worst_time_s"] = bd.worst_time_s;
    e["times"] = bd.times, e["key_a"] = key_json(bd.key_a), e["key_b"] = key_json(bd.key_b);
    if (bd.rotated) e["value_a"] = quat_json(bd.rotation_a), e["value_b"] = quat_json(bd.rotation_b);
    if (bd.translation) e["translation"] = channel_json(*bd.translation);
    j["bones"].push_back(std::move(e));
  }
  j["only_in_a"] = ids(d.only_in_a);
  j["only_in_b"] = ids(d.only_in_b);
  j["rotated_in_one_only"] = ids(d.rotation_kind_differs);
  j["translated_in_one_only"] = ids(d.translation_kind_differs);
  const nlohmann::json only_in = d.root_motion_only_in_a   ? nlohmann::json("a")
                                 : d.root_motion_only_in_b ? nlohmann::json("b")
                                                           : nlohmann::json(nullptr);
  j["root_motion"] = {{"only_in", only_in},
                      {"rotated_in_one_only", d.root_rotation_kind_differs},
                      {"translated_in_one_only", d.root_translation_kind_differs}};
  std::printf("%s\n", j.dump(2).c_str());
}

void print_row(const std::string& label, const char* channel, double max, double mean, double at, std::ptrdiff_t ka,
               std::ptrdiff_t kb, std::size_t times) {
  auto key = [](std::ptrdiff_t k) { return k < 0 ? std::string("-") : std::to_string(k); };
  std::printf("%-16s %-11s %12.6f %12.6f %13.4f %6s %6s %6zu\n", label.c_str(), channel, max, mean, at, key(ka).c_str(),
              key(kb).c_str(), times);
}

// Under a row, both clips' values where it peaks, as `mab dump` prints them: a rotation's
// quaternion (x y z w), a translation's vector (x y z, file units).
template <class V>
void print_values(const V& a, const V& b, unsigned n) {
  std::string line = "  A:";
  for (unsigned i = 0; i < n; ++i) mab::cli::append_fixed6(line, a[i]);
  line += "   B:";
  for (unsigned i = 0; i < n; ++i) mab::cli::append_fixed6(line, b[i]);
  line += '\n';
  std::fputs(line.c_str(), stdout);
}

// What one clip has and the other does not, one line each.
void print_one_sided(const mab::ClipDiff& d, bool legacy) {
  auto list = [&](const std::vector<std::uint32_t>& v) {
    std::vector<std::string> names;
    for (const auto h : v) names.push_back(bone_label(h, legacy));
    return mab::cli::short_list(names);
  };
  if (!d.only_in_a.empty()) std::printf("only in A: %s\n", list(d.only_in_a).c_str());
  if (!d.only_in_b.empty()) std::printf("only in B: %s\n", list(d.only_in_b).c_str());
  if (!d.rotation_kind_differs.empty())
    std::printf("rotated in one clip only: %s\n", list(d.rotation_kind_differs).c_str());
  if (!d.translation_kind_differs.empty())
    std::printf("translated in one clip only: %s\n", list(d.translation_kind_differs).c_str());
  const char* root = legacy ? "trajectory" : "root motion";
  if (d.root_motion_only_in_a) std::printf("%s only in A\n", root);
  if (d.root_motion_only_in_b) std::printf("%s only in B\n", root);
  if (d.root_rotation_kind_differs) std::printf("%s rotation in one clip only\n", root);
  if (d.root_translation_kind_differs) std::printf("%s translation in one clip only\n", root);
}

void print_table(const mab::ClipDiff& d, bool legacy, bool all) {
  std::printf("%-16s %-11s %12s %12s %13s %6s %6s %6s\n", "bone", "channel", "largest", "mean", "worst at (s)", "key A",
              "key B", "times");
  auto sorted = d.bones;
  auto largest = [](const mab::BoneDiff& x) { return std::max(x.max_deg, x.translation ? x.translation->max : 0.0); };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& x, const auto& y) { return largest(x) > largest(y); });
  for (const auto& bd : sorted) {
    const std::string label = row_label(bd, legacy);
    if (bd.rotated && (all || bd.max_deg > 0)) {
      print_row(label, "rotation", bd.max_deg, bd.mean_deg, bd.worst_time_s, bd.key_a, bd.key_b, bd.times);
      print_values(bd.rotation_a, bd.rotation_b, 4);
    }
    if (const auto& t = bd.translation; t && (all || t->max > 0)) {
      print_row(label, "translation", t->max, t->mean, t->worst_time_s, t->key_a, t->key_b, t->times);
      print_values(t->value_a, t->value_b, 3);
    }
  }
  std::size_t bones = 0, differ = 0;
  for (const auto& bd : d.bones) {
    if (bd.root_motion) continue;
    ++bones;
    differ += bone_differs(bd);
  }
  std::printf("%zu %s compared: %zu identical; largest difference %.6f degrees, %.6f units\n", bones,
              legacy ? "tracks" : "bones", bones - differ, d.max_deg, d.max_translation);
  for (const auto& bd : d.bones)
    if (bd.root_motion)
      std::printf("%s compared: %s\n", legacy ? "trajectory" : "root motion",
                  bone_differs(bd) ? "differs" : "identical");
  print_one_sided(d, legacy);
}

struct Options {
  std::string a, b;
  std::size_t block = 0;
  bool json = false, all = false;
};

int run(const Options& o) {
  // Every error exits 2: 1 means the clips differ.
  constexpr int error = mab::cli::exit_usage;
  const auto a = load(o.a, o.block);
  if (!a) return error;
  const auto b = load(o.b, o.block);
  if (!b) return error;
  const bool legacy = a->legacy;
  if (legacy != b->legacy) {
    std::fprintf(stderr,
                 "mab: diff: %s is a Far Cry 2/3 clip and %s an 'aNi' clip: they cannot be compared (one names "
                 "bones by skeleton id, the other by name hash)\n",
                 (legacy ? o.a : o.b).c_str(), (legacy ? o.b : o.a).c_str());
    return error;
  }
  auto r = mab::diff_clips(a->clip, b->clip);
  if (!r) {
    std::fprintf(stderr, "mab: diff: %s\n", mab::cli::message(r.error()).c_str());
    return error;
  }
  const mab::ClipDiff& d = *r;
  const bool same = d.identical();
  if (o.json) print_json(d, o.a, o.b, legacy);
  else print_table(d, legacy, o.all);
  return same ? mab::cli::exit_ok : mab::cli::exit_refused;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("diff",
                                 "Compare every channel of two clips bone by bone: rotations (angle), "
                                 "translations and root motion (distance in file units): largest and mean "
                                 "difference, where it peaks, and each clip's key and value there");
  cmd->add_option("A", o->a, "The first clip: a .mab, or a mabkit JSON document (mab export)")->required();
  cmd->add_option("B", o->b, "The second clip, the same way")->required();
  cmd->add_option("--block", o->block,
                  "The block of both .mab files to compare (default 0; a JSON document holds one)");
  cmd->add_flag("--json", o->json, "One JSON object instead of the table");
  cmd->add_flag("--all", o->all, "List every bone, not only those that differ");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab edit corpus/wd2/long_k40.mab -o turned.mab --rotate-bone Root 0,0,1@10\n"
      "  mab diff corpus/wd2/long_k40.mab turned.mab    # exit 1: the clips differ\n"
      "  mab export corpus/wd2/long_k40.mab -o long.json\n"
      "  mab diff corpus/wd2/long_k40.mab long.json     # exit 0: a document compares as written\n"
      "  mab diff --all corpus/wd2/translations_all_bones_root_motion.mab "
      "corpus/wd2/translations_all_bones_root_motion.mab\n"
      "Bones are matched by hash (Far Cry 2/3: by skeleton bone id, plus the trajectory). Each channel of\n"
      "a bone (its rotation, its translation, keyed or constant) and the root motion are compared at every\n"
      "key time of both clips, in seconds, each clip interpolated between its own keys (rotations by\n"
      "slerp, translations linearly), so a key inserted or removed in either shows whichever clip is\n"
      "given first, and clips with other timelines (after --speed, --resample, a conversion) compare too.\n"
      "A row per channel that differs (--all: every one): the largest difference (degrees for a rotation,\n"
      "file units for a translation), the mean, the time where it peaks and each clip's key there ('-':\n"
      "between keys, or constant); under it, both clips' values at that time (A:, B:): a rotation's\n"
      "quaternion x y z w as `mab dump` prints it, a translation's x y z in file units. Channels one clip\n"
      "has and the other lacks are listed after the table.\n"
      "Far Cry 2/3 clips compare only with Far Cry 2/3 clips. A JSON document's clip is compared as the\n"
      "document states it, before re-quantisation.\n"
      "Exit status: 0 when every channel is identical, 1 when one differs, 2 on an error.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(diff, setup);

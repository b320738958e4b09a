// `mab diff A B`: what an edit or a conversion changed, bone by bone (lib edit.hpp), for 'aNi'
// clips and Far Cry 2/3 clips, from .mab files or mabkit JSON documents.
#include "command.hpp"
#include "common.hpp"

#include <mab/edit.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace {

// One side of the comparison: an 'aNi' clip or a Far Cry 2/3 clip.
struct Side {
  std::optional<mab::DecodedClip> ani;
  std::optional<mab::LegacyClip> legacy;
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
  if (!text) return error = text.error().message(), std::nullopt;
  auto legacy = mab::import_legacy_json(text->text());
  if (legacy) return Side{std::nullopt, std::move(legacy->clip)};
  if (legacy.error().code != mab::ErrorCode::not_decodable) return error = legacy.error().message(), std::nullopt;
  auto ani = mab::import_json(text->text());
  if (!ani) {
    error = ani.error().code == mab::ErrorCode::not_decodable
                ? "the document holds the container only (its clip did not decode when exported): nothing to compare"
                : ani.error().message();
    return std::nullopt;
  }
  return Side{std::move(ani).value(), std::nullopt};
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
      if (d) side = Side{std::nullopt, std::move(d).value()};
      else error = d.error().message();
    } else {
      auto d = mab::decode_clip(std::move(*c), block);
      if (d) side = Side{std::move(d).value(), std::nullopt};
      else error = d.error().message();
    }
  }
  if (!side) std::fprintf(stderr, "mab: diff: %s: %s\n", path.c_str(), error.c_str());
  return side;
}

std::string bone_label(std::uint32_t id, bool legacy) {
  if (!legacy) return mab::cli::hex(id, 8);
  return id == mab::legacy_trajectory_id ? "trajectory" : "bone_" + std::to_string(id);
}

void print_json(const mab::ClipDiff& d, const std::string& a, const std::string& b, bool legacy, bool same) {
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
  j["identical"] = same;
  j["bones"] = nlohmann::json::array();
  for (const auto& bd : d.bones) {
    nlohmann::json e{{legacy ? "bone" : "hash", bone_label(bd.hash, legacy)}, {"max_deg", bd.max_deg},
                     {"mean_deg", bd.mean_deg}, {"worst_time_s", bd.worst_time_s}, {"times", bd.times}};
    if (!legacy && !bd.name.empty()) e["name"] = bd.name;
    j["bones"].push_back(std::move(e));
  }
  j["only_in_a"] = ids(d.only_in_a);
  j["only_in_b"] = ids(d.only_in_b);
  j["rotated_in_one_only"] = ids(d.rotation_kind_differs);
  std::printf("%s\n", j.dump(2).c_str());
}

void print_table(const mab::ClipDiff& d, bool legacy, bool all) {
  auto list = [&](const std::vector<std::uint32_t>& v) {
    std::vector<std::string> names;
    for (const auto h : v) names.push_back(bone_label(h, legacy));
    return mab::cli::short_list(names);
  };
  std::printf("%-16s %12s %12s %13s %6s\n", "bone", "max deg", "mean deg", "worst at (s)", "times");
  auto sorted = d.bones;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.max_deg > y.max_deg; });
  for (const auto& bd : sorted) {
    if (!all && bd.max_deg == 0) continue;
    const std::string label = !legacy && !bd.name.empty() ? bd.name : bone_label(bd.hash, legacy);
    std::printf("%-16s %12.6f %12.6f %13.4f %6zu\n", label.c_str(), bd.max_deg, bd.mean_deg, bd.worst_time_s, bd.times);
  }
  const auto differ = static_cast<std::size_t>(std::count_if(d.bones.begin(), d.bones.end(), [](const auto& x) { return x.max_deg > 0; }));
  std::printf("%zu %s compared: %zu identical, largest difference %.6f degrees\n", d.bones.size(),
              legacy ? "rotations" : "bones", d.bones.size() - differ, d.max_deg);
  if (!d.only_in_a.empty()) std::printf("only in A: %s\n", list(d.only_in_a).c_str());
  if (!d.only_in_b.empty()) std::printf("only in B: %s\n", list(d.only_in_b).c_str());
  if (!d.rotation_kind_differs.empty()) std::printf("rotated in one clip only: %s\n", list(d.rotation_kind_differs).c_str());
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("diff", "Compare the rotations of two clips bone by bone: largest and mean angle "
                                         "and the time where they differ most");
  struct Opts {
    std::string a, b;
    std::size_t block = 0;
    bool json = false, all = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("A", o->a, "The first clip: a .mab, or a mabkit JSON document (mab export)")->required();
  cmd->add_option("B", o->b, "The second clip, the same way")->required();
  cmd->add_option("--block", o->block, "The block of both .mab files to compare (default 0; a JSON document holds one)");
  cmd->add_flag("--json", o->json, "One JSON object instead of the table");
  cmd->add_flag("--all", o->all, "List every bone, not only those that differ");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab edit corpus/wd2/long_k40.mab -o turned.mab --rotate-bone Root 0,0,1@10\n"
      "  mab diff corpus/wd2/long_k40.mab turned.mab    # exit 1: the clips differ\n"
      "  mab export corpus/wd2/long_k40.mab -o long.json\n"
      "  mab diff corpus/wd2/long_k40.mab long.json     # exit 0: a document compares as written\n"
      "Bones are matched by hash (Far Cry 2/3: by skeleton bone id, plus the trajectory). Each bone is\n"
      "compared at every key time of both clips, in seconds, each clip interpolated (slerp) between its\n"
      "own keys, so a key inserted or removed in either shows whichever clip is given first, and clips\n"
      "with other timelines (after --speed, --resample, a conversion) compare too. Translations are not\n"
      "compared. Far Cry 2/3 clips compare only with Far Cry 2/3 clips. A JSON document's clip is compared\n"
      "as the document states it, before re-quantisation.\n"
      "Exit status: 0 when the clips' rotations are identical, 1 when they differ, 2 on an error.");
  cmd->callback([o, &exit_code] {
    exit_code = 2;
    const auto a = load(o->a, o->block);
    if (!a) return;
    const auto b = load(o->b, o->block);
    if (!b) return;
    const bool legacy = a->legacy.has_value();
    if (legacy != b->legacy.has_value()) {
      std::fprintf(stderr,
                   "mab: diff: %s is a Far Cry 2/3 clip and %s an 'aNi' clip: they cannot be compared (one names "
                   "bones by skeleton id, the other by name hash)\n",
                   (legacy ? o->a : o->b).c_str(), (legacy ? o->b : o->a).c_str());
      return;
    }
    mab::ClipDiff d;
    if (legacy) {
      d = mab::diff_legacy_clips(*a->legacy, *b->legacy);
    } else {
      auto r = mab::diff_clips(a->ani->clip, b->ani->clip);
      if (!r) {
        std::fprintf(stderr, "mab: diff: %s\n", r.error().message().c_str());
        return;
      }
      d = std::move(r).value();
    }
    const bool same = d.max_deg == 0 && d.only_in_a.empty() && d.only_in_b.empty() && d.rotation_kind_differs.empty();
    if (o->json) print_json(d, o->a, o->b, legacy, same);
    else print_table(d, legacy, o->all);
    exit_code = same ? 0 : 1;
  });
}

}  // namespace

MAB_REGISTER_COMMAND(diff, setup);

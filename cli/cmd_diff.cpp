// `mab diff A.mab B.mab`: what an edit or a conversion changed, bone by bone (lib edit.hpp).
#include "command.hpp"
#include "common.hpp"

#include <mab/edit.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace {

// The clip of one block; nullopt after printing a one-line error.
std::optional<mab::DecodedClip> load(const std::string& path, std::size_t block) {
  int status = 0;  // unused: every error of diff exits 2 (1 means "the clips differ")
  auto c = mab::cli::load_container("diff", status, path);
  if (!c) return std::nullopt;
  auto d = mab::decode_clip(std::move(*c), block);
  if (!d) {
    std::fprintf(stderr, "mab: diff: %s: %s\n", path.c_str(), d.error().message().c_str());
    return std::nullopt;
  }
  return std::move(d).value();
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("diff", "Compare the rotations of two clips bone by bone: largest and mean angle "
                                         "and the key where they differ most");
  struct Opts {
    std::string a, b;
    std::size_t block = 0;
    bool json = false, all = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("A", o->a, "The first .mab (its key times are the ones compared)")->required();
  cmd->add_option("B", o->b, "The second .mab (sampled at A's times in seconds)")->required();
  cmd->add_option("--block", o->block, "The block of both files to compare (default 0)");
  cmd->add_flag("--json", o->json, "One JSON object instead of the table");
  cmd->add_flag("--all", o->all, "List every bone, not only those that differ");
  cmd->footer(
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab edit corpus/wd2/long_k40.mab -o turned.mab --rotate-bone Root 0,0,1@10\n"
      "  mab diff corpus/wd2/long_k40.mab turned.mab    # exit 1: the clips differ\n"
      "Bones are matched by hash; B is interpolated (slerp) at A's key times, so clips with other\n"
      "timelines (after --speed, --resample, a conversion) compare too. Exit status: 0 when the clips'\n"
      "rotations are identical, 1 when they differ, 2 on an error.");
  cmd->callback([o, &exit_code] {
    exit_code = 2;
    const auto a = load(o->a, o->block);
    if (!a) return;
    const auto b = load(o->b, o->block);
    if (!b) return;
    auto d = mab::diff_clips(a->clip, b->clip);
    if (!d) {
      std::fprintf(stderr, "mab: diff: %s\n", d.error().message().c_str());
      return;
    }
    const bool same = d->max_deg == 0 && d->only_in_a.empty() && d->only_in_b.empty() && d->rotation_kind_differs.empty();
    auto hashes = [](const std::vector<std::uint32_t>& v) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto h : v) j.push_back(mab::cli::hex(h, 8));
      return j;
    };
    if (o->json) {
      nlohmann::json j;
      j["a"] = o->a;
      j["b"] = o->b;
      j["max_deg"] = d->max_deg;
      j["identical"] = same;
      j["bones"] = nlohmann::json::array();
      for (const auto& bd : d->bones)
        j["bones"].push_back({{"hash", mab::cli::hex(bd.hash, 8)}, {"max_deg", bd.max_deg}, {"mean_deg", bd.mean_deg},
                              {"worst_key", bd.worst_key}, {"keys", bd.keys}});
      j["only_in_a"] = hashes(d->only_in_a);
      j["only_in_b"] = hashes(d->only_in_b);
      j["rotated_in_one_only"] = hashes(d->rotation_kind_differs);
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%-12s %12s %12s %10s %6s\n", "bone", "max deg", "mean deg", "worst key", "keys");
      auto sorted = d->bones;
      std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.max_deg > y.max_deg; });
      for (const auto& bd : sorted) {
        if (!o->all && bd.max_deg == 0) continue;
        std::printf("%-12s %12.6f %12.6f %10zu %6zu\n", mab::cli::hex(bd.hash, 8).c_str(), bd.max_deg, bd.mean_deg,
                    bd.worst_key, bd.keys);
      }
      const std::size_t identical = d->bones.size() - static_cast<std::size_t>(std::count_if(
                                                          d->bones.begin(), d->bones.end(), [](const auto& x) { return x.max_deg > 0; }));
      std::printf("%zu bones compared: %zu identical, largest difference %.6f degrees\n", d->bones.size(), identical,
                  d->max_deg);
      if (!d->only_in_a.empty()) std::printf("only in A: %s\n", mab::cli::short_list(d->only_in_a).c_str());
      if (!d->only_in_b.empty()) std::printf("only in B: %s\n", mab::cli::short_list(d->only_in_b).c_str());
      if (!d->rotation_kind_differs.empty())
        std::printf("rotated in one clip only: %s\n", mab::cli::short_list(d->rotation_kind_differs).c_str());
    }
    exit_code = same ? 0 : 1;
  });
}

}  // namespace

MAB_REGISTER_COMMAND(diff, setup);

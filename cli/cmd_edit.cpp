// `mab edit IN -o OUT [operations]`: edits of a clip without a 3D tool, applied in the order
// given, then re-quantised where they changed something (lib/include/mab/edit.hpp, docs/edit.md).
#include "command.hpp"
#include "common.hpp"

#include <mab/edit.hpp>
#include <mab/edit_policy.hpp>
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>
#include <mab/validate.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "x,y,z,w" (normalised), or "ax,ay,az@deg": a turn of deg degrees about an axis.
std::optional<mab::Quat> quat_arg(const std::string& s) {
  const auto at = s.find('@');
  std::vector<double> v;
  std::size_t from = 0;
  const std::string head = s.substr(0, at);
  while (from <= head.size()) {
    const auto comma = head.find(',', from);
    const auto n = number(head.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (!n) return std::nullopt;
    v.push_back(*n);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (at == std::string::npos) {
    if (v.size() != 4) return std::nullopt;
    const mab::Quat q{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]),
                      static_cast<float>(v[3])};
    if (q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0) return std::nullopt;
    return q;
  }
  const auto deg = number(s.substr(at + 1));
  const double len = v.size() == 3 ? std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) : 0;
  if (!deg || !(len > 0)) return std::nullopt;
  const double h = *deg * 3.14159265358979323846 / 360.0;
  return mab::Quat{static_cast<float>(v[0] / len * std::sin(h)), static_cast<float>(v[1] / len * std::sin(h)),
                   static_cast<float>(v[2] / len * std::sin(h)), static_cast<float>(std::cos(h))};
}

struct Op {
  std::string name;
  std::vector<std::string> args;
};

// The operations: (name, values per use, the values' names in --help, help).
const std::vector<std::tuple<std::string, int, std::string, std::string>> ops = {
    {"--speed", 1, "FLOAT", "play FLOAT times as fast (0.5 = half speed); keys that meet are dropped"},
    {"--trim", 2, "START END",
     "keep START..END seconds (two FLOATs), keys interpolated at both ends, shifted to start at 0"},
    {"--reverse", 0, "", "play backwards"},
    {"--loop-fix", 0, "", "make the last key equal the first, for a seamless loop"},
    {"--resample", 1, "FLOAT",
     "keys every 1/FLOAT seconds (FLOAT keys per second, at most the clip's key rate) from the first to the last, "
     "sampled by slerp"},
    {"--rotate-bone", 2, "BONE QUAT", "pre-multiply every rotation of BONE by QUAT"},
    {"--set-constant", 2, "BONE QUAT", "BONE holds QUAT for the whole clip"},
    {"--copy-track", 2, "FROM.mab BONE", "BONE's track from another clip, resampled onto this clip's times"},
    {"--remove-bone", 1, "BONE", "drop BONE from the clip"},
    {"--rename-bone", 2, "BONE NEW", "give BONE the hash of NEW (a name, or a 0x hash); its keys keep their codes"},
    {"--add-bone", 2, "NAME QUAT", "a new constant bone (hash = CRC-32 of NAME)"},
    {"--bits", 2, "BONE INT",
     "re-quantise BONE at INT bits per value (1..16), kept as asked: refused if it misses --max-error"},
    {"--requantise", 0, "",
     "re-quantise every animated bone, unchanged ones too, at the smallest depth meeting --max-error (smaller "
     "files for a looser bound)"},
    {"--reduce", 1, "FLOAT", "drop shared key times while every bone stays within FLOAT degrees of the interpolation"},
};

struct Options {
  std::string file, output;
  std::optional<std::size_t> block;
  bool in_place = false;
  std::optional<double> max_error, max_translation_error;
  std::vector<std::string> scratch;  // CLI11's store for the operations' values (see plan_of)
  std::vector<Op> plan;
};

// The operations in command-line order: CLI11 records each value it takes.
std::vector<Op> plan_of(const CLI::App& cmd) {
  std::vector<Op> plan;
  std::map<const CLI::Option*, std::size_t> used;
  for (const CLI::Option* opt : cmd.parse_order()) {
    const std::string name = "--" + opt->get_single_name();
    int n = -1;
    for (const auto& [op, count, values, help] : ops)
      if (op == name) n = count;
    if (n < 0) continue;
    const std::size_t k = used[opt]++;
    const std::size_t per = n == 0 ? 1 : static_cast<std::size_t>(n);
    if (k % per != 0) continue;
    Op op{name, {}};
    if (n > 0) {
      const auto& res = opt->results();
      for (std::size_t i = k; i < k + per && i < res.size(); ++i) op.args.push_back(res[i]);
    }
    plan.push_back(std::move(op));
  }
  return plan;
}

// A value that does not parse is a usage error; one the clip cannot take is refused.
int fail(const Op& op, const std::string& why, int status = mab::cli::exit_refused) {
  std::string args;
  for (const auto& a : op.args) args += " " + a;
  std::fprintf(stderr, "mab: edit: %s%s: %s; nothing written\n", op.name.c_str(), args.c_str(), why.c_str());
  return status;
}

// --reduce FLOAT, with its lines of the report.
int reduce(const Op& op, double bound, mab::Clip& clip, mab::edit::Notes& notes) {
  auto r = mab::edit::reduce(clip, bound);
  if (!r) return fail(op, mab::cli::message(r.error()));
  char line[160];
  std::snprintf(line, sizeof line, "--reduce %g: %zu keys -> %zu, dropped keys within %.6f degrees of the slerp", bound,
                r->keys_before, r->keys_after, r->max_error_deg);
  notes.push_back(line);
  if (r->max_translation_error > 0 || r->max_root_rotation_error_deg > 0) {
    // Translations and root motion follow the kept keys (docs/motion.md); the bound is in degrees.
    std::snprintf(line, sizeof line,
                  "--reduce: translations and root motion follow: dropped keys within %.6g units and "
                  "%.6f degrees (root rotation) of the interpolation",
                  r->max_translation_error, r->max_root_rotation_error_deg);
    notes.push_back(line);
  }
  return mab::cli::exit_ok;
}

// An operation's number and quaternion arguments: a bad one is reported (exit_usage), and
// `status` then holds the status to return.
struct ArgReader {
  const Op& op;
  int status = mab::cli::exit_ok;
  std::optional<double> number(std::size_t i) {
    auto v = ::number(op.args.at(i));
    if (!v) status = fail(op, "\"" + op.args.at(i) + "\" is not a number", mab::cli::exit_usage);
    return v;
  }
  std::optional<mab::Quat> quat(std::size_t i) {
    auto q = quat_arg(op.args.at(i));
    if (!q)
      status = fail(op, "\"" + op.args.at(i) + "\" is not a quaternion x,y,z,w or a turn ax,ay,az@deg",
                    mab::cli::exit_usage);
    return q;
  }
  // A Far Cry 2/3 bone to name: a skeleton id (bone_12 or 12), as the format holds no names.
  std::optional<std::uint32_t> skeleton_id(std::size_t i) {
    auto id = mab::parse_legacy_bone(op.args.at(i));
    if (!id) status = fail(op, mab::cli::spelled(id.error().detail), mab::cli::exit_usage);
    return id ? std::optional<std::uint32_t>(*id) : std::nullopt;
  }
};

// The clip the operations edit, of either family (issue 33: one dispatch). A Far Cry 2/3 clip
// (docs/legacy.md, "Editing with mab edit") is its clip_from_legacy Clip: bones are skeleton ids,
// its event nodes follow `time`, and --reduce is left to the sparse key writer; an 'aNi' clip's
// --requantise and error policy go in `eo`.
struct EditState {
  mab::Clip clip;
  bool far_cry = false;
  mab::EncodeOptions eo;
  mab::LegacyTimeMap time;       // how the timing operations moved time (event nodes follow)
  std::optional<double> reduce;  // Far Cry 2/3 --reduce: the encoder re-keys every track within it
};

// The first block's clip of another file, as the edited clip's family reads it.
std::optional<mab::Clip> source_clip(const Op& op, bool far_cry, int& status) {
  auto fb = mab::read_file(op.args[0]);
  if (!fb) return status = fail(op, mab::cli::message(fb.error()), mab::cli::exit_status(fb.error())), std::nullopt;
  auto fc = mab::read_container(*fb);
  if (!fc) return status = fail(op, mab::cli::message(fc.error())), std::nullopt;
  if (!far_cry) {
    auto fd = mab::decode_clip(std::move(fc).value());
    if (!fd) return status = fail(op, mab::cli::message(fd.error())), std::nullopt;
    return std::move(fd->clip);
  }
  if (fc->blocks.empty() || fc->blocks[0].legacy() == nullptr)
    return status = fail(op,
                         "the source is not a Far Cry 2/3 clip: bones here are skeleton ids, there CRC-32 "
                         "hashes of names"),
           std::nullopt;
  auto fd = mab::decode_legacy_clip(*fc, 0);
  if (!fd) return status = fail(op, mab::cli::message(fd.error())), std::nullopt;
  return mab::clip_from_legacy(*fd);
}

// --copy-track FROM.mab BONE.
int copy_track(const Op& op, EditState& s, mab::edit::Notes& notes, std::vector<fs::path>& inputs) {
  int status = mab::cli::exit_refused;
  const auto from = source_clip(op, s.far_cry, status);
  if (!from) return status;
  auto b = s.far_cry ? mab::find_legacy_bone(*from, op.args[1]) : mab::find_bone(*from, op.args[1]);
  if (!b) return fail(op, "the source clip: " + mab::cli::spelled(b.error().detail));
  const std::uint32_t id = from->bones[*b].hash;
  const mab::Status st = s.far_cry ? mab::copy_skeleton_track(s.clip, *from, id, &notes)
                                   : mab::edit::copy_track(s.clip, *from, id, &notes);
  inputs.push_back(op.args[0]);
  return st ? mab::cli::exit_ok : fail(op, mab::cli::message(st.error()));
}

// One operation on the clip: exit_ok, or the status after saying why it failed.
int apply(const Op& op, EditState& s, mab::edit::Notes& notes, std::vector<fs::path>& inputs) {
  // What a Far Cry 2/3 clip cannot carry, refused by name before anything is done.
  if (const auto why = s.far_cry ? mab::legacy_edit_refusal(std::string_view(op.name).substr(2)) : std::nullopt)
    return fail(op, mab::cli::spelled(*why));
  mab::Clip& clip = s.clip;
  ArgReader args{op};
  auto need_bone = [&](std::size_t i) -> std::optional<std::size_t> {
    auto b = s.far_cry ? mab::find_legacy_bone(clip, op.args.at(i)) : mab::find_bone(clip, op.args.at(i));
    if (!b) {
      args.status = fail(op, mab::cli::spelled(b.error().detail));
      return std::nullopt;
    }
    return *b;
  };
  // How a timing operation moves time (new = old * scale + offset), read before it runs.
  std::optional<mab::LegacyTimeMap> moved;
  mab::Status st;
  if (op.name == "--speed") {
    const auto f = args.number(0);
    if (!f) return args.status;
    moved = mab::legacy_speed_map(*f);
    st = mab::edit::speed(clip, *f, &notes);
  } else if (op.name == "--trim") {
    const auto a = args.number(0), b = args.number(1);
    if (!a || !b) return args.status;
    moved = mab::legacy_trim_map(clip, *a);
    st = mab::edit::trim(clip, *a, *b, &notes);
  } else if (op.name == "--reverse") {
    moved = mab::legacy_reverse_map(clip);
    st = mab::edit::reverse(clip);
  } else if (op.name == "--loop-fix") {
    st = mab::edit::loop_fix(clip);
  } else if (op.name == "--resample") {
    const auto f = args.number(0);
    if (!f) return args.status;
    st = mab::edit::resample(clip, *f, &notes);
  } else if (op.name == "--rotate-bone" || op.name == "--set-constant" || op.name == "--remove-bone") {
    const auto b = need_bone(0);
    if (!b) return args.status;
    std::optional<mab::Quat> q;
    if (op.name != "--remove-bone" && !(q = args.quat(1))) return args.status;
    if (s.far_cry) {
      // The whole bone: a Far Cry 2/3 bone both keyed and constant is two bones of the Clip
      // (legacy_bridge.hpp), and docs/edit.md's operations act on every rotation of BONE.
      const std::uint32_t id = clip.bones[*b].hash;
      st = op.name == "--rotate-bone"    ? mab::rotate_skeleton_bone(clip, id, *q)
           : op.name == "--set-constant" ? mab::set_skeleton_constant(clip, id, *q)
                                         : mab::remove_skeleton_bone(clip, id);
    } else {
      st = op.name == "--rotate-bone"    ? mab::edit::rotate_bone(clip, *b, *q)
           : op.name == "--set-constant" ? mab::edit::set_constant(clip, *b, *q)
                                         : mab::edit::remove_bone(clip, *b);
    }
  } else if (op.name == "--copy-track") {
    return copy_track(op, s, notes, inputs);
  } else if (op.name == "--rename-bone") {
    const auto b = need_bone(0);
    if (!b) return args.status;
    if (!s.far_cry) {
      st = mab::edit::rename_bone(clip, *b, op.args[1]);
    } else {
      const auto to = args.skeleton_id(1);
      if (!to) return args.status;
      st = mab::rename_skeleton_bone(clip, clip.bones[*b].hash, *to);
    }
  } else if (op.name == "--add-bone") {
    const auto id = s.far_cry ? args.skeleton_id(0) : std::optional<std::uint32_t>(0);
    if (!id) return args.status;
    const auto q = args.quat(1);
    if (!q) return args.status;
    st = s.far_cry ? mab::add_skeleton_bone(clip, *id, *q) : mab::edit::add_bone(clip, op.args[0], *q);
  } else if (op.name == "--bits") {
    const auto b = need_bone(0);
    if (!b) return args.status;
    const auto n = args.number(1);
    if (!n) return args.status;
    if (*n != std::floor(*n) || *n < 1 || *n > 16)
      return fail(op, "a bit depth is a whole number 1..16", mab::cli::exit_usage);
    st = mab::edit::set_bits(clip, *b, static_cast<unsigned>(*n));
  } else if (op.name == "--requantise") {
    s.eo.requantise_all = true;
  } else if (op.name == "--reduce") {
    const auto d = args.number(0);
    if (!d) return args.status;
    if (!s.far_cry) return reduce(op, *d, clip, notes);
    if (!(*d > 0)) return fail(op, "the tolerance must be a number of degrees > 0", mab::cli::exit_usage);
    s.reduce = *d;
  }
  if (!st) return fail(op, mab::cli::message(st.error()));
  if (moved) s.time = s.time.then(*moved);
  return mab::cli::exit_ok;
}

// The written file read back: structural errors are warned about (see `mab info`).
void warn_structural(const std::vector<std::uint8_t>& bytes) {
  if (auto rc = mab::read_container(bytes)) {
    std::size_t errors = 0;
    for (const auto& f : mab::validate(*rc)) errors += f.severity == mab::Severity::error;
    if (errors) std::fprintf(stderr, "mab: edit: warning: %zu structural error(s); see `mab info`\n", errors);
  }
}

void print_bridge_report(const mab::LegacyBridgeReport& br, std::optional<double> reduce,
                         const mab::LegacyEncodeReport& rep) {
  std::printf("  keyed tracks      %zu unchanged (stored keys kept), %zu edited (sparse key writer)\n", br.tracks_kept,
              br.tracks_edited);
  if (br.resampled_to_frames)
    std::printf("  frames            the edited key times were sampled at every frame (format 13 stores each)\n");
  if (!br.duration_rule.empty()) std::printf("  duration          by the clip's rule %s\n", br.duration_rule.c_str());
  if (br.events_moved != 0 || br.events_outside != 0)
    std::printf(
        "  events            %zu node time(s) moved with the clip's time; %zu outside the new duration (kept: a "
        "node cannot be removed)\n",
        br.events_moved, br.events_outside);
  if (reduce)
    std::printf("  --reduce %g        every keyed track re-keyed: %zu stored keys -> %zu, within %.6f degrees\n",
                *reduce, rep.keys_before, rep.keys_after, rep.max_error_deg);
}

// The edited clip written: the file's bytes, and how to print its family's report once written.
struct Written {
  std::vector<std::uint8_t> bytes;
  std::function<void()> report;
};

mab::Result<Written> encode_ani(const mab::DecodedClip& original, const EditState& s) {
  auto rep = std::make_shared<mab::EncodeReport>();
  MAB_ASSIGN(auto bytes, mab::encode_clip(original, s.clip, s.eo, rep.get()));
  return Written{std::move(bytes),
                 [rep] { mab::cli::print_encode_report(*rep, "(re-quantised keys against the edited rotations)"); }};
}

// legacy_from_clip, then encode_legacy_clip under the one error policy (decision 21).
mab::Result<Written> encode_far_cry(const mab::Container& c, std::size_t block, const mab::LegacyClip& original,
                                    const EditState& s, const Options& o) {
  auto br = std::make_shared<mab::LegacyBridgeReport>();
  MAB_ASSIGN(const mab::LegacyClip lc, mab::legacy_from_clip(original, s.clip, s.time, br.get()));
  mab::LegacyEncodeOptions eo = mab::legacy_edit_policy(o.max_error.value_or(mab::default_max_error_deg));
  eo.reduce_deg = s.reduce;
  auto rep = std::make_shared<mab::LegacyEncodeReport>();
  MAB_ASSIGN(const mab::Container out, mab::encode_legacy_clip(c, block, lc, eo, rep.get()));
  MAB_ASSIGN(auto bytes, mab::write_container(out));
  const double bound = eo.reduce_deg.value_or(eo.max_error_deg);
  return Written{std::move(bytes), [br, rep, reduce = s.reduce, bound] {
                   print_bridge_report(*br, reduce, *rep);
                   mab::cli::print_legacy_encode_report(*rep, bound, "edit");
                 }};
}

// A clip that does not decode, or an edit the encoder refuses (an error policy's refusal says
// "nothing written" already, in mab import's words).
int refused(const Options& o, const mab::Error& e, bool encoding) {
  const std::string why = mab::cli::message(e);
  const bool say = encoding && why.find("nothing written") == std::string::npos;
  std::fprintf(stderr, "mab: edit: %s: %s%s\n", o.file.c_str(), why.c_str(), say ? "; nothing written" : "");
  return mab::cli::exit_refused;
}

int run(const Options& o) {
  if (o.plan.empty()) {
    std::fprintf(stderr, "mab: edit: no operation given%s (see mab edit --help)\n",
                 o.max_error ? ": --max-error bounds what the operations re-quantise; --requantise re-quantises "
                               "every bone at it"
                             : "");
    return mab::cli::exit_usage;
  }
  int status = mab::cli::exit_usage;
  auto c = mab::cli::load_container("edit", status, o.file);
  if (!c) return status;
  const std::size_t block = o.block.value_or(0);
  EditState s;
  s.far_cry = block < c->blocks.size() && c->blocks[block].legacy() != nullptr;
  std::optional<mab::LegacyClip> far_cry;
  std::optional<mab::DecodedClip> ani;
  if (s.far_cry) {
    auto d = mab::decode_legacy_clip(*c, block);
    if (!d) return refused(o, d.error(), false);
    far_cry = std::move(*d);
    s.clip = mab::clip_from_legacy(*far_cry);
  } else {
    auto d = mab::decode_clip(std::move(c).value(), block);
    if (!d) return refused(o, d.error(), false);
    ani = std::move(*d);
    s.clip = ani->clip;
    // The error policy mab import shares (decision 21).
    s.eo = mab::edit_policy(o.max_error.value_or(mab::default_max_error_deg), o.max_translation_error);
  }
  mab::edit::Notes notes;
  std::vector<fs::path> inputs{o.file};
  for (const Op& op : o.plan)
    if (const int st = apply(op, s, notes, inputs); st != mab::cli::exit_ok) return st;
  auto w = far_cry ? encode_far_cry(*c, block, *far_cry, s, o) : encode_ani(*ani, s);
  if (!w) return refused(o, w.error(), true);
  const auto origin = mab::cli::mab_origin(o.file, w->bytes);
  if (!mab::cli::write_output("edit", status, inputs, o.output, o.in_place, w->bytes)) return status;
  mab::cli::print_mab_written(o.output, w->bytes, origin);
  for (const auto& n : notes) std::printf("  %s\n", mab::cli::spelled(n).c_str());
  w->report();
  warn_structural(w->bytes);
  return mab::cli::exit_ok;
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("edit",
                         "Edit a clip without a 3D tool: timing, bone tracks, key reduction; operations are applied in "
                         "the order given and only what they change is re-quantised");
  auto o = std::make_shared<Options>();
  cmd->add_option("FILE", o->file, "The .mab to edit")->required();
  cmd->add_option("-o,--output", o->output, "The .mab to write")->required();
  cmd->add_option("--block", o->block, "Block to edit (Far Cry 5 files and Far Cry 2/3 banks hold several; default 0)");
  cmd->add_flag("--in-place", o->in_place,
                "Allow -o to name FILE itself (FILE is kept as FILE.bak, or FILE.bak.1, .bak.2, ... when that exists)");
  cmd->add_option("--max-error", o->max_error,
                  "largest angular error in degrees of a re-quantised key (default 0.01, as mab import): a changed "
                  "bone keeps its bit depth unless that misses the bound, then gets the smallest depth meeting it; "
                  "what no depth brings within it is refused, nothing written")
      ->type_name("FLOAT")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-translation-error", o->max_translation_error, mab::cli::max_translation_error_help)
      ->type_name("UNITS")
      ->check(CLI::PositiveNumber);
  for (const auto& [name, n, values, help] : ops) {
    if (n == 0) {
      cmd->add_flag(name, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    } else {
      cmd->add_option(name, o->scratch, help)
          ->expected(n)
          ->type_size(n)
          ->type_name(values)
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
  cmd->footer(
      "BONE is a bone name (its CRC-32 is the hash, decision 11) or a hash (0xB6C65665). QUAT is x,y,z,w, or\n"
      "ax,ay,az@deg for a turn of deg degrees about an axis (0,0,1@90).\n"
      "Far Cry 2/3 clips (docs/edit.md): BONE is a skeleton id (bone_12 or 12), no names; frames stay at the\n"
      "clip's rate (--speed lands on whole frames); --bits, --requantise and --resample are refused (6-byte\n"
      "keys, one frame rate); --reduce re-keys every keyed track within FLOAT degrees.\n"
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab edit corpus/wd2/long_k40.mab -o slow.mab --speed 0.5\n"
      "  mab edit corpus/wd2/long_k40.mab -o fixed.mab --trim 0.2 1.0 --loop-fix --rotate-bone Root 0,0,1@15\n"
      "  mab edit corpus/wd2/long_k40.mab -o small.mab --reduce 0.05 --requantise --max-error 0.02\n"
      "  mab edit corpus/wd2/long_k40.mab -o renamed.mab --rename-bone Root Bip01\n"
      "  mab edit corpus/fc2/retail_bank.mab -o rev.mab --reverse --rotate-bone bone_21 0,0,1@15\n"
      "  mab edit corpus/fc3/retail_bank.mab --block 1 -o slow.mab --speed 0.5\n"
      "Operations run in the order given; the report lists what each did, the chunks reused and\n"
      "re-quantised and the largest error.\n"
      "Exit status: 0 written; 1 the clip or an edit is refused; 2 usage or I/O error (nothing written then).");
  cmd->callback([o, cmd, &exit_code] {
    o->plan = plan_of(*cmd);
    exit_code = run(*o);
  });
}

}  // namespace

MAB_REGISTER_COMMAND(edit, setup);

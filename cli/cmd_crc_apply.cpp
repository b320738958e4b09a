// `mab crc-apply --algo SPEC FILE...`: recompute and store a header checksum field.
#include "command.hpp"
#include "common.hpp"

#include <mab/checksum.hpp>
#include <mab/file_io.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace {

struct Options {
  std::string spec, output;
  std::vector<std::string> files;
  bool check = false, dry_run = false, in_place = false;
};

// Writing needs a place to write: FILE itself (--in-place, a backup first) or -o OUT.
bool usage_ok(const Options& o) {
  const bool writes = !o.check && !o.dry_run;
  const char* why = nullptr;
  if (!o.output.empty() && !writes) why = "-o has nothing to write with --check or --dry-run";
  else if (!o.output.empty() && o.files.size() != 1) why = "-o OUT takes one FILE (use --in-place to rewrite several)";
  else if (writes && o.output.empty() && !o.in_place)
    why = "pass --in-place to rewrite each FILE (kept as FILE.bak, or FILE.bak.1, ... when that exists), or -o OUT";
  if (why) std::fprintf(stderr, "mab: crc-apply: %s\n", why);
  return why == nullptr;
}

int run(const Options& o) {
  using namespace mab::checksum;
  auto spec = parse_spec(o.spec);
  if (!spec) {
    std::fprintf(stderr, "mab: crc-apply: --algo: %s\n", mab::cli::message(spec.error()).c_str());
    return mab::cli::exit_usage;
  }
  if (!usage_ok(o)) return mab::cli::exit_usage;
  const int digits = static_cast<int>(spec->field.length * 2);
  int status = mab::cli::exit_ok;  // the largest status of any file
  auto fail = [&](const std::string& f, const mab::Error& e) {
    std::fprintf(stderr, "mab: crc-apply: %s: %s\n", f.c_str(), mab::cli::message(e).c_str());
    status = std::max(status, mab::cli::exit_status(e));
  };
  for (const auto& f : o.files) {
    auto bytes = mab::read_file(f);
    if (!bytes) {
      fail(f, bytes.error());
      continue;
    }
    auto old_value = read_field(*bytes, spec->field);
    auto new_value = compute_field(*spec, *bytes);
    if (!old_value || !new_value) {
      fail(f, !old_value ? old_value.error() : new_value.error());
      continue;
    }
    const auto from = mab::cli::hex(*old_value, digits);
    const auto to = mab::cli::hex(*new_value, digits);
    if (o.check) {
      const bool ok = *old_value == *new_value;
      std::printf("%s: %s %s\n", f.c_str(), ok ? "ok" : "MISMATCH",
                  ok ? from.c_str() : (from + " expected " + to).c_str());
      if (!ok) status = std::max(status, mab::cli::exit_refused);
      continue;
    }
    if (*old_value == *new_value && o.output.empty()) {
      std::printf("%s: unchanged %s (nothing written)\n", f.c_str(), from.c_str());
      continue;
    }
    if (o.dry_run) {
      std::printf("%s: %s -> %s (dry run)\n", f.c_str(), from.c_str(), to.c_str());
      continue;
    }
    if (auto st = store_field(*bytes, spec->field, *new_value); !st) {
      fail(f, st.error());
      continue;
    }
    const std::string& out = o.output.empty() ? f : o.output;
    int write_status = mab::cli::exit_ok;
    if (!mab::cli::write_output("crc-apply", write_status, {f}, out, o.in_place, *bytes)) {
      status = std::max(status, write_status);
      continue;
    }
    std::printf("%s: %s -> %s%s%s (%zu bytes, as before: only the field at %s changed)\n", f.c_str(), from.c_str(),
                to.c_str(), out == f ? "" : ", written to ", out == f ? "" : out.c_str(), bytes->size(),
                mab::cli::hex(spec->field.offset).c_str());
  }
  return status;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("crc-apply",
                                 "Recompute a header checksum field with a known algorithm and write it (atomically)");
  cmd->add_option("--algo", o->spec,
                  "Checksum spec as printed by crc-search, e.g. 'algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le' "
                  "or 'width=32 poly=0x04c11db7 init=0xffffffff refin=true refout=true xorout=0xffffffff "
                  "range=0x0..eof,zeroed'")
      ->type_name("SPEC")
      ->required();
  cmd->add_option("FILE", o->files, "Files to update")->required();
  cmd->add_option("-o,--output", o->output, "Write the updated FILE here instead (one FILE)");
  cmd->add_flag("--in-place", o->in_place,
                "Rewrite each FILE whose field changes (FILE is kept as FILE.bak, or FILE.bak.1, .bak.2, ... when that "
                "exists)");
  cmd->add_flag("--check", o->check, "Only verify the stored value (exit 1 on a mismatch)");
  cmd->add_flag("-n,--dry-run", o->dry_run, "Print the new values without writing");
  cmd->footer(
      "Ranges: START..END[,zeroed|skipped], START = offset | ani[+N], END = eof[-N] | size[-N] "
      "(size = 0x10 + animationDataSize).\n"
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab crc-apply --algo 'algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le' corpus/wd1/long_k100.mab "
      "-o fixed.mab\n"
      "  mab crc-apply --check --algo 'algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le' fixed.mab\n"
      "  mab crc-apply --algo 'algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le' --in-place fixed.mab\n"
      "Exit status: 0 done; 1 --check found a mismatch, or a file is refused; 2 usage or I/O error.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(crc_apply, setup);

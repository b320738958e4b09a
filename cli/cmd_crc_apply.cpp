// `mab crc-apply --algo SPEC FILE...`: recompute and store a header checksum field.
#include "command.hpp"
#include "common.hpp"

#include <mab/checksum.hpp>
#include <mab/file_io.hpp>

#include <cstdio>
#include <memory>

namespace {

struct Options {
  std::string spec;
  std::vector<std::string> files;
  bool check = false;
  bool dry_run = false;
};

void run(const Options& o, int& exit_code) {
  using namespace mab::checksum;
  auto spec = parse_spec(o.spec);
  if (!spec) {
    std::fprintf(stderr, "mab crc-apply: error: --algo: %s\n", spec.error().message().c_str());
    exit_code = 2;
    return;
  }
  const int digits = static_cast<int>(spec->field.length * 2);
  exit_code = 0;
  for (const auto& f : o.files) {
    auto bytes = mab::read_file(f);
    if (!bytes) {
      std::fprintf(stderr, "mab crc-apply: error: %s: %s\n", f.c_str(), bytes.error().message().c_str());
      exit_code = 2;
      continue;
    }
    auto old_value = read_field(*bytes, spec->field);
    auto new_value = compute_field(*spec, *bytes);
    if (!old_value || !new_value) {
      const auto& err = !old_value ? old_value.error() : new_value.error();
      std::fprintf(stderr, "mab crc-apply: error: %s: %s\n", f.c_str(), err.message().c_str());
      exit_code = 2;
      continue;
    }
    const auto from = mab::cli::hex(*old_value, digits);
    const auto to = mab::cli::hex(*new_value, digits);
    if (o.check) {
      const bool ok = *old_value == *new_value;
      std::printf("%s: %s %s\n", f.c_str(), ok ? "ok" : "MISMATCH", ok ? from.c_str() : (from + " expected " + to).c_str());
      if (!ok && exit_code == 0) exit_code = 1;
      continue;
    }
    if (*old_value == *new_value) {
      std::printf("%s: unchanged %s\n", f.c_str(), from.c_str());
      continue;
    }
    if (!o.dry_run) {
      if (auto st = store_field(*bytes, spec->field, *new_value); !st) {
        std::fprintf(stderr, "mab crc-apply: error: %s: %s\n", f.c_str(), st.error().message().c_str());
        exit_code = 2;
        continue;
      }
      if (auto st = mab::write_file_atomic(f, *bytes); !st) {
        std::fprintf(stderr, "mab crc-apply: error: %s: %s\n", f.c_str(), st.error().message().c_str());
        exit_code = 2;
        continue;
      }
    }
    std::printf("%s: %s -> %s%s\n", f.c_str(), from.c_str(), to.c_str(), o.dry_run ? " (dry run)" : "");
  }
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("crc-apply",
                                 "Recompute a header checksum field with a known algorithm and write it (atomically)");
  cmd->add_option("--algo", o->spec,
                  "Checksum spec as printed by crc-search, e.g. 'algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le' "
                  "or 'width=32 poly=0x04c11db7 init=0xffffffff refin=true refout=true xorout=0xffffffff "
                  "range=0x0..eof,zeroed'")
      ->required();
  cmd->add_option("FILE", o->files, "Files to update in place")->required();
  cmd->add_flag("--check", o->check, "Only verify the stored value (exit 1 on a mismatch)");
  cmd->add_flag("-n,--dry-run", o->dry_run, "Print the new values without writing");
  cmd->footer("Ranges: START..END[,zeroed|skipped], START = offset | ani[+N], END = eof[-N] | size[-N] "
              "(size = 0x10 + animationDataSize).");
  cmd->callback([o, &exit_code] { run(*o, exit_code); });
}

}  // namespace

MAB_REGISTER_COMMAND(crc_apply, setup);

// Test helpers: the synthetic corpus written by scripts/gen_corpus.py.
#pragma once

#include <mab/container.hpp>
#include <mab/file_io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mab::test {

inline std::filesystem::path source_dir() { return MAB_SOURCE_DIR; }
inline std::filesystem::path corpus_dir() { return source_dir() / "corpus"; }

// Good files: corpus/<variant>/*.mab (everything but corpus/bad).
inline std::vector<std::filesystem::path> good_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(corpus_dir())) {
    if (!e.is_regular_file() || e.path().extension() != ".mab") continue;
    if (e.path().parent_path().filename() == "bad") continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Bad files: corpus/bad/*, each with <stem>.expected.json.
inline std::vector<std::filesystem::path> bad_files() {
  std::vector<std::filesystem::path> out;
  const auto dir = corpus_dir() / "bad";
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != ".json" && e.path().extension() != ".md")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::filesystem::path expected_path(const std::filesystem::path& file) {
  auto p = file;
  return p.replace_extension(".expected.json");
}

inline nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

inline std::vector<std::uint8_t> load(const std::filesystem::path& p) {
  auto r = read_file(p);
  return r ? std::move(r).value() : std::vector<std::uint8_t>{};
}

// The Far Cry 2 and Far Cry 3 banks (corpus/fc2, corpus/fc3).
inline std::vector<std::filesystem::path> legacy_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& p : good_files())
    if (p.parent_path().filename() == "fc2" || p.parent_path().filename() == "fc3") out.push_back(p);
  return out;
}

// A corpus file as a container; one that does not read fails the calling test (and is empty).
inline Container load_container(const std::filesystem::path& p) {
  auto c = read_container(load(p));
  EXPECT_TRUE(c.ok()) << p << ": " << (c ? std::string() : c.error().message());
  return c ? std::move(c).value() : Container{};
}

inline std::string name_of(const std::filesystem::path& p) {
  return std::filesystem::relative(p, corpus_dir()).string();
}

}  // namespace mab::test

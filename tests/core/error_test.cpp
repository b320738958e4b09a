// Options named in library texts as {opt:NAME} (mab/error.hpp): each front end spells them.
#include <mab/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace {

std::string as_flag(std::string_view name) { return "--" + std::string(name); }

TEST(ErrorText, OptionsKeepTheirLibraryNameUnlessSpelled) {
  constexpr std::string_view text = "above {opt:max_error} 0.01; nothing written ({opt:max_error} 0.2 accepts it)";
  EXPECT_EQ(mab::spell_options(text), "above max_error 0.01; nothing written (max_error 0.2 accepts it)");
  EXPECT_EQ(mab::spell_options(text, as_flag), "above --max_error 0.01; nothing written (--max_error 0.2 accepts it)");
}

TEST(ErrorText, TextWithoutAWholeMarkerIsKeptAsItIs) {
  EXPECT_EQ(mab::spell_options("{\"a\": 1} {opt:", as_flag), "{\"a\": 1} {opt:");
  EXPECT_EQ(mab::spell_options("", as_flag), "");
  EXPECT_EQ(mab::spell_options("{opt:speed}", as_flag), "--speed");
}

TEST(ErrorText, MessageSpellsTheDetailOnly) {
  const mab::Error e = mab::make_error(mab::ErrorCode::invalid_argument, 0x1c, "max_error", "use {opt:reduce}");
  EXPECT_EQ(e.message(), "invalid_argument at 0x1c (max_error): use reduce");
  EXPECT_EQ(e.message(as_flag), "invalid_argument at 0x1c (max_error): use --reduce");
}

}  // namespace

#!/usr/bin/env python3
"""Tests of scripts/check_sizes: the function finder on C++ that trips a naive brace counter
(braces in strings, comments, raw strings and character literals, brace initialisers in a
constructor's member list, lambdas, class members, namespace-level data), and the limits on a
small tree. Standard library only."""

import importlib.machinery
import importlib.util
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
_loader = importlib.machinery.SourceFileLoader("check_sizes", str(ROOT / "scripts" / "check_sizes"))
_spec = importlib.util.spec_from_loader("check_sizes", _loader)
check_sizes = importlib.util.module_from_spec(_spec)
_loader.exec_module(check_sizes)

SOURCE = r'''// A comment with { and }
#include <string>
#define OPEN {
namespace mab {
namespace {

constexpr int table[] = {1, 2, {3}};

struct Widget : Base {
  Widget(int a) : a_{a}, b_(2), c_{
                                   3} {
    const char* s = "}}}";
    char c = '}';
  }
  int size() const noexcept { return a_; }
  int a_{0}, b_, c_;
};

auto twice = [](int x) {
  return 2 * x;
};

}  // namespace

std::string long_one(int n) {
  std::string s = R"x(} { ")" })x";
  /* } */
  if (n > 0) {
    for (int i = 0; i < n; ++i) { s += "{"; }
  }
  return s;
}

template <class T>
auto trailing(T t) -> decltype(t + 1) {
  return t + 1;
}

}  // namespace mab
'''


class Functions(unittest.TestCase):
    def test_finds_each_function_with_its_lines(self):
        got = check_sizes.functions(SOURCE)
        self.assertEqual(got, [
            ("Widget", 10, 14),
            ("size", 15, 15),
            ("twice", 19, 21),
            ("long_one", 25, 32),
            ("trailing", 34, 37),
        ])

    def test_blank_keeps_lines_and_drops_literals(self):
        clean = check_sizes.blank(SOURCE)
        self.assertEqual(clean.count("\n"), SOURCE.count("\n"))
        self.assertNotIn("}}}", clean)
        self.assertNotIn("'}'", clean)
        self.assertEqual(clean.count("{"), clean.count("}"))

    def test_digit_separator_is_not_a_character_literal(self):
        self.assertEqual(check_sizes.functions("int f() {\n  return 1'000;\n}\nint g() {\n  return 2;\n}\n"),
                         [("f", 1, 3), ("g", 4, 6)])


class Limits(unittest.TestCase):
    def run_tool(self, root, *args):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_sizes.main(["--root", str(root)] + list(args))
        return rc, out.getvalue()

    def make_tree(self, root, body_lines, lib_lines, script_lines):
        (root / "lib" / "src").mkdir(parents=True)
        (root / "cli").mkdir()
        (root / "scripts").mkdir()
        body = "".join("  x += %d;\n" % i for i in range(body_lines - 2))
        (root / "lib" / "src" / "a.cpp").write_text("int f(int x) {\n" + body + "}\n")
        (root / "lib" / "src" / "big.hpp").write_text("// line\n" * lib_lines)
        (root / "scripts" / "tool").write_text("# line\n" * script_lines)
        (root / "cli" / "cmd.cpp").write_text("void setup() {\n}\n")

    def test_at_the_limits_passes(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 120, 700, 1000)
            rc, out = self.run_tool(tmp)
            self.assertEqual(rc, 0, out)
            self.assertIn("0 over a limit", out)

    def test_one_line_over_each_limit_fails_naming_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 121, 701, 1001)
            rc, out = self.run_tool(tmp)
            self.assertEqual(rc, 1)
            self.assertIn("lib/src/a.cpp:1: f is 121 lines", out)
            self.assertIn("lib/src/big.hpp: 701 lines", out)
            self.assertIn(os.path.join("scripts", "tool") + ": 1001 lines", out)
            self.assertIn("3 over a limit", out)

    def test_limits_are_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 121, 701, 1001)
            rc, out = self.run_tool(tmp, "--function-lines", "121", "--lib-lines", "701", "--script-lines", "1001")
            self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()

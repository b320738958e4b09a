#!/usr/bin/env python3
"""Tests of scripts/check_sizes: the function finder on C++ that trips a naive brace counter
(braces in strings, comments, raw strings and character literals, brace initialisers in a
constructor's member list, lambdas, class members, namespace-level data), the Python function
finder (methods, nested functions), and the limits on a small tree: lib/, scripts/, and the
functions of lib/src, cli/, fuzz/, python/ (C++ and Python) and blender/. Standard library only."""

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


PY_SOURCE = '''"""A module."""
import os


def top(a):
    def inner(b):
        return b
    return inner(a)


class Panel:
    """{ not a brace that counts }"""

    def draw(self):
        return 1

    class Nested:
        async def later(self):
            return 2
'''


class PythonFunctions(unittest.TestCase):
    def test_finds_functions_and_methods_not_nested_ones(self):
        self.assertEqual(check_sizes.python_functions(PY_SOURCE), [
            ("top", 5, 8),
            ("Panel.draw", 14, 15),
            ("Panel.Nested.later", 18, 19),
        ])


class Limits(unittest.TestCase):
    def run_tool(self, root, *args):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_sizes.main(["--root", str(root)] + list(args))
        return rc, out.getvalue()

    def make_tree(self, root, body_lines, lib_lines, script_lines, py_lines=80):
        for d in ("lib/src", "cli", "scripts", "fuzz", "python/src", "python/mabkit", "blender/io_anim_mab"):
            (root / d).mkdir(parents=True)
        body = "".join("  x += %d;\n" % i for i in range(body_lines - 2))
        (root / "lib" / "src" / "a.cpp").write_text("int f(int x) {\n" + body + "}\n")
        (root / "fuzz" / "fuzz_a.cpp").write_text("int g(int x) {\n" + body + "}\n")
        (root / "python" / "src" / "bind.cpp").write_text("int h(int x) {\n" + body + "}\n")
        py_body = "".join("    x += %d\n" % i for i in range(py_lines - 2))
        (root / "blender" / "io_anim_mab" / "importer.py").write_text("def run(x):\n" + py_body + "    return x\n")
        (root / "python" / "mabkit" / "m.py").write_text("class C:\n    def m(self, x):\n" + py_body.replace(
            "    x", "        x") + "        return x\n")
        (root / "lib" / "src" / "big.hpp").write_text("// line\n" * lib_lines)
        (root / "scripts" / "tool").write_text("# line\n" * script_lines)
        (root / "cli" / "cmd.cpp").write_text("void setup() {\n}\n")

    def test_at_the_limits_passes(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 120, 700, 1000)
            rc, out = self.run_tool(tmp)
            self.assertEqual(rc, 0, out)
            self.assertIn("0 over a limit", out)
            self.assertIn("(7 files of functions searched, 6 functions)", out)

    def test_one_line_over_each_limit_fails_naming_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 121, 701, 1001, 81)
            rc, out = self.run_tool(tmp)
            self.assertEqual(rc, 1)
            self.assertIn("lib/src/a.cpp:1: f is 121 lines", out)
            self.assertIn(os.path.join("fuzz", "fuzz_a.cpp") + ":1: g is 121 lines (limit 120 for a function)", out)
            self.assertIn(os.path.join("python", "src", "bind.cpp") + ":1: h is 121 lines", out)
            self.assertIn(os.path.join("blender", "io_anim_mab", "importer.py") +
                          ":1: run is 81 lines (limit 80 for a Python function)", out)
            self.assertIn(os.path.join("python", "mabkit", "m.py") + ":2: C.m is 81 lines", out)
            self.assertIn("lib/src/big.hpp: 701 lines", out)
            self.assertIn(os.path.join("scripts", "tool") + ": 1001 lines", out)
            self.assertIn("7 over a limit", out)

    def test_limits_are_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.make_tree(Path(tmp), 121, 701, 1001, 81)
            rc, out = self.run_tool(tmp, "--function-lines", "121", "--lib-lines", "701", "--script-lines", "1001",
                                    "--python-function-lines", "81")
            self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()

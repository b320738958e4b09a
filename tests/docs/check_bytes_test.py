#!/usr/bin/env python3
"""Tests of scripts/check_bytes: it flags bytes joined or split by hand in the shapes the
library used before the rule was kept by code, passes the io/bytes.hpp calls that replaced them,
ignores comments, and honours its list of allowed places only for the file named there.
Standard library only."""

import importlib.machinery
import importlib.util
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
_loader = importlib.machinery.SourceFileLoader("check_bytes", str(ROOT / "scripts" / "check_bytes"))
_spec = importlib.util.spec_from_loader("check_bytes", _loader)
check_bytes = importlib.util.module_from_spec(_spec)
_loader.exec_module(check_bytes)

FLAGGED = [
    "return std::uint32_t{s[pos]} | (std::uint32_t{s[pos + 1]} << 8) | (std::uint32_t{s[pos + 2]} << 16) |",
    "h.count = static_cast<std::uint16_t>(s.bytes[0] | s.bytes[1] << 8);",
    "q[i] = static_cast<std::uint16_t>(b[at + 2 * i] | (b[at + 2 * i + 1] << 8));",
    "const std::size_t group = std::size_t{s3[table]} | std::size_t{s3[table + 1]} << 8 | x;",
    "static_cast<unsigned>(file[0] | file[1] << 8 | file[2] << 16) |",
    "out[2 * i + 1] = static_cast<std::uint8_t>(words[i] >> 8);",
    "s[at + 3] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(e.id) >> 8);",
]
PASSED = [
    "h.count = io::load_u16(s.bytes, 0);",
    "for (unsigned i = 0; i < 3; ++i) io::store_u16(out, 2 * i, words[i]);",
    "c.header = static_cast<std::uint16_t>((static_cast<unsigned>(m[s]) << 8) | static_cast<unsigned>(k[s]));",
    "reg = (reg >> 8) ^ table_[(reg ^ b) & 0xFFu];",
    "// was: s.bytes[0] | s.bytes[1] << 8",
]


class CheckBytes(unittest.TestCase):
    def test_flags_each_hand_made_field(self):
        for line in FLAGGED:
            self.assertEqual(len(check_bytes.problems(Path("lib/src/x.cpp"), line)), 1, line)

    def test_passes_the_replacements_and_non_field_arithmetic(self):
        for line in PASSED:
            self.assertEqual(check_bytes.problems(Path("lib/src/x.cpp"), line), [], line)

    def test_allowed_places_are_per_file(self):
        line = "const std::uint32_t v = std::uint32_t{in[i]} << 16 | std::uint32_t{in[i + 1]} << 8 | in[i + 2];"
        self.assertEqual(check_bytes.problems(ROOT / "lib/src/interchange/gltf/gltf_document.cpp", line), [])
        self.assertEqual(len(check_bytes.problems(ROOT / "lib/src/decode/decode_clip.cpp", line)), 1)

    def test_the_tree_is_clean(self):
        self.assertEqual(check_bytes.main([]), 0)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Tests of scripts/citations: the old-style patterns, their false positives, --rewrite and
--check on small trees. Run: python3 tests/docs/citations_test.py (ctest: citations_tool)."""

import importlib.machinery
import importlib.util
import io
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_loader = importlib.machinery.SourceFileLoader("citations", str(ROOT / "scripts" / "citations"))
_spec = importlib.util.spec_from_loader("citations", _loader)
cit = importlib.util.module_from_spec(_spec)
sys.modules["citations"] = cit  # dataclasses look their module up
_loader.exec_module(cit)


def rw(text, path="x.md"):
    return cit.rewrite_text(path, text)[0]


class OldSpecCitations(unittest.TestCase):
    def test_single_and_capitalised(self):
        self.assertEqual(rw("see spec 9.2."), "see format 9.2.")
        self.assertEqual(rw("Spec 13: FC2"), "Format 13: FC2")
        self.assertEqual(rw("(spec section 14)"), "(format 14)")
        self.assertEqual(rw("spec 9.2's formulas"), "format 9.2's formulas")
        self.assertEqual(rw("spec 9.2 step 4"), "format 9.2 step 4")

    def test_lists_and_ranges(self):
        self.assertEqual(rw("(spec 4.1, 4.2)"), "(format 4.1, 4.2)")
        self.assertEqual(rw("spec 9.2/10.1"), "format 9.2/10.1")
        self.assertEqual(rw("spec 4.1-4.3, 8.1-8.2)"), "format 4.1-4.3, 8.1-8.2)")
        self.assertEqual(rw("Spec 9 and 4: what"), "Format 9 and 4: what")
        self.assertEqual(rw("spec 2-9)"), "format 2-9)")
        self.assertEqual(rw("spec 10, 12; docs/motion.md"), "format 10, 12; docs/motion.md")

    def test_mixed_lists(self):
        self.assertEqual(rw("spec 2, 13, D10: listed"), "format 2, 13, decision 10: listed")
        self.assertEqual(rw("(spec 9.2, D1, D2, D6)"), "(format 9.2, decisions 1, 2, 6)")
        self.assertEqual(rw("(spec 5.1, D1-D3, 9.1, D4)"), "(format 5.1, decisions 1-3, 9.1, decision 4)")
        self.assertEqual(rw("(spec 4.4, C8)"), "(format 4.4, 16 (C8))")
        self.assertEqual(rw("(spec C7)."), "(format 16 (C7)).")
        self.assertEqual(rw("(spec 9.1, 9.2, 9.4; decisions D1-D3, D6, D7)"),
                         "(format 9.1, 9.2, 9.4; decisions 1-3, 6, 7)")

    def test_a_quantity_ends_the_list(self):
        self.assertEqual(rw("(spec 9.2, 8 keys per chunk)"), "(format 9.2, 8 keys per chunk)")
        self.assertEqual(rw("spec 4.1: 4n + n bytes"), "format 4.1: 4n + n bytes")
        self.assertEqual(rw("Spec 3 / Dunia is Z-up"), "Format 3 / Dunia is Z-up")
        self.assertEqual(rw("spec 4.4, C8 need samples"), "format 4.4, 16 (C8) need samples")
        self.assertEqual(rw("format 16 (C3) and 16 (C8) need"), "format 16 (C3) and 16 (C8) need")

    def test_wrapped_in_a_comment(self):
        src = "// the frame (spec\n// 10.1: the same table) and (spec 8.1,\n// 8.2, 10, 12).\nint x;\n"
        self.assertEqual(rw(src, "a.hpp"),
                         "// the frame (format\n// 10.1: the same table) and (format 8.1,\n// 8.2, 10, 12).\nint x;\n")


class OldDecisionsAndContradictions(unittest.TestCase):
    def test_decisions(self):
        self.assertEqual(rw("(D7)"), "(decision 7)")
        self.assertEqual(rw("decision D7 says"), "decision 7 says")
        self.assertEqual(rw("Decision D2: renormalise"), "Decision 2: renormalise")
        self.assertEqual(rw("decisions D1, D2, D6"), "decisions 1, 2, 6")
        self.assertEqual(rw("(9.x, D5, D7)"), "(9.x, decisions 5, 7)")
        self.assertEqual(rw("decisions D1/D2 (both"), "decisions 1/2 (both")
        self.assertEqual(rw("decision D1, D2"), "decisions 1, 2")
        self.assertEqual(rw("cited as D1..D11)"), "cited as decisions 1..11)")
        self.assertEqual(rw("D11's function"), "decision 11's function")
        self.assertEqual(rw("D2 keys are redone"), "decision 2 keys are redone")

    def test_contradictions(self):
        self.assertEqual(rw("position (C3) unconfirmed"), "position (format 16 (C3)) unconfirmed")
        self.assertEqual(rw("(4 files, C8)"), "(4 files, format 16 (C8))")
        self.assertEqual(rw("contradiction C8: layout"), "format 16 (C8): layout")
        self.assertEqual(rw("Contradictions C8, C13."), "Format 16 (C8, C13).")
        self.assertEqual(rw("meaning unknown: C14"), "meaning unknown: format 16 (C14)")


class PathsAndPhrases(unittest.TestCase):
    def test_paths(self):
        self.assertEqual(rw("`../shared/spec/mab-format.md`"), "`docs/format/README.md`")
        self.assertEqual(rw("/work/shared/spec/decisions.md"), "docs/format/decisions.md")
        self.assertEqual(rw("the project decisions (decisions.md)"),
                         "the project decisions (docs/format/decisions.md)")
        self.assertEqual(rw("[decisions.md](decisions.md)"), "[decisions.md](decisions.md)")  # a relative link
        self.assertEqual(rw("see mab-format.md."), "see docs/format/README.md.")

    def test_phrases(self):
        self.assertEqual(rw("written from the spec by"), "written from the format reference by")
        self.assertEqual(rw("the\nspec's 487 tie cases"), "the\nformat reference's 487 tie cases")
        self.assertEqual(rw('the format in x (the "spec") and'), 'the format in x (the "format reference") and')
        self.assertEqual(rw('from x (the\n"spec") and'), 'from x (the\n"format reference") and')
        self.assertEqual(rw("extent by the spec 8.3 rule"), "extent by the format 8.3 rule")
        self.assertEqual(rw("aggregates for spec work"), "aggregates for format work")
        self.assertEqual(rw("(spec [guess] readings)"), "(format reference [guess] readings)")


class FalsePositives(unittest.TestCase):
    UNCHANGED = [
        "0xD2 0xC3 0xd2 00D2FF D3D11 SD2 D2_x CRC-32 C++ C++20 UTF-8 JB-DOC QJ-WD1 OSM-DEC",
        "glTF 4.4 (GLB); version 2.0; 10.3 ms; sections 1, 0, 2",
        "checksum spec as printed; a spec crc-apply accepts; spec: algo=CRC-32; `spec`.",
        "shared/spec.field, spec[k], spec_x, specs",
        "format 9.2, decision 7, format 16 (C8), decisions 1-3, Format 13",  # the new form
        "CD2 AD7 x/D2 a-C3 #C3 =D2",
    ]

    def test_text_unchanged(self):
        for text in self.UNCHANGED:
            self.assertEqual(rw(text), text)

    def test_cpp_identifiers_unchanged(self):
        src = ("using D2 = double __attribute__((vector_size(16)));\n"
               "const D2 s = v[0] * v[0];  // no D2 overflow first\n"
               "auto C3 = 1; char c = 'D'; int n = 1'000;\n"
               'const char* t = "kept, D5"; // spec 4.1\n')
        want = ("using D2 = double __attribute__((vector_size(16)));\n"
                "const D2 s = v[0] * v[0];  // no decision 2 overflow first\n"
                "auto C3 = 1; char c = 'D'; int n = 1'000;\n"
                'const char* t = "kept, decision 5"; // format 4.1\n')
        self.assertEqual(rw(src, "a.cpp"), want)

    def test_raw_string_and_block_comment(self):
        src = 'auto j = R"({"x": "spec 13"})"; /* D8 */ int D8x;\n'
        self.assertEqual(rw(src, "a.cpp"), 'auto j = R"({"x": "format 13"})"; /* decision 8 */ int D8x;\n')

    def test_python_identifiers_unchanged(self):
        src = 'D2 = 3  # D2 here is decision D2\nspec = {"slots": 1}\nx = f"(spec 9.2) {D2}"\n'
        want = 'D2 = 3  # decision 2 here is decision 2\nspec = {"slots": 1}\nx = f"(format 9.2) {D2}"\n'
        self.assertEqual(rw(src, "g.py"), want)

    def test_json_data_uri_unchanged(self):
        src = '{"uri": "data:application/octet-stream;base64,AA+C3/D2 spec 9", "why": "spec 13, D10"}'
        want = '{"uri": "data:application/octet-stream;base64,AA+C3/D2 spec 9", "why": "format 13, decision 10"}'
        self.assertEqual(rw(src, "a.json"), want)

    def test_rewrite_is_idempotent(self):
        text = "(spec 4.4, C8; D5, D7) spec C7 the spec's (C3) spec 2, 13, D10 decisions D1/D2"
        once = rw(text)
        self.assertEqual(rw(once), once)
        self.assertEqual([m for m in cit.scan_file("x.md", once) if m.replacement is not None], [])


class Unmappable(unittest.TestCase):
    def test_unknown_old_numbers_are_errors(self):
        for text in ("decision D12", "(spec 18)", "spec 9.7", "C15"):
            _, matches = cit.rewrite_text("x.md", text)
            self.assertTrue(any(m.errors for m in matches), text)


def make_tree(root: Path, files: dict):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


# A minimal reference: every target of the old-style mapping, plus what the tests cite.
REFERENCE = {
    "docs/format/README.md": "# Format\n\n## How to cite\n",
    "docs/format/parts.md": "".join(f"## {s} Part\n" for s in sorted(cit.SECTION_MAP.values())),
    "docs/format/16-contradictions.md": "".join(f"### C{c} x\n" for c in sorted(cit.CONTRADICTIONS_OLD)),
    "docs/format/decisions.md": "# Decisions\n\n" + "".join(f"## Decision {d}: x\n" for d in range(1, 12)),
    "docs/format/sources.md": "# Sources\n\n| Key | Repository |\n|---|---|\n| QJ-WD1 | x |\n| JB-DOC | y |\n",
}


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cit.main(argv)
    return rc, out.getvalue(), err.getvalue()


class CheckAndRewriteOnATree(unittest.TestCase):
    def test_check_passes_on_valid_citations(self):
        with tempfile.TemporaryDirectory() as d:
            make_tree(Path(d), {**REFERENCE, "lib/a.cpp": "// format 9.2, 9.1; decision 7; format 16 (C8); QJ-WD1\n"})
            rc, out, err = run(["--check", "--root", d])
            self.assertEqual(rc, 0, err)
            self.assertIn("3 section, 1 decision, 1 contradiction", out)

    def test_check_needs_every_mapping_target(self):
        with tempfile.TemporaryDirectory() as d:
            ref = dict(REFERENCE)
            ref["docs/format/decisions.md"] = "## Decision 1: x\n"
            make_tree(Path(d), ref)
            rc, _, err = run(["--check", "--root", d])
            self.assertEqual(rc, 1)
            self.assertIn("decision 11 (a target of the old-style mapping) is missing", err)

    def test_check_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            make_tree(Path(d), {**REFERENCE, "lib/a.cpp": "int x;\n// format 9.7\n// decision 18\n"
                                                         "// format 16 (C19)\n// QJ-FC9 says\n// spec 9.2\n"})
            rc, _, err = run(["--check", "--root", d])
            self.assertEqual(rc, 1)
            self.assertIn("lib/a.cpp:2: 'format 9.7': section 9.7 does not exist", err)
            self.assertIn("lib/a.cpp:3: 'decision 18': decision 18 does not exist", err)
            self.assertIn("lib/a.cpp:4: 'format 16 (C19)': contradiction C19 is not listed", err)
            self.assertIn("lib/a.cpp:5: source key QJ-FC9 is not defined", err)
            self.assertIn("lib/a.cpp:6: old-style citation 'spec 9.2'", err)

    def test_rewrite_then_check(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            make_tree(root, {**REFERENCE,
                             "lib/a.cpp": "// spec 9.2 (D7), spec 4.4, C8\nconst D2 x = 1;\n",
                             "tests/CMakeLists.txt": "add_test(NAME citations COMMAND x)\n"
                                                     f"set_tests_properties(citations PROPERTIES DISABLED TRUE)  # {cit.ENABLE_MARKER}\n"})
            self.assertEqual(run(["--check", "--root", d])[0], 1)
            rc, out, _ = run(["--rewrite", "--dry-run", "--root", d])
            self.assertEqual(rc, 0)
            self.assertIn("would rewrite 3 citation(s)", out)
            self.assertIn("//", (root / "lib/a.cpp").read_text())
            self.assertIn("spec 9.2", (root / "lib/a.cpp").read_text())  # dry run wrote nothing
            rc, out, _ = run(["--rewrite", "--root", d])
            self.assertEqual(rc, 0)
            self.assertIn("rewrote 3 citation(s)", out)
            self.assertEqual((root / "lib/a.cpp").read_text(),
                             "// format 9.2 (decision 7), format 4.4, 16 (C8)\nconst D2 x = 1;\n")
            self.assertNotIn("DISABLED", (root / "tests/CMakeLists.txt").read_text())
            rc, _, err = run(["--check", "--root", d])
            self.assertEqual(rc, 0, err)

    def test_rewrite_is_all_or_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            make_tree(root, {**REFERENCE, "a.md": "spec 9.2\n", "b.md": "see D12\n"})
            rc, _, err = run(["--rewrite", "--root", d])
            self.assertEqual(rc, 1)
            self.assertIn("b.md:1: 'D12'", err)
            self.assertEqual((root / "a.md").read_text(), "spec 9.2\n")


if __name__ == "__main__":
    unittest.main(verbosity=1)

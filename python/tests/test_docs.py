"""docs/python.md's examples: every ```python block, in order, in one namespace, in a folder
where corpus/ is the repository's corpus (so the files they write land there)."""
import contextlib
import io
import os
import re

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def blocks():
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_the_doc_has_examples():
    assert len(blocks()) >= 8


def test_examples_run(tmp_path):
    (tmp_path / "corpus").symlink_to(ROOT / "corpus")
    here = os.getcwd()
    os.chdir(tmp_path)
    out = io.StringIO()
    try:
        ns = {"__name__": "__doc_examples__"}
        for i, code in enumerate(blocks()):
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{DOC.name} example {i + 1}", "exec"), ns)
    finally:
        os.chdir(here)
    printed = out.getvalue()
    # The outputs the text quotes.
    assert "wd1 | Watch Dogs | ani" in printed
    assert "bad_value rotations[3, 1]" in printed
    assert "invalid_argument bones[0].translations" in printed
    assert "[29] 100 -> 101" in printed
    for name in ("turned.mab", "trimmed.mab", "bank_edited.mab"):
        assert (tmp_path / name).exists()

#!/usr/bin/env python3
"""scripts/check_format on files of its own: a file laid out as .clang-format says passes, one
that is not fails naming it, and --fix rewrites it to the layout that then passes."""

import subprocess
import sys
import tempfile
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "scripts" / "check_format"


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as d:
        good, bad = Path(d) / "good.cpp", Path(d) / "bad.cpp"
        good.write_text("int f() { return 1; }\n")
        bad.write_text("int  f( ){return 1;}\n")
        r = run(good)
        assert r.returncode == 0, r.stdout + r.stderr
        r = run(good, bad)
        assert r.returncode == 1 and f"not formatted: {bad}" in r.stdout and str(good) not in r.stdout, r.stdout
        r = run("--fix", bad)
        assert r.returncode == 0 and bad.read_text() == "int f() { return 1; }\n", bad.read_text()
        assert run(bad).returncode == 0
    print("check_format_test: 4 cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

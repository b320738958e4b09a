#!/usr/bin/env python3
"""Runs every `mab` line of the README's sh blocks, as written, from a scratch folder.

usage: readme_examples.py MAB README.md CORPUS_DIR [PYTHON_MODULE_DIR]

With PYTHON_MODULE_DIR (the build's python/ folder), the README's
`PYTHONPATH=build/release/python python3 ...` lines run too, with that folder and this
interpreter; `cmake --build` lines are what built it and are not run again.

The scratch folder holds a link `corpus` to the repository's corpus, so the README's paths
resolve as they do from the source folder. A line must exit 0 unless it ends with `# exit N`
(the convention of the --help examples, CONTRIBUTING.md). Blender's part of the glTF steps is
a comment in the README; its output `walk_edit.glb` is stood in for by the unedited export
(the real Blender steps are the ctest blender_roundtrip_readme). Fails when the README has no
example left, so the test cannot pass by losing them.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# Files the README's comment steps make outside mab (in Blender), and what stands in for them.
STAND_INS = {"walk_edit.glb": "walk.glb"}


PYTHON_PREFIX = "PYTHONPATH=build/release/python python3 "


def examples(readme_text, with_python):
    for block in re.findall(r"```sh\n(.*?)```", readme_text, re.S):
        for line in block.splitlines():
            if line.startswith("mab ") or (with_python and line.startswith(PYTHON_PREFIX)):
                yield line


def expected_status(line):
    m = re.search(r"#\s*exit\s+(\d+)", line)
    return int(m.group(1)) if m else 0


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    mab, readme, corpus = (os.path.abspath(a) for a in sys.argv[1:4])
    module_dir = os.path.abspath(sys.argv[4]) if len(sys.argv) == 5 else None
    with open(readme) as f:
        lines = list(examples(f.read(), module_dir is not None))
    if len(lines) < 5:
        print("readme_examples: only %d mab example(s) found in %s" % (len(lines), readme), file=sys.stderr)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory(prefix="mab_readme_") as work:
        os.symlink(corpus, os.path.join(work, "corpus"))
        for line in lines:
            command = line.split("#", 1)[0].strip()
            args = shlex.split(command)
            for name, source in STAND_INS.items():
                if name in args and not os.path.exists(os.path.join(work, name)):
                    shutil.copy(os.path.join(work, source), os.path.join(work, name))
            if line.startswith(PYTHON_PREFIX):
                env = dict(os.environ, PYTHONPATH=module_dir)
                argv = [sys.executable] + args[2:]
            else:
                env, argv = None, [mab] + args[1:]
            r = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=300, env=env)
            want = expected_status(line)
            ok = r.returncode == want
            print("%s  %s  (exit %d)" % ("ok  " if ok else "FAIL", command, r.returncode))
            if not ok:
                failures += 1
                print("  expected exit %d; stderr: %s" % (want, r.stderr.strip()[-400:]))
    print("%d example(s), %d failed" % (len(lines), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

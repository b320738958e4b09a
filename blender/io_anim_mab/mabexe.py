"""The `mab` executable the add-on drives (docs/blender.md, "How the add-on runs mab").

The add-on reads and writes `.mab` files only through `mab` over the JSON route (`mab export
FILE --block N -o -`, `mab import - --template FILE -o OUT`), so the codec, the error policy,
the template identity rules and the output safety are the command line's, and no compiled
Python module has to match Blender's Python. Which `mab`, in this order: the one set in the
add-on's preferences; the one bundled in the add-on (`bin/mab`, `bin/mab.exe` on Windows);
`mab` on PATH.
"""
import json
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXE_NAME = "mab.exe" if sys.platform == "win32" else "mab"
BUNDLED = os.path.join(HERE, "bin", EXE_NAME)


class MabError(Exception):
    """`mab` missing, or a command it refused: the message is one line (the dialog shows it)."""


def one_line(text):
    """The line of `mab`'s stderr that says why (its `mab: ...` error line), else the last one."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if l.startswith("mab:"):
            return l
    return lines[-1] if lines else "no message"


def _make_runnable(path):
    # Blender's add-on installer unzips without the mode bits: the bundled file arrives 0644.
    mode = os.stat(path).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def find(pref_path=""):
    """(path, where) of the `mab` to run; MabError naming what was looked for."""
    if pref_path:
        if os.path.isfile(pref_path):
            return pref_path, "preferences"
        raise MabError("the mab executable set in the add-on's preferences does not exist: %s" % pref_path)
    if os.path.isfile(BUNDLED):
        _make_runnable(BUNDLED)
        return BUNDLED, "bundled"
    on_path = shutil.which("mab")
    if on_path:
        return on_path, "PATH"
    raise MabError("no mab executable: this add-on zip carries none (%s) and none is on PATH; install the "
                   "zip for your platform or set the path in Edit > Preferences > Add-ons > "
                   "Dunia/Disrupt animation" % BUNDLED)


class Mab:
    def __init__(self, pref_path=""):
        self.path, self.where = find(pref_path)

    def run(self, args, stdin=None):
        """(stdout bytes, stderr text) of `mab ARGS`; MabError with its error line on a non-zero exit."""
        kw = {}
        if sys.platform == "win32":
            kw["creationflags"] = 0x08000000  # CREATE_NO_WINDOW: no console flashing up
        try:
            p = subprocess.run([self.path] + list(args), input=stdin, capture_output=True, **kw)
        except OSError as e:
            raise MabError("cannot run %s: %s" % (self.path, e))
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != 0:
            raise MabError(one_line(err))
        return p.stdout, err

    def version(self):
        out, _ = self.run(["--version"])
        return out.decode("utf-8", "replace").strip()

    def info(self, path):
        """`mab info --json FILE`'s object for the file."""
        out, _ = self.run(["info", "--json", path])
        return json.loads(out)[0]

    def export_json(self, path, block):
        """One block's `mabkit-clip` document (docs/json-format.md), as `mab export` wrote it. Version 3,
        asked for by name: every game's tracks in "clip" and "motion" (Far Cry 2/3 blocks too), the
        one shape clipdata.py reads and writes back."""
        out, _ = self.run(["export", path, "--block", str(block), "--format", "json", "--json-version", "3",
                           "-o", "-"])
        return out

    def import_json(self, doc_bytes, template, out_path, max_error, max_translation_error=None, in_place=False):
        """Writes `out_path` from the document through `mab import` (its output rules: a link kept,
        a device written to, a folder refused, the template itself only with in_place, keeping a
        .bak). Returns mab's report lines."""
        args = ["import", "-", "--template", template, "-o", out_path, "--max-error", repr(float(max_error))]
        if max_translation_error is not None:
            args += ["--max-translation-error", repr(float(max_translation_error))]
        if in_place:
            args.append("--in-place")
        out, err = self.run(args, stdin=doc_bytes)
        text = out.decode("utf-8", "replace") + err
        return [l.rstrip() for l in text.splitlines() if l.strip()]

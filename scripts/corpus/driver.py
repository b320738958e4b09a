"""The driver: builds every good and bad file, has the oracle re-read each good one, asserts the
coverage and size limits, writes the corpus and its README (from readme_head.md), and compares a
fresh generation with a folder for --check."""

import argparse
import filecmp
import json
import tempfile
from pathlib import Path

from .ani_writer import BASE_NAMES
from .bad import CASES, build_bad
from .base import STATS, reset_stats, seeded_rng
from .good import good_cases
from .reader import verify_good
from .spec import VARIANTS

REPO = Path(__file__).resolve().parent.parent.parent
README_HEAD = Path(__file__).resolve().parent / "readme_head.md"
MAX_FILE = 64 * 1024
MAX_TOTAL = 1024 * 1024


def _is_leaf(v):
    if isinstance(v, (list, tuple)):
        return all(not isinstance(x, (dict, list, tuple)) for x in v) or \
            all(isinstance(x, (list, tuple)) and _is_leaf(x) for x in v)
    if isinstance(v, dict):
        return all(not isinstance(x, (dict, list, tuple)) for x in v.values())
    return True


def dumps(v, ind=0):
    sp = "  " * (ind + 1)
    if isinstance(v, dict):
        if not v:
            return "{}"
        if _is_leaf(v) and len(v) <= 6:
            return json.dumps(v, separators=(", ", ": "))
        parts = ["%s%s: %s" % (sp, json.dumps(k), dumps(x, ind + 1)) for k, x in v.items()]
        return "{\n" + ",\n".join(parts) + "\n" + "  " * ind + "}"
    if isinstance(v, (list, tuple)):
        if _is_leaf(v):
            return json.dumps(v, separators=(",", ":")) if any(isinstance(x, (list, tuple)) for x in v) \
                else json.dumps(v, separators=(", ", ": "))
        parts = [sp + dumps(x, ind + 1) for x in v]
        return "[\n" + ",\n".join(parts) + "\n" + "  " * ind + "]"
    return json.dumps(v)


def generate(out):
    """Write everything into out (created). Returns the list of relative paths written."""
    reset_stats()
    out = Path(out)
    written = {}
    rows = []
    for variant, name, fn in good_cases():
        rng = seeded_rng(variant, name)
        data, doc = fn(rng)
        data = bytes(data)
        doc = json.loads(dumps(doc))                   # compare exactly what is written
        verify_good(data, doc)
        rel = "%s/%s" % (variant, name)
        written[rel + ".mab"] = data
        written[rel + ".expected.json"] = (dumps(doc) + "\n").encode()
        rows.append((rel + ".mab", len(data), doc["description"]))
    for case in CASES:
        rng = seeded_rng("bad", case.name)
        data, doc = build_bad(case, rng)
        data = bytes(data)
        doc["file_size"] = len(data)
        rel = "bad/" + case.name
        # ".bad", not ".mab": `mab verify corpus/` looks for *.mab and must see only good files.
        written[rel + ".bad"] = data
        written[rel + ".expected.json"] = (dumps(doc) + "\n").encode()
        rows.append((rel + ".bad", len(data), "%s/%s at 0x%X (%s): %s" % (
            doc["stage"], doc["error"], doc["offset"], doc["field"], doc["description"])))
    # coverage and size limits
    assert STATS["cflags"] == set(range(64)), sorted(set(range(64)) - STATS["cflags"])
    assert {1, 16} <= STATS["nbits"]
    assert {1, 7, 8, 9, 16, 17} <= STATS["key_counts"]
    assert STATS["overflow_keys"] > 0 and STATS["normal_keys"] > 0
    assert STATS["identity_const"] > 0
    assert STATS["tcflags"] == set(range(8)), sorted(set(range(8)) - STATS["tcflags"])
    for rel, d in written.items():
        assert len(d) <= MAX_FILE, (rel, len(d))
    # The names make_bones hashes, for `mab export --names` (its --help examples use it).
    written["bone_names.txt"] = ("".join(n + "\n" for n in BASE_NAMES)).encode()
    written["README.md"] = readme(rows).encode()
    total = sum(len(d) for d in written.values())
    assert total <= MAX_TOTAL, total
    for rel, d in written.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(d)
    return written


def managed_files(out):
    """Files in out that this generator owns (README, variant folders, bad)."""
    out = Path(out)
    found = set()
    for name in ("README.md", "bone_names.txt"):
        if (out / name).exists():
            found.add(name)
    for sub in VARIANTS + ["bad"]:
        d = out / sub
        if d.is_dir():
            for p in d.iterdir():
                if p.is_file() and not p.name.startswith("."):
                    found.add("%s/%s" % (sub, p.name))
    return found


def describe_diff(rel, a, b):
    if rel.endswith(".json"):
        try:
            ja, jb = json.loads(a), json.loads(b)
        except ValueError:
            return "invalid JSON"
        paths = []

        def walk(x, y, path):
            if len(paths) >= 5:
                return
            if type(x) != type(y):
                paths.append(path or "/")
            elif isinstance(x, dict):
                for k in sorted(set(x) | set(y)):
                    if k not in x or k not in y:
                        paths.append("%s/%s" % (path, k))
                    else:
                        walk(x[k], y[k], "%s/%s" % (path, k))
            elif isinstance(x, list):
                if len(x) != len(y):
                    paths.append("%s (length %d vs %d)" % (path, len(x), len(y)))
                for i, (p, q) in enumerate(zip(x, y)):
                    walk(p, q, "%s[%d]" % (path, i))
            elif x != y:
                paths.append("%s: %r vs %r" % (path, x, y))
        walk(ja, jb, "")
        return "JSON differs at " + "; ".join(paths) if paths else "JSON formatting differs"
    if len(a) != len(b):
        return "size %d (committed) vs %d (regenerated)" % (len(a), len(b))
    first = next(i for i in range(len(a)) if a[i] != b[i])
    return "first differing byte at 0x%X" % first


def check(out):
    out = Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        written = generate(tmp)
        fresh = set(written)
        have = managed_files(out)
        problems = []
        for rel in sorted(fresh - have):
            problems.append("missing: %s" % rel)
        for rel in sorted(have - fresh):
            problems.append("unexpected: %s" % rel)
        for rel in sorted(fresh & have):
            if not filecmp.cmp(str(Path(tmp) / rel), str(out / rel), shallow=False):
                problems.append("differs: %s: %s" % (rel, describe_diff(
                    rel, (out / rel).read_bytes(), (Path(tmp) / rel).read_bytes())))
    for p in problems:
        print(p)
    if problems:
        print("check: %d difference(s) between %s and a fresh generation" % (len(problems), out))
        return 1
    print("check: %s matches a fresh generation (%d files)" % (out, len(fresh)))
    return 0


def readme(rows):
    lines = [README_HEAD.read_text().rstrip("\n")]
    for rel, size, desc in rows:
        lines.append("| `%s` | %d | %s |" % (rel, size, desc.replace("|", "\\|")))
    nfiles = len(rows)
    total = sum(r[1] for r in rows)
    lines.append("")
    lines.append("%d `.mab` files, %d bytes in total (each has an `.expected.json` beside it)." %
                 (nfiles, total))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate the SYNTHETIC .mab test corpus for mabkit.")
    ap.add_argument("--out", default=str(REPO / "corpus"), help="output folder (default: <repo>/corpus)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temp dir and compare with --out; exit 1 on any difference")
    args = ap.parse_args(argv)
    if args.check:
        return check(args.out)
    out = Path(args.out)
    stale = managed_files(out)
    written = generate(out)
    for rel in sorted(stale - set(written)):
        if rel.endswith(".mab") or rel.endswith(".expected.json"):
            (out / rel).unlink()
            print("removed stale %s" % rel)
    nmab = sum(1 for r in written if r.endswith(".mab"))
    total = sum(len(d) for d in written.values())
    print("wrote %d .mab files (+ expected.json, README.md) to %s, %d bytes" % (nmab, out, total))
    return 0

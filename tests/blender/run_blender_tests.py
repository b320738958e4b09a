#!/usr/bin/env python3
"""The modder's round trip, judged by real Blender (ctest label `blender`).

For corpus clips of every 'aNi' game: `mab export` to GLB, Blender's own glTF importer
(checked keyframe by keyframe against mabkit's decode), optionally one bone turned at one
keyframe, Blender's own glTF exporter, `mab import --template`, `mab verify`, then:

  --mode unedited: the template's bytes back, exactly;
  --mode edited:   only the edited bone changed beyond the error `mab import` reports, and
                   its edited key by the angle Blender applied.

Blender missing is a failure naming scripts/setup: CI installs it.
"""
import argparse
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (corpus file, names given with --names): one clip per game whose rotations decode.
CASES = [
    ("wd1/long_k100.mab", ["Root", "Pelvis"]),
    ("wd1/mixed_k17_padded_markup.mab", []),
    ("wd1/many_bones_150.mab", []),
    ("wdl/long_k60_alias.mab", ["Root"]),
    ("wdl/many_bones_120.mab", []),
    ("wd2/many_bones_200.mab", []),
    ("fc5/three_blocks.mab", ["Root"]),
    ("fc4/long_k45.mab", []),
]
EDIT_DEGREES = 20.0
# Angles measured here and by mabkit from the same float32 quaternions agree only to their
# precision: 2^-24 per component gives about 2.4e-7 rad, 1.4e-5 degrees.
MEASURE_DEG = 2e-5


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        fail("%s exited %d\nstdout: %s\nstderr: %s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def crc32_name(name):
    import zlib
    return zlib.crc32(name.encode("latin-1")) & 0xFFFFFFFF


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def clip_of(mab, path, block, work, tag="clip"):
    out = os.path.join(work, "%s_%d.json" % (tag, block))
    run([mab, "export", path, "--block", str(block), "-o", out])
    with open(out) as f:
        return json.load(f)["clip"]


def block_count(mab, path):
    info = json.loads(run([mab, "info", "--json", path]))
    return len(info[0]["blocks"])


def angle_deg(a, b):
    d = abs(sum(x * y for x, y in zip(a, b)))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return math.degrees(2 * math.acos(min(1.0, d / (na * nb))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--mode", choices=["unedited", "edited"], required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    blender = os.environ.get("MAB_BLENDER") or shutil.which("blender")
    if not blender:
        fail("blender not found: run scripts/setup, which installs Debian's blender and python3-numpy")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    cases, meta = [], {}
    for rel, names in CASES:
        src = os.path.join(ROOT, "corpus", rel)
        name = rel.replace("/", "_").replace(".mab", "")
        work = os.path.join(args.work, name)
        os.makedirs(work)
        glb = os.path.join(work, "export.glb")
        cmd = [args.mab, "export", src, "-o", glb]
        if names:
            names_file = os.path.join(work, "names.txt")
            with open(names_file, "w") as f:
                f.write("\n".join(names) + "\n")
            cmd += ["--names", names_file]
        run(cmd)
        named = {crc32_name(n): n for n in names}
        blocks = []
        for b in range(block_count(args.mab, src)):
            clip = clip_of(args.mab, src, b, work)
            times = [f32(t / clip["key_rate"]) for t in clip["key_times"]]
            bones = []
            seen = {}
            for bone in clip["bones"]:
                h = int(bone["hash"], 16)
                occ = seen.get(h, 0)
                seen[h] = occ + 1
                label = named.get(h, "bone_0x%08X" % h) + (".dup%d" % occ if occ else "")
                if "keys" in bone:
                    bones.append({"name": label, "keys": bone["keys"]})
                elif "constant" in bone:
                    bones.append({"name": label, "keys": [bone["constant"]]})
            if bones:
                blocks.append({"block": b, "times": times, "bones": bones})
        case = {"name": name, "gltf": glb, "out": os.path.join(work, "blender.glb"), "blocks": blocks}
        if args.mode == "edited":
            # The animated bone with the most keys; a key in its middle.
            blk, bone = max(((bl, bn) for bl in blocks for bn in bl["bones"] if len(bn["keys"]) > 1),
                            key=lambda p: len(p[1]["keys"]))
            case["edit"] = {"block": blk["block"], "bone": bone["name"], "key": len(bone["keys"]) // 2,
                            "degrees": EDIT_DEGREES}
        cases.append(case)
        meta[name] = (src, work)

    job = os.path.join(args.work, "job.json")
    report_path = os.path.join(args.work, "report.json")
    with open(job, "w") as f:
        json.dump({"cases": cases, "report": report_path}, f)
    # Debian's Blender embeds the system Python and takes its home from the first python3 on
    # PATH: a python3 from elsewhere (pyenv, a virtualenv) would hide the system's numpy.
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
    p = subprocess.run([blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "blender_side.py"),
                        "--", job], capture_output=True, text=True, timeout=600, env=env)
    if not os.path.exists(report_path):
        fail("Blender wrote no report (exit %d)\n%s\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    with open(report_path) as f:
        report = json.load(f)
    print("Blender %s" % report["blender"])

    failures = []
    for case, rep in zip(cases, report["cases"]):
        name = case["name"]
        src, work = meta[name]
        if not rep["ok"]:
            failures.append("%s: in Blender: %s\n%s" % (name, rep.get("error"), rep.get("trace", "")))
            continue
        # Blender's keyframes hold our floats through its change of basis (float32 arithmetic).
        if rep["worst_value_deg"] > 1e-3 or rep["worst_frame"] > 1e-3 or rep["worst_pose_deg"] > 1e-3:
            failures.append("%s: Blender's keyframes differ from mabkit's decode: value %.3g deg, frame %.3g, "
                            "pose %.3g deg" % (name, rep["worst_value_deg"], rep["worst_frame"],
                                               rep["worst_pose_deg"]))
            continue
        back = os.path.join(work, "back.mab")
        out = run([args.mab, "import", case["out"], "--template", src, "-o", back])
        run([args.mab, "verify", back])
        m = re.findall(r"max angular error ([0-9.]+) degrees", out)
        reported = max(float(x) for x in m) if m else 0.0
        line = "%s: %d keyframes match (worst %.2g deg, frame %.2g)" % (
            name, rep["keyframes"], rep["worst_value_deg"], rep["worst_frame"])
        if args.mode == "unedited":
            with open(src, "rb") as a, open(back, "rb") as b:
                same = a.read() == b.read()
            if not same:
                failures.append("%s: unedited round trip through Blender changed the bytes\n%s" % (name, out))
                continue
            print(line + "; imported back byte for byte")
            continue
        edit = case["edit"]
        b = edit["block"]
        before = clip_of(args.mab, src, b, work)
        after = clip_of(args.mab, back, b, work, "after")
        problems = []
        edited_delta = None
        for i, (ob, nb) in enumerate(zip(before["bones"], after["bones"])):
            okeys = ob.get("keys") or [ob.get("constant")]
            nkeys = nb.get("keys") or [nb.get("constant")]
            h = int(ob["hash"], 16)
            label_matches = edit["bone"].startswith("bone_0x%08X" % h) or crc32_name(edit["bone"]) == h
            if okeys[0] is None:
                continue
            for k, (q0, q1) in enumerate(zip(okeys, nkeys)):
                d = angle_deg(q0, q1)
                if label_matches and k == edit["key"]:
                    edited_delta = d
                elif label_matches:
                    if d > reported + MEASURE_DEG:
                        problems.append("edited bone, key %d moved %.6f deg > reported %.6f" % (k, d, reported))
                elif q0 != q1:
                    problems.append("bone %s key %d changed (%.6f deg) though it was not edited" % (ob["hash"], k, d))
        if edited_delta is None:
            problems.append("edited key not found")
        elif abs(edited_delta - rep["edited"]["degrees"]) > reported + 1e-3:
            problems.append("edited key moved %.6f deg, Blender applied %.6f (reported error %.6f)" % (
                edited_delta, rep["edited"]["degrees"], reported))
        if problems:
            failures.append("%s: %s\n%s" % (name, "; ".join(problems[:5]), out))
            continue
        print(line + "; edit of %.1f deg on %s key %d came back as %.4f deg, every other bone bit for bit, "
              "reported error %.6f deg" % (rep["edited"]["degrees"], edit["bone"], edit["key"], edited_delta,
                                            reported))
    if failures:
        fail("\n".join(failures))
    print("PASS: %d clips through Blender (%s)" % (len(cases), args.mode))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The modder's round trip, judged by real Blender (ctest label `blender`).

For corpus clips of every 'aNi' game and Far Cry 2/3 banks (translations, root motion and
chained clips included): `mab export` to GLB, Blender's own glTF importer
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
# Far Cry 2/3 banks: rotations with their own sparse key times, translations, root motion,
# chained clips.
LEGACY_CASES = ["fc2/all_arrays.mab", "fc2/chain_3.mab", "fc3/all_arrays.mab", "fc3/swapped_01.mab",
                # a bone both constant and keyed (its constant on bone_<id>_constant); the retail
                # layout with a tag table and a constant-only clip; Blood Dragon in the FC3 layout
                "fc2/many_tracks.mab", "fc2/retail_bank.mab", "fc3bd/legacy_bank.mab"]
EDIT_DEGREES = 20.0
EDIT_OFFSET = 0.25  # units along a bone's axis (Far Cry 2/3 translation edit)
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


def legacy_clip_of(mab, path, block, work, tag="legacy"):
    out = os.path.join(work, "%s_%d.json" % (tag, block))
    run([mab, "export", path, "--block", str(block), "-o", out])
    with open(out) as f:
        return json.load(f)["legacy_clip"]


def slerp(a, b, t):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 0.9995:
        q = [x + t * (y - x) for x, y in zip(a, b)]
    else:
        th = math.acos(min(1.0, d))
        sa, sb = math.sin((1 - t) * th) / math.sin(th), math.sin(t * th) / math.sin(th)
        q = [sa * x + sb * y for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def rotation_at(track, frame):
    """A keyed track at any frame: its key there, or the slerp between the keys around it."""
    fr, ks = track["frames"], track["keys"]
    if frame <= fr[0]:
        return ks[0]
    for i in range(len(fr) - 1):
        if fr[i] <= frame <= fr[i + 1]:
            return slerp(ks[i], ks[i + 1], (frame - fr[i]) / (fr[i + 1] - fr[i]))
    return ks[-1]


def legacy_case(mab, rel, root_work, mode):
    src = os.path.join(ROOT, "corpus", rel)
    name = rel.replace("/", "_").replace(".mab", "")
    work = os.path.join(root_work, name)
    os.makedirs(work)
    glb = os.path.join(work, "export.glb")
    run([mab, "export", src, "-o", glb])
    blocks = []
    for b in range(block_count(mab, src)):
        clip = legacy_clip_of(mab, src, b, work)
        rate = clip["frame_rate"]
        every = [f32(f / rate) for f in range(clip["last_frame"] + 1)] if rate else []
        # A bone the clip holds constant and animates keeps its constant on a node of its own.
        keyed = {r["bone"] for r in clip["rotations"]}
        moving = {t["bone"] for t in clip["translations"]}
        rotations = [{"name": "bone_%d%s" % (r["bone"], "_constant" if r["bone"] in keyed else ""), "times": [0.0],
                      "keys": [r["rotation"]]} for r in clip["constant_rotations"]]
        rotations += [{"name": "bone_%d" % r["bone"], "times": [f32(f / rate) for f in r["frames"]], "keys": r["keys"],
                       "frames": r["frames"]} for r in clip["rotations"]]
        translations = [{"name": "bone_%d%s" % (t["bone"], "_constant" if t["bone"] in moving else ""),
                         "times": [0.0], "values": [t["translation"]]} for t in clip["constant_translations"]]
        translations += [{"name": "bone_%d" % t["bone"], "times": every, "values": t["frames"]}
                         for t in clip["translations"]]
        if "trajectory_rotation" in clip:
            rotations.append({"name": "trajectory", "times": every, "keys": clip["trajectory_rotation"]})
        if "trajectory_translation" in clip:
            translations.append({"name": "trajectory", "times": every, "values": clip["trajectory_translation"]})
        if rotations or translations:
            blocks.append({"block": b, "rotations": rotations, "translations": translations})
    case = {"name": name, "legacy": True, "gltf": glb, "out": os.path.join(work, "blender.glb"), "blocks": blocks}
    if mode == "edited":
        blk, tr = max(((bl, t) for bl in blocks for t in bl["rotations"] if "frames" in t),
                      key=lambda p: len(p[1]["keys"]))
        case["edit"] = {"block": blk["block"], "bone": tr["name"], "key": len(tr["keys"]) // 2,
                        "degrees": EDIT_DEGREES, "frame": tr["frames"][len(tr["keys"]) // 2]}
        animated = [(bl, t) for bl in blocks for t in bl["translations"] if len(t["values"]) > 1]
        if animated:
            blk, tr = animated[0]
            case["edit_translation"] = {"block": blk["block"], "bone": tr["name"], "key": len(tr["values"]) // 2,
                                        "offset": EDIT_OFFSET}
    return case, src, work


def check_legacy(mab, case, rep, src, work, mode):
    """mabkit's side of a Far Cry 2/3 case; returns (problem or None, summary line)."""
    if rep["worst_value_deg"] > 1e-3 or rep["worst_frame"] > 1e-3 or rep["worst_pose_deg"] > 1e-3 or \
            rep["worst_position"] > 1e-5:
        return ("Blender's keyframes differ from mabkit's decode: value %.3g deg, frame %.3g, pose %.3g deg, "
                "position %.3g" % (rep["worst_value_deg"], rep["worst_frame"], rep["worst_pose_deg"],
                                   rep["worst_position"]), None)
    back = os.path.join(work, "back.mab")
    out = run([mab, "import", case["out"], "--template", src, "-o", back])
    run([mab, "verify", back])
    m = re.findall(r"max angular error ([0-9.]+) degrees", out)
    reported = max(float(x) for x in m) if m else 0.0
    line = "%s: %d keyframes match (worst %.2g deg, frame %.2g, position %.2g)" % (
        case["name"], rep["keyframes"], rep["worst_value_deg"], rep["worst_frame"], rep["worst_position"])
    if mode == "unedited":
        with open(src, "rb") as a, open(back, "rb") as b:
            if a.read() != b.read():
                return ("unedited round trip through Blender changed the bytes\n" + out, None)
        return None, line + "; imported back byte for byte"
    edit = case["edit"]
    problems = []
    for blk in case["blocks"]:
        b = blk["block"]
        before = legacy_clip_of(mab, src, b, work)
        after = legacy_clip_of(mab, back, b, work, "after")
        moved = case.get("edit_translation")
        for key in ("constant_rotations", "constant_translations", "translations", "trajectory_translation",
                    "trajectory_rotation"):
            if key in ("translations", "trajectory_translation") and moved and moved["block"] == b:
                continue
            if before.get(key) != after.get(key):
                problems.append("clip %d: %s changed though it was not edited" % (b, key))
        if moved and moved["block"] == b:
            tracks = [("bone_%d" % t["bone"], t["frames"], u["frames"])
                      for t, u in zip(before["translations"], after["translations"])]
            if "trajectory_translation" in before:
                tracks.append(("trajectory", before["trajectory_translation"], after["trajectory_translation"]))
            for name, vb, va in tracks:
                for f, (p0, p1) in enumerate(zip(vb, va)):
                    d = math.sqrt(sum((x - y) ** 2 for x, y in zip(p0, p1)))
                    if name == moved["bone"] and f == moved["key"]:
                        if abs(d - moved["offset"]) > 1e-5:
                            problems.append("moved translation frame %d came back %.7f away, Blender moved it "
                                            "%.7f" % (f, d, moved["offset"]))
                        moved["measured"] = d
                    elif p0 != p1:
                        problems.append("translation %s frame %d changed (%.3g) though it was not edited" % (
                            name, f, d))
        for tb, ta in zip(before["rotations"], after["rotations"]):
            if b != edit["block"] or "bone_%d" % tb["bone"] != edit["bone"]:
                if tb != ta:
                    problems.append("clip %d bone %d changed though it was not edited" % (b, tb["bone"]))
                continue
            # The edited track: the edited frame turned by what Blender applied, frames outside
            # the keys around it as before (within the reported error).
            k = edit["key"]
            lo = tb["frames"][k - 1] if k > 0 else 0
            hi = tb["frames"][k + 1] if k + 1 < len(tb["frames"]) else before["last_frame"]
            for f in range(before["last_frame"] + 1):
                d = angle_deg(rotation_at(tb, f), rotation_at(ta, f))
                if f == edit["frame"]:
                    if abs(d - rep["edited"]["degrees"]) > reported + 1e-3:
                        problems.append("edited frame %d moved %.6f deg, Blender applied %.6f (reported %.6f)" % (
                            f, d, rep["edited"]["degrees"], reported))
                elif (f <= lo or f >= hi) and d > reported + MEASURE_DEG:
                    problems.append("edited track, frame %d moved %.6f deg > reported %.6f" % (f, d, reported))
    if problems:
        return ("; ".join(problems[:5]) + "\n" + out, None)
    moved = case.get("edit_translation")
    extra = "" if not moved else "; %s translation frame %d moved %.6f, came back %.6f away" % (
        moved["bone"], moved["key"], moved["offset"], moved.get("measured", float("nan")))
    return None, line + "; edit of %.1f deg on %s frame %d came back, every other track bit for bit%s, reported " \
        "error %.6f deg" % (rep["edited"]["degrees"], edit["bone"], edit["frame"], extra, reported)


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

    for rel in LEGACY_CASES:
        case, src, work = legacy_case(args.mab, rel, args.work, args.mode)
        cases.append(case)
        meta[case["name"]] = (src, work)

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
        if case.get("legacy"):
            problem, line = check_legacy(args.mab, case, rep, src, work, args.mode)
            if problem:
                failures.append("%s: %s" % (name, problem))
            else:
                print(line)
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

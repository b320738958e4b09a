#!/usr/bin/env python3
"""The modder's round trip, judged by real Blender (ctest label `blender`).

For corpus clips of every 'aNi' game and Far Cry 2/3 banks (translations, root motion and
chained clips included): `mab export` to GLB, Blender's own glTF importer (checked keyframe by
keyframe against mabkit's decode), an edit, Blender's own glTF exporter, `mab import
--template`, `mab verify`, then per mode:

  unedited   scene at Blender's 24 fps, "Always Sample Animations" unticked: the template's
             bytes back, exactly;
  edited     the same with one bone turned 20 degrees at one keyframe (and, Far Cry 2/3, one
             location keyframe moved): only that changes, by what Blender applied;
  readme     the README's steps exactly: the scene frame rate set to the one `mab export`
             prints, Blender's DEFAULT export settings (sampling on), the same edit: it lands,
             no other bone or key moves;
  default24  a modder who skips that step: Blender's defaults throughout (24 fps scene,
             sampling on). Unedited, the template comes back exactly; edited, `mab import`
             refuses, saying what happened and how to fix it; --accept-resample then keeps
             every untouched bone bit for bit;
  newkey     the README's steps with a bone keyed on a frame the clip has no key on (Pose
             Mode, Insert Keyframe), with the default export and with sampling off: the key
             lands at that frame;
  skeleton   a clip exported with --skeleton (the Khronos RiggedFigure rig), through Blender:
             imported without --skeleton it is refused with the reason (defaults: Blender drops
             mab export's record of the rig) or comes back exactly ("Custom Properties" ticked:
             the record travels); with --skeleton it comes back exactly.

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
# newkey: clips whose key times leave frames out (WD1 ticks 0, 4, 16; WDL frames 0, 2, 4;
# FC4 frames 0, 1, 3), and keyed Far Cry 2/3 tracks with gaps between stored frames.
NEWKEY_CASES = ["wd1/long_k100.mab", "wdl/long_k60_alias.mab", "fc4/long_k45.mab"]
NEWKEY_LEGACY = ["fc2/all_arrays.mab", "fc3/all_arrays.mab"]
EDIT_DEGREES = 20.0
EDIT_OFFSET = 0.25  # units along a bone's axis (Far Cry 2/3 translation edit)
# Angles measured here and by mabkit from the same float32 quaternions agree only to their
# precision: 2^-24 per component gives about 2.4e-7 rad, 1.4e-5 degrees.
MEASURE_DEG = 2e-5
SAMPLING_OFF = {"export_force_sampling": False}


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


def exported(mab, path, block, work, tag, member):
    out = os.path.join(work, "%s_%d.json" % (tag, block))
    run([mab, "export", path, "--block", str(block), "--json-version", "2", "-o", out])
    with open(out) as f:
        return json.load(f)[member]


def clip_of(mab, path, block, work, tag="clip"):
    return exported(mab, path, block, work, tag, "clip")


def legacy_clip_of(mab, path, block, work, tag="legacy"):
    return exported(mab, path, block, work, tag, "legacy_clip")


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


def block_count(mab, path):
    info = json.loads(run([mab, "info", "--json", path]))
    return len(info[0]["blocks"])


def angle_deg(a, b):
    d = abs(sum(x * y for x, y in zip(a, b)))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return math.degrees(2 * math.acos(min(1.0, d / (na * nb))))


def export_glb(mab, src, glb, extra=()):
    """`mab export` as the README runs it; returns the scene rate it prints."""
    out = run([mab, "export", src, "-o", glb] + list(extra))
    m = re.search(r"set the scene frame rate to ([0-9.]+) fps", out)
    if not m:
        fail("mab export printed no scene frame rate:\n" + out)
    return float(m.group(1))


# --- Cases: what mabkit decoded, as Blender should show it ---

def ani_case(mab, rel, names, root_work, tag):
    src = os.path.join(ROOT, "corpus", rel)
    name = "%s_%s" % (rel.replace("/", "_").replace(".mab", ""), tag)
    work = os.path.join(root_work, name)
    os.makedirs(work)
    glb = os.path.join(work, "export.glb")
    extra = []
    if names:
        names_file = os.path.join(work, "names.txt")
        with open(names_file, "w") as f:
            f.write("\n".join(names) + "\n")
        extra = ["--names", names_file]
    fps = export_glb(mab, src, glb, extra)
    named = {crc32_name(n): n for n in names}
    blocks = []
    for b in range(block_count(mab, src)):
        clip = clip_of(mab, src, b, work)
        times = [f32(t / clip["key_rate"]) for t in clip["key_times"]]
        rotations, seen = [], {}
        for bone in clip["bones"]:
            h = int(bone["hash"], 16)
            occ = seen.get(h, 0)
            seen[h] = occ + 1
            label = named.get(h, "bone_0x%08X" % h) + (".dup%d" % occ if occ else "")
            if "keys" in bone:
                rotations.append({"name": label, "times": times, "keys": bone["keys"]})
            elif "constant" in bone:
                rotations.append({"name": label, "times": times[:1], "keys": [bone["constant"]]})
        if rotations:
            blocks.append({"block": b, "rotations": rotations, "translations": [], "key_rate": clip["key_rate"]})
    case = {"name": name, "gltf": glb, "out": os.path.join(work, "blender.glb"), "blocks": blocks, "fps": fps}
    return case, src, work


def legacy_case(mab, rel, root_work, tag):
    src = os.path.join(ROOT, "corpus", rel)
    name = "%s_%s" % (rel.replace("/", "_").replace(".mab", ""), tag)
    work = os.path.join(root_work, name)
    os.makedirs(work)
    glb = os.path.join(work, "export.glb")
    fps = export_glb(mab, src, glb)
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
            blocks.append({"block": b, "rotations": rotations, "translations": translations, "frame_rate": rate,
                           "last_frame": clip["last_frame"]})
    case = {"name": name, "legacy": True, "gltf": glb, "out": os.path.join(work, "blender.glb"), "blocks": blocks,
            "fps": fps}
    return case, src, work


def add_edit(case):
    """One rotation keyframe turned (the animated track with the most keys, its middle key);
    Far Cry 2/3: also one location keyframe moved."""
    blocks = case["blocks"]
    # Far Cry 2/3: a keyed track (its own stored frames), not the every-frame trajectory.
    blk, tr = max(((bl, t) for bl in blocks for t in bl["rotations"]
                   if len(t["keys"]) > 1 and ("frames" in t or not case.get("legacy"))),
                  key=lambda p: len(p[1]["keys"]))
    k = len(tr["keys"]) // 2
    case["edit"] = {"block": blk["block"], "bone": tr["name"], "key": k, "degrees": EDIT_DEGREES}
    if "frames" in tr:
        case["edit"]["frame"] = tr["frames"][k]
    animated = [(bl, t) for bl in blocks for t in bl["translations"] if len(t["values"]) > 1]
    if case.get("legacy") and animated:
        blk, tr = animated[0]
        case["edit_translation"] = {"block": blk["block"], "bone": tr["name"], "key": len(tr["values"]) // 2,
                                    "offset": EDIT_OFFSET}


def add_new_key(case):
    """A frame (at the scene rate the README sets) between two keys of a track that has none
    there: the widest gap of the track with the most keys."""
    best = None
    for blk in case["blocks"]:
        for tr in blk["rotations"]:
            if len(tr["keys"]) < 2:
                continue
            frames = [round(t * case["fps"]) for t in tr["times"]]
            for a, b in zip(frames, frames[1:]):
                if b - a >= 2 and (best is None or b - a > best[0]):
                    best = (b - a, blk, tr, (a + b) // 2)
    if best is None:
        fail("%s: no gap between keys to key a new frame in" % case["name"])
    _, blk, tr, frame = best
    case["new_key"] = {"block": blk["block"], "bone": tr["name"], "frame": frame, "degrees": EDIT_DEGREES}


# --- mabkit's side ---

def import_back(mab, case, src, work, extra=()):
    back = os.path.join(work, "back.mab")
    if os.path.exists(back):
        os.remove(back)
    p = subprocess.run([mab, "import", case["out"], "--template", src, "-o", back] + list(extra),
                       capture_output=True, text=True)
    return p, back


def reported_error(out):
    m = re.findall(r"max angular error ([0-9.]+) degrees", out)
    return max(float(x) for x in m) if m else 0.0


def keyframe_problem(rep):
    if rep["worst_value_deg"] > 1e-3 or rep["worst_frame"] > 1e-3 or rep["worst_pose_deg"] > 1e-3 or \
            rep["worst_position"] > 1e-5:
        return ("Blender's keyframes differ from mabkit's decode: value %.3g deg, frame %.3g, pose %.3g deg, "
                "position %.3g" % (rep["worst_value_deg"], rep["worst_frame"], rep["worst_pose_deg"],
                                   rep["worst_position"]))
    return None


def same_file(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def edited_ani_problems(mab, case, rep, src, back, work, reported, strict_edit=True):
    """Only the edited bone changed; its edited key by the angle Blender applied."""
    edit = case["edit"]
    before = clip_of(mab, src, edit["block"], work)
    after = clip_of(mab, back, edit["block"], work, "after")
    problems, edited_delta = [], None
    for ob, nb in zip(before["bones"], after["bones"]):
        okeys = ob.get("keys") or [ob.get("constant")]
        nkeys = nb.get("keys") or [nb.get("constant")]
        h = int(ob["hash"], 16)
        is_edited = edit["bone"].startswith("bone_0x%08X" % h) or crc32_name(edit["bone"]) == h
        if okeys[0] is None:
            continue
        for k, (q0, q1) in enumerate(zip(okeys, nkeys)):
            d = angle_deg(q0, q1)
            if is_edited and k == edit["key"]:
                edited_delta = d
            elif is_edited:
                if strict_edit and d > reported + MEASURE_DEG:
                    problems.append("edited bone, key %d moved %.6f deg > reported %.6f" % (k, d, reported))
            elif q0 != q1:
                problems.append("bone %s key %d changed (%.6f deg) though it was not edited" % (ob["hash"], k, d))
    if edited_delta is None:
        problems.append("edited key not found")
    elif strict_edit and abs(edited_delta - rep["edited"]["degrees"]) > reported + 1e-3:
        problems.append("edited key moved %.6f deg, Blender applied %.6f (reported error %.6f)" % (
            edited_delta, rep["edited"]["degrees"], reported))
    return problems, edited_delta


def edited_legacy_problems(mab, case, rep, src, back, work, reported, strict_edit=True):
    """Only the edited tracks changed: the edited rotation frame by what Blender applied, the
    frames outside the keys around it as before (within the reported error)."""
    edit, moved, problems = case["edit"], case.get("edit_translation"), []
    for blk in case["blocks"]:
        b = blk["block"]
        before = legacy_clip_of(mab, src, b, work)
        after = legacy_clip_of(mab, back, b, work, "after")
        for key in ("constant_rotations", "constant_translations", "translations", "trajectory_translation",
                    "trajectory_rotation"):
            if key in ("translations", "trajectory_translation") and moved and moved["block"] == b:
                continue
            if before.get(key) != after.get(key):
                problems.append("clip %d: %s changed though it was not edited" % (b, key))
        if moved and moved["block"] == b and strict_edit:
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
            if not strict_edit:
                continue
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
    return problems


def new_key_problems(mab, case, rep, src, back, work, out, reported):
    """The key Blender set on a frame the clip lacked is in the .mab at that frame; nothing
    else moves beyond the reported error ('aNi': the chunks after the new time regroup), and
    Far Cry 2/3 tracks not keyed stay bit for bit."""
    new, keyed, problems = case["new_key"], rep["new_key"]["rotation"], []
    if case.get("legacy"):
        before = legacy_clip_of(mab, src, new["block"], work)
        after = legacy_clip_of(mab, back, new["block"], work, "after")
        frame = round(new["frame"] * before["frame_rate"] / case["fps"])
        for tb, ta in zip(before["rotations"], after["rotations"]):
            if "bone_%d" % tb["bone"] == new["bone"]:
                d = angle_deg(rotation_at(ta, frame), keyed)
                if d > reported + MEASURE_DEG:
                    problems.append("the new key at frame %d came back %.6f deg off (reported %.6f)" % (frame, d, reported))
            elif tb != ta:
                problems.append("bone %d changed though it was not keyed" % tb["bone"])
        return problems, frame
    blk = next(bl for bl in case["blocks"] if bl["block"] == new["block"])
    unit = round(new["frame"] * blk["key_rate"] / case["fps"])
    m = re.search(r"key times added   (\d+) for keys set between the template's \(key units at [0-9.]+/s: ([0-9, ]+)",
                  out)
    added = [int(x) for x in m.group(2).split(",")] if m else []
    template_units = clip_of(mab, src, new["block"], work)["key_times"]
    lo = max(t for t in template_units if t < unit)
    hi = min(t for t in template_units if t > unit)
    # Blender keeps a key set between keys unnormalised (the pose it interpolated there, turned),
    # so its curve from that key runs off a slerp a little: sampled, the frames next to it may
    # need times of their own too, never beyond the template's keys around the new one.
    if unit not in added or any(not lo < a < hi for a in added):
        problems.append("the report does not say key time %d (and only times between %d and %d) was added:\n%s" % (
            unit, lo, hi, out))
    before = clip_of(mab, src, new["block"], work)
    after = clip_of(mab, back, new["block"], work, "after")
    if unit not in after["key_times"]:
        return problems + ["key time %d is not in the clip" % unit], unit
    at = after["key_times"].index(unit)
    for ob, nb in zip(before["bones"], after["bones"]):
        if "keys" not in ob:
            continue
        h = int(ob["hash"], 16)
        is_keyed = new["bone"].startswith("bone_0x%08X" % h) or crc32_name(new["bone"]) == h
        if is_keyed and angle_deg(nb["keys"][at], keyed) > reported + MEASURE_DEG:
            problems.append("the new key came back %.6f deg off (reported %.6f)" % (angle_deg(nb["keys"][at], keyed),
                                                                                   reported))
        for k, t in enumerate(before["key_times"]):
            d = angle_deg(ob["keys"][k], nb["keys"][after["key_times"].index(t)])
            if d > reported + MEASURE_DEG:
                problems.append("bone %s key %d moved %.6f deg > reported %.6f" % (ob["hash"], k, d, reported))
    return problems, unit


def judge(mab, mode, case, rep, src, work):
    """mabkit's side of one case: (problem or None, summary line)."""
    legacy = case.get("legacy", False)
    if case.get("check_keyframes", True):
        problem = keyframe_problem(rep)
        if problem:
            return problem, None
    p, back = import_back(mab, case, src, work)
    out = p.stdout
    line = "%s: %s keyframes match (worst %.2g deg, frame %.2g, position %.2g)" % (
        case["name"], rep.get("keyframes", "-"), rep.get("worst_value_deg", 0), rep.get("worst_frame", 0),
        rep.get("worst_position", 0))
    if mode == "default24" and case.get("edit"):
        if p.returncode == 0:
            return "an edited file resampled at 24 fps was imported without --accept-resample:\n" + out, None
        err = p.stderr
        fix = "set the scene frame rate to %g fps" % case["fps"]
        for part in ("resampled at 24 keys per second", "Always Sample Animations", fix, "--accept-resample"):
            if part not in err:
                return "the refusal does not say %r:\n%s" % (part, err), None
        if err.count("\n") != 1 or os.path.exists(back):
            return "the refusal is not one line with nothing written:\n" + err, None
        p, back = import_back(mab, case, src, work, ["--accept-resample"])
        if p.returncode != 0:
            return "--accept-resample failed:\n" + p.stderr, None
        reported = reported_error(p.stdout)
        problems = edited_legacy_problems(mab, case, rep, src, back, work, reported, False) if legacy else \
            edited_ani_problems(mab, case, rep, src, back, work, reported, False)[0]
        if problems:
            return "; ".join(problems[:5]) + "\n" + p.stdout, None
        return None, line + "; refused (%s...), and with --accept-resample every untouched bone bit for bit" % (
            err.strip()[:90])
    if p.returncode != 0:
        return "mab import %s exited %d\n%s%s" % (case["out"], p.returncode, out, p.stderr), None
    run([mab, "verify", back])
    reported = reported_error(out)
    if case.get("new_key"):
        problems, where = new_key_problems(mab, case, rep, src, back, work, out, reported)
        if problems:
            return "; ".join(problems[:5]), None
        return None, line + "; the key set on scene frame %d is in the clip (%s %d), nothing else beyond the " \
            "reported %.6f deg" % (case["new_key"]["frame"], "frame" if legacy else "key time", where, reported)
    if not case.get("edit"):
        if not same_file(src, back):
            return "unedited round trip through Blender changed the bytes\n" + out, None
        resampled = " (Blender resampled it: %s)" % re.search(r"samples at [0-9.]+ per second", out).group(0) \
            if "samples at" in out else ""
        return None, line + "; imported back byte for byte" + resampled
    if legacy:
        problems = edited_legacy_problems(mab, case, rep, src, back, work, reported)
        delta = rep["edited"]["degrees"]
    else:
        problems, delta = edited_ani_problems(mab, case, rep, src, back, work, reported)
    if problems:
        return "; ".join(problems[:5]) + "\n" + out, None
    return None, line + "; edit of %.1f deg on %s key %d came back as %.4f deg, every other bone bit for bit, " \
        "reported error %.6f deg" % (rep["edited"]["degrees"], case["edit"]["bone"], case["edit"]["key"], delta,
                                     reported)


# --- Modes ---

def mode_cases(mab, mode, work):
    """(case, src, work) for every case of the mode, Blender settings included."""
    out = []

    def both(tag, settings, edit):
        for rel, names in CASES:
            out.append(ani_case(mab, rel, names, work, tag))
        for rel in LEGACY_CASES:
            out.append(legacy_case(mab, rel, work, tag))
        for case, _, _ in out[-len(CASES) - len(LEGACY_CASES):]:
            case.update(settings(case))
            if edit:
                add_edit(case)

    if mode in ("unedited", "edited"):
        both(mode, lambda c: {"export": SAMPLING_OFF}, mode == "edited")
    elif mode == "readme":
        both(mode, lambda c: {"scene_fps": c["fps"]}, True)
    elif mode == "default24":
        both("unedited", lambda c: {}, False)
        both("edited", lambda c: {}, True)
    elif mode == "newkey":
        for export, tag in (({}, "default"), (SAMPLING_OFF, "nosampling")):
            for rel in NEWKEY_CASES:
                out.append(ani_case(mab, rel, [], work, tag))
            for rel in NEWKEY_LEGACY:
                out.append(legacy_case(mab, rel, work, tag))
            for case, _, _ in out[-len(NEWKEY_CASES) - len(NEWKEY_LEGACY):]:
                case.update({"scene_fps": case["fps"], "export": export})
                add_new_key(case)
    return out


def skeleton_mode(mab, blender, work, env):
    """A --skeleton export through Blender, imported without and with --skeleton."""
    rig = os.path.join(ROOT, "corpus", "external", "RiggedFigure.gltf")
    src = os.path.join(work, "figure.mab")
    run([mab, "import", rig, "--game", "wdl", "-o", src])
    glb = os.path.join(work, "figure.glb")
    fps = export_glb(mab, src, glb, ["--skeleton", rig])
    cases = [{"name": "figure_skeleton_defaults", "gltf": glb, "out": os.path.join(work, "defaults.glb"),
              "scene_fps": fps, "check_keyframes": False},
             {"name": "figure_skeleton_custom_properties", "gltf": glb, "out": os.path.join(work, "extras.glb"),
              "scene_fps": fps, "check_keyframes": False, "export": {"export_extras": True}}]
    report = run_blender(blender, cases, work, env)
    failures = []
    for case, rep in zip(cases, report["cases"]):
        if not rep["ok"]:
            failures.append("%s: in Blender: %s\n%s" % (case["name"], rep.get("error"), rep.get("trace", "")))
            continue
        p, back = import_back(mab, case, src, work)
        if case.get("export"):
            if p.returncode != 0 or not same_file(src, back):
                failures.append("%s: without --skeleton, with the rig recorded: exit %d\n%s%s" % (
                    case["name"], p.returncode, p.stdout, p.stderr))
                continue
            print("%s: Blender kept the recorded rig; imported without --skeleton, byte for byte" % case["name"])
            continue
        if p.returncode == 0 or "exported with --skeleton" not in p.stderr or "--skeleton" not in p.stderr:
            failures.append("%s: imported without --skeleton: exit %d, expected a refusal naming --skeleton\n%s%s" % (
                case["name"], p.returncode, p.stdout, p.stderr))
            continue
        p2, back = import_back(mab, case, src, work, ["--skeleton", rig])
        if p2.returncode != 0 or not same_file(src, back):
            failures.append("%s: with --skeleton: exit %d\n%s%s" % (case["name"], p2.returncode, p2.stdout, p2.stderr))
            continue
        print("%s: without --skeleton refused (%s...); with it, byte for byte" % (case["name"], p.stderr.strip()[:100]))
    return failures


def run_blender(blender, cases, work, env):
    job = os.path.join(work, "job.json")
    report_path = os.path.join(work, "report.json")
    with open(job, "w") as f:
        json.dump({"cases": cases, "report": report_path}, f)
    p = subprocess.run([blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "blender_side.py"),
                        "--", job], capture_output=True, text=True, timeout=900, env=env)
    if not os.path.exists(report_path):
        fail("Blender wrote no report (exit %d)\n%s\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    with open(report_path) as f:
        report = json.load(f)
    print("Blender %s" % report["blender"])
    return report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--mode", choices=["unedited", "edited", "readme", "default24", "newkey", "skeleton"],
                    required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    blender = os.environ.get("MAB_BLENDER") or shutil.which("blender")
    if not blender:
        fail("blender not found: run scripts/setup, which installs Debian's blender and python3-numpy")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    # Debian's Blender embeds the system Python and takes its home from the first python3 on
    # PATH: a python3 from elsewhere (pyenv, a virtualenv) would hide the system's numpy.
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
    if args.mode == "skeleton":
        failures = skeleton_mode(args.mab, blender, args.work, env)
        if failures:
            fail("\n".join(failures))
        print("PASS: --skeleton export through Blender (skeleton)")
        return
    triples = mode_cases(args.mab, args.mode, args.work)
    report = run_blender(blender, [c for c, _, _ in triples], args.work, env)
    failures = []
    for (case, src, work), rep in zip(triples, report["cases"]):
        if not rep["ok"]:
            failures.append("%s: in Blender: %s\n%s" % (case["name"], rep.get("error"), rep.get("trace", "")))
            continue
        problem, line = judge(args.mab, args.mode, case, rep, src, work)
        if problem:
            failures.append("%s: %s" % (case["name"], problem))
        else:
            print(line)
    if failures:
        fail("\n".join(failures))
    print("PASS: %d clips through Blender (%s)" % (len(triples), args.mode))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The Blender add-on (blender/io_anim_mab) in real, headless Blender (ctest label `blender`).

The add-on zip is installed into a temporary user-scripts folder and enabled; then, in one
Blender process, for corpus clips of every game whose rotations decode and for each kind of
armature:
  (a) the armature the add-on builds from the file (names file; one case with a glTF skeleton),
  (b) an armature made by Blender's own glTF importer from `mab export --skeleton` (Far Cry 2/3:
      from `mab export`'s flat rig), its rest given as that glTF,
  (c) an armature built the way the community Dunia importer builds one (tests/blender_addon/
      community_rig.py), with large rest angles, clips voted character-bind or identity-bind,
the clip is imported (every block) and its pose checked at every key in armature space against
mabkit's decode (`mab export` JSON) composed with the rig's rest (computed here, independently
of the add-on); for (b) the pose must also equal the one Blender's glTF importer gives; then
exported unedited (the template's bytes), with one bone turned at an existing key (only that
bone changes, by that angle within the reported error) and with a key on a new frame (the key
is there, with the keyed rotation).

Blender missing is a failure naming scripts/setup: CI installs it.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import community_rig  # noqa: E402

# Where the unmatched-bone report and the export's refusals are checked.
UNMATCHED_CASE = "fc5/three_blocks.mab"
REFUSAL_CASES = ("wd1/translations_flag40.mab", "fc2/all_arrays.mab")
EDIT_DEG = 20.0
NEW_KEY_DEG = 30.0
MOVE_UNITS = 0.25  # a location key pushed this far along the bone's x axis
MEASURE_DEG = 2e-4  # angles measured from float32 JSON floats here and in mabkit

# corpus file -> rig kinds. Every game whose rotations decode; translations, root motion, several
# blocks, constant-only bones and Far Cry 2/3 banks with chained clips and a tag table.
ANI_CASES = [
    ("wd1/long_k100.mab", "abc"),
    ("wd1/translations_flag40.mab", "abc"),
    ("wd1/root_motion_f32x4_constants80.mab", "ab"),
    ("wdl/long_k60_alias.mab", "abc"),
    ("wdl/translations_flag80_constants40.mab", "ac"),
    ("wd2/translations_all_bones_root_motion.mab", "abc"),
    ("wd2/mixed_k8.mab", "bc"),
    ("fc5/three_blocks.mab", "abc"),
    ("fc5/mixed_k7.mab", "c"),
    ("fc4/long_k45.mab", "abc"),
    ("fc4/mixed_k9.mab", "c"),
]
LEGACY_CASES = [
    ("fc2/all_arrays.mab", "abc"),
    ("fc2/chain_3.mab", "abc"),
    ("fc3/all_arrays.mab", "abc"),
    ("fc2/retail_bank.mab", "ac"),
    ("fc2/many_tracks.mab", "ab"),  # bones both constant and keyed
    ("fc3bd/legacy_bank.mab", "abc"),
]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s exited %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def crc32(name):
    return zlib.crc32(name.encode("latin-1")) & 0xFFFFFFFF


_templates = {}


def template_json(mab, path, block, work):
    """A corpus file's block as `mab export` JSON, exported once for every case that uses it
    (each `mab` run costs most under ASan)."""
    key = (path, block)
    if key not in _templates:
        _templates[key] = export_json(mab, path, block, os.path.join(
            work, "template_%s_%d.json" % (os.path.basename(path).replace(".mab", ""), block)))
    return _templates[key]


def export_json(mab, path, block, out):
    # Version 3, as the add-on reads it: every game's tracks in "clip" and "motion".
    run([mab, "export", path, "--block", str(block), "--json-version", "3", "-o", out])
    with open(out) as f:
        return json.load(f)


def stored_frames(mab, path, block):
    """{bone id: frames holding a stored key} of a Far Cry 2/3 clip's keyed rotation tracks, from
    `mab dump` (a version 3 document has the rotation at every frame, not which frames are keys)."""
    out, on = {}, False
    for line in run([mab, "dump", path, "--block", str(block)]).splitlines():
        if line.startswith("keyed rotations"):
            on = True
        elif on and not line.strip():
            break
        elif on and line.split() and line.split()[0].isdigit():
            out.setdefault(int(line.split()[0]), []).append(int(line.split()[1]))
    return out


def block_count(mab, path):
    return len(json.loads(run([mab, "info", "--json", path]))[0]["blocks"])


def expected_names(rel):
    with open(os.path.join(ROOT, "corpus", rel.replace(".mab", ".expected.json"))) as f:
        exp = json.load(f)
    names = []
    for b in exp["blocks"]:
        for bone in b.get("bones", []):
            if bone.get("name") and bone["name"] not in names:
                names.append(bone["name"])
    return names


# --- comparing mabkit decodes ----------------------------------------------------------------

def qangle(a, b):
    d = abs(sum(x * y for x, y in zip(a, b)))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return math.degrees(2 * math.acos(min(1.0, d / (na * nb))))


def ani_tracks(doc):
    """{(hash, occurrence): keys} of a JSON export (a constant bone: one key). Far Cry 2/3: the hash
    is the bone id, and a bone both keyed and constant is (id, 0) keyed and (id, 1) constant."""
    out, seen = {}, {}
    for bone in doc["clip"]["bones"]:
        occ = seen.get(bone["hash"], 0)
        seen[bone["hash"]] = occ + 1
        keys = bone.get("keys") or ([bone["constant"]] if "constant" in bone else None)
        if keys is not None:
            out[bone["hash"], occ] = keys
    return out


def reported_units(lines):
    errs = [float(m) for line in lines for m in re.findall(r"(?:max error|max translation error|error)\s+([0-9.eE+-]+) units", line)]
    return max(errs) if errs else 0.0


def check_moved(case, res, before, after):
    """One translation key moved: that key by the offset (its length: the conversion is rigid),
    the bone's other keys within the reported error, rotations and other bones bit for bit."""
    mv = res["moved"]
    rep = reported_units(mv["report"])
    problems = []
    tb = {t["hash"]: t["keys"] for t in before["motion"].get("translations", [])}
    ta = {t["hash"]: t["keys"] for t in after["motion"].get("translations", [])}
    key, frames = mv["hash"], before["clip"]["key_times"]
    if before["clip"] != after["clip"]:
        problems.append("rotations changed though only a translation was moved")
    if any(before["motion"].get(k) != after["motion"].get(k) for k in before["motion"] if k != "translations") or \
            before.get("legacy") != after.get("legacy"):
        problems.append("something besides the translations changed")
    if key not in tb or key not in ta:
        return ["the moved bone has no translation track"], rep
    for other in tb:
        if other != key and tb[other] != ta.get(other):
            problems.append("translation of %s changed though not moved" % other)
    for k, (p0, p1) in enumerate(zip(tb[key], ta[key])):
        d = math.sqrt(sum((x - y) ** 2 for x, y in zip(p0, p1)))
        if frames[k] == mv["frame"]:
            if abs(d - mv["offset"]) > rep + 1e-4:
                problems.append("moved key came back %.6f away, Blender moved it %.6f (reported %.6g)" % (
                    d, mv["offset"], rep))
        elif d > rep + 1e-5 * max(1.0, max(abs(x) for x in p0)):
            problems.append("translation key %d moved %.6f > reported %.6g" % (k, d, rep))
    return problems, rep


def reported_error(lines):
    errs = [float(m) for line in lines for m in re.findall(r"max (?:angular )?error\s+([0-9.eE+-]+) degrees", line)]
    return max(errs) if errs else 0.0


def check_edit(case, res, before, after):
    """Only the edited bone changed: its edited key by the angle Blender applied, the rest of its
    keys within the reported error; every other bone, translation and root motion bit for bit."""
    edit = res["edit"]
    rep = reported_error(res["edit_report"])
    problems = []
    tb, ta = ani_tracks(before), ani_tracks(after)
    if before["clip"]["key_times"] != after["clip"]["key_times"]:
        problems.append("key times changed")
    for h, keys in tb.items():
        got = ta.get(h)
        if h != (edit["hash"], 0):
            if got != keys:
                problems.append("bone %s changed though it was not edited" % (h,))
            continue
        for k, (q0, q1) in enumerate(zip(keys, got)):
            d = qangle(q0, q1)
            if k == edit["key"]:
                if abs(d - edit["degrees"]) > rep + MEASURE_DEG:
                    problems.append("edited key moved %.6f deg, Blender turned it %.6f (reported error %.6f)" % (
                        d, edit["degrees"], rep))
            elif d > rep + MEASURE_DEG:
                problems.append("edited bone, key %d moved %.6f deg > reported %.6f" % (k, d, rep))
    if before.get("motion") != after.get("motion") or before.get("legacy") != after.get("legacy"):
        problems.append("translations, root motion, tag records or events changed though not edited")
    return problems, rep


def check_newkey(case, res, before, after):
    nk = res["newkey"]
    rep = reported_error(res["newkey_report"])
    problems = []
    t0, t1 = before["clip"]["key_times"], after["clip"]["key_times"]
    if sorted(set(t0) | {nk["time"]}) != t1:
        return ["key times are %s, expected the template's plus %d" % (t1[:12], nk["time"])], rep
    tb, ta = ani_tracks(before), ani_tracks(after)
    pos = t1.index(nk["time"])
    # The other keys: the new time's key left out of the result, or (a Far Cry 2/3 frame, already
    # a key time) that frame's key left out of both.
    was = t0.index(nk["time"]) if nk["time"] in t0 else None

    def without(keys, n, i):
        return [k for j, k in enumerate(keys) if j != i] if len(keys) == n and i is not None else keys
    for h, keys in tb.items():
        got = ta.get(h)
        if got is None:
            problems.append("bone %s lost" % (h,))
            continue
        if len(keys) == 1 and h != (nk["hash"], 0):
            if got != keys:
                problems.append("constant bone %s changed" % (h,))
            continue
        old, keys0 = without(got, len(t1), pos), without(keys, len(t0), was)
        for k, (q0, q1) in enumerate(zip(keys0, old)):
            if len(keys) > 1 and qangle(q0, q1) > rep + MEASURE_DEG:
                problems.append("bone %s key %d moved %.6f deg > reported %.6f" % (h, k, qangle(q0, q1), rep))
                break
        if h == (nk["hash"], 0):
            d = qangle(got[pos], nk["expected"])
            if d > rep + 2e-3:
                problems.append("the new key holds %s, %.5f deg from the keyed %s" % (got[pos], d, nk["expected"]))
    # Translations at the old key times stay within the reported error and the bound the export
    # was given (the dialog's default 0.001 units, or the one a refusal named).
    units, bound = reported_units(res["newkey_report"]), nk.get("bound", 0.001)
    if units > bound:
        problems.append("translation error %.6f units reported, above the bound %g" % (units, bound))
    ta = {t["hash"]: t["keys"] for t in after.get("motion", {}).get("translations", [])}
    for t in before.get("motion", {}).get("translations", []):
        got = ta.get(t["hash"], [])
        old, keys0 = [k for i, k in enumerate(got) if i != pos], without(t["keys"], len(t0), was)
        worst = max((abs(x - y) for k0, k1 in zip(keys0, old) for x, y in zip(k0, k1)), default=0.0)
        # 1e-5: the report prints 6 digits and measures against the add-on's float32 locations.
        if len(old) != len(keys0) or worst > units + 1e-5:
            problems.append("translation of %s moved %.6f units > reported %.6f" % (t["hash"], worst, units))
    return problems, rep


# --- the README's console example ----------------------------------------------------------

CONSOLE_SRC = "wdl/long_k60_alias.mab"  # has Spine1, keyed at frame 40


def console_case(work):
    """The README's Python-console block, on a corpus clip instead of /mods/walk.mab."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    at = text.index("The same from Blender's Python console")
    block = text[text.index("```python\n", at) + len("```python\n"):text.index("```", text.index("```python", at) + 9)]
    src = os.path.join(ROOT, "corpus", CONSOLE_SRC)
    out = os.path.join(work, "console_edit.mab")
    if "/mods/walk.mab" not in block or "/mods/walk_edit.mab" not in block:
        fail("README's console example no longer reads /mods/walk.mab and writes /mods/walk_edit.mab")
    code = block.replace("/mods/walk_edit.mab", out).replace("/mods/walk.mab", src)
    return {"code": code, "src": src, "out": out, "names": expected_names(CONSOLE_SRC)}


def judge_console(mab, job_case, res, work):
    """Only Spine1 changed, its key at frame 40 by the example's 0.35 rad."""
    if not res.get("ok"):
        return "in Blender: %s\n%s" % (res.get("error"), res.get("trace", ""))
    before = template_json(mab, job_case["src"], 0, work)
    after = export_json(mab, job_case["out"], 0, os.path.join(work, "console_after.json"))
    k = before["clip"]["key_times"].index(40)
    fake = {"edit": {"hash": "0x%08X" % crc32("Spine1"), "key": k, "degrees": math.degrees(0.35)},
            "edit_report": res["report"]}
    problems, rep = check_edit({}, fake, before, after)
    return "; ".join(problems) if problems else None


# --- the job ---------------------------------------------------------------------------------

def prepare(mab, work):
    cases = []
    rng = random.Random(26)
    for rel, kinds in ANI_CASES + LEGACY_CASES:
        src = os.path.join(ROOT, "corpus", rel)
        legacy = (rel, kinds) in LEGACY_CASES
        stem = rel.replace("/", "_").replace(".mab", "")
        blocks = []
        for b in range(block_count(mab, src)):
            doc = export_json(mab, src, b, os.path.join(work, "%s_ref_%d.json" % (stem, b)))
            if "clip" in doc:
                blocks.append({"block": b, "ref": os.path.join(work, "%s_ref_%d.json" % (stem, b))})
                if legacy:  # which frames hold stored keys: the edit turns one, the new key goes between
                    blocks[-1]["stored"] = {str(k): v for k, v in stored_frames(mab, src, b).items()}
        if legacy:
            ids = sorted({bone["hash"] for blk in blocks for bone in _clip_doc(blk)["bones"]})
            names = ["J%d" % i if i in ids else "unused_%d" % i for i in range(max(ids) + 1)]
            joint_names = ["J%d" % i for i in ids]
        else:
            names = expected_names(rel)
            joint_names = names
        names_file = os.path.join(work, stem + "_names.txt")
        with open(names_file, "w") as f:
            f.write("\n".join(names) + "\n")
        first_keys = community_rig.first_keys(blocks, legacy, names)
        for kind in kinds:
            case = {"name": "%s [%s]" % (rel, kind), "src": src, "legacy": legacy, "rig": kind, "blocks": blocks,
                    "names_file": names_file, "stem": stem, "work": os.path.join(work, "%s_%s" % (stem, kind))}
            os.makedirs(case["work"])
            if kind == "a" and not legacy and rel == "wd1/long_k100.mab":
                # A new armature with a glTF skeleton's hierarchy and rest.
                skel = community_rig.skeleton(joint_names, first_keys, "character", rng)
                case["skeleton_gltf"] = community_rig.write_gltf(skel, os.path.join(case["work"], "skeleton.gltf"))
                case["skeleton"] = skel
            if kind == "b":
                glb = os.path.join(case["work"], "rig.glb")
                if legacy:
                    run([mab, "export", src, "-o", glb])
                else:
                    skel = community_rig.skeleton(joint_names, first_keys, "character", rng)
                    case["skeleton"] = skel
                    sk = community_rig.write_gltf(skel, os.path.join(case["work"], "skeleton.gltf"))
                    run([mab, "export", src, "--skeleton", sk, "-o", glb])
                case["glb"] = glb
            if kind == "c":
                family = "identity" if len(cases) % 2 else "character"
                joints = list(joint_names)
                if rel == UNMATCHED_CASE:
                    # A clip bone the rig lacks and a rig bone the clip lacks: both reported.
                    case["dropped"] = joints.pop()
                    joints.append("Extra_Joint")
                case["skeleton"] = community_rig.skeleton(joints, first_keys, family, rng)
                case["family"] = family.upper()
            if kind == "a" and rel in REFUSAL_CASES:
                case["refusals"] = True
            cases.append(case)
    return cases


_docs = {}


def _clip_doc(blk):
    if blk["ref"] not in _docs:
        with open(blk["ref"]) as f:
            _docs[blk["ref"]] = json.load(f)["clip"]
    return _docs[blk["ref"]]


_sections = {}


def read_sections(mab, paths):
    """Per file and block, {section name: its bytes} (offsets and sizes from one `mab info
    --json` over all the files): what "a block keeps its bytes" means when blocks around it move
    (Far Cry 5 blocks and chained Far Cry 2/3 clips point at each other, so those pointers follow
    a grown block). A Far Cry 2/3 clip's ChainedClip section holds the clips after it: not its own."""
    paths = [p for p in paths if p not in _sections]
    if not paths:
        return
    for path, info in zip(paths, json.loads(run([mab, "info", "--json"] + paths))):
        with open(path, "rb") as f:
            data = f.read()
        _sections[path] = [{s["name"]: data[s["file_offset"]:s["file_offset"] + s["size"]]
                            for s in b.get("sections", []) if s["name"] != "ChainedClip"} for b in info["blocks"]]


def judge(mab, case, res):
    """mabkit's side: bytes, edits and new keys read back with `mab export`."""
    src, work = case["src"], case["work"]
    with open(src, "rb") as a, open(res["unedited"], "rb") as b:
        if a.read() != b.read():
            return "unedited export is not the template's bytes:\n" + "\n".join(res["unedited_report"])
    problems = []
    # The other blocks (a bank's other clips, Far Cry 5's other blocks) keep their bytes.
    for out in (res["edited"], res["newkey"]["path"]):
        old, new = _sections[src], _sections[out]
        if len(old) != len(new):
            problems.append("%s has %d blocks, the template %d" % (os.path.basename(out), len(new), len(old)))
        for b, (x, y) in enumerate(zip(old, new)):
            if b != res["edit"]["block"] and x != y:
                problems.append("%s: block %d's sections %s changed though it was not edited" % (
                    os.path.basename(out), b, sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))))
    for blk in case["blocks"]:
        b = blk["block"]
        before = template_json(mab, src, b, os.path.dirname(work))
        after = export_json(mab, res["edited"], b, os.path.join(work, "edited_%d.json" % b))
        if b != res["edit"]["block"]:
            if _body(before) != _body(after):
                problems.append("block %d changed though not edited" % b)
            continue
        p, rep = check_edit(case, res, before, after)
        problems += ["edit: " + x for x in p]
        if "moved" in res:
            moved = export_json(mab, res["moved"]["path"], b, os.path.join(work, "moved_%d.json" % b))
            p, _ = check_moved(case, res, before, moved)
            problems += ["moved translation: " + x for x in p]
        after = export_json(mab, res["newkey"]["path"], b, os.path.join(work, "newkey_%d.json" % b))
        p, rep2 = check_newkey(case, res, before, after)
        problems += ["new key: " + x for x in p]
    if problems:
        return "; ".join(problems[:6])
    return None


def _body(doc):
    return doc.get("clip"), doc.get("motion"), doc.get("legacy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--zip", required=True, help="the add-on zip (target mabkit_blender_addon)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--preload", default="", help="a sanitizer runtime to load into Blender first (the "
                    "module of an ASan build needs it)")
    args = ap.parse_args()
    blender = os.environ.get("MAB_BLENDER") or shutil.which("blender")
    if not blender:
        fail("blender not found: run scripts/setup, which installs Debian's blender and python3-numpy")
    if not os.path.isfile(args.zip):
        fail("no add-on zip at %s: build the target mabkit_blender_addon" % args.zip)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    cases = prepare(args.mab, args.work)
    job = os.path.join(args.work, "job.json")
    report_path = os.path.join(args.work, "report.json")
    user = os.path.join(args.work, "user_scripts")
    os.makedirs(user)
    console = console_case(args.work)
    with open(job, "w") as f:
        json.dump({"cases": cases, "console": console, "report": report_path, "zip": os.path.abspath(args.zip),
                   "edit_deg": EDIT_DEG, "new_key_deg": NEW_KEY_DEG,
                   "move_units": MOVE_UNITS}, f)
    # Debian's Blender embeds the system Python and takes its home from the first python3 on
    # PATH; BLENDER_USER_SCRIPTS keeps addon_install away from the user's configuration.
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""), BLENDER_USER_SCRIPTS=user,
               BLENDER_USER_CONFIG=os.path.join(args.work, "user_config"))
    env.pop("PYTHONPATH", None)  # the add-on runs with no mabkit module on the path (addon_side checks)
    if args.preload:
        # Blender's own allocations are not ours to judge: leak checking off, everything else on.
        env["LD_PRELOAD"] = args.preload
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    p = subprocess.run([blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "addon_side.py"),
                        "--", job], capture_output=True, text=True, timeout=1800, env=env)
    if not os.path.exists(report_path):
        fail("Blender wrote no report (exit %d)\n%s\n%s" % (p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    with open(report_path) as f:
        report = json.load(f)
    print("Blender %s, add-on from %s, mabkit %s" % (report["blender"], os.path.basename(args.zip),
                                                   report.get("mabkit", "?")))
    if report.get("fatal"):
        fail("in Blender: %s" % report["fatal"])
    # Every file the export wrote passes `mab verify`, and their sections are read, in one run each.
    written = [f for res in report["cases"] if res.get("ok") for f in
               [res["edited"], res["newkey"]["path"]] + ([res["moved"]["path"]] if "moved" in res else [])]
    if report.get("console", {}).get("ok"):
        written.append(console["out"])
    if written:
        run([args.mab, "verify"] + written)
        read_sections(args.mab, written + sorted({c["src"] for c in cases}))
    failures = []
    for case, res in zip(cases, report["cases"]):
        if not res["ok"]:
            failures.append("%s: in Blender: %s\n%s" % (case["name"], res.get("error"), res.get("trace", "")))
            continue
        problem = judge(args.mab, case, res)
        if problem:
            failures.append("%s: %s" % (case["name"], problem))
            continue
        print("%s: %d keys posed (worst %.2g deg, %.2g units%s%s), family %s; unedited bytes back; edit %.1f deg "
              "on %s came back, reported error %.6f;%s new key at %s kept" % (
                  case["name"], res["posed"], res["worst_deg"], res["worst_units"],
                  ", glTF importer agrees within %.2g deg" % res["gltf_deg"] if "gltf_deg" in res else "",
                  "; root motion at %d keys within %.2g deg, %.2g units" % (
                      res["root_keys"], res["root_deg"], res["root_units"]) if res.get("root_keys") else "",
                  res["family"].lower(), res["edit"]["degrees"], res["edit"]["bone"],
                  reported_error(res["edit_report"]),
                  " translation of %s moved %g came back (reported %.3g units);" % (
                      res["moved"]["bone"], res["moved"]["offset"], reported_units(res["moved"]["report"]))
                  if "moved" in res else "",
                  res["newkey"].get("time", res["newkey"].get("frame"))))
        for why in res.get("refused", []):
            print("    refused: %s" % why)
        if "refused" in res["newkey"]:
            print("    new key refused by default, written with Max translation error %g: %s" % (
                res["newkey"]["bound"], res["newkey"]["refused"]))
    problem = judge_console(args.mab, console, report.get("console", {}), args.work)
    if problem:
        failures.append("README console example: " + problem)
    else:
        print("README console example: Spine1 turned 0.35 rad at frame 40, every other bone bit for bit")
    print("Blender time: %.1f s for %d cases" % (report.get("seconds", 0), len(cases)))
    if failures:
        fail("\n".join(failures))
    print("PASS: %d add-on cases in Blender" % len(cases))


if __name__ == "__main__":
    main()

# Runs inside Blender (docs/blender.md, "Tests"):
#   blender -b --factory-startup --python-exit-code 1 --python zip_checks.py -- ZIP CORPUS WORK
# with BLENDER_USER_SCRIPTS at an empty folder and no PYTHONPATH (run_zip_checks.py sets them).
#
# Installs the add-on zip, checks that it runs its bundled mab with no mabkit Python module
# importable, then what a new user meets (issue 32, item 5): what the export writes and where
# (the command line's output rules through mab), constraints / F-curve modifiers / NLA strips
# refused or baked, keys on new frames, no-op keys, names files and hashes, the Onto default,
# the bind family of a glTF rig, the Far Cry 2 report. Every check prints PASS or FAIL; any FAIL
# makes Blender exit 1. The written files are judged with the bundled mab's own JSON export.
import json
import math
import os
import shutil
import stat
import sys
import traceback

import numpy

if not hasattr(numpy, "bool"):  # Debian's Blender 3.4 glTF add-on calls numpy.bool (numpy 1.24 removed it)
    numpy.bool = bool

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402

ZIP, CORPUS, WORK = sys.argv[sys.argv.index("--") + 1:][:3]
ADDON = "io_anim_mab"
failures = []


def check(name):
    def wrap(fn):
        try:
            fn()
            print("PASS  %s" % name)
        except Exception as e:  # every check reports, then the run fails
            failures.append(name)
            print("FAIL  %s: %s: %s" % (name, type(e).__name__, e))
            traceback.print_exc()
        return fn
    return wrap


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module=ADDON)


def mab():
    from io_anim_mab import mabexe
    return mabexe.Mab()


def doc(path, block=0):
    return json.loads(mab().export_json(path, block))


def copy(rel, name=None):
    dst = os.path.join(WORK, name or os.path.basename(rel))
    shutil.copyfile(os.path.join(CORPUS, rel), dst)
    return dst


def import_clip(path, **kw):
    bpy.ops.import_anim.mab(filepath=path, **kw)


def export(path, **kw):
    """Runs the export operator; returns None or the error text (the operator's report)."""
    try:
        bpy.ops.export_anim.mab(filepath=path, **kw)
        return None
    except RuntimeError as e:
        return str(e)


def arm():
    return next(o for o in bpy.data.objects if o.type == "ARMATURE")


def rot_curves(act, bone):
    path = 'pose.bones["%s"].rotation_quaternion' % bone
    return sorted((fc for fc in act.fcurves if fc.data_path == path), key=lambda c: c.array_index)


def turn_key(act, bone, frame, degrees):
    """Turns the bone's existing key at `frame` about Z."""
    cs = rot_curves(act, bone)
    kp = [next(p for p in fc.keyframe_points if abs(p.co[0] - frame) < 1e-6) for fc in cs]
    q = Quaternion([p.co[1] for p in kp]) @ Quaternion((0.0, 0.0, 1.0), math.radians(degrees))
    for i, p in enumerate(kp):
        p.co[1] = p.handle_left[1] = p.handle_right[1] = q[i]
    for fc in cs:
        fc.update()


def key_new(a, bone, frame, degrees):
    """Poses the bone at `frame` turned by `degrees` from what it plays there and keys it."""
    bpy.context.scene.frame_set(frame)
    pb = a.pose.bones[bone]
    pb.rotation_quaternion = pb.rotation_quaternion @ Quaternion((0.0, 1.0, 0.0), math.radians(degrees))
    pb.keyframe_insert("rotation_quaternion", frame=frame)


def qangle(p, q):
    d = abs(sum(x * y for x, y in zip(p, q)))
    d /= math.sqrt(sum(x * x for x in p) * sum(x * x for x in q))
    return math.degrees(2 * math.acos(min(1.0, d)))


def slerp(p, q, u):
    p, q = numpy.array(p, dtype=float), numpy.array(q, dtype=float)
    d = float(numpy.dot(p, q))
    if d < 0:
        q, d = -q, -d
    if d > 0.9995:
        r = p + (q - p) * u
    else:
        th = math.acos(d)
        r = (math.sin((1 - u) * th) * p + math.sin(u * th) * q) / math.sin(th)
    return r / numpy.linalg.norm(r)


def bones_by_hash(d):
    return {b["hash"]: b for b in d["clip"]["bones"]}


def reported_error(text_lines):
    import re
    errs = [float(m) for l in text_lines for m in re.findall(r"max angular error\s+([0-9.eE+-]+) degrees", l)]
    return max(errs) if errs else 0.0


class Capture:
    """The add-on's report lines (it prints each as `mabkit: ...`)."""

    def __enter__(self):
        import contextlib
        import io
        self.buf = io.StringIO()
        self.cm = contextlib.redirect_stdout(self.buf)
        self.cm.__enter__()
        return self

    def __exit__(self, *a):
        self.cm.__exit__(*a)
        self.lines = [l[len("mabkit: "):] for l in self.buf.getvalue().splitlines() if l.startswith("mabkit: ")]
        sys.stdout.write(self.buf.getvalue())


# --- the zip ---------------------------------------------------------------------------------

bpy.ops.preferences.addon_install(filepath=ZIP)
bpy.ops.preferences.addon_enable(module=ADDON)
os.makedirs(WORK, exist_ok=True)


@check("the zip's own mab runs, no mabkit Python module is importable")
def _():
    import importlib.util
    m = mab()
    assert m.where == "bundled", "mab from %s (%s)" % (m.where, m.path)
    assert importlib.util.find_spec("mabkit") is None, "mabkit importable: %s" % importlib.util.find_spec("mabkit").origin
    print("      %s at %s" % (m.version(), m.path))


# --- the add-on's workflow, from the zip -----------------------------------------------------

WALK = copy("wdl/long_k60_alias.mab", "walk.mab")
NAMES = os.path.join(CORPUS, "bone_names.txt")


def fresh_walk():
    reset()
    import_clip(WALK, target="NEW", names_path=NAMES)
    a = arm()
    return a, a.animation_data.action


@check("unedited export is the template's bytes")
def _():
    fresh_walk()
    out = os.path.join(WORK, "unedited.mab")
    err = export(out)
    assert err is None, err
    assert open(out, "rb").read() == open(WALK, "rb").read()


@check("a one-bone edit lands alone")
def _():
    a, act = fresh_walk()
    turn_key(act, "Spine1", 40, 20.0)
    out = os.path.join(WORK, "one_bone.mab")
    with Capture() as c:
        err = export(out)
    assert err is None, err
    before, after = bones_by_hash(doc(WALK)), bones_by_hash(doc(out))
    spine1 = "0x%08X" % __import__("zlib").crc32(b"Spine1")
    changed = [h for h in before if before[h] != after[h]]
    assert changed == [spine1], "changed bones: %s" % changed
    k = doc(WALK)["clip"]["key_times"].index(40)
    d = qangle(before[spine1]["keys"][k], after[spine1]["keys"][k])
    assert abs(d - 20.0) < 0.01 + reported_error(c.lines), "the key moved %.4f degrees" % d


@check("a key on a new frame: untouched bones get the file's own interpolation (within the reported error)")
def _():
    src = copy("wd2/long_k40.mab")
    reset()
    import_clip(src, target="NEW", names_path=NAMES)
    a = arm()
    d0 = doc(src)
    times = d0["clip"]["key_times"]
    gaps = [(t0, t1) for t0, t1 in zip(times, times[1:]) if t1 - t0 >= 2]
    t0, t1 = gaps[len(gaps) // 2]
    new = (t0 + t1) // 2
    keyed = next(b.name for b in a.data.bones if rot_curves(a.animation_data.action, b.name))
    key_new(a, keyed, new, 30.0)
    out = os.path.join(WORK, "new_frame.mab")
    with Capture() as c:
        err = export(out)
    assert err is None, err
    d1 = doc(out)
    assert new in d1["clip"]["key_times"], "no key time %d" % new
    rep = reported_error(c.lines)
    pos, u = d1["clip"]["key_times"].index(new), (new - t0) / (t1 - t0)
    i0 = times.index(t0)
    keyed_hash = "0x%08X" % __import__("zlib").crc32(keyed.encode())
    worst = 0.0
    for b0, b1 in zip(d0["clip"]["bones"], d1["clip"]["bones"]):
        if "keys" not in b0 or b0["hash"] == keyed_hash:
            continue
        want = slerp(b0["keys"][i0], b0["keys"][i0 + 1], u)
        worst = max(worst, qangle(want, b1["keys"][pos]))
    assert worst <= rep + 2e-4, "an untouched bone's new key is %.5f degrees from the file's interpolation " \
        "(reported error %.5f)" % (worst, rep)
    print("      untouched bones at the new key time within %.5f degrees of the file's slerp (reported %.5f)"
          % (worst, rep))


@check("Watch Dogs 1: a one-bone key between two keys lands")
def _():
    src = copy("wd1/long_k100.mab")
    reset()
    import_clip(src, target="NEW", names_path=NAMES)
    a = arm()
    times = doc(src)["clip"]["key_times"]
    t0, t1 = next((x, y) for x, y in zip(times, times[1:]) if y - x >= 2)
    key_new(a, "Root", (t0 + t1) // 2, 20.0)
    out = os.path.join(WORK, "wd1_key.mab")
    err = export(out)
    assert err is None, err
    assert (t0 + t1) // 2 in doc(out)["clip"]["key_times"]


@check("Max translation error (units): a new key time on a 453-unit track lands within 0.001 units; one "
       "16 bits cannot hold within it stops the export naming the label, and lands with the bound named")
def _():
    # The new key after the last regroups the last 8-key chunk of every translated bone; the
    # wide bone (0x1630ABF4) was written 0.003128 units off at 6 bits (its 16-bit constants).
    src = copy("wdl/translations_flag80_constants40.mab", "wide.mab")
    reset()
    import_clip(src, target="NEW", names_path=NAMES)
    a = arm()
    d0 = doc(src)
    new = max(d0["clip"]["key_times"]) + 1
    keyed = next(b.name for b in a.data.bones if rot_curves(a.animation_data.action, b.name))
    key_new(a, keyed, new, 20.0)
    out = os.path.join(WORK, "wide_new_key.mab")
    with Capture() as c:
        err = export(out)
    assert err is None, err
    d1 = doc(out)
    assert new in d1["clip"]["key_times"], "no key time %d" % new
    import re
    reported = [float(x) for l in c.lines for x in re.findall(r"max error\s+([0-9.eE+-]+) units", l)]
    assert reported and max(reported) <= 0.001, "reported translation errors %s (lines %s)" % (reported, c.lines)
    worst = 0.0
    for t0, t1 in zip(d0["motion"]["translations"], d1["motion"]["translations"]):
        for k0, k1 in zip(t0["keys"], t1["keys"]):  # the old keys keep their indices
            worst = max(worst, max(abs(x - y) for x, y in zip(k0, k1)))
    assert worst <= 0.001, "an untouched translation moved %.6f units" % worst
    print("      untouched translations within %.6f units (reported %.6f)" % (worst, max(reported)))
    # wd1/translations_flag40: a new key time mid-clip regroups chunks spanning hundreds of
    # units, which 16 bits hold within 0.0025 units, not 0.001: refused, then written with the
    # bound the line names, set in the dialog.
    src = copy("wd1/translations_flag40.mab", "wide440.mab")
    reset()
    import_clip(src, target="NEW", names_path=NAMES)
    a = arm()
    times = doc(src)["clip"]["key_times"]
    free = [f for f in range(max(times) + 1) if f not in times]
    keyed = next(b.name for b in a.data.bones if rot_curves(a.animation_data.action, b.name))
    key_new(a, keyed, free[len(free) // 2] if free else max(times) + 1, 20.0)
    out = os.path.join(WORK, "wide440_new_key.mab")
    err = export(out)
    m = re.search(r"--max-translation-error ([0-9.eE+-]+) accepts it", err or "")
    assert m and "Max translation error (units)" in err, err
    assert not os.path.exists(out), "a refused export wrote %s" % out
    with Capture() as c:
        err2 = export(out, max_translation_error=float(m.group(1)))
    assert err2 is None, err2
    reported = [float(x) for l in c.lines for x in re.findall(r"max error\s+([0-9.eE+-]+) units", l)]
    assert reported and max(reported) <= float(m.group(1)), reported
    print("      %s; with %s: written, %.6f units" % (err.splitlines()[0][-150:], m.group(1), max(reported)))


@check("a no-op key (location 0, scale 1, the rotation it plays) is no edit")
def _():
    src = copy("wd1/long_k100.mab", "noop.mab")
    reset()
    import_clip(src, target="NEW", names_path=NAMES)
    a = arm()
    times = doc(src)["clip"]["key_times"]
    t0, t1 = next((x, y) for x, y in zip(times, times[1:]) if y - x >= 2)
    bpy.context.scene.frame_set((t0 + t1) // 2)
    pb = a.pose.bones["Root"]
    for prop in ("location", "scale"):
        pb.keyframe_insert(prop, frame=(t0 + t1) // 2)
    out = os.path.join(WORK, "noop_out.mab")
    err = export(out)
    assert err is None, err
    assert open(out, "rb").read() == open(src, "rb").read(), "the file changed: %d -> %d bytes" % (
        os.path.getsize(src), os.path.getsize(out))


# --- what the viewport shows and the keys do not ---------------------------------------------

def refused_then_baked(setup, word, name):
    a, act = fresh_walk()
    setup(a, act)
    out = os.path.join(WORK, name)
    err = export(out)
    assert err is not None and word in err and "Bake the evaluated pose" in err, "not refused naming %s: %s" % (
        word, err)
    assert not os.path.exists(out), "a refused export wrote %s" % out
    why = err.splitlines()[0]
    bpy.context.scene.frame_set(40)
    shown = {pb.name: pb.matrix.copy() for pb in a.pose.bones}
    err = export(out, bake=True)
    assert err is None, err
    assert open(out, "rb").read() != open(WALK, "rb").read(), "baked, yet the template's bytes"
    # The baked file, imported onto a new armature without the constraint, poses as the viewport did.
    reset()
    import_clip(out, target="NEW", names_path=NAMES)
    b = arm()
    bpy.context.scene.frame_set(40)
    worst = max(qangle(list(shown[pb.name].to_quaternion()), list(pb.matrix.to_quaternion())) for pb in b.pose.bones)
    assert worst < 0.02, "the baked clip poses %.4f degrees from what the viewport showed" % worst
    print("      refused: %s" % why[:200])
    print("      baked: the new import poses within %.5f degrees of the constrained viewport at frame 40" % worst)


@check("a LIMIT_ROTATION constraint: refused naming it, baked with the option")
def _():
    def setup(a, act):
        c = a.pose.bones["Spine1"].constraints.new("LIMIT_ROTATION")
        c.use_limit_x = c.use_limit_y = c.use_limit_z = True
        c.owner_space = "LOCAL"
    refused_then_baked(setup, "LIMIT_ROTATION", "constraint.mab")


@check("a Noise modifier on a bone's curve: refused naming it, baked with the option")
def _():
    def setup(a, act):
        m = rot_curves(act, "Spine1")[1].modifiers.new("NOISE")
        m.strength = 0.5
    refused_then_baked(setup, "NOISE", "noise.mab")


@check("an NLA strip over the action: refused naming it, baked with the option")
def _():
    def setup(a, act):
        other = act.copy()
        other.name = "over"
        for fc in other.fcurves:
            if fc.data_path.endswith('"Spine1"].rotation_quaternion') and fc.array_index == 3:
                for p in fc.keyframe_points:
                    p.co[1] += 0.3
        track = a.animation_data.nla_tracks.new()
        track.name = "layer"
        track.strips.new("over", 0, other)
        a.animation_data.action_influence = 0.5  # the action blends over the strip: the pose is a mix
    refused_then_baked(setup, "NLA", "nla.mab")


# --- where the export writes: the command line's rules through mab ---------------------------

@check("export onto a symbolic link keeps the link and writes its target")
def _():
    fresh_walk()
    target = os.path.join(WORK, "link_target.mab")
    shutil.copyfile(os.path.join(CORPUS, "wd1/one_bone_k8.mab"), target)
    link = os.path.join(WORK, "link.mab")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("link_target.mab", link)
    err = export(link)
    assert err is None, err
    assert os.path.islink(link), "the link was replaced"
    assert open(target, "rb").read() == open(WALK, "rb").read()


@check("export onto a device node writes to it and keeps it (/dev/null)")
def _():
    fresh_walk()
    err = export("/dev/null")
    assert err is None, err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@check("export onto its own source clip is refused naming the option; with it, a .bak is kept")
def _():
    a, act = fresh_walk()
    turn_key(act, "Spine1", 40, 5.0)
    before = open(WALK, "rb").read()
    err = export(WALK)
    assert err is not None and "Overwrite the template" in err, err
    assert open(WALK, "rb").read() == before, "the source changed"
    err = export(WALK, in_place=True)
    assert err is None, err
    assert open(WALK + ".bak", "rb").read() == before, "no .bak with the source's bytes"
    assert open(WALK, "rb").read() != before
    shutil.move(WALK + ".bak", WALK)


@check("export onto a folder, into a missing folder, onto a full disk: one line, nothing left behind")
def _():
    fresh_walk()
    for path, word in ((WORK, "directory"), (os.path.join(WORK, "missing", "x.mab"), "missing"),
                       ("/dev/full", "space")):
        err = export(path)
        assert err is not None and word in err.lower() or (err and "No such file" in err), "%s: %s" % (path, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    left = [n for n in os.listdir(WORK) if ".tmp" in n]
    assert not left, "left behind: %s" % left


# --- names, Onto, labels, bind family, Far Cry 2 report -------------------------------------

@check("bone names hash as UTF-8, as `mab hash`")
def _():
    from io_anim_mab import matching
    out, _ = mab().run(["hash", "Épaule gauche"])
    want = int(out.decode().split()[-1] if out.decode().split()[-1].startswith("0x") else
               next(w for w in out.decode().split() if w.startswith("0x")), 16)
    assert matching.crc32("Épaule gauche") == want, "0x%08X != 0x%08X" % (matching.crc32("Épaule gauche"), want)


@check("a names file with a BOM, CRLF and trailing spaces names every bone, as `mab export --names`")
def _():
    names = [n for n in open(NAMES, encoding="utf-8").read().splitlines() if n and not n.startswith("#")]
    messy = os.path.join(WORK, "names_bom_crlf.txt")
    with open(messy, "wb") as f:
        f.write(b"\xef\xbb\xbf" + b"".join(n.encode() + b"  \t\r\n" for n in names))
    reset()
    import_clip(WALK, target="NEW", names_path=NAMES)
    clean = sorted(b.name for b in arm().data.bones)
    reset()
    import_clip(WALK, target="NEW", names_path=messy)
    got = sorted(b.name for b in arm().data.bones)
    assert got == clean, "named %s, the clean file %s" % (got, clean)
    assert not any(n.startswith("bone_0x") for n in got), got


@check("Onto's default works with nothing selected")
def _():
    reset()
    import_clip(WALK, names_path=NAMES)
    assert arm() is not None


@check("the error with no armature selected names labels the dialog has")
def _():
    reset()
    try:
        import_clip(WALK, target="SELECTED")
        raise AssertionError("imported onto nothing")
    except RuntimeError as e:
        msg = str(e)
    import re
    labels = {i.name for i in bpy.ops.import_anim.mab.get_rna_type().properties["target"].enum_items}
    quoted = re.findall(r"'([^']+)'", msg)
    assert quoted and all(q in labels for q in quoted), "%s names %s; the labels are %s" % (msg, quoted, labels)


@check("a rig from `mab export --skeleton`: Automatic bind family is character, no vote")
def _():
    reset()
    glb = os.path.join(WORK, "skel.glb")
    mab().run(["export", os.path.join(CORPUS, "wd1/one_bone_k8.mab"), "-o", glb, "--skeleton",
               os.path.join(CORPUS, "external/RiggedSimple.gltf")])
    bpy.ops.import_scene.gltf(filepath=glb)
    a = arm()
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    a.select_set(True)
    bpy.context.view_layer.objects.active = a
    with Capture() as c:
        import_clip(os.path.join(CORPUS, "wd1/one_bone_k8.mab"), target="SELECTED", gltf_path=glb)
    act = a.animation_data.action
    assert act["mabkit_family"] == "CHARACTER", act["mabkit_family"]
    assert any("no vote" in l for l in c.lines), c.lines


@check("Far Cry 2: a key between stored keys lands, stored at a new frame (mab's report)")
def _():
    src = copy("fc2/all_arrays.mab", "fc2.mab")
    # The keyed tracks' stored frames, from `mab dump`: Blender shows every frame as a key (the
    # rotation `mab export` samples there), so the action does not tell which are stored.
    text, _ = mab().run(["dump", src])
    lines = text.decode().split("keyed rotations")[1].split("\n\n")[0].splitlines()
    stored = {}
    for line in lines:
        cols = line.split()
        if len(cols) == 7 and cols[0].isdigit():
            stored.setdefault(int(cols[0]), []).append(int(cols[1]))
    reset()
    import_clip(src, target="NEW")
    a = arm()
    act = a.animation_data.action
    bid, frames = next((b, f) for b, f in sorted(stored.items()) if len(f) > 2 and rot_curves(act, "bone_%d" % b))
    bone = "bone_%d" % bid
    last = doc(src)["clip"]["key_times"][-1]
    assert len(rot_curves(act, bone)[0].keyframe_points) == last + 1, "the import keys every frame"
    free = next(f for f in range(frames[-1]) if f not in frames)
    key_new(a, bone, free, 25.0)
    with Capture() as c:
        err = export(os.path.join(WORK, "fc2_out.mab"))
    assert err is None, err
    ours = next(l for l in c.lines if "bones changed:" in l)
    assert bone in ours.split("bones changed:")[1], ours
    import re
    theirs = [l for l in c.lines if re.search(r"\d+ at new frames", l)]
    assert theirs and not re.search(r"\b0 at new frames", theirs[0]), theirs
    after, _ = mab().run(["dump", os.path.join(WORK, "fc2_out.mab"), "--bone", str(bid), "--frames", str(free)])
    assert re.search(r"^\s+%d\s+%d\s" % (bid, free), after.decode(), re.M), after.decode()


@check("Far Cry 2: a constant translation made to move becomes a translation track")
def _():
    src = copy("fc2/all_arrays.mab", "fc2_ct.mab")
    before = doc(src)
    const = {t["hash"]: t["translation"] for t in before["motion"]["constant_translations"]}
    h = sorted(const)[0]
    bone = "bone_%d" % int(h, 16)
    reset()
    import_clip(src, target="NEW")
    a = arm()
    bpy.context.scene.frame_set(3)
    pb = a.pose.bones[bone]
    pb.location = (pb.location[0] + 0.25, pb.location[1], pb.location[2])
    pb.keyframe_insert("location", frame=3)
    out = os.path.join(WORK, "fc2_ct_out.mab")
    err = export(out)
    assert err is None, err
    after = doc(out)
    assert h not in {t["hash"] for t in after["motion"]["constant_translations"]}, after["motion"]
    track = next(t["keys"] for t in after["motion"]["translations"] if t["hash"] == h)
    assert len(track) == len(after["clip"]["key_times"]), len(track)
    assert max(abs(x - y) for x, y in zip(track[0], const[h])) < 1e-6, (track[0], const[h])
    moved = math.sqrt(sum((x - y) ** 2 for x, y in zip(track[3], const[h])))
    assert abs(moved - 0.25) < 1e-4, moved
    assert before["clip"] == after["clip"], "rotations changed though only a translation was keyed"


@check("every Far Cry 2/3 corpus clip: imported and exported unedited, each block gives the template's bytes")
def _():
    seen = 0
    for game in ("fc2", "fc3", "fc3bd"):
        for name in sorted(os.listdir(os.path.join(CORPUS, game))):
            if not name.endswith(".mab"):
                continue
            src = copy(os.path.join(game, name), "%s_%s" % (game, name))
            reset()
            try:
                import_clip(src, target="NEW")
            except RuntimeError as e:  # no block decodes: the add-on says so and keys nothing
                assert "no block to import" in str(e), (src, e)
                continue
            a = arm()
            acts = sorted((int(x["mabkit_block"]), x) for x in bpy.data.actions if x.get("mabkit_source"))
            for block, act in acts:
                a.animation_data.action = act
                out = os.path.join(WORK, "%s_%s_%d_out.mab" % (game, name, block))
                err = export(out)
                assert err is None, (src, block, err)
                with open(src, "rb") as x, open(out, "rb") as y:
                    assert x.read() == y.read(), "%s block %d: unedited export differs" % (src, block)
                seen += 1
    assert seen >= 20, seen
    print("      %d blocks of Far Cry 2/3 clips exported unedited: the template's bytes" % seen)


print("%d check(s) failed: %s" % (len(failures), ", ".join(failures)) if failures else "all checks passed")
sys.exit(1 if failures else 0)

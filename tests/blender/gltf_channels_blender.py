#!/usr/bin/env python3
"""Every animated channel accounted for, through real Blender (ctest blender_gltf_channels,
label blender; docs/gltf.md, "Every channel is accounted for").

Blender 3.4 imports `mab export`'s glb, an edit is made in Blender's data, Blender's own glTF
exporter writes it back (default options, extras dropped), `mab import --template` reads it:

  unedited  wd2/translations_all_bones_root_motion: translations and root motion judged against
            the template come back byte for byte;
  motion    the same clip with a bone's location key and the trajectory's location key moved:
            both land (the decoded values differ by the edit), nothing else moves;
  twice     wd2/long_k40 imported twice into one scene (Blender writes both armatures' channels
            into one animation, bone names repeated) and the second armature edited: refused,
            naming the bones and --ignore-unmatched; with it, the template comes back;
  bank      fc2/chain_3 (Blender writes every bone into every action, also those a clip has no
            track for): bone_108, which clip 0 does not rotate, turned 20 degrees there lands as
            a new constant rotation; moved in clip 1, which has no translation section, it is
            refused naming it and --ignore-unmatched; with it, the rotation lands and the
            translation is listed as dropped.

Usage: gltf_channels_blender.py --mab MAB --work DIR [--blender BLENDER]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "corpus")

BLENDER_SIDE = r'''
import sys
import numpy
numpy.bool = bool  # Debian's Blender 3.4 glTF add-on calls numpy.bool (numpy 1.24 removed it)
import bpy
src, out, mode = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.context.scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=src)
if mode == "twice":
    bpy.ops.import_scene.gltf(filepath=src)

def shift(action, path_part, index, frame, delta):
    for fc in action.fcurves:
        if path_part in fc.data_path and fc.array_index == index:
            for kp in fc.keyframe_points:
                if abs(kp.co[0] - frame) < 1e-3:
                    kp.co[1] += delta
                    kp.handle_left[1] += delta
                    kp.handle_right[1] += delta
                    return
    raise SystemExit("no key of %s[%d] at frame %d in %s" % (path_part, index, frame, action.name))

if mode == "motion":
    for o in bpy.data.objects:
        if not (o.animation_data and o.animation_data.action):
            continue
        if o.name.startswith("trajectory"):
            shift(o.animation_data.action, "location", 2, 7, 0.5)
        elif o.type == "ARMATURE":
            shift(o.animation_data.action, 'bone_0xB021FD58"].location', 0, 5, 0.25)
if mode == "bank":
    import math
    from mathutils import Quaternion
    arm = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
    pb = arm.pose.bones["bone_108"]
    pb.rotation_mode = "QUATERNION"
    for name, prop in (("block_0", "rotation_quaternion"), ("block_1", "location")):
        arm.animation_data.action = [a for a in bpy.data.actions if a.name.startswith(name + "_")][0]
        pb.rotation_quaternion = Quaternion((0, 0, 1), math.radians(20)) if prop == "rotation_quaternion" else (1, 0, 0, 0)
        pb.location = (0, 0.25, 0) if prop == "location" else (0, 0, 0)
        pb.keyframe_insert(prop, frame=0)
if mode == "twice":
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(arms) == 2, arms
    shift(arms[-1].animation_data.action, 'pose.bones["Spine1"].rotation_quaternion', 3, 2, -0.3)
bpy.ops.export_scene.gltf(filepath=out, export_format="GLB")
'''


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# A python3 from elsewhere on PATH (pyenv, a virtualenv) would hide the system's numpy from Blender.
ENV = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if p.returncode != expect:
        fail("%s exited %d (expected %d)\nstdout: %s\nstderr: %s" % (" ".join(cmd), p.returncode, expect, p.stdout,
                                                                    p.stderr))
    return p


def blender(args, src, out, mode, work):
    script = os.path.join(work, "blender_side.py")
    with open(script, "w") as f:
        f.write(BLENDER_SIDE)
    run([args.blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script, "--", src, out, mode])


def motion_of(args, mab_file, work, tag):
    out = os.path.join(work, tag + ".json")
    run([args.mab, "export", mab_file, "--json-version", "2", "-o", out])
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--blender", default=os.environ.get("MAB_BLENDER") or shutil.which("blender") or "/usr/bin/blender")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = lambda name: os.path.join(args.work, name)
    names = os.path.join(CORPUS, "bone_names.txt")

    motion = os.path.join(CORPUS, "wd2", "translations_all_bones_root_motion.mab")
    run([args.mab, "export", motion, "-o", w("motion.glb")])
    blender(args, w("motion.glb"), w("motion_unedited.glb"), "unedited", args.work)
    run([args.mab, "import", w("motion_unedited.glb"), "--template", motion, "-o", w("unedited.mab")])
    if open(w("unedited.mab"), "rb").read() != open(motion, "rb").read():
        fail("the unedited Blender round trip of %s changed it" % motion)

    blender(args, w("motion.glb"), w("motion_edited.glb"), "motion", args.work)
    p = run([args.mab, "import", w("motion_edited.glb"), "--template", motion, "-o", w("edited.mab")])
    for want in ("root motion translation", "0xB021FD58 translation"):
        if want not in p.stdout:
            fail("the report does not name %r:\n%s" % (want, p.stdout))
    before = motion_of(args, motion, args.work, "before")
    after = motion_of(args, w("edited.mab"), args.work, "after")
    if before == after:
        fail("the translation and root-motion edits did not land")
    if open(w("edited.mab"), "rb").read() == open(motion, "rb").read():
        fail("the edited import wrote the template's bytes")

    k40 = os.path.join(CORPUS, "wd2", "long_k40.mab")
    run([args.mab, "export", k40, "-o", w("k40.glb"), "--names", names])
    blender(args, w("k40.glb"), w("k40_twice.glb"), "twice", args.work)
    p = run([args.mab, "import", w("k40_twice.glb"), "--template", k40, "-o", w("twice.mab")], expect=1)
    if "Spine1 (matches no bone of the block)" not in p.stderr or "--ignore-unmatched" not in p.stderr:
        fail("the second armature's edit was not refused by name:\n" + p.stderr)
    if os.path.exists(w("twice.mab")):
        fail("a refused import wrote its output")
    p = run([args.mab, "import", w("k40_twice.glb"), "--template", k40, "-o", w("twice.mab"), "--ignore-unmatched"])
    if "dropped           Spine1" not in p.stdout:
        fail("--ignore-unmatched does not list what it dropped:\n" + p.stdout)
    chain = os.path.join(CORPUS, "fc2", "chain_3.mab")
    run([args.mab, "export", chain, "-o", w("chain.glb")])
    blender(args, w("chain.glb"), w("chain_bank.glb"), "bank", args.work)
    p = run([args.mab, "import", w("chain_bank.glb"), "--template", chain, "-o", w("bank.mab")], expect=1)
    if "bone_108 translation" not in p.stderr or "--ignore-unmatched" not in p.stderr:
        fail("a translation clip 1 cannot hold was not refused by name:\n" + p.stderr)
    if os.path.exists(w("bank.mab")):
        fail("a refused import wrote its output")
    p = run([args.mab, "import", w("chain_bank.glb"), "--template", chain, "-o", w("bank.mab"), "--ignore-unmatched"])
    if "bone_108 rotation (new constant)" not in p.stdout or "dropped           bone_108 translation" not in p.stdout:
        fail("the rotation did not land or the translation is not listed as dropped:\n" + p.stdout)
    clip0 = motion_of(args, w("bank.mab"), args.work, "bank")["legacy_clip"]
    if 108 not in [c["bone"] for c in clip0["constant_rotations"]]:
        fail("clip 0 has no constant rotation for bone 108 after the import: %s" % clip0["constant_rotations"])
    print("OK: unedited root motion byte for byte, motion edits landed, a second armature refused, "
          "an untracked bank bone's edit landed or was refused by name")


if __name__ == "__main__":
    main()

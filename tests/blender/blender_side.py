# Runs inside Blender (blender -b --factory-startup --python tests/blender/blender_side.py -- JOB.json).
#
# For each case of the job, the modder's steps of the README (and the variants the driver asks
# for): set the scene frame rate (or leave Blender's 24), import a glTF written by `mab export`
# with Blender's own importer, check every action's keyframes (frames and values) and the
# evaluated pose against what mabkit decoded, optionally edit (turn one keyframe, move one
# location keyframe, or key a bone on a frame the clip lacks, as Pose Mode's Insert Keyframe
# does), and export with Blender's own exporter: its default settings unless the case says
# otherwise. Writes a JSON report; the driver (run_blender_tests.py) decides pass or fail from
# it and from mabkit's own checks.
#
# Action F-curves are reached through action_curves() alone: Blender 4.4 brought slotted
# actions and 5.0 removes Action.fcurves, so that is the one place to change (tested: 3.4).
import json
import math
import sys
import traceback

import numpy

# Debian's Blender 3.4 glTF add-on calls numpy.bool, which Debian 12's numpy 1.24 removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402
from mathutils import Quaternion, Vector  # noqa: E402


def to_blender(q):
    """glTF (x, y, z, w), Y-up -> Blender Quaternion (w, x, y, z), Z-up: the importer's
    change of basis (x, y, z) -> (x, -z, y)."""
    x, y, z, w = q
    return Quaternion((w, x, -z, y))


def from_blender(b):
    """The inverse of to_blender: Blender (w, x, y, z) -> glTF (x, y, z, w)."""
    return [b.x, b.z, -b.y, b.w]


def to_blender_vec(v):
    """glTF Y-up position -> Blender Z-up: (x, y, z) -> (x, -z, y)."""
    x, y, z = v
    return Vector((x, -z, y))


def angle_deg(a, b):
    d = abs(a.dot(b)) / (a.magnitude * b.magnitude)
    return math.degrees(2.0 * math.acos(min(1.0, d)))


def armature():
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    if len(arms) != 1:
        raise RuntimeError("expected one armature, Blender made %d" % len(arms))
    return arms[0]


def action_for_block(block):
    for a in bpy.data.actions:
        if a.name == "block_%d" % block or a.name.startswith("block_%d_" % block):
            return a
    raise RuntimeError("no action for block %d among %s" % (block, [a.name for a in bpy.data.actions]))


def action_curves(action):
    return action.fcurves


def bone_curves(action, bone, prop, count):
    path = 'pose.bones["%s"].%s' % (bone, prop)
    curves = sorted((fc for fc in action_curves(action) if fc.data_path == path), key=lambda fc: fc.array_index)
    return curves if len(curves) == count else None


def set_frame(scene, frame):
    scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))


def check_keyframes(case, report):
    """Every block's rotation tracks (their own key times) and translation tracks against the
    keyframes Blender made, and a few evaluated poses: rotations through the bone's rest, and
    positions through the bone's head in armature space (the rig being flat)."""
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    arm = armature()
    worst = {"worst_value_deg": 0.0, "worst_frame": 0.0, "worst_pose_deg": 0.0, "worst_position": 0.0}
    keyframes = 0
    for block in case["blocks"]:
        action = action_for_block(block["block"])
        arm.animation_data.action = action
        for track in block["rotations"] + block["translations"]:
            rotation = "keys" in track
            name = track["name"]
            pb = arm.pose.bones.get(name)
            if pb is None:
                raise RuntimeError("Blender made no bone %s" % name)
            values = track["keys"] if rotation else track["values"]
            curves = bone_curves(action, name, "rotation_quaternion" if rotation else "location", 4 if rotation else 3)
            if curves is None:
                raise RuntimeError("action %s has no %s curves for %s" % (action.name, "rotation" if rotation
                                                                           else "location", name))
            for fc in curves:
                if len(fc.keyframe_points) != len(values):
                    raise RuntimeError("%s: %d keyframes on curve %d, mabkit decoded %d"
                                       % (name, len(fc.keyframe_points), fc.array_index, len(values)))
            rest = pb.bone.matrix_local.to_quaternion()
            keyframes += len(values)
            if rotation:
                for k, q in enumerate(values):
                    expected = rest.inverted() @ to_blender(q) @ rest
                    got = Quaternion([fc.keyframe_points[k].co[1] for fc in curves])
                    worst["worst_value_deg"] = max(worst["worst_value_deg"], angle_deg(expected, got))
                    for fc in curves:
                        worst["worst_frame"] = max(worst["worst_frame"],
                                                   abs(fc.keyframe_points[k].co[0] - track["times"][k] * fps))
            for k in sorted({0, len(values) // 2, len(values) - 1}):
                set_frame(scene, track["times"][k] * fps)
                if rotation:
                    expected = rest.inverted() @ to_blender(values[k]) @ rest
                    worst["worst_pose_deg"] = max(worst["worst_pose_deg"], angle_deg(expected, pb.rotation_quaternion))
                else:
                    worst["worst_position"] = max(worst["worst_position"],
                                                  (pb.head - to_blender_vec(values[k])).length)
    report.update(worst)
    report.update({"keyframes": keyframes, "fps": fps})


def turn_keyframe(arm, edit, report):
    """One rotation keyframe's value turned about the bone's z: the keyframe itself, where
    Blender shows it, whatever frame it sits on."""
    action = action_for_block(edit["block"])
    arm.animation_data.action = action
    curves = bone_curves(action, edit["bone"], "rotation_quaternion", 4)
    k = edit["key"]
    before = Quaternion([fc.keyframe_points[k].co[1] for fc in curves])
    after = before @ Quaternion((0.0, 0.0, 1.0), math.radians(edit["degrees"]))
    for i, fc in enumerate(curves):
        fc.keyframe_points[k].co[1] = after[i]
        fc.keyframe_points[k].handle_left[1] = after[i]
        fc.keyframe_points[k].handle_right[1] = after[i]
        fc.update()
    report["edited"] = {"bone": edit["bone"], "key": k, "degrees": angle_deg(before, after)}


def move_location(arm, moved, report):
    """A location keyframe pushed along the bone's x axis (Far Cry 2/3 translations)."""
    action = action_for_block(moved["block"])
    arm.animation_data.action = action
    fc = bone_curves(action, moved["bone"], "location", 3)[0]
    k = moved["key"]
    fc.keyframe_points[k].co[1] += moved["offset"]
    fc.keyframe_points[k].handle_left[1] += moved["offset"]
    fc.keyframe_points[k].handle_right[1] += moved["offset"]
    fc.update()
    report["edited_translation"] = {"bone": moved["bone"], "key": k, "offset": moved["offset"]}


def key_new_frame(arm, new, report):
    """Pose Mode on a frame the clip has no key on: turn the bone, Insert Keyframe. Reports the
    pose keyed, as glTF's rotation in mabkit's frames, for the driver to find in the .mab."""
    scene = bpy.context.scene
    arm.animation_data.action = action_for_block(new["block"])
    scene.frame_set(new["frame"])
    pb = arm.pose.bones[new["bone"]]
    before = pb.rotation_quaternion.copy()
    pb.rotation_quaternion = before @ Quaternion((0.0, 0.0, 1.0), math.radians(new["degrees"]))
    pb.keyframe_insert("rotation_quaternion", frame=new["frame"])
    rest = pb.bone.matrix_local.to_quaternion()
    keyed = rest @ pb.rotation_quaternion @ rest.inverted()
    report["new_key"] = {"bone": new["bone"], "frame": new["frame"], "rotation": from_blender(keyed),
                         "degrees": angle_deg(before, pb.rotation_quaternion)}


def run_case(case, report):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    if case.get("scene_fps"):
        # The README's first step: the frame rate `mab export` printed (Blender's rate is
        # fps / fps_base; a whole rate has base 1).
        scene.render.fps = max(1, round(case["scene_fps"]))
        scene.render.fps_base = scene.render.fps / case["scene_fps"]
    bpy.ops.import_scene.gltf(filepath=case["gltf"])
    if case.get("check_keyframes", True):
        check_keyframes(case, report)
    arm = armature()
    if case.get("edit"):
        turn_keyframe(arm, case["edit"], report)
    if case.get("edit_translation"):
        move_location(arm, case["edit_translation"], report)
    if case.get("new_key"):
        key_new_frame(arm, case["new_key"], report)
    # Blender's own defaults unless the case changes one ("Always Sample Animations" is
    # export_force_sampling, "Custom Properties" export_extras).
    bpy.ops.export_scene.gltf(filepath=case["out"], export_format="GLB", **case.get("export", {}))


def main():
    job_path = sys.argv[sys.argv.index("--") + 1]
    with open(job_path) as f:
        job = json.load(f)
    reports = []
    for case in job["cases"]:
        report = {"name": case["name"], "ok": False}
        try:
            run_case(case, report)
            report["ok"] = True
        except Exception as e:  # reported to the driver, which fails the test
            report["error"] = "%s: %s" % (type(e).__name__, e)
            report["trace"] = traceback.format_exc()
        reports.append(report)
    with open(job["report"], "w") as f:
        json.dump({"blender": bpy.app.version_string, "cases": reports}, f, indent=1)


main()

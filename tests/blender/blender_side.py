# Runs inside Blender (blender -b --factory-startup --python tests/blender/blender_side.py -- JOB.json).
#
# For each case of the job: import a glTF written by `mab export` with Blender's own glTF
# importer, check every action's keyframes (frames and values) and the evaluated pose against
# the rotations mabkit decoded, optionally change one bone's rotation at one keyframe, and
# export with Blender's own glTF exporter. Writes a JSON report next to the job; the driver
# (run_blender_tests.py) decides pass or fail from it and from mabkit's own checks.
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


def rotation_curves(action, bone):
    path = 'pose.bones["%s"].rotation_quaternion' % bone
    curves = sorted((fc for fc in action.fcurves if fc.data_path == path), key=lambda fc: fc.array_index)
    return curves if len(curves) == 4 else None


def to_blender_vec(v):
    """glTF Y-up position -> Blender Z-up: (x, y, z) -> (x, -z, y)."""
    x, y, z = v
    return Vector((x, -z, y))


def location_curves(action, bone):
    path = 'pose.bones["%s"].location' % bone
    curves = sorted((fc for fc in action.fcurves if fc.data_path == path), key=lambda fc: fc.array_index)
    return curves if len(curves) == 3 else None


def check_legacy_case(case, report):
    """Far Cry 2/3: each rotation track has its own key times; translations and root motion
    are location curves, checked through the evaluated pose (the bone's head in armature space
    is the glTF translation, the rig being flat)."""
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    arm = armature()
    worst_value = worst_frame = worst_pose = worst_position = 0.0
    keyframes = 0
    for block in case["blocks"]:
        action = action_for_block(block["block"])
        arm.animation_data.action = action
        for track in block["rotations"]:
            name = track["name"]
            pb = arm.pose.bones.get(name)
            if pb is None:
                raise RuntimeError("Blender made no bone %s" % name)
            curves = rotation_curves(action, name)
            if curves is None:
                raise RuntimeError("action %s has no rotation curves for %s" % (action.name, name))
            for fc in curves:
                if len(fc.keyframe_points) != len(track["keys"]):
                    raise RuntimeError("%s: %d keyframes, mabkit decoded %d keys"
                                       % (name, len(fc.keyframe_points), len(track["keys"])))
            rest = pb.bone.matrix_local.to_quaternion()
            for k, q in enumerate(track["keys"]):
                expected = rest.inverted() @ to_blender(q) @ rest
                got = Quaternion([fc.keyframe_points[k].co[1] for fc in curves])
                worst_value = max(worst_value, angle_deg(expected, got))
                for fc in curves:
                    worst_frame = max(worst_frame, abs(fc.keyframe_points[k].co[0] - track["times"][k] * fps))
                keyframes += 1
            for k in sorted({0, len(track["keys"]) // 2, len(track["keys"]) - 1}):
                frame = track["times"][k] * fps
                scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
                expected = rest.inverted() @ to_blender(track["keys"][k]) @ rest
                worst_pose = max(worst_pose, angle_deg(expected, pb.rotation_quaternion))
        for track in block["translations"]:
            name = track["name"]
            pb = arm.pose.bones.get(name)
            if pb is None:
                raise RuntimeError("Blender made no bone %s" % name)
            curves = location_curves(action, name)
            if curves is None:
                raise RuntimeError("action %s has no location curves for %s" % (action.name, name))
            for fc in curves:
                if len(fc.keyframe_points) != len(track["values"]):
                    raise RuntimeError("%s: %d location keyframes, mabkit decoded %d"
                                       % (name, len(fc.keyframe_points), len(track["values"])))
            keyframes += len(track["values"])
            for k in sorted({0, len(track["values"]) // 2, len(track["values"]) - 1}):
                frame = track["times"][k] * fps
                scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
                worst_position = max(worst_position, (pb.head - to_blender_vec(track["values"][k])).length)
    report.update({"keyframes": keyframes, "worst_value_deg": worst_value, "worst_frame": worst_frame,
                   "worst_pose_deg": worst_pose, "worst_position": worst_position, "fps": fps})


def check_case(case, report):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if case.get("legacy"):
        bpy.ops.import_scene.gltf(filepath=case["gltf"])
        check_legacy_case(case, report)
        edit_and_export(case, report)
        return
    bpy.ops.import_scene.gltf(filepath=case["gltf"])
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    arm = armature()
    worst_value = 0.0
    worst_frame = 0.0
    worst_pose = 0.0
    keyframes = 0
    for block in case["blocks"]:
        action = action_for_block(block["block"])
        arm.animation_data.action = action
        for bone in block["bones"]:
            name = bone["name"]
            pb = arm.pose.bones.get(name)
            if pb is None:
                raise RuntimeError("Blender made no bone %s" % name)
            curves = rotation_curves(action, name)
            if curves is None:
                raise RuntimeError("action %s has no rotation curves for %s" % (action.name, name))
            keys = bone["keys"]
            times = block["times"] if len(keys) > 1 else block["times"][:1]
            for fc in curves:
                if len(fc.keyframe_points) != len(keys):
                    raise RuntimeError("%s: %d keyframes on curve %d, mabkit decoded %d keys"
                                       % (name, len(fc.keyframe_points), fc.array_index, len(keys)))
            rest = pb.bone.matrix_local.to_quaternion()
            for k, q in enumerate(keys):
                expected = rest.inverted() @ to_blender(q) @ rest
                got = Quaternion([fc.keyframe_points[k].co[1] for fc in curves])
                worst_value = max(worst_value, angle_deg(expected, got))
                for fc in curves:
                    worst_frame = max(worst_frame, abs(fc.keyframe_points[k].co[0] - times[k] * fps))
                keyframes += 1
            # The pose Blender evaluates at a few keys, through its own animation system.
            for k in sorted({0, len(keys) // 2, len(keys) - 1}):
                frame = times[k] * fps
                scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
                expected = rest.inverted() @ to_blender(keys[k]) @ rest
                worst_pose = max(worst_pose, angle_deg(expected, pb.rotation_quaternion))
    report.update({"keyframes": keyframes, "worst_value_deg": worst_value, "worst_frame": worst_frame,
                   "worst_pose_deg": worst_pose, "fps": fps})

    edit_and_export(case, report)


def edit_and_export(case, report):
    arm = armature()
    edit = case.get("edit")
    if edit:
        action = action_for_block(edit["block"])
        arm.animation_data.action = action
        curves = rotation_curves(action, edit["bone"])
        k = edit["key"]
        before = Quaternion([fc.keyframe_points[k].co[1] for fc in curves])
        turn = Quaternion((0.0, 0.0, 1.0), math.radians(edit["degrees"]))
        after = before @ turn
        for i, fc in enumerate(curves):
            fc.keyframe_points[k].co[1] = after[i]
            fc.keyframe_points[k].handle_left[1] = after[i]
            fc.keyframe_points[k].handle_right[1] = after[i]
            fc.update()
        report["edited"] = {"bone": edit["bone"], "key": k, "degrees": angle_deg(before, after)}
    moved = case.get("edit_translation")
    if moved:
        # A location keyframe pushed along the bone's x axis (Far Cry 2/3 translations).
        action = action_for_block(moved["block"])
        arm.animation_data.action = action
        curves = location_curves(action, moved["bone"])
        k = moved["key"]
        fc = curves[0]
        fc.keyframe_points[k].co[1] += moved["offset"]
        fc.keyframe_points[k].handle_left[1] += moved["offset"]
        fc.keyframe_points[k].handle_right[1] += moved["offset"]
        fc.update()
        report["edited_translation"] = {"bone": moved["bone"], "key": k, "offset": moved["offset"]}
    # Keyframes as they are: "Always Sample Animations" off (docs/gltf.md, the Blender steps).
    bpy.ops.export_scene.gltf(filepath=case["out"], export_format="GLB", export_force_sampling=False)


def main():
    job_path = sys.argv[sys.argv.index("--") + 1]
    with open(job_path) as f:
        job = json.load(f)
    reports = []
    for case in job["cases"]:
        report = {"name": case["name"], "ok": False}
        try:
            check_case(case, report)
            report["ok"] = True
        except Exception as e:  # reported to the driver, which fails the test
            report["error"] = "%s: %s" % (type(e).__name__, e)
            report["trace"] = traceback.format_exc()
        reports.append(report)
    with open(job["report"], "w") as f:
        json.dump({"blender": bpy.app.version_string, "cases": reports}, f, indent=1)


main()

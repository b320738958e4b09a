# Runs inside Blender: blender -b --factory-startup --python addon_side.py -- JOB.json
#
# Installs the add-on zip (BLENDER_USER_SCRIPTS is a temporary folder), then for each case of the
# job builds or imports the rig, imports the .mab through File > Import's operator, checks the
# pose at every key in armature space against mabkit's decode (the reference JSON) composed with
# the rig's rest as this file computes it (not the add-on's code), exports unedited, with one
# bone turned at an existing key, and with a key on a new frame. The driver
# (run_addon_tests.py) judges the written files with `mab`.
import contextlib
import io
import json
import math
import os
import re
import sys
import time
import traceback
import zlib

import numpy

if not hasattr(numpy, "bool"):  # Debian's Blender 3.4 glTF add-on calls numpy.bool (numpy 1.24 removed it)
    numpy.bool = bool
np = numpy

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402

ADDON = "io_anim_mab"


# --- this test's own rigid-transform maths (w x y z quaternions, float64) --------------------

def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def qconj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def qnorm(q):
    q = np.asarray(q, dtype=np.float64)
    return q / np.linalg.norm(q)


def qrot(q, v):
    return qmul(qmul(q, np.concatenate([[0.0], v])), qconj(q))[1:]


def qangle(a, b):
    return math.degrees(2 * math.acos(min(1.0, abs(float(np.dot(qnorm(a), qnorm(b)))))))


class T:
    """Rigid transform: rotate by q, then move by t."""

    def __init__(self, q=(1, 0, 0, 0), t=(0, 0, 0)):
        self.q, self.t = qnorm(q), np.asarray(t, dtype=np.float64)

    def __matmul__(self, o):
        return T(qmul(self.q, o.q), self.t + qrot(self.q, o.t))

    def inv(self):
        c = qconj(self.q)
        return T(c, -qrot(c, self.t))

    @staticmethod
    def of(m):
        m = np.array(m, dtype=np.float64)
        r = m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0)
        return T(np.array(_mat_quat(r)), m[:3, 3])


def _mat_quat(r):
    """Quaternion of a rotation matrix from its largest component (precise for every angle)."""
    cands = [1 + r[0, 0] + r[1, 1] + r[2, 2], 1 + r[0, 0] - r[1, 1] - r[2, 2],
             1 - r[0, 0] + r[1, 1] - r[2, 2], 1 - r[0, 0] - r[1, 1] + r[2, 2]]
    i = int(np.argmax(cands))
    s = 2 * math.sqrt(max(cands[i], 1e-30))
    if i == 0:
        return [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    if i == 1:
        return [(r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    if i == 2:
        return [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s]
    return [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4]


def xyzw(q):
    return np.array([q[1], q[2], q[3], q[0]])


def wxyz(q):
    return np.array([q[3], q[0], q[1], q[2]], dtype=np.float64)


YUP = T((math.sqrt(0.5), math.sqrt(0.5), 0, 0))  # glTF Y-up to Blender Z-up


# --- rigs ------------------------------------------------------------------------------------

def community_armature(joints):
    """An armature built as the community Dunia importer builds one from a model's skeleton, in
    this test's own code: each joint's world bind = parent world . T(pos) . R(bind); the bone's
    head there; its tail at the mean of its children's heads (when 5 cm or more away), else 5 cm
    along the bind's +Y; roll left at 0 (so the Blender frame is not the bind frame); the raw
    bind quaternion kept on the bone as `xbg_fc3_rotation_raw`."""
    data = bpy.data.armatures.new("community")
    arm = bpy.data.objects.new("community", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    world = []
    for j in joints:
        local = T(qnorm(j["raw"]), j["pos"])
        world.append(local if j["parent"] < 0 else world[j["parent"]] @ local)
    bpy.ops.object.mode_set(mode="EDIT")
    ebs = []
    for j, w in zip(joints, world):
        eb = data.edit_bones.new(j["name"])
        eb.head = tuple(w.t)
        eb.tail = tuple(w.t + qrot(w.q, [0.0, 0.05, 0.0]))
        eb["xbg_fc3_rotation_raw"] = list(j["raw"])
        ebs.append(eb)
    for i, j in enumerate(joints):
        if j["parent"] >= 0:
            ebs[i].parent = ebs[j["parent"]]
        kids = [world[c].t for c, k in enumerate(joints) if k["parent"] == i]
        if kids:
            mean = np.mean(kids, axis=0)
            if np.linalg.norm(mean - world[i].t) >= 0.05:
                ebs[i].tail = tuple(mean)
    bpy.ops.object.mode_set(mode="OBJECT")
    return arm, {j["name"]: w for j, w in zip(joints, world)}


def gltf_nodes(path):
    """{name: (world T in glTF space, parent name or None)} of a .gltf or .glb."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        n = int.from_bytes(data[12:16], "little")
        data = data[20:20 + n]
    doc = json.loads(data)
    nodes = doc["nodes"]
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    out = {}

    def world(i):
        n = nodes[i]
        r = n.get("rotation", [0, 0, 0, 1])
        local = T(wxyz(r), n.get("translation", [0, 0, 0]))
        return world(parent[i]) @ local if i in parent else local
    for i, n in enumerate(nodes):
        out[n.get("name", "node_%d" % i)] = (world(i), nodes[parent[i]].get("name") if i in parent else None,
                                             world(parent[i]) if i in parent else None)
    return out


def joint_frames(case, arm, built_world):
    """{bone name: (Jm, Jp)}: the joint's bind frame and its parent joint's, armature space, as
    this test knows the rig (not as the add-on computes it)."""
    frames = {}
    bones = arm.data.bones
    if case["rig"] == "c":
        for b in bones:
            jm = built_world[b.name]
            jp = built_world[b.parent.name] if b.parent else T()
            frames[b.name] = (jm, jp)
    elif case["rig"] == "b" or case.get("skeleton_gltf"):
        nodes = gltf_nodes(case["glb"] if case["rig"] == "b" else case["skeleton_gltf"])
        to_arm = T.of(case["arm_world"]).inv() @ YUP  # where the armature stood before root motion
        for b in bones:
            w, _, pw = nodes[b.name]
            jm = to_arm @ w
            if b.parent:
                jp = to_arm @ nodes[b.parent.name][0]
            else:
                jp = to_arm @ pw if pw is not None else to_arm
            frames[b.name] = (jm, jp)
    else:  # (a) without a skeleton: every joint at the origin, identity bind
        for b in bones:
            frames[b.name] = (T(), T())
    return frames


# --- reference decode ------------------------------------------------------------------------

def load(path):
    with open(path) as f:
        return json.load(f)


def crc(name):
    return zlib.crc32(name.encode("latin-1")) & 0xFFFFFFFF


def bone_of_hash(arm, h):
    for b in arm.data.bones:
        if b.name == "bone_0x%08X" % h or crc(b.name) == h:
            return b.name
    return None


def reference_tracks(case, arm, ref):
    """{bone name: {"rot": {frame: q wxyz}, "loc": {frame: t}}} from the JSON export of a block."""
    out = {}
    clip = ref["clip"]
    times = clip["key_times"]
    if case["legacy"]:
        # Far Cry 2/3: bones by skeleton id (the hash field holds it); a bone both keyed and
        # constant is two bones of one id, the keyed one first, which the add-on keys.
        ids = {}
        for b in arm.data.bones:
            for pref in ("bone_", "J"):
                if b.name.startswith(pref) and b.name[len(pref):].isdigit():
                    ids[int(b.name[len(pref):])] = b.name

        def name_of(h):
            return ids[int(h, 16) if isinstance(h, str) else h]
    else:
        def name_of(h):
            return bone_of_hash(arm, int(h, 16))
    for bone in clip["bones"]:
        name = name_of(bone["hash"])
        if case["legacy"] and "rot" in out.get(name, {}):
            continue
        if "keys" in bone:
            out.setdefault(name, {})["rot"] = {t: wxyz(q) for t, q in zip(times, bone["keys"])}
        elif "constant" in bone:
            out.setdefault(name, {})["rot"] = {times[0]: wxyz(bone["constant"])}
    motion = ref.get("motion", {})
    for t in motion.get("translations", []):
        name = name_of(t["hash"])
        out.setdefault(name, {})["loc"] = {tt: np.array(v) for tt, v in zip(times, t["keys"])}
    for t in motion.get("constant_translations", []):
        name = name_of(t["hash"])
        out.setdefault(name, {})["loc"] = {times[0]: np.array(t["translation"])}
    return out, times


def root_motion(case, ref):
    """{frame: T} of a block's root motion (game world), empty without one."""
    m = ref.get("motion", {}).get("root_motion", {})
    rots, trs = m.get("rotations"), m.get("translations")
    frames = ref["clip"]["key_times"]
    if not rots and not trs:
        return {}
    out = {}
    for k, f in enumerate(frames):
        q = wxyz(rots[k]) if rots else (1, 0, 0, 0)
        t = trs[k][:3] if trs else (0, 0, 0)
        out[f] = T(q, t)
    return out


def held(track, frame):
    """A track's value at `frame` where it has a key there or holds one key for the whole clip."""
    if frame in track:
        return track[frame]
    if len(track) == 1:
        return next(iter(track.values()))
    return None


def expected_pose(arm, frames, tracks, frame, family):
    """{bone: P} armature-space pose matrices the clip gives at `frame` (None where a bone's
    track has no key there): W = W_parent . L, P = W . Jm^-1 . Rm."""
    worlds, poses = {}, {}

    def world(b):
        if b.name in worlds:
            return worlds[b.name]
        jm, jp = frames[b.name]
        bind = jp.inv() @ jm
        tr = tracks.get(b.name, {})
        q = held(tr["rot"], frame) if "rot" in tr else None
        t = held(tr["loc"], frame) if "loc" in tr else None
        if ("rot" in tr and q is None) or ("loc" in tr and t is None):
            worlds[b.name] = None
            return None
        if q is None:
            rq = bind.q
        else:
            rq = qmul(bind.q, q) if family == "IDENTITY" else q
        local = T(rq, t if t is not None else bind.t)
        parent = world(b.parent) if b.parent else jp
        worlds[b.name] = None if parent is None else parent @ local
        return worlds[b.name]
    for b in arm.data.bones:
        w = world(b)
        if w is not None:
            jm = frames[b.name][0]
            poses[b.name] = w @ jm.inv() @ T.of(b.matrix_local)
    return poses


def pose_errors(arm, expected, where):
    """Largest angle and distance between Blender's pose matrices and the expected ones; `where`
    gets a description of the worst bone."""
    worst_deg = worst_units = 0.0
    for name, e in expected.items():
        got = T.of(arm.pose.bones[name].matrix)
        d, u = qangle(got.q, e.q), float(np.linalg.norm(got.t - e.t))
        if d > worst_deg or u > worst_units:
            where[:] = ["bone %s: got %s %s, expected %s %s" % (name, np.round(got.q, 5), np.round(got.t, 5),
                                                                 np.round(e.q, 5), np.round(e.t, 5))]
        worst_deg, worst_units = max(worst_deg, d), max(worst_units, u)
    return worst_deg, worst_units


# --- one case --------------------------------------------------------------------------------

@contextlib.contextmanager
def captured(lines):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        yield
    lines.extend(l[len("mabkit: "):] for l in buf.getvalue().splitlines() if l.startswith("mabkit: "))


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module=ADDON)


def rig_and_import(case, res):
    built_world = None
    kw = {"filepath": case["src"], "names_path": case["names_file"]}
    if case["rig"] == "a":
        kw.update(target="NEW", gltf_path=case.get("skeleton_gltf", ""))
    elif case["rig"] == "b":
        bpy.ops.import_scene.gltf(filepath=case["glb"])
        arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
        bpy.context.view_layer.objects.active = arms[0]
        arms[0].select_set(True)
        res["gltf_actions"] = [a.name for a in bpy.data.actions]
        # Without the glTF, the import cannot know the joints' rest: it says so (a warning, or
        # an error naming the missing file when mabkit's glTF extras mark the bones).
        lines, placed = [], arms[0].matrix_world.copy()
        playing = arms[0].animation_data.action if arms[0].animation_data else None
        try:
            with captured(lines):
                bpy.ops.import_anim.mab(filepath=case["src"], target="SELECTED", names_path=case["names_file"])
        except RuntimeError as e:
            lines.append(str(e))
        if not any("as 'glTF skeleton / rest'" in l for l in lines):
            raise RuntimeError("importing onto a glTF armature without its glTF did not ask for it: %s" % lines)
        for a in [a for a in bpy.data.actions if a.get("mabkit_source")]:
            bpy.data.actions.remove(a)
        for pb in arms[0].pose.bones:
            pb.rotation_quaternion, pb.location = (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        arms[0].animation_data.action = playing
        arms[0].matrix_world = placed
        kw.update(target="SELECTED", gltf_path=case["glb"], family="CHARACTER")
    else:
        _, built_world = community_armature(case["skeleton"])
        kw.update(target="SELECTED")
    case["arm_world"] = np.identity(4)  # (a): the armature the import makes stands at the origin
    for o in bpy.data.objects:
        if o.type == "ARMATURE":
            case["arm_world"] = [list(r) for r in o.matrix_world]
    lines = []
    with captured(lines):
        r = bpy.ops.import_anim.mab(**kw)
    res["import_report"] = lines
    if r != {"FINISHED"}:
        raise RuntimeError("import: %s %s" % (r, lines))
    if case.get("dropped"):
        text = "\n".join(lines)
        if not re.search(r"clip bone\(s\) not on \w+: .*%s" % re.escape(case["dropped"]), text) or \
                not re.search(r"bone\(s\) of \w+ not in the clip: .*Extra_Joint", text):
            raise RuntimeError("the Info report does not name the unmatched bones both ways: %s" % lines)
    arm = [o for o in bpy.data.objects if o.type == "ARMATURE" and o.animation_data and o.animation_data.action
           and o.animation_data.action.get("mabkit_source")][0]
    return arm, built_world


def our_actions(case):
    acts = {}
    for a in bpy.data.actions:
        if a.get("mabkit_source"):
            acts[int(a["mabkit_block"])] = a
    want = [b["block"] for b in case["blocks"]]
    if sorted(acts) != sorted(want):
        raise RuntimeError("actions for blocks %s, expected %s" % (sorted(acts), want))
    stem = os.path.splitext(os.path.basename(case["src"]))[0]
    for b, a in acts.items():
        if a.name != "%s block %d" % (stem, b) or os.path.abspath(a["mabkit_source"]) != os.path.abspath(case["src"]):
            raise RuntimeError("action %r remembers %s; expected '%s block %d' from %s" % (
                a.name, a["mabkit_source"], stem, b, case["src"]))
    return acts


def play(arm, action):
    """Make `action` the armature's, every pose bone back at rest first: Blender leaves bones
    an action does not animate where the previous one put them."""
    for pb in arm.pose.bones:
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.location = (0.0, 0.0, 0.0)
    arm.animation_data.action = action


def stored_here(case, blk, name, frame):
    """Whether a bone's rotation is stored at `frame`: every 'aNi' key, a Far Cry 2/3 track's stored
    frames (a constant rotation: always)."""
    if not case["legacy"]:
        return True
    digits = name[5:] if name.startswith("bone_") else name[1:]
    frames = blk["stored"].get(str(int(digits))) if digits.isdigit() else None
    return frames is None or frame in frames


def check_pose(case, res, arm, built_world, acts):
    scene = bpy.context.scene
    frames = joint_frames(case, arm, built_world)
    posed, worst_deg, worst_units, gltf_deg = 0, 0.0, 0.0, 0.0
    rooted, root_deg, root_units = 0, 0.0, 0.0
    worst_where = ""
    for blk in case["blocks"]:
        ref = load(blk["ref"])
        act = acts[blk["block"]]
        family = act["mabkit_family"]
        if case["rig"] == "c" and family != case["family"]:
            raise RuntimeError("bind family %s, the rig was made for %s" % (family, case["family"]))
        rate = ref["clip"]["key_rate"]
        if rate and abs(scene.render.fps / scene.render.fps_base - rate) > 1e-6 and blk is case["blocks"][0]:
            raise RuntimeError("scene runs at %g fps, the clip at %g" % (scene.render.fps / scene.render.fps_base, rate))
        tracks, times = reference_tracks(case, arm, ref)
        if None in tracks and not case.get("dropped"):
            raise RuntimeError("a clip bone has no armature bone")
        tracks.pop(None, None)
        play(arm, act)
        for f in times:
            exp = expected_pose(arm, frames, tracks, f, family)
            if not exp:
                continue
            scene.frame_set(f)
            where = []
            d, u = pose_errors(arm, exp, where)
            if d > worst_deg or u > worst_units:
                worst_where = "block %d frame %d, %s" % (blk["block"], f, where[0] if where else "")
            worst_deg, worst_units = max(worst_deg, d), max(worst_units, u)
            posed += len(exp)
            if case["rig"] == "b":
                mine = {n: T.of(arm.pose.bones[n].matrix) for n in exp}
                gl = [a for a in bpy.data.actions if a.name in res["gltf_actions"] and
                      a.name.startswith("block_%d_" % blk["block"]) and
                      any(fc.data_path.startswith("pose.bones") for fc in a.fcurves)]
                if gl and rate:
                    play(arm, gl[0])
                    g = f / rate * 24.0  # Blender's glTF importer keyed at the factory 24 fps
                    scene.frame_set(int(math.floor(g)), subframe=g - math.floor(g))
                    for n, m in mine.items():
                        # Bones the clip moves (the glTF rig has a trajectory node too); Far Cry 2/3:
                        # at a track's stored keys, where the glTF has its keys (Blender's importer
                        # does not slerp between them as the game does).
                        if n in tracks and stored_here(case, blk, n, f):
                            d = qangle(T.of(arm.pose.bones[n].matrix).q, m.q)
                            if d > gltf_deg:
                                gltf_deg = d
                                worst_where = "block %d frame %d bone %s against the glTF importer's %s" % (
                                    blk["block"], f, n, gl[0].name)
                    play(arm, act)
        rm = root_motion(case, ref)
        if rm:
            # The object carries the root motion: O(t) = O_rest . G0 . RM(t) . G0^-1, G0 the game
            # world's frame (the root joints' parent frame).
            roots = [b.name for b in arm.data.bones if b.parent is None]
            g0 = frames[roots[0]][1]
            o_rest = T.of(case["arm_world"])
            for f, motion in rm.items():
                scene.frame_set(f)
                e = o_rest @ g0 @ motion @ g0.inv()
                got = T.of(arm.matrix_world)
                root_deg = max(root_deg, qangle(got.q, e.q))
                root_units = max(root_units, float(np.linalg.norm(got.t - e.t)))
                rooted += 1
    res.update(posed=posed, worst_deg=worst_deg, worst_units=worst_units, family=acts[case["blocks"][0]["block"]]
               ["mabkit_family"], root_keys=rooted, root_deg=root_deg, root_units=root_units)
    if root_deg > 2e-3 or root_units > 1e-4 * 10:
        raise RuntimeError("the object's root motion differs from mabkit's decode: %.4g deg, %.4g units" % (
            root_deg, root_units))
    if case["rig"] == "b":
        res["gltf_deg"] = gltf_deg
    if posed == 0:
        raise RuntimeError("no key was checked")
    if worst_deg > 2e-3 or worst_units > 1e-4 * 70 or gltf_deg > 2e-3:
        raise RuntimeError("pose differs from mabkit's decode composed with the rig's rest: %.4g deg, %.4g units"
                           "%s; worst at %s" % (worst_deg, worst_units, ", glTF importer %.4g deg" % gltf_deg
                                                if case["rig"] == "b" else "", worst_where))


# Dialog settings every later export of the case uses (the translation bound a new key's
# refusal named).
EXPORT_KW = {}


def export(path, lines, **kw):
    with captured(lines):
        r = bpy.ops.export_anim.mab(filepath=path, **dict(EXPORT_KW, **kw))
    if r != {"FINISHED"}:
        raise RuntimeError("export %s: %s %s" % (path, r, lines))


def rot_curves(act, bone):
    path = 'pose.bones["%s"].rotation_quaternion' % bone
    cs = sorted((fc for fc in act.fcurves if fc.data_path == path), key=lambda c: c.array_index)
    return cs if len(cs) == 4 else None


def pick_edit(case, arm, acts):
    """(block, bone name, key index, frame, clip id) of the animated bone with the most keys."""
    best = None
    for blk in case["blocks"]:
        act = acts[blk["block"]]
        ref = load(blk["ref"])
        if case["legacy"]:
            # The keyed track with the most stored keys: its middle stored key is turned, and the
            # new key goes on a frame between stored keys (every frame is a key time in version 3).
            for bone in ref["clip"]["bones"]:
                frames = blk["stored"].get(str(bone["hash"]), [])
                if "keys" not in bone or len(frames) <= 2:
                    continue
                name = next(b.name for b in arm.data.bones if b.name in ("bone_%d" % bone["hash"], "J%d" % bone["hash"]))
                if rot_curves(act, name) and (best is None or len(frames) > best[5]):
                    f = frames[len(frames) // 2]
                    times = ref["clip"]["key_times"]
                    best = (blk["block"], name, times.index(f), f, bone["hash"], len(frames), frames, times[-1])
        else:
            times = ref["clip"]["key_times"]
            for bone in ref["clip"]["bones"]:
                if "keys" not in bone:
                    continue
                name = bone_of_hash(arm, int(bone["hash"], 16))
                if name and rot_curves(act, name) and (best is None or len(bone["keys"]) > best[5]):
                    k = len(times) // 2
                    best = (blk["block"], name, k, times[k], bone["hash"], len(bone["keys"]), times, None)
    if best is None:
        raise RuntimeError("no animated bone to edit")
    return best


def case_run(case, job, res):
    EXPORT_KW.clear()
    reset()
    arm, built_world = rig_and_import(case, res)
    acts = our_actions(case)
    check_pose(case, res, arm, built_world, acts)
    work = case["work"]
    # Unedited: every block's action back into the file gives the template's bytes.
    res["unedited_report"] = []
    for b, act in sorted(acts.items()):
        arm.animation_data.action = act
        res["unedited"] = os.path.join(work, "unedited_%d.mab" % b)
        export(res["unedited"], res["unedited_report"])
        with open(res["unedited"], "rb") as x, open(case["src"], "rb") as y:
            if x.read() != y.read():
                raise RuntimeError("block %d unedited export differs from the template: %s" % (b, res["unedited_report"]))
    block, bone, k, frame, clip_id, _, times, last = pick_edit(case, arm, acts)
    act = acts[block]
    arm.animation_data.action = act
    curves = rot_curves(act, bone)
    # One bone turned at an existing key.
    kp = [next(p for p in fc.keyframe_points if abs(p.co[0] - frame) < 1e-6) for fc in curves]
    before = Quaternion([p.co[1] for p in kp])
    after = before @ Quaternion((0.0, 0.0, 1.0), math.radians(job["edit_deg"]))
    for i, p in enumerate(kp):
        p.co[1] = after[i]
        p.handle_left[1] = p.handle_right[1] = after[i]
    for fc in curves:
        fc.update()
    res["edited"] = os.path.join(work, "edited.mab")
    res["edit_report"] = []
    export(res["edited"], res["edit_report"])
    res["edit"] = {"block": block, "bone": bone, "key": k, "frame": frame, "degrees": qangle(before, after),
                   "hash": clip_id}
    for i, p in enumerate(kp):
        p.co[1] = before[i]
        p.handle_left[1] = p.handle_right[1] = before[i]
    for fc in curves:
        fc.update()
    moved = move_translation(case, arm, act, frame, job["move_units"])
    if moved:
        res["moved"] = moved
        res["moved"]["report"] = []
        export(moved["path"], moved["report"])
        moved.pop("restore")()
    # A key on a frame the bone (for 'aNi': the clip) has none (Far Cry 2/3: between stored keys).
    taken = set(times)
    cands = [f for f in range((last if case["legacy"] else max(times)) + 1) if f not in taken]
    if not cands:
        cands = [max(times) + 1] if not case["legacy"] else []
    if not cands:
        raise RuntimeError("no free frame for a new key")
    new = cands[len(cands) // 2]
    value = Quaternion([fc.evaluate(new) for fc in curves]).normalized() @ \
        Quaternion((0.0, 1.0, 0.0), math.radians(job["new_key_deg"]))
    for i, fc in enumerate(curves):
        p = fc.keyframe_points.insert(new, value[i])
        p.interpolation = "LINEAR"
        fc.update()
    res["newkey"] = {"path": os.path.join(work, "newkey.mab"), "bone": bone, "time": new, "hash": clip_id}
    res["newkey"]["expected"] = list(file_rotation(case, arm, built_world, bone, value, act["mabkit_family"]))
    res["newkey_report"] = []
    try:
        export(res["newkey"]["path"], res["newkey_report"])
    except RuntimeError as e:
        # The new time regroups later translation chunks; a track spanning hundreds of units
        # (wd1/translations_flag40) misses 0.001 units even at 16 bits: refused by name, nothing
        # written, then exported with the bound the line names (decision 21).
        m = re.search(r"--max-translation-error ([0-9.eE+-]+) accepts it", str(e))
        if not m or "Max translation error (units)" not in str(e) or os.path.exists(res["newkey"]["path"]):
            raise
        res["newkey"]["refused"] = str(e).strip().splitlines()[-1][-200:]
        res["newkey"]["bound"] = float(m.group(1))
        res["newkey_report"] = []
        EXPORT_KW["max_translation_error"] = res["newkey"]["bound"]
        export(res["newkey"]["path"], res["newkey_report"])
    if case.get("refusals"):
        res["refused"] = refusals(case, arm, act, bone, frame)


def move_translation(case, arm, act, frame, offset):
    """One location key (of a bone whose translation moves, at `frame`) pushed `offset` along
    the bone's x axis; returns what was moved and a function that takes it back, or None when the
    block has no moving translation."""
    for b in arm.data.bones:
        path = 'pose.bones["%s"].location' % b.name
        cs = sorted((fc for fc in act.fcurves if fc.data_path == path), key=lambda c: c.array_index)
        if len(cs) != 3 or len(cs[0].keyframe_points) < 2:
            continue
        kp = next((p for p in cs[0].keyframe_points if abs(p.co[0] - frame) < 1e-6), None)
        if kp is None:
            continue
        old = kp.co[1]
        kp.co[1] = old + offset
        kp.handle_left[1] = kp.handle_right[1] = kp.co[1]
        cs[0].update()

        def restore():
            kp.co[1] = old
            kp.handle_left[1] = kp.handle_right[1] = old
            cs[0].update()
        ident = b.name[1:] if case["legacy"] and b.name.startswith("J") else b.name[5:] if case["legacy"] else None
        return {"path": os.path.join(case["work"], "moved.mab"), "bone": b.name, "frame": frame,
                "offset": offset, "hash": "0x%08X" % (int(ident) if case["legacy"] else crc(b.name)),
                "restore": restore}
    return None


def refused(path, why, *words):
    """The export must stop (no file) with a reason naming `words`."""
    lines = []
    try:
        export(path, lines)
    except RuntimeError as e:
        msg = str(e)
        if os.path.exists(path) or not all(w in msg for w in words):
            raise RuntimeError("%s: refused, but %s: %s" % (why, "wrote a file" if os.path.exists(path)
                                                              else "the reason lacks %s" % (words,), msg))
        return msg.splitlines()[0]
    raise RuntimeError("%s: the export went through (%s)" % (why, lines))


def refusals(case, arm, act, bone, frame):
    """Edits a .mab cannot hold stop the export with the reason, one at a time."""
    out = os.path.join(case["work"], "refused.mab")
    reasons = []
    pb = arm.pose.bones[bone]
    fcs = act.fcurves
    # A key between two frames.
    pb.keyframe_insert("rotation_quaternion", frame=frame + 0.5)
    reasons.append(refused(out, "fractional frame", "%g" % (frame + 0.5), "whole frames"))
    for fc in rot_curves(act, bone):
        fc.keyframe_points.remove(next(p for p in fc.keyframe_points if abs(p.co[0] - frame - 0.5) < 1e-6))
    # Euler keys.
    pb.keyframe_insert("rotation_euler", frame=frame)
    reasons.append(refused(out, "Euler keys", bone, "rotation_euler"))
    for fc in [fc for fc in fcs if fc.data_path.endswith("rotation_euler")]:
        fcs.remove(fc)
    # Scale keys.
    pb.scale = (1.0, 2.0, 1.0)
    pb.keyframe_insert("scale", frame=frame)
    reasons.append(refused(out, "scale keys", bone, "scale"))
    for fc in [fc for fc in fcs if fc.data_path.endswith(".scale")]:
        fcs.remove(fc)
    pb.scale = (1.0, 1.0, 1.0)
    # Location keys on a bone the file stores no translation for.
    still = [b.name for b in arm.data.bones if not any(
        fc.data_path == 'pose.bones["%s"].location' % b.name for fc in fcs) and rot_curves(act, b.name)]
    if still:
        other = arm.pose.bones[still[0]]
        other.location = (0.0, 0.0, 0.5)
        other.keyframe_insert("location", frame=frame)
        reasons.append(refused(out, "location keys without a stored translation", still[0], "no translation"))
        for fc in [fc for fc in fcs if fc.data_path == 'pose.bones["%s"].location' % still[0]]:
            fcs.remove(fc)
        other.location = (0.0, 0.0, 0.0)
    if case["legacy"]:
        # A key after the last frame: the export does not change a Far Cry 2/3 clip's length.
        last = max(int(p.co[0]) for p in rot_curves(act, bone)[0].keyframe_points)
        pb.keyframe_insert("rotation_quaternion", frame=last + 1)
        reasons.append(refused(out, "a key after the last frame", bone, "%d" % (last + 1), "0..%d" % last))
        for fc in rot_curves(act, bone):
            fc.keyframe_points.remove(next(p for p in fc.keyframe_points if abs(p.co[0] - last - 1) < 1e-6))
    # Keys on a bone the block does not have.
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm.data.edit_bones.new("Not_In_Clip")
    eb.head, eb.tail = (0.0, 0.0, 0.0), (0.0, 0.1, 0.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    extra = arm.pose.bones["Not_In_Clip"]
    extra.rotation_mode = "QUATERNION"
    extra.rotation_quaternion = Quaternion((0.0, 0.0, 1.0), 0.5)
    extra.keyframe_insert("rotation_quaternion", frame=frame)
    reasons.append(refused(out, "keys on a bone the clip lacks", "Not_In_Clip", "not in the block"))
    for fc in [fc for fc in fcs if "Not_In_Clip" in fc.data_path]:
        fcs.remove(fc)
    # A template mabkit cannot read: its error (a C++ throw turned into MabError) is the reason.
    bad = os.path.join(os.path.dirname(os.path.dirname(case["src"])), "bad", "wd1_bad_signature.bad")
    lines = []
    try:
        with captured(lines):
            bpy.ops.export_anim.mab(filepath=out, template_path=bad)
        raise RuntimeError("an unreadable template was accepted: %s" % lines)
    except RuntimeError as e:
        if "template" not in str(e) or "signature" not in str(e) or os.path.exists(out):
            raise RuntimeError("unreadable template: %s" % e)
        reasons.append(str(e).splitlines()[0])
    # With everything taken back, the export goes through again and writes what it wrote before.
    lines = []
    export(out, lines)
    with open(out, "rb") as x, open(os.path.join(case["work"], "newkey.mab"), "rb") as y:
        if x.read() != y.read():
            raise RuntimeError("after the refusals, the export differs from the one before them: %s" % lines)
    return reasons


def file_rotation(case, arm, built_world, bone, basis, family):
    """The stored rotation (x y z w) a pose-basis rotation stands for, by this test's rig maths."""
    jm, jp = joint_frames(case, arm, built_world)[bone]
    rm = T.of(arm.data.bones[bone].matrix_local)
    local = jp.inv() @ rm @ T(np.array(basis)) @ rm.inv() @ jm
    q = local.q
    if family == "IDENTITY":
        q = qmul(qconj((jp.inv() @ jm).q), q)
    return xyzw(qnorm(q))


def run_console(console):
    """The README's console block, run as Blender's Python console would (its convenience
    names: bpy, C, D, mathutils and `from mathutils import *`), after a new armature was made
    from the clip and selected."""
    res = {"ok": False}
    try:
        reset()
        names = os.path.join(os.path.dirname(console["out"]), "console_names.txt")
        with open(names, "w") as f:
            f.write("\n".join(console["names"]) + "\n")
        if bpy.ops.import_anim.mab(filepath=console["src"], target="NEW", names_path=names) != {"FINISHED"}:
            raise RuntimeError("the armature for the example was not made")
        import mathutils
        ns = {"bpy": bpy, "C": bpy.context, "D": bpy.data, "mathutils": mathutils}
        exec("from mathutils import *\nfrom math import *", ns)
        lines = []
        with captured(lines):
            exec(console["code"], ns)
        res.update(ok=True, report=lines)
    except Exception as e:
        res.update(error="%s: %s" % (type(e).__name__, e), trace=traceback.format_exc())
    return res


def main():
    job = load(sys.argv[sys.argv.index("--") + 1])
    out = {"blender": bpy.app.version_string, "cases": []}
    start = time.time()
    try:
        bpy.ops.preferences.addon_install(filepath=job["zip"])
        bpy.ops.preferences.addon_enable(module=ADDON)
        from io_anim_mab import mabexe
        m = mabexe.Mab()
        out["mabkit"] = "%s (%s)" % (m.version(), m.where)
        if m.where != "bundled":
            raise RuntimeError("mab came from %s (%s), not from the zip" % (m.where, m.path))
        # The add-on must work with no compiled module: none may be importable in this Blender.
        import importlib.util
        if importlib.util.find_spec("mabkit") is not None:
            raise RuntimeError("a mabkit Python module is importable here (%s): the test must run without one"
                               % importlib.util.find_spec("mabkit").origin)
    except Exception as e:
        out["fatal"] = "installing the add-on: %s\n%s" % (e, traceback.format_exc())
        job["cases"] = []
    for case in job["cases"]:
        res = {"name": case["name"], "ok": False}
        try:
            case_run(case, job, res)
            res["ok"] = True
        except Exception as e:  # reported to the driver, which fails the test
            res["error"] = "%s: %s" % (type(e).__name__, e)
            res["trace"] = traceback.format_exc()
        out["cases"].append(res)
    if job.get("console") and not out.get("fatal"):
        out["console"] = run_console(job["console"])
    out["seconds"] = time.time() - start
    with open(job["report"], "w") as f:
        json.dump(out, f, indent=1)


main()

"""File > Import > Dunia/Disrupt animation (.mab): the work behind the operator.

One action per block, keyed on the frames of the clip's own keys (the scene runs at the clip's
key rate, so key time N is frame N), rotations in quaternion mode, translations and root motion
where the file's were decoded. The action remembers its source for the export
(ACTION_PROPS below, docs/blender.md).
"""
import os

import bpy
import numpy as np
from mathutils import Matrix

from . import clipdata, fcurves, mabexe, matching, qmath, rests, rig
from .qmath import Rigid

# Custom properties on each imported action: what the export needs to write it back.
P_SOURCE = "mabkit_source"          # absolute path of the .mab
P_BLOCK = "mabkit_block"            # block index
P_REST = "mabkit_rest"              # BONES | BIND | GLTF
P_REST_GLTF = "mabkit_rest_gltf"    # the glTF file of a GLTF rest
P_FAMILY = "mabkit_family"          # CHARACTER | IDENTITY
P_RATE = "mabkit_key_rate"          # key time units per second
P_OBJECT_REST = "mabkit_object_rest"  # the armature object's transform root motion is relative to
P_OBJECT_WORLD = "mabkit_object_world"  # its world matrix then (a glTF rest is seen from it)
P_ROOT_MOTION = "mabkit_root_motion"  # root motion keyed on the object (bool)
P_NAMES = "mabkit_names"            # names file used (Far Cry 2/3 bone ids)

BONE_LENGTH = 0.1


class ImportFailed(Exception):
    pass


class Report:
    """Lines for Blender's Info area (operator.report) and the console."""

    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(("INFO", text))

    def warn(self, text):
        self.lines.append(("WARNING", text))


def parse_blocks(spec, count):
    """'all' or numbers and ranges ("0,2-3") -> sorted block indices."""
    spec = (spec or "all").strip().lower()
    if spec in ("", "all", "*"):
        return list(range(count))
    out = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise ImportFailed("blocks: %r is not 'all' or numbers like 0,2-3" % spec)
    bad = sorted(i for i in out if not 0 <= i < count)
    if bad:
        raise ImportFailed("blocks: the file has %d block(s) (0..%d); no block %s" % (
            count, count - 1, ", ".join(map(str, bad))))
    return sorted(out)


def short_list(items, limit=8):
    items = list(items)
    more = len(items) - limit
    return ", ".join(map(str, items[:limit])) + (" and %d more" % more if more > 0 else "")


def hash_label(h, names_by_hash):
    return names_by_hash.get(h) or "0x%08X" % h


# --- the armature built from the file --------------------------------------------------------

def _clip_bones(decoded, names):
    """Bones of every decoded block, once each: [(key, name)], key = (hash, occurrence), or
    ("id", bone id) for a block whose bones are skeleton ids (Far Cry 2/3: line N of the names file
    names id N)."""
    by_hash = {matching.crc32(n): n for n in names or []}
    seen, out = set(), []
    for _, blk in decoded:
        occ = {}
        for bone in blk.bones:
            k = occ.get(bone.hash, 0)
            occ[bone.hash] = k + 1
            key = ("id", bone.hash) if blk.by_id else (bone.hash, k)
            if key in seen:
                continue
            seen.add(key)
            if blk.by_id:
                out.append((key, names[bone.hash] if names and bone.hash < len(names) else "bone_%d" % bone.hash))
                continue
            base = by_hash.get(bone.hash) or bone.name or "bone_0x%08X" % bone.hash
            out.append((key, base + (".dup%d" % k if k else "")))
    return out


def _joint_plan(clip_bones, gltf_path):
    """[(name, parent name or None, joint frame Rigid, parent frame Rigid)] parents first."""
    if not gltf_path:
        return [(name, None, Rigid(), Rigid()) for _, name in clip_bones]
    from . import gltf_skeleton
    try:
        nodes = gltf_skeleton.read_nodes(gltf_path)
    except (OSError, gltf_skeleton.GltfError) as e:
        raise ImportFailed("glTF skeleton %s: %s" % (gltf_path, e))
    keep = [n for n in nodes if n.joint] or nodes
    wanted = {n.index for n in keep}
    for n in keep:  # ancestors between joints are bones too, as Blender's glTF importer makes them
        p = n.parent
        while p >= 0 and p not in wanted:
            wanted.add(p)
            p = nodes[p].parent
    A = gltf_skeleton.YUP_TO_ZUP
    plan, placed = [], set()

    def visit(i):
        n = nodes[i]
        if i in wanted and n.name not in placed:
            parent = nodes[n.parent] if n.parent >= 0 and n.parent in wanted else None
            pframe = A @ nodes[n.parent].world if n.parent >= 0 else A
            plan.append((n.name, parent.name if parent else None, A @ n.world, pframe))
            placed.add(n.name)
        for c in range(len(nodes)):
            if nodes[c].parent == i:
                visit(c)
    for i, n in enumerate(nodes):
        if n.parent < 0:
            visit(i)
    # Clip bones the skeleton lacks hang from its first root with the root's frame (as
    # `mab export --skeleton` adds them under the skin root).
    root = next((p for p in plan if p[1] is None), None)
    placed_hashes = {matching.crc32(n) for n in placed}
    for key, name in clip_bones:
        if name in placed or (key[0] != "id" and key[1] == 0 and key[0] in placed_hashes):
            continue
        if root is None:
            plan.append((name, None, Rigid(), Rigid()))
        else:
            plan.append((name, root[0], root[2], root[2]))
    return plan


def build_armature(context, stem, decoded, names, gltf_path):
    """A new armature whose bones' rest frames are the joints' bind frames (rig source BONES)."""
    plan = _joint_plan(_clip_bones(decoded, names), gltf_path)
    data = bpy.data.armatures.new(stem)
    arm = bpy.data.objects.new(stem, data)
    context.scene.collection.objects.link(arm)
    for o in context.view_layer.objects:
        o.select_set(False)
    arm.select_set(True)
    context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    heads = {name: frame.t for name, _, frame, _ in plan}
    children = {}
    for name, parent, _, _ in plan:
        children.setdefault(parent, []).append(name)
    ebs = {}
    for name, parent, frame, pframe in plan:
        eb = data.edit_bones.new(name)
        kids = [np.linalg.norm(heads[c] - frame.t) for c in children.get(name, [])]
        kids = [k for k in kids if k > 1e-4]
        length = min(kids) if kids else BONE_LENGTH
        eb.head = (0.0, 0.0, 0.0)
        eb.tail = (0.0, length, 0.0)
        eb.matrix = Matrix([list(r) for r in frame.matrix()])
        if parent is not None:
            eb.parent = ebs[parent]
        elif not np.allclose(pframe.matrix(), np.identity(4)):
            eb[rests.PARENT_FRAME] = [float(x) for x in list(pframe.q) + list(pframe.t)]
        ebs[name] = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    data[rests.RIG_MARK] = "bones"
    return arm


# --- keys onto an armature -------------------------------------------------------------------

def _family(opts, pairs, report, index, gltf_rest):
    if opts.family != "AUTO":
        report.info("block %d: bind family %s (chosen)" % (index, opts.family.lower()))
        return opts.family
    if gltf_rest:
        # The glTF route writes each channel as the joint's full local rotation over the
        # skeleton's rest: a rig from `mab export --skeleton` is character bind, never voted.
        report.info("block %d: bind family character (the rest comes from a glTF skeleton, which "
                    "`mab export --skeleton` writes in character bind; no vote)" % index)
        return rig.CHARACTER
    fam, ident, character = rig.vote_family(pairs)
    if ident + character == 0:
        report.info("block %d: bind family character (no matched bone's bind turns over %d degrees, "
                    "nothing to vote on)" % (index, rig.VOTE_MIN_BIND_DEG))
    else:
        report.info("block %d: bind family %s by vote (identity-bind %d, character-bind %d)" % (
            index, fam.lower(), ident, character))
    return fam


def _moves(bone):
    """A bone the file gives a rotation or translation."""
    return bone.kind != "none" or bone.translations is not None or bone.constant_translation is not None


def _key_block(arm, action, blk, match, rest_of, family):
    """Fills `action` from a block, every key time of an animated bone a key (Far Cry 2/3: every
    frame, as `mab export` samples the stored keys); returns (bones keyed, keys written)."""
    frames = blk.key_times.astype(np.float64)
    keyed = keys = 0
    for i, name in match.items():
        bone = blk.bones[i]
        rest = rest_of[name]
        pb = arm.pose.bones[name]
        pb.rotation_mode = "QUATERNION"
        path = pb.path_from_id()
        local_q = None
        if bone.kind != "none":
            n = len(frames) if bone.kind == "animated" else 1
            q = bone.rotations[:n]
            fcurves.write(action, arm, path + ".rotation_quaternion", frames[:n], rest.basis_rotation(q, family), name)
            local_q = rest.local_rotation(q, family)
            keys += n
        t = bone.translations
        if t is None and bone.constant_translation is not None:
            t = bone.constant_translation[None, :]
        if t is not None:
            n = len(t)
            lq = None
            if local_q is not None and rest.head_offset() > 0:
                lq = local_q if len(local_q) == n else np.repeat(local_q[:1], n, axis=0)
            fcurves.write(action, arm, path + ".location", frames[:n], rest.basis_location(t, lq), name)
            keys += n
        keyed += 1
    return keyed, keys


def object_rest(arm):
    return Rigid.from_matrix(np.array(arm.matrix_basis, dtype=np.float64))


def key_root_motion(arm, action, frames, rot, trans, o_rest, g0):
    """Root motion on the armature object: O(t) = O_rest . G0 . RM(t) . G0^-1."""
    k = len(frames)
    q = qmath.xyzw_to_wxyz(rot) if rot is not None else np.tile([1.0, 0.0, 0.0, 0.0], (k, 1))
    t = np.asarray(trans, dtype=np.float64) if trans is not None else np.zeros((k, 3))
    o = o_rest @ g0 @ Rigid(qmath.qnormalize(q), t) @ g0.inverted()
    arm.rotation_mode = "QUATERNION"
    fcurves.write(action, arm, "location", frames, np.broadcast_to(o.t, (k, 3)), "Object Transforms")
    fcurves.write(action, arm, "rotation_quaternion", frames, qmath.continuous(np.broadcast_to(o.q, (k, 4))),
                  "Object Transforms")


def set_scene(context, rate, first, last):
    scene = context.scene
    fps = max(1, int(round(rate)))
    scene.render.fps = fps
    scene.render.fps_base = fps / rate
    scene.frame_start = int(first)
    scene.frame_end = max(int(last), int(first) + 1)


# --- the whole import ------------------------------------------------------------------------

class Options:
    def __init__(self, **kw):
        self.blocks = kw.get("blocks", "all")
        self.target = kw.get("target", "AUTO")
        self.names_path = kw.get("names_path", "")
        self.gltf_path = kw.get("gltf_path", "")
        self.rest_mode = kw.get("rest_mode", "AUTO")
        self.family = kw.get("family", "AUTO")
        self.root_motion = kw.get("root_motion", "OBJECT")
        self.set_scene = kw.get("set_scene", True)
        self.mab_path = kw.get("mab_path", "")


def selected_armature(context):
    obj = context.active_object
    if obj is not None and obj.type == "ARMATURE":
        return obj
    arms = [o for o in context.selected_objects if o.type == "ARMATURE"]
    return arms[0] if len(arms) == 1 else None


def read_blocks(mab, path):
    """[BlockInfo] of every block of `path` (`mab export --block N`); raises ImportFailed."""
    infos, count, i = [], 1, 0
    while i < count:
        try:
            raw = mab.export_json(path, i)
            doc, keys = clipdata.load_doc(raw)
        except mabexe.MabError as e:
            raise ImportFailed(str(e) if i == 0 else "block %d: %s" % (i, e))
        except ValueError as e:  # not JSON: a mab that is not this add-on's
            raise ImportFailed("%s: mab export gave no JSON document: %s" % (path, e))
        # An opaque container (its body kept as bytes) has no blocks: one block, not decodable.
        count = len(doc["container"].get("blocks", [None]))
        infos.append(clipdata.BlockInfo(i, doc, raw, keys))
        i += 1
    return infos


def decode_blocks(mab, path, spec, report):
    infos = read_blocks(mab, path)
    wanted = parse_blocks(spec, len(infos))
    decoded = []
    for i in wanted:
        b = infos[i]
        if not b.decodable:
            report.warn("block %d (%s): not imported, kept as bytes by mabkit: %s" % (i, b.kind, b.reason))
            continue
        try:
            decoded.append((i, clipdata.from_doc(b.doc, b.raw, b.keys)))
        except (KeyError, ValueError, TypeError) as e:
            report.warn("block %d: not imported: %s" % (i, e))
    if not decoded:
        raise ImportFailed("%s: no block to import (%s of %d decode)" % (
            os.path.basename(path), "none" if wanted else "no block chosen", len(infos)))
    return infos, decoded


def _target_armature(context, opts, stem, decoded, names, gltf, report):
    """The armature the clip goes onto (Onto): (armature, target, rest mode, rest glTF)."""
    target = opts.target
    if target == "AUTO":
        target = "SELECTED" if selected_armature(context) is not None else "NEW"
    if target == "NEW":
        arm = build_armature(context, stem, decoded, names, gltf)
        report.info("new armature %s: %d bones%s" % (arm.name, len(arm.data.bones),
                                                      ", rest from " + os.path.basename(gltf) if gltf else ""))
        return arm, target, "AUTO", ""
    arm = selected_armature(context)
    if arm is None:
        raise ImportFailed("no armature selected: select one, or set Onto to 'New armature' "
                           "(or 'Selected, else new')")
    return arm, target, opts.rest_mode, gltf


def _match_block(blk, bones, names, names_by_hash):
    """Clip bone -> Blender bone of one block: (match, Blender bones unused, clip bones missing)."""
    match, unused = matching.match_bones(bones, blk, names)
    match = {i: n for i, n in match.items() if _moves(blk.bones[i])}
    carried = {blk.bones[i].hash for i in match} if blk.by_id else set()
    missing, said = [], set()
    for i, b in enumerate(blk.bones):
        if i in match or not _moves(b) or b.hash in carried or (blk.by_id and b.hash in said):
            continue
        said.add(b.hash)
        missing.append("bone %d" % b.hash if blk.by_id else hash_label(b.hash, names_by_hash))
    return match, unused, missing


def _first_rotations(blk, match, rest_of):
    """(rest, first rotation) of each matched bone that rotates: what _family judges."""
    return [(rest_of[name], blk.bones[i].rotations[0]) for i, name in match.items()
            if blk.bones[i].rotations is not None]


def _key_block_root_motion(arm, action, blk, opts, o_rest, g0, index, report):
    """The block's root motion keyed on the object (dialog), or the reason it is not; whether keyed."""
    has_root = blk.root_rotations is not None or blk.root_translations is not None
    if has_root and opts.root_motion == "OBJECT":
        frames = blk.key_times.astype(np.float64)
        rr = blk.root_rotations[:len(frames)] if blk.root_rotations is not None else None
        rt = blk.root_translations[:len(frames)] if blk.root_translations is not None else None
        key_root_motion(arm, action, frames, rr, rt, o_rest, g0)
    elif has_root:
        report.info("block %d: root motion not keyed (dialog); the export keeps the file's" % index)
    return bool(has_root and opts.root_motion == "OBJECT")


def _tag_action(action, path, index, blk, opts, rest_mode, rest_gltf, family, o_rest, o_world, root_keyed):
    """What the export reads back from the action: where it came from and how it was keyed."""
    action[P_SOURCE] = path
    action[P_BLOCK] = index
    action[P_REST] = rest_mode
    action[P_REST_GLTF] = rest_gltf
    action[P_FAMILY] = family
    action[P_RATE] = blk.rate
    action[P_OBJECT_REST] = [float(x) for x in o_rest.matrix().reshape(-1)]
    action[P_OBJECT_WORLD] = [float(x) for x in o_world.reshape(-1)]
    action[P_ROOT_MOTION] = root_keyed
    action[P_NAMES] = bpy.path.abspath(opts.names_path) if opts.names_path else ""
    action.use_fake_user = True


def _set_scene_from(context, actions, report):
    """The scene's rate and frame range from the first imported block that stores a rate."""
    timed = [(i, blk) for i, blk, _ in actions if blk.rate > 0]
    rates = {blk.rate for _, blk in timed}
    if not timed:
        report.info("no imported block stores a key rate (constant poses only): the scene's frame rate "
                    "is kept")
        return
    index, blk = timed[0]
    lo, hi = int(blk.key_times[0]), int(blk.key_times[-1])
    set_scene(context, blk.rate, lo, hi)
    if len(rates) > 1:
        report.warn("blocks have different key rates (%s): the scene runs at block %d's" % (
            ", ".join("%g" % r for r in sorted(rates)), index))


def run(context, path, opts):
    """Imports `path`; returns (Report, [actions]). Raises ImportFailed with the reason."""
    report = Report()
    try:
        mab = mabexe.Mab(opts.mab_path)
    except mabexe.MabError as e:
        raise ImportFailed(str(e))
    path = os.path.abspath(bpy.path.abspath(path))
    _, decoded = decode_blocks(mab, path, opts.blocks, report)
    names = matching.read_names(bpy.path.abspath(opts.names_path)) if opts.names_path else []
    stem = os.path.splitext(os.path.basename(path))[0]
    gltf = bpy.path.abspath(opts.gltf_path) if opts.gltf_path else ""
    arm, target, rest_mode, rest_gltf = _target_armature(context, opts, stem, decoded, names, gltf, report)
    o_world = np.array(arm.matrix_world, dtype=np.float64)
    try:
        rest_of, rest_mode, rest_line, g0 = rests.armature_rests(arm, rest_mode, rest_gltf, o_world)
    except rests.RestError as e:
        raise ImportFailed(str(e))
    (report.warn if rests.ASSUMED in rest_line else report.info)(rest_line)
    bones = list(arm.data.bones)
    o_rest = object_rest(arm)
    names_by_hash = {matching.crc32(n): n for n in names}
    actions = []
    for index, blk in decoded:
        match, unused, missing = _match_block(blk, bones, names, names_by_hash)
        pairs = _first_rotations(blk, match, rest_of)
        family = _family(opts, pairs, report, index, rest_mode == "GLTF" or bool(gltf and target == "NEW"))
        action = fcurves.new_action("%s block %d" % (stem, index))
        fcurves.assign(arm, action)
        keyed, keys = _key_block(arm, action, blk, match, rest_of, family)
        root_keyed = _key_block_root_motion(arm, action, blk, opts, o_rest, g0, index, report)
        _tag_action(action, path, index, blk, opts, rest_mode, rest_gltf, family, o_rest, o_world, root_keyed)
        report.info("block %d -> action '%s': %d bones, %d keys at %g/s%s" % (
            index, action.name, keyed, keys, blk.rate, ", root motion on the object" if action[P_ROOT_MOTION] else ""))
        if missing:
            report.warn("block %d: %d clip bone(s) not on %s: %s" % (index, len(missing), arm.name, short_list(missing)))
        if unused and target != "NEW":
            report.info("block %d: %d bone(s) of %s not in the clip: %s" % (index, len(unused), arm.name,
                                                                          short_list(unused)))
        actions.append((index, blk, action))
    fcurves.assign(arm, actions[0][2])
    if opts.set_scene:
        _set_scene_from(context, actions, report)
    return report, [a for _, _, a in actions]

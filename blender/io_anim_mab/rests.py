"""Where an armature's joint bind frames (Jm, Jp of rig.py) come from.

  BONES  the Blender rest frame is the joint's bind frame (Jm = Rm). True for the armature
         this add-on builds, and the assumption for any armature without bind data.
  BIND   each bone carries its parent-relative bind rotation (w x y z) in a custom property, as
         the community Dunia importer's Far Cry 3/4/5 model import stores it
         (`xbg_fc3_rotation_raw`); joints sit at the bone heads.
  GLTF   the joints' rest comes from a glTF file: the one Blender's glTF importer made the
         armature from (or the skeleton given to `mab export --skeleton`), nodes matched to
         bones by name.
The game world's frame is the armature's own space for BONES and BIND (Dunia and Blender are
both Z-up); for GLTF it is the glTF scene's, turned Z-up as Blender's importer turns it, seen
from the armature object.
"""
import numpy as np

from . import gltf_skeleton, qmath
from .qmath import Rigid

BIND_PROPS = ("xbg_fc3_rotation_raw",)
RIG_MARK = "mabkit_rig"  # on armature data built by this add-on: its bones are its joints
PARENT_FRAME = "mabkit_parent_frame"  # on a root bone it built: w x y z, x y z of the parent frame


# AUTO's last resort, which the import reports as a warning: right for armatures built on the
# bind frames, wrong for one an importer re-oriented (Blender's glTF importer does).
ASSUMED = ("no bind data on the bones: their Blender rest is taken as the bind; if the armature "
           "came from a glTF, give that file as 'glTF skeleton / rest'")


class RestError(Exception):
    pass


def _rm(bone):
    return Rigid.from_matrix(np.array(bone.matrix_local, dtype=np.float64))


def _bind_prop(bone):
    for key in BIND_PROPS:
        if key in bone:
            q = np.array(list(bone[key])[:4], dtype=np.float64)
            if q.shape == (4,) and np.linalg.norm(q) > 0:
                return qmath.qnormalize(q)
    return None


def detect(arm, gltf_path):
    """The source AUTO picks, with the reason in words."""
    if gltf_path:
        return "GLTF", "rest from the glTF file given"
    if arm.data.get(RIG_MARK):
        return "BONES", "armature built by this add-on"
    if any(_bind_prop(b) is not None for b in arm.data.bones):
        return "BIND", "bones carry bind rotations (community importer)"
    if any("mabkit" in b for b in arm.data.bones):
        raise RestError("this armature was imported from a mabkit glTF export: give that .glb/.gltf "
                        "(or the skeleton passed to `mab export --skeleton`) as 'glTF skeleton / rest'")
    return "BONES", ASSUMED


def _root_frame(bone):
    """A root bone's parent joint frame: identity, or the frame this add-on stored on a root of
    an armature it built from a glTF skeleton (the glTF world turned Z-up)."""
    v = bone.get(PARENT_FRAME)
    if v is None or len(v) != 7:
        return Rigid()
    return Rigid(qmath.qnormalize(np.array(v[:4], dtype=np.float64)), np.array(v[4:], dtype=np.float64))


def _from_bones(arm):
    rests = {}
    for b in arm.data.bones:
        rm = _rm(b)
        jp = _rm(b.parent) if b.parent else _root_frame(b)
        rests[b.name] = (rm, rm, jp, "bones")
    return rests


def _from_bind(arm):
    rests, jm = {}, {}
    fallback = 0
    for b in _parents_first(arm):
        rm = _rm(b)
        jp = jm[b.parent.name] if b.parent else Rigid()
        bind = _bind_prop(b)
        if bind is None:
            j = rm
            fallback += 1
        else:
            j = Rigid(qmath.qmul(jp.q, bind), np.array(b.head_local, dtype=np.float64))
        jm[b.name] = j
        rests[b.name] = (rm, j, jp, "bind" if bind is not None else "bones")
    return rests, fallback


def _from_gltf(arm, path, world):
    try:
        nodes = gltf_skeleton.read_nodes(path)
    except (OSError, gltf_skeleton.GltfError) as e:
        raise RestError("cannot read the glTF rest %s: %s" % (path, e))
    by_name = {}
    for n in nodes:
        by_name.setdefault(n.name, n)
    to_arm = Rigid.from_matrix(world).inverted() @ gltf_skeleton.YUP_TO_ZUP
    rests, jm, fallback = {}, {}, 0
    for b in _parents_first(arm):
        rm = _rm(b)
        node = by_name.get(b.name)
        if b.parent:
            jp = jm[b.parent.name]
        elif node is not None and node.parent >= 0:
            jp = to_arm @ nodes[node.parent].world
        else:
            jp = to_arm
        if node is None:
            j = rm
            fallback += 1
        else:
            j = to_arm @ node.world
        jm[b.name] = j
        rests[b.name] = (rm, j, jp, "gltf" if node is not None else "bones")
    return rests, fallback


def _parents_first(arm):
    out = []

    def visit(b):
        out.append(b)
        for c in b.children:
            visit(c)
    for b in arm.data.bones:
        if b.parent is None:
            visit(b)
    return out


def armature_rests(arm, mode="AUTO", gltf_path="", world=None):
    """{bone name: rig.BoneRest}, the source used, a line for the Info report and the game
    world's frame in armature space (the parent frame of the first root bone). `world`: the
    armature object's world matrix a glTF rest is seen from (default: where it is now; the
    export passes the one the import saw, since root motion moves the object)."""
    from .rig import BoneRest
    why = "chosen in the dialog"
    if mode == "AUTO":
        mode, why = detect(arm, gltf_path)
    fallback = 0
    if mode == "BONES":
        raw = _from_bones(arm)
    elif mode == "BIND":
        raw, fallback = _from_bind(arm)
    elif mode == "GLTF":
        if not gltf_path:
            raise RestError("Rest 'From glTF' needs a .glb/.gltf as 'glTF skeleton / rest'")
        raw, fallback = _from_gltf(arm, gltf_path,
                                   np.array(arm.matrix_world, dtype=np.float64) if world is None else world)
    else:
        raise RestError("unknown rest source %r" % mode)
    rests = {name: BoneRest(name, rm, jm, jp, src) for name, (rm, jm, jp, src) in raw.items()}
    line = "rest: %s (%s)" % (mode.lower(), why)
    if fallback:
        line += "; %d bone(s) without bind data use their Blender rest" % fallback
    roots = [b.name for b in arm.data.bones if b.parent is None]
    world = rests[roots[0]].jp if roots else Rigid()
    return rests, mode, line, world

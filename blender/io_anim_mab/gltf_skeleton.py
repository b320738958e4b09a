"""The nodes of a glTF 2.0 file (.gltf or .glb): names, parents and rest transforms.

Only the JSON is read (node TRS or matrix); buffers, meshes and animations are ignored, so any
glTF rig works: the skeleton given to `mab export --skeleton`, or that command's output.
"""
import json
import struct

import numpy as np

from . import qmath
from .qmath import Rigid

# glTF is Y-up, Blender Z-up: Blender's importer maps (x, y, z) to (x, -z, y), a turn of +90
# degrees about X.
YUP_TO_ZUP = Rigid((np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0))


class GltfError(Exception):
    pass


def _json_of(data):
    if data[:4] == b"glTF":
        if len(data) < 20:
            raise GltfError("truncated GLB header")
        length, kind = struct.unpack_from("<II", data, 12)
        if kind != 0x4E4F534A or 20 + length > len(data):
            raise GltfError("GLB without a JSON chunk first")
        data = data[20:20 + length]
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise GltfError("not glTF JSON: %s" % e)


class Node:
    __slots__ = ("index", "name", "parent", "local", "world", "joint")

    def __init__(self, index, name, local):
        self.index, self.name, self.local = index, name, local
        self.parent = -1
        self.world = None
        self.joint = False


def _local(n):
    if "matrix" in n:
        m = np.array(n["matrix"], dtype=np.float64).reshape(4, 4).T  # column-major
        return Rigid.from_matrix(m)
    r = n.get("rotation", [0.0, 0.0, 0.0, 1.0])
    return Rigid(qmath.qnormalize(qmath.xyzw_to_wxyz(r)), n.get("translation", [0.0, 0.0, 0.0]))


def read_nodes(path):
    """Nodes with their world rest transform (glTF space); scale is ignored (a skeleton's joints
    are rigid in every Dunia rig)."""
    with open(path, "rb") as f:
        doc = _json_of(f.read())
    raw = doc.get("nodes", [])
    nodes = [Node(i, n.get("name", "node_%d" % i), _local(n)) for i, n in enumerate(raw)]
    for i, n in enumerate(raw):
        for c in n.get("children", []):
            if not (0 <= c < len(nodes)) or nodes[c].parent != -1 or c == i:
                raise GltfError("node %d: children do not form a tree" % i)
            nodes[c].parent = i
    for skin in doc.get("skins", []):
        for j in skin.get("joints", []):
            if 0 <= j < len(nodes):
                nodes[j].joint = True
    done = [False] * len(nodes)

    def world(i, depth=0):
        if depth > len(nodes):
            raise GltfError("node %d: its parents form a cycle" % i)
        if not done[i]:
            p = nodes[i].parent
            nodes[i].world = nodes[i].local if p < 0 else world(p, depth + 1) @ nodes[i].local
            done[i] = True
        return nodes[i].world

    for i in range(len(nodes)):
        world(i)
    return nodes

"""Synthetic Dunia-style skeletons for the add-on tests (no Blender needed here).

A skeleton is a list of joints {name, parent, pos, raw}: parent-relative bind position and
bind rotation (w, x, y, z, stored unnormalised, as the community importer finds them in model
files). Rest angles are large (most binds turn 50-170 degrees), so a rig that got the bind
convention wrong poses visibly wrong. `family` picks binds that make the community importer's
vote (see docs/blender.md) come out as the clip's authoring family:
  character: the clip's first key near the bind (the clip stores full local rotations),
  identity:  the first key nearer identity than the bind (rotations relative to the bind).
"""
import json
import math
import zlib

VOTE_DEG = 40.0


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def qangle(a, b):
    d = abs(sum(x * y for x, y in zip(a, b)))
    return math.degrees(2 * math.acos(min(1.0, d / math.sqrt(sum(x * x for x in a) * sum(x * x for x in b)))))


def axis_angle(axis, deg):
    n = math.sqrt(sum(x * x for x in axis))
    h = math.radians(deg) / 2
    return (math.cos(h),) + tuple(x / n * math.sin(h) for x in axis)


def random_axis(rng):
    while True:
        v = [rng.gauss(0, 1) for _ in range(3)]
        if sum(x * x for x in v) > 1e-6:
            return v


def first_keys(blocks, legacy, names):
    """{joint name: first stored rotation, w x y z} over the blocks' reference JSON exports."""
    out = {}
    for blk in blocks:
        with open(blk["ref"]) as f:
            doc = json.load(f)
        if legacy:  # bones by skeleton id, a keyed bone before a constant one of the same id
            for bone in doc["clip"]["bones"]:
                q = (bone.get("keys") or [bone.get("constant")])[0]
                if q is not None:
                    out.setdefault("J%d" % bone["hash"], q)
        else:
            by_hash = {"0x%08X" % (zlib.crc32(n.encode("latin-1")) & 0xFFFFFFFF): n for n in names}
            for bone in doc["clip"]["bones"]:
                q = (bone.get("keys") or [bone.get("constant")])[0]
                name = by_hash.get(bone["hash"])
                if q is not None and name:
                    out.setdefault(name, q)
    return {n: (q[3], q[0], q[1], q[2]) for n, q in out.items()}


def _bind(q0, family, rng):
    ident = (1.0, 0.0, 0.0, 0.0)
    for _ in range(2000):
        if q0 is None:
            b = axis_angle(random_axis(rng), rng.uniform(50, 170))
            return b
        if family == "character":
            if qangle(q0, ident) < 55:
                return axis_angle(random_axis(rng), rng.uniform(5, 30))  # too near identity to vote
            b = qmul(q0, axis_angle(random_axis(rng), 8.0))
        else:
            b = axis_angle(random_axis(rng), rng.uniform(60, 170))
        big = qangle(b, ident) >= VOTE_DEG + 5
        nearer_bind = qangle(q0, b) < qangle(q0, ident)
        if big and nearer_bind == (family == "character") and abs(qangle(q0, b) - qangle(q0, ident)) > 5:
            return b
    return axis_angle(random_axis(rng), 20.0)


def skeleton(names, first, family, rng):
    joints = []
    for i, name in enumerate(names):
        parent = -1 if i == 0 else (i - 1 if rng.random() < 0.6 else rng.randrange(i))
        if i == 0:
            pos = [0.0, 0.0, 1.0]
        else:
            ax = random_axis(rng)
            n = math.sqrt(sum(x * x for x in ax))
            length = rng.uniform(0.1, 0.3)
            pos = [x / n * length for x in ax]
        b = _bind(first.get(name), family, rng)
        scale = rng.uniform(0.7, 1.6)  # unnormalised, as model files store them
        joints.append({"name": name, "parent": parent, "pos": pos, "raw": [x * scale for x in b]})
    return joints


def write_gltf(joints, path):
    nodes = []
    for j in joints:
        n = math.sqrt(sum(x * x for x in j["raw"]))
        w, x, y, z = (v / n for v in j["raw"])
        nodes.append({"name": j["name"], "rotation": [x, y, z, w], "translation": j["pos"]})
    roots = []
    for i, j in enumerate(joints):
        if j["parent"] < 0:
            roots.append(i)
        else:
            nodes[j["parent"]].setdefault("children", []).append(i)
    doc = {"asset": {"version": "2.0", "generator": "mabkit tests/blender_addon"}, "scene": 0,
           "scenes": [{"nodes": roots}], "nodes": nodes, "skins": [{"joints": list(range(len(joints)))}]}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path

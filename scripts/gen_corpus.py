#!/usr/bin/env python3
"""Generate the SYNTHETIC .mab test corpus for mabkit.

Every file is assembled field by field from /work/shared/spec/mab-format.md (the
"spec") and the project decisions (decisions.md); no real game data is involved and
nothing here calls or imports the C++ code.  The generator is deterministic: each file
has its own fixed seed, derived from its variant and name.

    python3 scripts/gen_corpus.py            # (re)write <repo>/corpus
    python3 scripts/gen_corpus.py --out DIR  # write somewhere else
    python3 scripts/gen_corpus.py --check    # regenerate into a temp dir and compare

Layout of the output:
    corpus/README.md                             (generated; table of every file)
    corpus/<variant>/<name>.mab                  good files
    corpus/<variant>/<name>.expected.json        what a correct reader reports
    corpus/bad/<name>.bad, <name>.expected.json  malformed files and the expected error

Before writing, every good file is re-read from its bytes by an independent reader in
this script (section decoder, bit reader, 6-byte quaternion decoder) and compared with
its expected JSON, so a packing mistake in the encoder fails the run.
"""

import argparse
import filecmp
import hashlib
import json
import math
import random
import struct
import sys
import tempfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEED_PREFIX = "mabkit-synthetic-corpus-v1"

VARIANTS = ["fc2", "fc3", "fc3bd", "fc4", "primal", "fc5", "wd1", "wd2", "wdl"]
WD_MAGIC = {"wd1": 0x329B, "wd2": 0x46AF, "wdl": 0x46B4}
FC_MAGIC = {"fc2": 0x4C, "fc3": 0x61, "fc3bd": 0x62, "fc4": 0x81, "primal": 0x82, "fc5": 0xB0}
LAYOUT = {"wd1": "ani", "wd2": "ani", "wdl": "ani", "fc5": "ani", "fc4": "fc4",
          "fc2": "legacy", "fc3": "legacy", "fc3bd": "opaque", "primal": "opaque"}
# Layouts the spec marks as weak evidence (decision D10).
UNVERIFIED = {"fc4", "fc3", "fc3bd", "primal"}

ROUND = 7          # decimals kept for decoded quaternion components in the JSON

# ---------------------------------------------------------------------------------
# statistics collected over the whole run (coverage assertions at the end)
# ---------------------------------------------------------------------------------
STATS = {"cflags": set(), "nbits": set(), "overflow_keys": 0, "normal_keys": 0,
         "key_counts": set(), "identity_const": 0, "tcflags": set()}


class DetRng:
    """Deterministic generator built only on Mersenne Twister getrandbits() and random(),
    the two parts of `random` whose output Python keeps stable across versions, so the
    corpus does not depend on how randint/choice/gauss are implemented in a given release."""

    def __init__(self, seed):
        self._r = random.Random(seed)

    def getrandbits(self, n):
        return self._r.getrandbits(n) if n > 0 else 0

    def below(self, n):
        assert n > 0
        k = n.bit_length()
        while True:
            r = self.getrandbits(k)
            if r < n:
                return r

    def randrange(self, n):
        return self.below(n)

    def randint(self, a, b):
        return a + self.below(b - a + 1)

    def random(self):
        return self._r.random()

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def sample(self, population, k):
        pool = list(population)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


def seeded_rng(*parts):
    key = "/".join((SEED_PREFIX,) + tuple(str(p) for p in parts)).encode()
    return DetRng(int.from_bytes(hashlib.sha256(key).digest()[:8], "little"))


def f32(x):
    """The value a float becomes after a round trip through IEEE single precision."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rnd(x):
    return round(x, ROUND) + 0.0          # + 0.0 turns -0.0 into 0.0


def qround(q):
    return [rnd(c) for c in q]


def align(n, a=16):
    return (n + a - 1) // a * a


def popcount(x):
    return bin(x).count("1")


# ---------------------------------------------------------------------------------
# 6-byte packed quaternion, spec 9.1
# ---------------------------------------------------------------------------------
Q6_STEP = math.sqrt(2.0) / 32767.0
Q6_BIAS = 1.0 / math.sqrt(2.0)
IDENTITY_Q6 = bytes([0xFF, 0xBF, 0xFF, 0xBF, 0xFF, 0x3F])


def random_unit_quat(rng):
    """Uniform on the 3-sphere by rejection from the unit 4-ball (arithmetic + sqrt only)."""
    while True:
        q = [rng.uniform(-1.0, 1.0) for _ in range(4)]
        n2 = sum(c * c for c in q)
        if 1e-4 < n2 <= 1.0:
            n = math.sqrt(n2)
            return [c / n for c in q]


def encode_q6(q):
    k = max(range(4), key=lambda i: abs(q[i]))
    if q[k] < 0:
        q = [-c for c in q]
    stored = [q[i] for i in range(4) if i != k]
    vals = [min(0x7FFF, max(0, round((v + Q6_BIAS) / Q6_STEP))) for v in stored]
    w0 = vals[0] | ((k & 1) << 15)
    w1 = vals[1] | ((k >> 1) << 15)
    return struct.pack("<3H", w0, w1, vals[2])


def decode_q6(b):
    w0, w1, w2 = struct.unpack("<3H", bytes(b))
    a = (w0 & 0x7FFF) * Q6_STEP - Q6_BIAS
    bb = (w1 & 0x7FFF) * Q6_STEP - Q6_BIAS
    c = w2 * Q6_STEP - Q6_BIAS                       # D3: unsigned
    d = math.sqrt(max(0.0, 1.0 - a * a - bb * bb - c * c))
    k = (w0 >> 15) | ((w1 >> 15) << 1)
    out = [a, bb, c]
    out.insert(k, d)
    return out


# ---------------------------------------------------------------------------------
# JointRotations bitstream, spec 9.2 + decisions D1, D2, D6
# ---------------------------------------------------------------------------------
def interp_scale(n):
    return 0.0 if n < 2 else 1.0 / ((1 << n) - 1)


def const_value(v):
    return v / 32767.5 - 1.0                          # D1


def varying_values(h, raws, n):
    base = (h & 0xFF) / 127.0 - 1.0
    slope = (h >> 8) / 127.5 * interp_scale(n)
    return [base + r * slope for r in raws]


def reconstruct(vals3, wind, negate):
    slots = [i for i in range(4) if i != wind]
    q = [0.0] * 4
    s = vals3[0] * vals3[0] + vals3[1] * vals3[1] + vals3[2] * vals3[2]
    if s <= 1.0:
        for j in range(3):
            q[slots[j]] = vals3[j]
        q[wind] = math.sqrt(1.0 - s)
    else:                                             # D2: renormalise, omitted = 0
        r = math.sqrt(s)
        for j in range(3):
            q[slots[j]] = vals3[j] / r
        q[wind] = 0.0
    if negate:
        q[wind] = -q[wind]
    return q, s


class BitWriter:
    """LSB-first: bit 0 of a value goes to the lowest unused bit of the current byte."""

    def __init__(self):
        self.acc = 0
        self.pos = 0

    def put(self, value, n):
        assert 0 <= value < (1 << n), (value, n)
        self.acc |= value << self.pos
        self.pos += n

    def to_bytes(self):                               # D6: zero bits up to the byte
        return self.acc.to_bytes((self.pos + 7) // 8, "little")


class BitReader:
    """Reads as spec 9.2 says: 3 bytes from p>>3, shift by p&7, mask."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def get(self, n):
        out = 0
        done = 0
        while done < n:                                # pieces of at most 16 bits
            take = min(16, n - done)
            i = self.pos >> 3
            chunk = self.data[i:i + 3] + b"\0\0\0"
            word = chunk[0] | (chunk[1] << 8) | (chunk[2] << 16)
            out |= ((word >> (self.pos & 7)) & ((1 << take) - 1)) << done
            self.pos += take
            done += take
        return out


def random_header(rng):
    """A 16-bit varying-component header: mostly moderate, sometimes any value."""
    if rng.random() < 0.7:
        return (rng.randint(0, 50) << 8) | rng.randint(38, 216)
    return rng.getrandbits(16)


def gen_bone_block(rng, n, F, cf):
    """One bone's block in one chunk. Returns (BitWriter ops, quats[F])."""
    wind = (cf >> 4) & 3
    for _attempt in range(2000):
        signs = rng.getrandbits(F) if cf & 8 else 0
        fields = []
        comps = []
        for j in range(3):
            if (cf >> j) & 1:
                v = rng.randint(6554, 58981)           # v/32767.5-1 in about [-0.8, 0.8]
                fields.append(("c", v))
                comps.append([const_value(v)] * F)
            else:
                h = random_header(rng)
                raws = [rng.getrandbits(n) for _ in range(F)]
                fields.append(("v", h, raws))
                comps.append(varying_values(h, raws, n))
        quats = []
        ok = True
        sums = []
        for f in range(F):
            q, s = reconstruct([comps[0][f], comps[1][f], comps[2][f]], wind, (signs >> f) & 1)
            if abs(s - 1.0) < 1e-3:                    # keep clear of the branch edge
                ok = False
                break
            sums.append(s)
            quats.append(q)
        if ok:
            for s in sums:
                if s > 1.0:
                    STATS["overflow_keys"] += 1
                else:
                    STATS["normal_keys"] += 1
            return (cf, signs, fields), quats
    raise RuntimeError("could not find a code away from s == 1")


def write_bone_block(bw, code, F, n):
    cf, signs, fields = code
    bw.put(cf, 6)
    if cf & 8:
        bw.put(signs, F)
    for fld in fields:
        if fld[0] == "c":
            bw.put(fld[1], 16)
        else:
            bw.put(fld[1], 16)
            for r in fld[2]:
                bw.put(r, n)


def gen_rotation_section(rng, anim_bones, K, cflag_fn=None):
    """anim_bones: [(bone index, nbits)] ascending. Returns (bytes, {bone: quats}, {bone: [cf]})."""
    num_chunks = (K + 7) // 8
    rots = {b: [] for b, _ in anim_bones}
    cfl = {b: [] for b, _ in anim_bones}
    chunks = []
    for c in range(num_chunks):
        F = min(8, K - 8 * c)
        bw = BitWriter()
        for pos, (b, n) in enumerate(anim_bones):
            cf = cflag_fn(c, pos) if cflag_fn else rng.randrange(64)
            code, quats = gen_bone_block(rng, n, F, cf)
            write_bone_block(bw, code, F, n)
            rots[b].extend(quats)
            cfl[b].append(cf)
            STATS["cflags"].add(cf)
        chunks.append(bw.to_bytes())
    table_size = 4 * (num_chunks + 1)
    entries = [table_size]
    for ch in chunks:
        entries.append(entries[-1] + len(ch))
    data = struct.pack("<%dI" % len(entries), *entries) + b"".join(chunks)
    return data, rots, cfl


def decode_rotation_section(data, extent, anim_bones, K):
    """Independent re-read used by the self-check. Returns {bone: quats}."""
    num_chunks = (K + 7) // 8
    table = struct.unpack_from("<%dI" % (num_chunks + 1), data, 0)
    assert table[0] == 4 * (num_chunks + 1), "chunk table size"
    assert table[-1] <= extent, "chunk table beyond extent"
    out = {b: [] for b, _ in anim_bones}
    for c in range(num_chunks):
        F = min(8, K - 8 * c)
        chunk = data[table[c]:table[c + 1]]
        br = BitReader(chunk)
        for b, n in anim_bones:
            cf = br.get(6)
            signs = br.get(F) if cf & 8 else 0
            comps = []
            for j in range(3):
                if (cf >> j) & 1:
                    comps.append([const_value(br.get(16))] * F)
                else:
                    h = br.get(16)
                    comps.append(varying_values(h, [br.get(n) for _ in range(F)], n))
            for f in range(F):
                q, _ = reconstruct([comps[0][f], comps[1][f], comps[2][f]], (cf >> 4) & 3,
                                   (signs >> f) & 1)
                out[b].append(q)
        assert (br.pos + 7) // 8 == len(chunk), "chunk does not end at its byte boundary"
    return out


# ---------------------------------------------------------------------------------
# bones and key times
# ---------------------------------------------------------------------------------
BASE_NAMES = ["Root", "Pelvis", "Spine", "Spine1", "Spine2", "Neck", "Head",
              "L Clavicle", "L UpperArm", "L Forearm", "L Hand",
              "R Clavicle", "R UpperArm", "R Forearm", "R Hand",
              "L Thigh", "L Calf", "L Foot", "R Thigh", "R Calf", "R Foot"]


def bone_name(i):
    return BASE_NAMES[i] if i < len(BASE_NAMES) else "bone_%d" % i


def make_bones(rng, kinds, names=None):
    """kinds: list of 'a<n>' (animated, n bits), 'c' (constant), 'i' (constant identity),
    'n' (no rotation), 'a' (animated, random n). Returns [{'name','kind','nbits','flags'}]."""
    bones = []
    for i, k in enumerate(kinds):
        name = names[i] if names else bone_name(i)
        if k[0] == "a":
            n = int(k[1:]) if len(k) > 1 else rng.randint(1, 16)
            flags = 0x10 | (n - 1)
            STATS["nbits"].add(n)
        elif k in ("c", "i"):
            n = None
            flags = 0x30
        else:
            n = None
            flags = 0x00
        bones.append({"name": name, "kind": k[0], "nbits": n, "flags": flags})
    hashes = [zlib.crc32(b["name"].encode("latin-1")) for b in bones]
    assert len(set(hashes)) == len(hashes), "bone hash collision"
    for b, h in zip(bones, hashes):
        b["hash"] = h
    return bones


def random_kinds(rng, count, p_anim, p_const):
    out = []
    for _ in range(count):
        r = rng.random()
        out.append("a" if r < p_anim else ("c" if r < p_anim + p_const else "n"))
    return out


def gen_key_times(rng, K, unit, mode):
    """unit: time units per 30 fps frame (4 for WD1 ticks, 1 for frames)."""
    if mode == "linear":
        return [i * unit for i in range(K)]
    if mode == "sparse":
        t, out = 0, []
        for _ in range(K):
            out.append(t)
            t += rng.choice([1, 1, 1, 2, 3]) * unit
        return out
    if mode == "irregular":                           # ticks not on a frame grid
        t, out = 0, []
        for _ in range(K):
            out.append(t)
            t += rng.randint(1, 9)
        return out
    raise ValueError(mode)


class Clip:
    """Decoded content of one 'aNi' block, generated first; containers then place it."""

    def __init__(self, rng, bones, K, unit, rate, key_mode="linear", cflag_fn=None):
        self.bones = bones
        self.K = K
        STATS["key_counts"].add(K)
        self.key_times = gen_key_times(rng, K, unit, key_mode)
        self.rate = rate
        self.duration = f32(self.key_times[-1] / rate)
        self.keytimes_bytes = struct.pack("<%dH" % K, *self.key_times)
        # constant rotations, bone order
        self.const = {}
        cb = []
        for i, b in enumerate(bones):
            if b["kind"] == "i":
                raw = IDENTITY_Q6
                STATS["identity_const"] += 1
            elif b["kind"] == "c":
                raw = encode_q6(random_unit_quat(rng))
            else:
                continue
            cb.append(raw)
            self.const[i] = decode_q6(raw)
        self.const_bytes = b"".join(cb)
        self.anim = [(i, b["nbits"]) for i, b in enumerate(bones) if b["kind"] == "a"]
        if self.anim:
            self.rot_bytes, self.rots, self.cfl = gen_rotation_section(rng, self.anim, K, cflag_fn)
        else:
            self.rot_bytes, self.rots, self.cfl = b"", {}, {}
        self.n_const = len(self.const)
        self.n_anim = len(self.anim)


# ---------------------------------------------------------------------------------
# section placement helpers
# ---------------------------------------------------------------------------------
def place_sections(start_rel, base_abs, items, align16, no_pad_after=()):
    """items: [(slot, bytes)] in file order. Sections start at start_rel (relative to the
    block base). With align16 each section start (and the end of the last one) is padded
    with zeros to a 16-byte file-absolute boundary, except directly after slots listed in
    no_pad_after. Returns (body bytes, {slot: rel offset}, end_rel)."""
    body = bytearray()
    offs = {}
    pos = start_rel
    prev_slot = None
    for slot, data in items:
        if align16 and prev_slot not in no_pad_after:
            pad = align(base_abs + pos) - (base_abs + pos)
            body += b"\0" * pad
            pos += pad
        offs[slot] = pos
        body += data
        pos += len(data)
        prev_slot = slot
    if align16 and items and prev_slot not in no_pad_after:
        pad = align(base_abs + pos) - (base_abs + pos)
        body += b"\0" * pad
        pos += pad
    return bytes(body), offs, pos


def extents(offsets, extra_anchors, block_end_rel):
    """Spec 8.3: distance to the next larger distinct non-zero anchor, or to the block end."""
    anchors = sorted(set([o for o in offsets.values() if o] + [a for a in extra_anchors if a]))
    out = {}
    for slot, o in offsets.items():
        if not o:
            continue
        nxt = [a for a in anchors if a > o]
        out[slot] = (nxt[0] if nxt else block_end_rel) - o
    return out


def section_list(offsets, sizes, base):
    return [{"slot": s, "offset": offsets[s], "file_offset": base + offsets[s], "size": sizes[s]}
            for s in sorted(offsets) if offsets[s]]


def outer_header(rng, variant, fc2_minor=1):
    if variant in WD_MAGIC:
        head = struct.pack("<I", WD_MAGIC[variant])
    elif variant == "fc2":
        head = struct.pack("<BBH", FC_MAGIC[variant], 0, fc2_minor)
    else:
        head = bytes([FC_MAGIC[variant], 0, 0, 0])
    checksum = rng.getrandbits(32)
    tail = bytes(rng.getrandbits(8) for _ in range(8))
    return head + struct.pack("<I", checksum) + tail, checksum, tail


def header_json(variant, hdr, checksum, tail):
    d = {"checksum": checksum, "bytes_8_16": tail.hex()}
    if variant == "fc2":
        d["fc2_minor"] = struct.unpack_from("<H", hdr, 2)[0]
    return d


def opaque_bytes(rng, lo=8, hi=40):
    return bytes(rng.getrandbits(8) for _ in range(rng.randint(lo, hi)))


def block_common_json(clip, bones_json=True):
    d = {}
    if bones_json:
        d["bones"] = [{"name": b["name"], "hash": b["hash"], "flags": b["flags"]} for b in clip.bones]
    return d


def clip_tail_json(clip):
    return {
        "key_count": clip.K,
        "key_times": clip.key_times,
        "constant_rotations": {str(i): qround(q) for i, q in sorted(clip.const.items())},
        "rotations": {str(i): [qround(q) for q in qs] for i, qs in sorted(clip.rots.items())},
        "chunk_cflags": {str(i): v for i, v in sorted(clip.cfl.items())},
    }


# ---------------------------------------------------------------------------------
# WD1 / WDL / WD2 ('aNi', single block, base 0x10)
# ---------------------------------------------------------------------------------
WD_SLOTS = {"keytimes": 0, "const": 4, "rot": 6}


def build_wd(variant, rng, clip, order=None, align16=False, opaque=None, alias=None,
             count_high=0, ani_flags=3, overrides=None, counts_extra=None):
    """Returns (file bytes, block json, info). order: list of slots in file order
    (default ascending). opaque: {slot: bytes}. alias: {slot: other slot} (equal offsets).
    overrides: {slot: bytes} replace a section's content (bad files)."""
    B = 0x10
    wd1 = variant == "wd1"
    hdr_size = 0x50 if wd1 else 0x70
    n = len(clip.bones)
    hdr, checksum, tail = outer_header(rng, variant)
    content = {0: clip.keytimes_bytes}
    if clip.n_const:
        content[4] = clip.const_bytes
    if clip.n_anim:
        content[6] = clip.rot_bytes
    for s, d in (opaque or {}).items():
        content[s] = d
    for s, d in (overrides or {}).items():
        content[s] = d
    if order is None:
        order = sorted(content)
    assert sorted(order) == sorted(content), (order, sorted(content))
    tables_end = hdr_size + 5 * n
    body, offs, end_rel = place_sections(tables_end, B, [(s, content[s]) for s in order], align16)
    nslots = 11 if wd1 else 12
    offsets = {s: 0 for s in range(nslots)}
    offsets.update(offs)
    for s, t in (alias or {}).items():
        offsets[s] = offsets[t]
    file_size = B + end_rel
    counts = [0] * (7 if wd1 else 10)
    counts[2] = clip.n_const
    counts[4] = clip.n_anim
    for i, c in (counts_extra or {}).items():
        counts[i] = c
    bone_field = (n | count_high) & 0xFFFF
    assert n < (0x8000 if wd1 else 0x1000)
    skel = rng.getrandbits(32 if wd1 else 64)
    path_id = None if wd1 else rng.getrandbits(64)
    last_frame = clip.K - 1
    if wd1:
        blk = struct.pack("<I3sBIfH7H11IHH", skel, b"aNi", ani_flags, file_size - 16, clip.duration,
                          bone_field, *counts, *[offsets[s] for s in range(11)], last_frame, 0)
    else:
        blk = struct.pack("<QQ3sBIffH10HH12IIHH", skel, path_id, b"aNi", ani_flags, file_size - 16,
                          clip.duration, 30.0, bone_field, *counts, 0,
                          *[offsets[s] for s in range(12)], 0, last_frame, 0)
    assert len(blk) == hdr_size, (len(blk), hdr_size)
    blk += struct.pack("<%dI" % n, *[b["hash"] for b in clip.bones])
    blk += bytes(b["flags"] for b in clip.bones)
    data = hdr + blk + body
    assert len(data) == file_size
    sizes = extents(offsets, [], file_size - B)
    bj = {"base": B, "bone_count": n, "bone_count_field": bone_field, "signature": "aNi",
          "flags": ani_flags, "animation_data_size": file_size - 16, "duration": clip.duration,
          "frame_rate": None if wd1 else 30.0, "data_counts": counts, "last_frame": last_frame,
          "skeleton_bone_crc": skel}
    if not wd1:
        bj["skeleton_path_id"] = path_id
    bj["key_time_rate"] = clip.rate
    bj.update(block_common_json(clip))
    bj["sections"] = section_list(offsets, sizes, B)
    bj.update(clip_tail_json(clip))
    info = {"offsets": offsets, "sizes": sizes, "B": B, "hdr": (hdr, checksum, tail)}
    return bytearray(data), bj, info


def top_json(variant, data, hdr_info, description, blocks):
    hdr, checksum, tail = hdr_info
    magic = WD_MAGIC.get(variant, FC_MAGIC.get(variant))
    return {"synthetic": True, "variant": variant, "magic": magic, "file_size": len(data),
            "layout": LAYOUT[variant], "layout_unverified": variant in UNVERIFIED,
            "description": description, "header": header_json(variant, hdr, checksum, tail),
            "blocks": blocks}


# ---------------------------------------------------------------------------------
# FC5 ('aNi', one or more blocks, bone tables at base+0x68, KeyTimes after the flags)
# ---------------------------------------------------------------------------------
def build_fc5_block(rng, clip, order=None, align16=False, opaque=None, ani_flags=3, overrides=None,
                    counts_extra=None):
    """Block bytes relative to its own (16-aligned) base; animationDataSize patched later."""
    n = len(clip.bones)
    content = {}
    if clip.n_const:
        content[3] = clip.const_bytes
    if clip.n_anim:
        content[5] = clip.rot_bytes
    for s, d in (opaque or {}).items():
        content[s] = d
    for s, d in (overrides or {}).items():
        content[s] = d
    if order is None:
        order = sorted(content)
    assert sorted(order) == sorted(content)
    kt_start = 0x68 + 5 * n
    sec_start = kt_start + len(clip.keytimes_bytes)
    # KeyTimes run directly into the first section: no padding before the first one.
    items = [(s, content[s]) for s in order]
    if items:
        first_body, first_offs, first_end = place_sections(sec_start, 0, items[:1], False)
        rest_body, rest_offs, end_rel = place_sections(first_end, 0, items[1:], align16)
        if align16 and not items[1:]:
            pad = align(first_end) - first_end
            rest_body = b"\0" * pad
            end_rel = first_end + pad
        body = first_body + rest_body
        offs = dict(first_offs)
        offs.update(rest_offs)
    else:
        body, offs, end_rel = b"", {}, sec_start
    offsets = {s: 0 for s in range(12)}
    offsets.update(offs)
    counts = [0] * 10
    counts[2] = clip.n_const
    counts[4] = clip.n_anim
    for i, c in (counts_extra or {}).items():
        counts[i] = c
    skel = rng.getrandbits(64)
    path_id = rng.getrandbits(64)
    assert n < 0x1000
    head = struct.pack("<QQ3sBIffH10HH12I", skel, path_id, b"aNi", ani_flags, 0, clip.duration, 30.0,
                       n, *counts, 0, *[offsets[s] for s in range(12)])
    assert len(head) == 0x68
    blk = head + struct.pack("<%dI" % n, *[b["hash"] for b in clip.bones])
    blk += bytes(b["flags"] for b in clip.bones)
    assert len(blk) == kt_start
    blk += clip.keytimes_bytes + body
    bj = {"base": None, "bone_count": n, "bone_count_field": n, "signature": "aNi", "flags": ani_flags,
          "animation_data_size": None, "duration": clip.duration, "frame_rate": 30.0,
          "data_counts": counts, "last_frame": None, "skeleton_bone_crc": skel,
          "skeleton_path_id": path_id, "key_time_rate": clip.rate}
    bj.update(block_common_json(clip))
    return bytearray(blk), bj, offsets, kt_start, bool(items)


def build_fc5(rng, blocks):
    """blocks: list of kwargs dicts for build_fc5_block (each with 'clip')."""
    hdr, checksum, tail = outer_header(rng, "fc5")
    data = bytearray(hdr)
    built = []
    for k, kw in enumerate(blocks):
        if k > 0:
            assert built[-1][4], "a block followed by padding needs a last section"
            data += b"\0" * (align(len(data)) - len(data))
        B = len(data)
        blk, bj, offsets, kt_start, has_sec = build_fc5_block(rng, **kw)
        data += blk
        built.append((B, bj, offsets, kt_start, has_sec, kw["clip"]))
    file_size = len(data)
    bjs = []
    infos = []
    for k, (B, bj, offsets, kt_start, _h, clip) in enumerate(built):
        end = built[k + 1][0] if k + 1 < len(built) else file_size
        ads = file_size - 16 if k == 0 else end - B
        struct.pack_into("<I", data, B + 0x14, ads)
        bj["base"] = B
        bj["animation_data_size"] = ads
        sizes = extents(offsets, [], end - B)
        bj["key_times_file_offset"] = B + kt_start
        bj["sections"] = section_list(offsets, sizes, B)
        bj.update(clip_tail_json(clip))
        bjs.append(bj)
        infos.append({"offsets": offsets, "sizes": sizes, "B": B, "end": end})
    return data, bjs, (hdr, checksum, tail), infos


# ---------------------------------------------------------------------------------
# FC4 (spec 4.4, layout unverified): base 0x18, u16 section offsets, tables at the end
# ---------------------------------------------------------------------------------
def build_fc4(rng, clip, order=None, align16=False, opaque=None, ani_flags=3, overrides=None):
    B = 0x18
    n = len(clip.bones)
    hdr, checksum, tail = outer_header(rng, "fc4")
    content = {2: clip.keytimes_bytes}
    if clip.n_const:
        content[0] = clip.const_bytes
    if clip.n_anim:
        content[4] = clip.rot_bytes
    for s, d in (opaque or {}).items():
        content[s] = d
    for s, d in (overrides or {}).items():
        content[s] = d
    if order is None:
        order = sorted(content)
    assert sorted(order) == sorted(content)
    body_start = 0x54 - B
    # No padding directly after KeyTimes: FC4 has no key count field, so the KeyTimes
    # extent must be exactly 2*K bytes.
    body, offs, end_rel = place_sections(body_start, B, [(s, content[s]) for s in order], align16,
                                         no_pad_after=(2,))
    offsets = {s: 0 for s in range(10)}
    offsets.update(offs)
    hash_off = end_rel
    flag_off = hash_off + 4 * n
    file_size = B + flag_off + n
    assert file_size <= 0xFFFF + B
    pre = bytes(rng.getrandbits(8) for _ in range(8))
    unk16 = rng.getrandbits(16)
    unk32 = rng.getrandbits(32)
    mid = bytes(rng.getrandbits(8) for _ in range(16))
    head = pre + struct.pack("<3sBHHfIII", b"aNi", ani_flags, n, unk16, clip.duration, unk32,
                             flag_off, hash_off) + mid
    head += struct.pack("<10H", *[offsets[s] for s in range(10)])
    assert len(hdr) + len(head) == 0x54
    data = bytearray(hdr + head + body)
    data += struct.pack("<%dI" % n, *[b["hash"] for b in clip.bones])
    data += bytes(b["flags"] for b in clip.bones)
    assert len(data) == file_size
    sizes = extents(offsets, [hash_off, flag_off], file_size - B)
    tsz = extents({"h": hash_off, "f": flag_off}, [o for o in offsets.values()], file_size - B)
    bj = {"base": B, "bone_count": n, "bone_count_field": n, "signature": "aNi", "flags": ani_flags,
          "animation_data_size": None, "duration": clip.duration, "frame_rate": None,
          "data_counts": None, "last_frame": None, "key_time_rate": clip.rate,
          "unknown_u16_0x1e": unk16, "unknown_u32_0x24": unk32,
          "hash_table": {"offset": hash_off, "file_offset": B + hash_off, "size": tsz.get("h", 0)},
          "flag_table": {"offset": flag_off, "file_offset": B + flag_off, "size": tsz.get("f", 0)}}
    bj.update(block_common_json(clip))
    bj["sections"] = section_list(offsets, sizes, B)
    bj.update(clip_tail_json(clip))
    info = {"offsets": offsets, "sizes": sizes, "B": B}
    return data, bj, (hdr, checksum, tail), info


# ---------------------------------------------------------------------------------
# Legacy FC2 / FC3 (spec 13; FC3 layout is a guess)
# ---------------------------------------------------------------------------------
MASK_NAMES = ["const_rotation", "keyframed_rotation", "const_translation", "animated_translation"]


def legacy_dims(variant):
    nw = 5 if variant == "fc2" else 9
    tag_off = 16 * nw + 0x20
    return nw, tag_off, tag_off + 0x30


def random_mask(rng, nw, bits):
    words = [0] * nw
    for b in rng.sample(range(32 * nw), bits):
        words[b // 32] |= 1 << (b % 32)
    return words


def legacy_array_header(count, last, variant="fc2"):
    # Spec 13: FC2 `u16 count, u16 lastFrame, u16 fps, u16 0`; FC3 replaces the last two with
    # an f32 frame rate (the spec's reconciliation of BUU's "magic float", a [guess]).
    if variant == "fc2":
        return struct.pack("<4H", count, last, 30, 0)
    return struct.pack("<2Hf", count, last, 30.0)


def legacy_keyframed(rng, tracks, last, variant="fc2"):
    groups = (last >> 3) + 1
    head = legacy_array_header(tracks, last, variant)
    table_pos = len(head)
    body = bytearray()
    goffs = []
    base = table_pos + 4 * groups
    for g in range(groups):
        goffs.append(base + len(body))
        for _ in range(tracks):
            body += encode_q6(random_unit_quat(rng))
        pres = []
        for _ in range(tracks):
            p = 0x80
            for i in range(7):
                if 8 * g + i + 1 <= last and rng.random() < 0.4:
                    p |= 1 << i
            pres.append(p)
        body += bytes(pres) + (b"\0" if tracks % 2 else b"")
        for p in pres:
            for _ in range(popcount(p & 0x7F)):
                body += encode_q6(random_unit_quat(rng))
    return head + struct.pack("<%di" % groups, *goffs) + bytes(body)


def build_legacy_clip(variant, rng, spec, child=None):
    """spec: dict(slots=[...file order...], last=int, bits=(a,b,c,d), opaque_slots={slot: n}).
    child: (bytes, [block json with rel bases]) of the chained clip, placed last as slot 8.
    Returns (bytes rel. to own base, [block json with rel bases])."""
    nw, tag_off, data_off = legacy_dims(variant)
    last = spec["last"]
    frames = last + 1
    masks = [random_mask(rng, nw, k) for k in spec["bits"]]
    pc = [sum(popcount(w) for w in m) for m in masks]
    traj = [f32(c) for c in random_unit_quat(rng)]
    loop = [f32(c) for c in random_unit_quat(rng)]
    duration = f32(last / 30.0)
    content = {}
    arrays = {}
    for s in spec["slots"]:
        if s == 0:
            d = legacy_array_header(frames, last, variant)
            for _ in range(frames):
                d += struct.pack("<3f", *[rng.uniform(-2, 2) for _ in range(3)])
            arrays[0] = frames
        elif s == 1:
            d = legacy_array_header(frames, last, variant)
            for _ in range(frames):
                d += encode_q6(random_unit_quat(rng))
            arrays[1] = frames
        elif s == 2:
            d = legacy_array_header(pc[0], last, variant) + b"".join(encode_q6(random_unit_quat(rng))
                                                            for _ in range(pc[0]))
            arrays[2] = pc[0]
        elif s == 3:
            d = legacy_keyframed(rng, pc[1], last, variant)
            arrays[3] = pc[1]
        elif s == 4:
            d = legacy_array_header(pc[2], last, variant)
            for _ in range(pc[2]):
                d += struct.pack("<3f", *[rng.uniform(-1, 1) for _ in range(3)])
            arrays[4] = pc[2]
        elif s == 5:
            d = legacy_array_header(pc[3], last, variant)
            for _ in range(frames * pc[3]):
                d += struct.pack("<3f", *[rng.uniform(-1, 1) for _ in range(3)])
            arrays[5] = pc[3]
        elif s in (6, 7):
            d = opaque_bytes(rng, *spec.get("opaque_len", (8, 40)))
        else:
            raise ValueError(s)
        content[s] = d
    items = [(s, content[s]) for s in spec["slots"]]
    if child is not None:
        items.append((8, child[0]))
    body, offs, end_rel = place_sections(data_off, 0, items, True)
    offsets = {s: 0 for s in range(9)}
    offsets.update(offs)
    head = b"".join(struct.pack("<%dI" % nw, *m) for m in masks)
    head += struct.pack("<4f", *traj) + struct.pack("<4f", *loop)
    head += b"AnD\x1a" + struct.pack("<f9iI", duration, *[offsets[s] for s in range(9)], 0)
    assert len(head) == data_off
    data = head + body
    bj = {"base": 0, "signature": "AnD\x1a", "duration": duration,
          "masks": {MASK_NAMES[i]: masks[i] for i in range(4)},
          "trajectory_orientation": traj, "loop_rotation": loop, "pointer_slot": 0,
          "offsets": [offsets[s] for s in range(9)],
          "array_headers": {str(s): {"count": c, "last_frame": last, "fps": 30}
                            for s, c in sorted(arrays.items())},
          "_offsets": offsets}
    blocks = [bj]
    if child is not None:
        for cb in child[1]:
            cb = dict(cb)
            cb["base"] += offsets[8]
            blocks.append(cb)
    return data, blocks


def build_legacy(variant, rng, specs, fc2_minor=1):
    """specs: list of clip specs, first = outermost. Builds the chain inside out."""
    hdr, checksum, tail = outer_header(rng, variant, fc2_minor)
    child = None
    for spec in reversed(specs):
        child = build_legacy_clip(variant, rng, spec, child)
    data = bytearray(hdr + child[0])
    file_size = len(data)
    blocks = []
    for bj in child[1]:
        bj = dict(bj)
        bj["base"] += 16
        offsets = bj.pop("_offsets")
        sizes = extents(offsets, [], file_size - bj["base"])
        bj["sections"] = section_list(offsets, sizes, bj["base"])
        blocks.append(bj)
    for k, bj in enumerate(blocks):
        bj["chained_clip_base"] = blocks[k + 1]["base"] if k + 1 < len(blocks) else None
    return data, blocks, (hdr, checksum, tail)


# ---------------------------------------------------------------------------------
# Legacy banks laid out as JB-DOC describes retail FC2 files (farcry-sdk mab.md and its
# writer): sections in the order 1, 0, 2, 3, 4, 5, 6, 7, 8; trajectory headers count one
# track; constant sections store lastFrame 0 and rate 0; the keyed group table ends with
# where the last group ends; a 16-byte zero block separates the last track section from the
# events or the chained clip; the last clip points slot 8 at its own end; the first clip's
# tag table (u32 count, 172-byte records) points each record at a chained clip, relative to
# the record. Event chain nodes (spec 11): f32 time, u32 type, u16 size, u16 next, payload;
# here size = payload bytes and next = bytes from this node to the next, 0 at the end (our
# reading of JB-DOC, a [guess]), payloads zero-padded to 4 bytes.
# ---------------------------------------------------------------------------------
TAG_RECORD = 172
TAG_SLOT_NAMES = ("name", "parent", "unused", "reference")


def tag_name_slot(text):
    raw = text.encode("ascii")
    assert len(raw) <= 32
    return struct.pack("<I", zlib.crc32(raw)) + raw + b"\0" * (32 - len(raw))


def tag_record(rec, clip_offset):
    r = struct.pack("<BBh", rec["kind"], rec["byte_1"], rec["id"]) + bytes.fromhex(rec["bytes_4_12"])
    r += struct.pack("<iff", clip_offset, rec["start"], rec["end"])
    r += b"".join(tag_name_slot(rec["names"][k]) for k in TAG_SLOT_NAMES)
    r += struct.pack("<I", 0)
    assert len(r) == TAG_RECORD
    return r


def event_chain(nodes):
    out = bytearray()
    for i, (time, kind, payload) in enumerate(nodes):
        gap = (-(12 + len(payload))) % 4
        nxt = 0 if i + 1 == len(nodes) else 12 + len(payload) + gap
        out += struct.pack("<fIHH", time, kind, len(payload), nxt) + payload + b"\0" * gap
    return bytes(out)


def pad16(b):
    return b + b"\0" * ((-len(b)) % 16)


def retail_keyframed(rng, bones, last, variant):
    """Keyed rotations with the group table's end entry. Returns (bytes, tracks json)."""
    groups = (last >> 3) + 1
    tracks = [{"bone": b, "frames": [], "codes": []} for b in bones]
    table = 8 + 4 * (groups + 1)
    body = bytearray()
    offs = []
    for g in range(groups):
        offs.append(table + len(body))
        for t in tracks:
            c = encode_q6(random_unit_quat(rng))
            body += c
            t["frames"].append(8 * g)
            t["codes"].append(c.hex())
        pres = []
        for _ in tracks:
            p = 0x80
            for i in range(7):
                if 8 * g + i + 1 <= last and rng.random() < 0.35:
                    p |= 1 << i
            pres.append(p)
        body += bytes(pres) + (b"\0" if len(tracks) % 2 else b"")
        for t, p in zip(tracks, pres):
            for i in range(7):
                if p >> i & 1:
                    c = encode_q6(random_unit_quat(rng))
                    body += c
                    t["frames"].append(8 * g + i + 1)
                    t["codes"].append(c.hex())
        # keys of one track are stored after the presence run in frame order; sort the json
    for t in tracks:
        order = sorted(range(len(t["frames"])), key=lambda k: t["frames"][k])
        t["frames"] = [t["frames"][k] for k in order]
        t["codes"] = [t["codes"][k] for k in order]
    offs.append(table + len(body))
    data = legacy_array_header(len(bones), last, variant) + struct.pack("<%di" % (groups + 1), *offs) + bytes(body)
    return data, tracks


def untimed_header(count, variant):
    return struct.pack("<4H", count, 0, 0, 0) if variant == "fc2" else struct.pack("<2Hf", count, 0, 0.0)


def mask_bones(words):
    return [32 * w + b for w in range(len(words)) for b in range(32) if words[w] >> b & 1]


def build_retail_clip(variant, rng, spec, child):
    """spec: slots (file order, 6/7 only in the first clip), last, bits, tags, events.
    child: (bytes, [block json]) of the chained clip or None (slot 8 then points at the end)."""
    nw, tag_off, data_off = legacy_dims(variant)
    last = spec["last"]
    frames = last + 1
    masks = [random_mask(rng, nw, k) for k in spec["bits"]]
    bones = [mask_bones(m) for m in masks]
    traj = [f32(c) for c in random_unit_quat(rng)]
    loop = [f32(c) for c in random_unit_quat(rng)]
    fps = 30
    duration = f32(last / float(fps))
    tracks = {"last_frame": last if any(s in (0, 1, 3, 5) for s in spec["slots"]) else 0,
              "frame_rate": fps if any(s in (0, 1, 3, 5) for s in spec["slots"]) else 0}
    heads = {}
    content = {}
    for s in spec["slots"]:
        if s == 0:
            vals = [[f32(rng.uniform(-3, 3)) for _ in range(3)] for _ in range(frames)]
            d = legacy_array_header(1, last, variant) + b"".join(struct.pack("<3f", *v) for v in vals)
            tracks["trajectory_translation"] = vals
            heads[0] = (1, last, fps)
        elif s == 1:
            codes = [encode_q6(random_unit_quat(rng)) for _ in range(frames)]
            d = legacy_array_header(1, last, variant) + b"".join(codes)
            tracks["trajectory_rotation"] = [c.hex() for c in codes]
            heads[1] = (1, last, fps)
        elif s == 2:
            codes = [encode_q6(random_unit_quat(rng)) for _ in bones[0]]
            d = untimed_header(len(codes), variant) + b"".join(codes)
            tracks["constant_rotations"] = [{"bone": b, "code": c.hex()} for b, c in zip(bones[0], codes)]
            heads[2] = (len(codes), 0, 0)
        elif s == 3:
            d, keyed = retail_keyframed(rng, bones[1], last, variant)
            tracks["rotations"] = keyed
            heads[3] = (len(bones[1]), last, fps)
        elif s == 4:
            vals = [[f32(rng.uniform(-1, 1)) for _ in range(3)] for _ in bones[2]]
            d = untimed_header(len(vals), variant) + b"".join(struct.pack("<3f", *v) for v in vals)
            tracks["constant_translations"] = [{"bone": b, "translation": v} for b, v in zip(bones[2], vals)]
            heads[4] = (len(vals), 0, 0)
        elif s == 5:
            vals = [[[f32(rng.uniform(-1, 1)) for _ in range(3)] for _ in bones[3]] for _ in range(frames)]
            d = legacy_array_header(len(bones[3]), last, variant)
            d += b"".join(struct.pack("<3f", *vals[f][t]) for f in range(frames) for t in range(len(bones[3])))
            tracks["translations"] = [{"bone": b, "frames": [vals[f][t] for f in range(frames)]}
                                      for t, b in enumerate(bones[3])]
            heads[5] = (len(bones[3]), last, fps)
        elif s == 6:
            d = struct.pack("<I", len(spec["tags"])) + b"".join(tag_record(r, 0) for r in spec["tags"])
        elif s == 7:
            d = event_chain(spec["events"])
        else:
            raise ValueError(s)
        content[s] = d
    order = list(spec["slots"]) + [8]
    items = []
    for i, s in enumerate(order):
        d = content[s] if s != 8 else (child[0] if child else b"")
        if s <= 5 and order[i + 1] in (7, 8):
            d = pad16(d) + b"\0" * 16                # the separator (JB-DOC)
        items.append((s, d))
    body, offs, end_rel = place_sections(data_off, 0, items, True)
    offsets = {s: 0 for s in range(9)}
    offsets.update(offs)
    head = b"".join(struct.pack("<%dI" % nw, *m) for m in masks)
    head += struct.pack("<4f", *traj) + struct.pack("<4f", *loop)
    head += b"AnD\x1a" + struct.pack("<f9iI", duration, *[offsets[s] for s in range(9)], 0)
    data = bytearray(head + body)
    bj = {"base": 0, "signature": "AnD\x1a", "duration": duration,
          "masks": {MASK_NAMES[i]: masks[i] for i in range(4)},
          "trajectory_orientation": traj, "loop_rotation": loop, "pointer_slot": 0,
          "offsets": [offsets[s] for s in range(9)],
          "array_headers": {str(s): {"count": c, "last_frame": lf, "fps": r}
                            for s, (c, lf, r) in sorted(heads.items())},
          "tracks": tracks, "_offsets": offsets}
    blocks = [bj]
    if child is not None:
        for cb in child[1]:
            cb = dict(cb)
            cb["base"] += offsets[8]
            blocks.append(cb)
    if 6 in content:
        # Record i points at chained clip i + 1, relative to the record's own start (JB-DOC).
        recs = []
        for i, r in enumerate(spec["tags"]):
            rec_rel = offsets[6] + 4 + TAG_RECORD * i
            target = blocks[i + 1]["base"]
            struct.pack_into("<i", data, rec_rel + 0x0C, target - rec_rel)
            rj = dict(r)
            rj["clip_offset"] = target - rec_rel
            rj["clip_block"] = i + 1
            rj["names"] = [{"text": r["names"][k], "hash": zlib.crc32(r["names"][k].encode("ascii"))}
                           for k in TAG_SLOT_NAMES]
            recs.append(rj)
        bj["tag_table"] = {"count": len(spec["tags"]), "records": recs}
    if 7 in content:
        ev = []
        pos = 0
        for i, (time, kind, payload) in enumerate(spec["events"]):
            gap = (-(12 + len(payload))) % 4
            nxt = 0 if i + 1 == len(spec["events"]) else 12 + len(payload) + gap
            ev.append({"offset": pos, "time": time, "type": kind, "size": len(payload), "next": nxt,
                       "payload": payload.hex()})
            pos += nxt
        bj["event_chain"] = ev
    return bytes(data), blocks


def build_retail_bank(variant, rng, specs, fc2_minor=1):
    hdr, checksum, tail = outer_header(rng, variant, fc2_minor)
    child = None
    for spec in reversed(specs):
        child = build_retail_clip(variant, rng, spec, child)
    data = bytearray(hdr + child[0])
    blocks = []
    for bj in child[1]:
        bj = dict(bj)
        bj["base"] += 16
        offsets = bj.pop("_offsets")
        sizes = extents(offsets, [], len(data) - bj["base"])
        bj["sections"] = section_list(offsets, sizes, bj["base"])
        blocks.append(bj)
    for k, bj in enumerate(blocks):
        bj["chained_clip_base"] = blocks[k + 1]["base"] if k + 1 < len(blocks) else None
        for r in bj.get("tag_table", {}).get("records", []):
            r["clip_base"] = blocks[r["clip_block"]]["base"]
    return data, blocks, (hdr, checksum, tail)


def retail_tags(rng):
    def rec(kind, rid, name, parent, reference):
        return {"kind": kind, "byte_1": rng.randint(0, 255), "id": rid,
                "bytes_4_12": bytes(rng.getrandbits(8) for _ in range(8)).hex(),
                "start": f32(rng.uniform(0, 0.2)), "end": f32(rng.uniform(0.5, 0.7)),
                "names": {"name": name, "parent": parent, "unused": "", "reference": reference}}
    return [rec(1, 7, "ak47", "R Hand", ""), rec(6, -2, "ak47", "L Hand", "CLIP")]


def retail_events(rng):
    return [(f32(0.1), 2, bytes(rng.getrandbits(8) for _ in range(9))),
            (f32(0.35), 2, bytes(rng.getrandbits(8) for _ in range(16))),
            (f32(0.5), 7, bytes(rng.getrandbits(8) for _ in range(3)))]


def verify_retail(data, bj):
    """Re-read the tag table, the event chain and the tracks of a retail-layout clip."""
    C = bj["base"]
    offs = bj["offsets"]
    if "tag_table" in bj:
        T = C + offs[6]
        tt = bj["tag_table"]
        assert u("I", data, T)[0] == tt["count"] == len(tt["records"])
        for i, r in enumerate(tt["records"]):
            R = T + 4 + TAG_RECORD * i
            kind, b1, rid = u("BBh", data, R)
            assert (kind, b1, rid) == (r["kind"], r["byte_1"], r["id"])
            assert data[R + 4:R + 12].hex() == r["bytes_4_12"]
            off, start, end = u("iff", data, R + 12)
            assert (off, start, end) == (r["clip_offset"], r["start"], r["end"])
            tag_at = 16 * len(bj["masks"]["const_rotation"]) + 0x20
            assert R + off == r["clip_base"] and data[R + off + tag_at:R + off + tag_at + 4] == b"AnD\x1a"
            for k, nm in enumerate(r["names"]):
                h = u("I", data, R + 0x18 + 36 * k)[0]
                raw = data[R + 0x18 + 36 * k + 4:R + 0x18 + 36 * k + 36]
                assert h == nm["hash"] == zlib.crc32(raw.rstrip(b"\0"))
                assert raw.rstrip(b"\0").decode("ascii") == nm["text"]
            assert u("I", data, R + 0xA8)[0] == 0
    if "event_chain" in bj:
        E = C + offs[7]
        for n in bj["event_chain"]:
            time, kind, size, nxt = u("fIHH", data, E + n["offset"])
            assert (time, kind, size, nxt) == (n["time"], n["type"], n["size"], n["next"])
            assert data[E + n["offset"] + 12:E + n["offset"] + 12 + size].hex() == n["payload"]
    t = bj["tracks"]
    for s, key in ((0, "trajectory_translation"), (1, "trajectory_rotation")):
        if key in t:
            S = C + offs[s] + 8
            for f, v in enumerate(t[key]):
                got = list(u("3f", data, S + 12 * f)) if s == 0 else data[S + 6 * f:S + 6 * f + 6].hex()
                assert got == v
    if "constant_rotations" in t:
        for i, r in enumerate(t["constant_rotations"]):
            assert data[C + offs[2] + 8 + 6 * i:][:6].hex() == r["code"]
    if "constant_translations" in t:
        for i, r in enumerate(t["constant_translations"]):
            assert list(u("3f", data, C + offs[4] + 8 + 12 * i)) == r["translation"]
    if "translations" in t:
        n = len(t["translations"])
        for k, tr in enumerate(t["translations"]):
            for f, v in enumerate(tr["frames"]):
                assert list(u("3f", data, C + offs[5] + 8 + 12 * (f * n + k))) == v
    if "rotations" in t:
        S = C + offs[3]
        last = u("H", data, S + 2)[0]
        groups = (last >> 3) + 1
        goffs = list(u("%di" % (groups + 1), data, S + 8))
        n = len(t["rotations"])
        for g in range(groups):
            G = S + goffs[g]
            pres = data[G + 6 * n:G + 7 * n]
            for k, tr in enumerate(t["rotations"]):
                assert data[G + 6 * k:G + 6 * k + 6].hex() == tr["codes"][tr["frames"].index(8 * g)]
            pos = G + 6 * n + n + n % 2
            for k, tr in enumerate(t["rotations"]):
                for i in range(7):
                    if pres[k] >> i & 1:
                        assert data[pos:pos + 6].hex() == tr["codes"][tr["frames"].index(8 * g + i + 1)]
                        pos += 6
            assert pos == S + goffs[g + 1]
    return True


# ---------------------------------------------------------------------------------
# independent self-check of good files (re-read the bytes, compare with the JSON)
# ---------------------------------------------------------------------------------
def u(fmt, data, off):
    return struct.unpack_from("<" + fmt, data, off)


def verify_ani_block(data, bj, variant, block_end):
    B = bj["base"]
    off = B
    if variant == "wd1":
        skel, sig, fl, ads, dur, cnt = u("I3sBIfH", data, B)
        counts = list(u("7H", data, B + 0x12))
        offs = list(u("11I", data, B + 0x20))
        last_frame, pad = u("HH", data, B + 0x4C)
        n = cnt & 0x7FFF
        tables = B + 0x50
        assert pad == 0
    elif variant in ("wdl", "wd2", "fc5"):
        skel, path, sig, fl, ads, dur, rate, cnt = u("QQ3sBIffH", data, B)
        counts = list(u("10H", data, B + 0x22))
        assert u("H", data, B + 0x36)[0] == 0
        offs = list(u("12I", data, B + 0x38))
        n = cnt & 0x0FFF
        assert rate == bj["frame_rate"]
        if variant == "fc5":
            tables = B + 0x68
            last_frame = None
        else:
            pad_ps3, last_frame, pad = u("IHH", data, B + 0x68)
            assert pad_ps3 == 0 and pad == 0
            tables = B + 0x70
    else:
        raise ValueError(variant)
    assert sig == b"aNi" and fl == bj["flags"]
    assert ads == bj["animation_data_size"] and dur == bj["duration"]
    assert cnt == bj["bone_count_field"] and n == bj["bone_count"]
    assert counts == bj["data_counts"] and last_frame == bj["last_frame"]
    hashes = list(u("%dI" % n, data, tables))
    flags = list(data[tables + 4 * n:tables + 5 * n])
    tables_end = tables + 5 * n
    slot_kt, slot_c, slot_r = (None, 3, 5) if variant == "fc5" else (0, 4, 6)
    offsets = {i: o for i, o in enumerate(offs)}
    return finish_ani_verify(data, bj, B, block_end, hashes, flags, offsets, {}, tables_end,
                             slot_kt, slot_c, slot_r, last_frame, variant)


def finish_ani_verify(data, bj, B, block_end, hashes, flags, offsets, extra_anchors, tables_end,
                      slot_kt, slot_c, slot_r, last_frame, variant):
    n = len(hashes)
    assert [b["hash"] for b in bj["bones"]] == hashes
    assert [b["flags"] for b in bj["bones"]] == flags
    for b in bj["bones"]:
        assert zlib.crc32(b["name"].encode("latin-1")) == b["hash"]
    for s, o in offsets.items():
        if o:
            assert B + o >= tables_end or variant == "fc4", ("offset into header", s)
            assert B + o <= block_end, ("offset past block", s)
    sizes = extents(offsets, list(extra_anchors.values()), block_end - B)
    assert section_list(offsets, sizes, B) == bj["sections"], (section_list(offsets, sizes, B), bj["sections"])
    # key count
    if slot_kt is None:                                 # FC5: KeyTimes before the first section
        kt = tables_end
        nz = [o for o in offsets.values() if o]
        kt_end = B + min(nz) if nz else block_end
        assert (kt_end - kt) % 2 == 0
        K = (kt_end - kt) // 2
        assert bj["key_times_file_offset"] == kt
    elif variant == "fc4":
        kt = B + offsets[slot_kt]
        assert sizes[slot_kt] % 2 == 0
        K = sizes[slot_kt] // 2
    else:
        kt = B + offsets[slot_kt]
        K = last_frame + 1
        assert 2 * K <= sizes[slot_kt]
    assert K == bj["key_count"]
    assert list(u("%dH" % K, data, kt)) == bj["key_times"]
    assert f32(bj["key_times"][-1] / bj["key_time_rate"]) == bj["duration"]
    const_idx = [i for i, f in enumerate(flags) if f & 0x30 == 0x30]
    anim = [(i, (f & 0x0F) + 1) for i, f in enumerate(flags) if f & 0x30 == 0x10]
    if bj["data_counts"] is not None:
        assert bj["data_counts"][2] == len(const_idx) and bj["data_counts"][4] == len(anim)
    cr = {}
    if const_idx:
        o = B + offsets[slot_c]
        assert 6 * len(const_idx) <= sizes[slot_c]
        for j, i in enumerate(const_idx):
            cr[str(i)] = qround(decode_q6(data[o + 6 * j:o + 6 * j + 6]))
    assert cr == bj["constant_rotations"]
    rots = {}
    if anim:
        o = B + offsets[slot_r]
        dec = decode_rotation_section(data[o:o + sizes[slot_r]], sizes[slot_r], anim, K)
        rots = {str(i): [qround(q) for q in qs] for i, qs in dec.items()}
    assert rots == bj["rotations"]
    return {"flags": flags, "offsets": offsets, "sizes": sizes, "K": K}


def verify_fc4(data, bj):
    B = 0x18
    sig, fl, n, unk16, dur, unk32, flag_off, hash_off = u("3sBHHfIII", data, B)
    assert sig == b"aNi" and fl == bj["flags"] and n == bj["bone_count"] and dur == bj["duration"]
    offs = list(u("10H", data, 0x40))
    offsets = {i: o for i, o in enumerate(offs)}
    assert hash_off == bj["hash_table"]["offset"] and flag_off == bj["flag_table"]["offset"]
    hashes = list(u("%dI" % n, data, B + hash_off))
    flags = list(data[B + flag_off:B + flag_off + n])
    assert B + flag_off + n <= len(data)
    return finish_ani_verify(data, bj, B, len(data), hashes, flags, offsets,
                             {"h": hash_off, "f": flag_off}, 0x54, 2, 0, 4, None, "fc4")


def verify_legacy(data, bj, variant):
    nw, tag_off, data_off = legacy_dims(variant)
    C = bj["base"]
    masks = [list(u("%dI" % nw, data, C + 4 * nw * i)) for i in range(4)]
    assert masks == [bj["masks"][k] for k in MASK_NAMES]
    assert data[C + tag_off:C + tag_off + 4] == b"AnD\x1a"
    dur = u("f", data, C + tag_off + 4)[0]
    offs = list(u("9i", data, C + tag_off + 8))
    assert dur == bj["duration"] and offs == bj["offsets"]
    assert u("I", data, C + tag_off + 0x2C)[0] == 0
    offsets = {i: o for i, o in enumerate(offs)}
    sizes = extents(offsets, [], len(data) - C)
    assert section_list(offsets, sizes, C) == bj["sections"]
    for s, o in offsets.items():
        if o:
            assert o >= data_off and (C + o) % 16 == 0
    if offsets[8] and sizes[8]:
        assert bj["chained_clip_base"] == C + offsets[8]
        assert C + offsets[8] == max(C + o for o in offs if o)
    elif offsets[8]:                                  # JB-DOC: the last clip points at its end
        assert bj["chained_clip_base"] is None and C + offsets[8] + sizes[8] <= len(data)
    for s, h in bj["array_headers"].items():
        if variant == "fc2":
            cnt, last, fps, z = u("4H", data, C + offsets[int(s)])
            assert (cnt, last, fps, z) == (h["count"], h["last_frame"], h["fps"], 0)
        else:
            cnt, last, fps = u("2Hf", data, C + offsets[int(s)])
            assert (cnt, last, fps) == (h["count"], h["last_frame"], float(h["fps"]))
    if "tracks" in bj:
        verify_retail(data, bj)
    return True


def verify_good(data, doc):
    variant = doc["variant"]
    assert doc["file_size"] == len(data)
    if variant in WD_MAGIC:
        assert u("I", data, 0)[0] == WD_MAGIC[variant]
    else:
        assert data[0] == FC_MAGIC[variant]
        if variant == "fc2":
            assert data[1] == 0 and u("H", data, 2)[0] in (1, 2, 3)
        else:
            assert data[1:4] == b"\0\0\0"
    assert u("I", data, 4)[0] == doc["header"]["checksum"]
    layout = doc["layout"]
    blocks = doc["blocks"]
    if layout == "ani":
        bases = [b["base"] for b in blocks]
        infos = []
        if variant == "fc5":
            for k, bj in enumerate(blocks):
                end = bases[k + 1] if k + 1 < len(bases) else len(data)
                assert bj["base"] % 16 == 0
                assert data[bj["base"] + 0x10:bj["base"] + 0x13] == b"aNi"
                assert bj["animation_data_size"] == (len(data) - 16 if k == 0 else end - bj["base"])
                infos.append(verify_ani_block(data, bj, variant, end))
        else:
            assert len(blocks) == 1
            assert blocks[0]["animation_data_size"] == len(data) - 16
            infos.append(verify_ani_block(data, blocks[0], variant, len(data)))
        for bj, info in zip(blocks, infos):
            if "motion" in bj:
                verify_motion(data, bj, variant, bj["base"], info["flags"], bj["data_counts"], info["offsets"],
                              info["sizes"], info["K"], bases)
    elif layout == "fc4":
        assert len(blocks) == 1
        verify_fc4(data, blocks[0])
    elif layout == "legacy":
        for bj in blocks:
            verify_legacy(data, bj, variant)
    else:
        assert blocks == []


# ---------------------------------------------------------------------------------
# JSON output (stable, compact leaves)
# ---------------------------------------------------------------------------------
def _is_leaf(v):
    if isinstance(v, (list, tuple)):
        return all(not isinstance(x, (dict, list, tuple)) for x in v) or \
            all(isinstance(x, (list, tuple)) and _is_leaf(x) for x in v)
    if isinstance(v, dict):
        return all(not isinstance(x, (dict, list, tuple)) for x in v.values())
    return True


def dumps(v, ind=0):
    sp = "  " * (ind + 1)
    if isinstance(v, dict):
        if not v:
            return "{}"
        if _is_leaf(v) and len(v) <= 6:
            return json.dumps(v, separators=(", ", ": "))
        parts = ["%s%s: %s" % (sp, json.dumps(k), dumps(x, ind + 1)) for k, x in v.items()]
        return "{\n" + ",\n".join(parts) + "\n" + "  " * ind + "}"
    if isinstance(v, (list, tuple)):
        if _is_leaf(v):
            return json.dumps(v, separators=(",", ":")) if any(isinstance(x, (list, tuple)) for x in v) \
                else json.dumps(v, separators=(", ", ": "))
        parts = [sp + dumps(x, ind + 1) for x in v]
        return "[\n" + ",\n".join(parts) + "\n" + "  " * ind + "]"
    return json.dumps(v)


# ---------------------------------------------------------------------------------
# the corpus: good files
# ---------------------------------------------------------------------------------
GOOD = []      # (variant, name, builder)
BAD = []       # (name, builder)


def bad(name):
    def deco(fn):
        BAD.append((name, fn))
        return fn
    return deco


def wd_unit(variant):
    return (4, 120.0) if variant == "wd1" else (1, 30.0)


def all_cflags_fn(c, pos):
    """8 bones x 8 chunks = every 6-bit cflags value exactly once."""
    return (c * 8 + pos) % 64


def make_wd_file(variant, name, desc, kinds, K, key_mode="linear", names=None, cflag_fn=None,
                 **kw):
    def build(rng):
        unit, rate = wd_unit(variant)
        bones = make_bones(rng, kinds(rng) if callable(kinds) else kinds, names)
        clip = Clip(rng, bones, K, unit, rate, key_mode, cflag_fn)
        args = dict(kw)
        opq = args.pop("opaque_fn", None)
        if opq:
            args["opaque"] = opq(rng)
        data, bj, info = build_wd(variant, rng, clip, **args)
        return data, top_json(variant, data, info["hdr"], desc, [bj])
    GOOD.append((variant, name, build))


def define_wd_family():
    # ---------------- WD1 ----------------
    v = "wd1"
    make_wd_file(v, "zero_bones", "WD1, no bones, 7 keys: header, empty bone tables, KeyTimes only "
                 "(slots 4 and 6 absent).", [], 7)
    make_wd_file(v, "one_bone_k1", "WD1, one animated bone 'Root' (nbits 16), a single key (K=1, "
                 "one chunk of F=1).", ["a16"], 1)
    make_wd_file(v, "one_bone_k8", "WD1, one animated bone (nbits 1: slope 0 but 8 raw bits still "
                 "stored), K=8 exactly one full chunk.", ["a1"], 8)
    make_wd_file(v, "const_only_k9", "WD1, 4 constant bones (one identity FF BF FF BF FF 3F), K=9; "
                 "JointRotations absent (slot 6 = 0).", ["i", "c", "c", "c"], 9)
    make_wd_file(v, "mixed_k16_nonascending", "WD1, 7 bones mixing animated/constant/no-rotation, "
                 "K=16, sections in file order JointRotations, KeyTimes, JointConstantRotations "
                 "(non-ascending offsets).", ["a5", "c", "n", "a16", "i", "a1", "n"], 16,
                 order=[6, 0, 4])
    make_wd_file(v, "mixed_k17_padded_markup", "WD1, 6 bones, K=17 (last chunk F=1), every section "
                 "start and the file end padded to 16 bytes (padding gaps), opaque 'markup' section "
                 "in slot 9.", ["a3", "a12", "c", "n", "a8", "i"], 17, align16=True,
                 opaque_fn=lambda r: {9: opaque_bytes(r)}, order=[0, 4, 6, 9])
    make_wd_file(v, "bit15_k7", "WD1, m_nbBonesInAnim has bit 15 set (count in the low 15 bits is "
                 "5), K=7, ticks not on a 30 fps grid.", ["a7", "a9", "c", "a2", "n"], 7,
                 key_mode="irregular", count_high=0x8000)
    make_wd_file(v, "many_bones_150", "WD1, 150 bones (mostly constant or no rotation, some "
                 "animated), K=9, sparse key times.",
                 lambda r: ["a16", "i"] + random_kinds(r, 148, 0.08, 0.45), 9, key_mode="sparse")
    make_wd_file(v, "long_k100", "WD1, 3 animated bones, K=100 (13 chunks, last F=4), sparse key "
                 "times, opaque slots 9 and 10, sections padded.", ["a6", "a11", "a16"], 100,
                 key_mode="sparse", align16=True,
                 opaque_fn=lambda r: {9: opaque_bytes(r), 10: opaque_bytes(r)}, order=[0, 9, 6, 10])
    make_wd_file(v, "cflags_all_64", "WD1, 8 animated bones x 64 keys (8 chunks): the 64 bone "
                 "blocks use every 6-bit cflags value once (all constant/varying/sign/wInd "
                 "combinations).", ["a4", "a1", "a16", "a9", "a2", "a13", "a7", "a10"], 64,
                 cflag_fn=all_cflags_fn)
    # ---------------- WDL ----------------
    v = "wdl"
    make_wd_file(v, "zero_bones", "WDL, no bones, K=8; KeyTimes only.", [], 8)
    make_wd_file(v, "one_bone_k1", "WDL, one animated bone 'Root' (nbits 1), K=1.", ["a1"], 1)
    make_wd_file(v, "const_only_k7", "WDL, 3 constant bones (identity first), K=7; slot 6 absent.",
                 ["i", "c", "c"], 7)
    make_wd_file(v, "mixed_k9", "WDL, 8 bones mixing kinds, K=9 (second chunk F=1).",
                 ["a16", "n", "c", "a4", "a1", "i", "n", "a10"], 9)
    make_wd_file(v, "mixed_k16_nonascending_padded", "WDL, 6 bones, K=16, file order JointRotations, "
                 "JointConstantRotations, KeyTimes (non-ascending), 16-byte padding gaps.",
                 ["a2", "c", "a15", "n", "a8", "c"], 16, order=[6, 4, 0], align16=True)
    make_wd_file(v, "highflags_k17", "WDL, bone count field 0x5000|5 (high-nibble flags, count in "
                 "the low 12 bits), K=17, sparse key times.", ["a3", "a16", "c", "a1", "a7"], 17,
                 key_mode="sparse", count_high=0x5000, ani_flags=7)
    make_wd_file(v, "many_bones_120", "WDL, 120 bones (mostly constant/no rotation), K=8.",
                 lambda r: ["i", "a1"] + random_kinds(r, 118, 0.1, 0.5), 8)
    make_wd_file(v, "long_k60_alias", "WDL, 4 animated bones, K=60; opaque slots 9 and 10 share one "
                 "offset (equal offsets share one extent); slot 11 opaque.",
                 ["a5", "a12", "a16", "a9"], 60, key_mode="sparse",
                 opaque_fn=lambda r: {9: opaque_bytes(r), 11: opaque_bytes(r)}, alias={10: 9},
                 order=[0, 9, 6, 11])
    # ---------------- WD2 ----------------
    v = "wd2"
    make_wd_file(v, "zero_bones_k1", "WD2, no bones, a single key.", [], 1)
    make_wd_file(v, "one_bone_k17", "WD2, one animated bone 'Root' (nbits 16), K=17.", ["a16"], 17)
    make_wd_file(v, "mixed_k8", "WD2, 5 bones, K=8, opaque slot 9.", ["c", "a6", "n", "a1", "i"], 8,
                 opaque_fn=lambda r: {9: opaque_bytes(r)})
    make_wd_file(v, "highflags_k9_nonascending", "WD2, bone count field 0xF000|4, K=9, file order "
                 "JointConstantRotations, JointRotations, KeyTimes.", ["a11", "c", "a3", "i"], 9,
                 count_high=0xF000, order=[4, 6, 0], ani_flags=0x23)
    make_wd_file(v, "mixed_k16_padded", "WD2, 6 bones, K=16, sections padded to 16 bytes.",
                 ["a8", "a16", "c", "n", "a2", "a1"], 16, align16=True)
    make_wd_file(v, "many_bones_200", "WD2, 200 bones (mostly constant/no rotation), K=7.",
                 lambda r: ["a16", "c"] + random_kinds(r, 198, 0.06, 0.5), 7)
    make_wd_file(v, "long_k40", "WD2, 3 animated bones + 1 constant, K=40 (5 full chunks), sparse "
                 "key times, markup in slot 9 placed before JointRotations.",
                 ["a7", "i", "a14", "a1"], 40, key_mode="sparse",
                 opaque_fn=lambda r: {9: opaque_bytes(r)}, order=[0, 4, 9, 6])


def define_fc5():
    v = "fc5"

    def fc5_file(name, desc, block_specs):
        def build(rng):
            blocks = []
            for spec in block_specs:
                kinds = spec["kinds"](rng) if callable(spec["kinds"]) else spec["kinds"]
                names = spec.get("names")
                bones = make_bones(rng, kinds, names)
                clip = Clip(rng, bones, spec["K"], 1, 30.0, spec.get("key_mode", "linear"))
                kw = {"clip": clip}
                for k in ("order", "align16", "ani_flags"):
                    if k in spec:
                        kw[k] = spec[k]
                if "opaque_fn" in spec:
                    kw["opaque"] = spec["opaque_fn"](rng)
                blocks.append(kw)
            data, bjs, hdr, _ = build_fc5(rng, blocks)
            return data, top_json(v, data, hdr, desc, bjs)
        GOOD.append((v, name, build))

    fc5_file("zero_bones_k9", "FC5, one block with no bones, K=9: KeyTimes run to the opaque "
             "slot 9 section.", [{"kinds": [], "K": 9, "opaque_fn": lambda r: {9: opaque_bytes(r)}}])
    fc5_file("one_bone_k1", "FC5, one block, single animated bone 'Root' (nbits 16), K=1.",
             [{"kinds": ["a16"], "K": 1}])
    fc5_file("const_only_k8", "FC5, 3 constant bones (identity first), K=8; slot 5 absent.",
             [{"kinds": ["i", "c", "c"], "K": 8, "ani_flags": 7}])
    fc5_file("mixed_k7", "FC5, 6 bones mixing kinds, K=7.",
             [{"kinds": ["a1", "c", "n", "a9", "a16", "i"], "K": 7}])
    fc5_file("mixed_k16_nonascending_padded", "FC5, 6 bones, K=16, file order JointRotations (slot "
             "5) then JointConstantRotations (slot 3), padding gaps after sections (KeyTimes run "
             "directly into the first section).",
             [{"kinds": ["a4", "c", "a13", "n", "i", "a2"], "K": 16, "order": [5, 3], "align16": True,
               "ani_flags": 0x23}])
    fc5_file("mixed_k17_opaque", "FC5, 5 bones, K=17, sparse key times, opaque slots 9 and 10.",
             [{"kinds": ["a6", "a16", "c", "a1", "n"], "K": 17, "key_mode": "sparse",
               "opaque_fn": lambda r: {9: opaque_bytes(r), 10: opaque_bytes(r)},
               "order": [3, 10, 5, 9]}])
    fc5_file("many_bones_80", "FC5, 80 bones (mostly constant/no rotation), K=16.",
             [{"kinds": lambda r: ["a16", "c"] + random_kinds(r, 78, 0.07, 0.5), "K": 16,
               "ani_flags": 0x2F}])
    fc5_file("long_k90", "FC5, 3 animated bones, K=90 (12 chunks, last F=2), sparse key times.",
             [{"kinds": ["a10", "a1", "a14"], "K": 90, "key_mode": "sparse"}])
    fc5_file("two_blocks", "FC5, 2 'aNi' blocks: main block (12 bones, K=24) then a single-bone "
             "'Root' block (flags 0x0F, K=24) at the next 16-byte boundary; zero padding before it "
             "belongs to the main block's last section.",
             [{"kinds": ["a16", "a3", "c", "n", "a8", "i", "a1", "c", "a12", "n", "a5", "c"], "K": 24,
               "ani_flags": 3},
              {"kinds": ["a9"], "names": ["Root"], "K": 24, "ani_flags": 0x0F}])
    fc5_file("three_blocks", "FC5, 3 'aNi' blocks: single-bone 'Root' block (flags 0x0F, constant "
             "rotation), the main block (10 bones, K=17, padded sections), another 'Root' block "
             "(flags 0x0F, animated); the main block is not first.",
             [{"kinds": ["i"], "names": ["Root"], "K": 17, "ani_flags": 0x0F},
              {"kinds": ["a2", "c", "a16", "n", "a6", "a1", "c", "a11", "n", "i"], "K": 17,
               "align16": True, "ani_flags": 7, "opaque_fn": lambda r: {9: opaque_bytes(r)}},
              {"kinds": ["a16"], "names": ["Root"], "K": 17, "ani_flags": 0x0F}])


def define_fc4():
    v = "fc4"

    def fc4_file(name, desc, kinds, K, key_mode="linear", **kw):
        def build(rng):
            bones = make_bones(rng, kinds(rng) if callable(kinds) else kinds)
            clip = Clip(rng, bones, K, 1, 30.0, key_mode)
            args = dict(kw)
            opq = args.pop("opaque_fn", None)
            if opq:
                args["opaque"] = opq(rng)
            data, bj, hdr, _ = build_fc4(rng, clip, **args)
            return data, top_json(v, data, hdr, desc, [bj])
        GOOD.append((v, name, build))

    fc4_file("zero_bones_k7", "FC4 (layout unverified), no bones, K=7; hash and flag tables are "
             "empty and both offsets point at the end of the file.", [], 7)
    fc4_file("one_bone_k1", "FC4, one animated bone 'Root' (nbits 16), K=1.", ["a16"], 1)
    fc4_file("const_only_k8", "FC4, 3 constant bones (identity first), K=8; slot 4 absent.",
             ["i", "c", "c"], 8)
    fc4_file("mixed_k9", "FC4, 6 bones mixing kinds, K=9.", ["a1", "c", "n", "a7", "a16", "i"], 9)
    fc4_file("mixed_k16_nonascending_padded", "FC4, 5 bones, K=16, file order JointRotations, "
             "KeyTimes, JointConstantRotations (non-ascending), padding gaps (none directly after "
             "KeyTimes).", ["a5", "c", "a12", "n", "a1"], 16, order=[4, 2, 0], align16=True)
    fc4_file("mixed_k17_opaque_translations", "FC4, 5 bones, K=17, sparse key times, opaque slot 5 "
             "(JointTranslations, not decoded) and slot 7.", ["a3", "a16", "c", "a9", "n"], 17,
             key_mode="sparse", opaque_fn=lambda r: {5: opaque_bytes(r), 7: opaque_bytes(r)},
             order=[0, 2, 4, 5, 7])
    fc4_file("many_bones_100", "FC4, 100 bones (mostly constant/no rotation), K=8; tables at the "
             "end.", lambda r: ["a16", "i"] + random_kinds(r, 98, 0.07, 0.5), 8)
    fc4_file("long_k45", "FC4, 3 animated bones, K=45 (6 chunks, last F=5); KeyTimes is the last "
             "section, so the hash table follows it directly.", ["a8", "a1", "a13"], 45,
             key_mode="sparse", order=[4, 2])


def define_legacy():
    def leg_file(variant, name, desc, specs, fc2_minor=1):
        def build(rng):
            data, blocks, hdr = build_legacy(variant, rng, specs, fc2_minor)
            return data, top_json(variant, data, hdr, desc, blocks)
        GOOD.append((variant, name, build))

    for v in ("fc2", "fc3"):
        guess = "" if v == "fc2" else " (FC3 layout is a GUESS: FC2 body with u32[9] masks)"
        leg_file(v, "no_sections", "%s, one clip, no sections at all (all 9 offsets 0)%s." %
                 (v.upper(), guess), [{"slots": [], "last": 0, "bits": (0, 0, 0, 0)}], 1)
        leg_file(v, "const_rotations_only", "%s, one clip with only constant rotations (slot 2)%s." %
                 (v.upper(), guess), [{"slots": [2], "last": 9, "bits": (5, 0, 0, 0)}], 2)
        leg_file(v, "all_arrays", "%s, one clip with trajectory, constant and keyframed rotations, "
                 "constant and animated translations (slots 0-5), 16-byte aligned%s." % (v.upper(), guess),
                 [{"slots": [0, 1, 2, 3, 4, 5], "last": 17, "bits": (4, 3, 2, 2)}], 3)
        leg_file(v, "swapped_01", "%s, one clip whose slot 1 data precedes slot 0 (non-ascending "
                 "offsets), plus opaque event chain (slot 7)%s." % (v.upper(), guess),
                 [{"slots": [1, 0, 2, 3, 7], "last": 12, "bits": (3, 2, 0, 0)}], 1)
        leg_file(v, "chain_2", "%s, two chained clips: clip 0's slot 8 points at clip 1, placed last "
                 "so it runs to the end of the file%s." % (v.upper(), guess),
                 [{"slots": [2, 3], "last": 8, "bits": (3, 2, 0, 0)},
                  {"slots": [1, 0, 2], "last": 5, "bits": (2, 0, 0, 0)}], 2)
        leg_file(v, "chain_3", "%s, three chained clips (0 -> 1 -> 2), varied sections, opaque tag "
                 "table record (slot 6) in the middle clip%s." % (v.upper(), guess),
                 [{"slots": [0, 1, 2, 4], "last": 7, "bits": (2, 0, 3, 0)},
                  {"slots": [2, 3, 6], "last": 16, "bits": (3, 2, 0, 0), "opaque_len": (172, 172)},
                  {"slots": [3, 5], "last": 3, "bits": (0, 2, 0, 1)}], 3)
        leg_file(v, "many_tracks", "%s, one clip with many masked bones (40 constant rotations, "
                 "6 keyframed tracks)%s." % (v.upper(), guess),
                 [{"slots": [2, 3, 4], "last": 23, "bits": (40, 6, 5, 0)}], 1)


def define_retail():
    def bank(variant, name, desc, specs, fc2_minor=3):
        def build(rng):
            specs_now = [dict(sp) for sp in specs]
            if 6 in specs_now[0]["slots"]:
                specs_now[0]["tags"] = retail_tags(rng)
                specs_now[0]["events"] = retail_events(rng)
            data, blocks, hdr = build_retail_bank(variant, rng, specs_now, fc2_minor)
            return data, top_json(variant, data, hdr, desc, blocks)
        GOOD.append((variant, name, build))

    for v in ("fc2", "fc3"):
        guess = "" if v == "fc2" else " (FC3: the FC2 retail layout with 9-word masks, a GUESS)"
        bank(v, "retail_bank", "%s bank in the layout JB-DOC gives for retail files: sections 1, 0, 2, "
             "3, 4, 5, 6, 7, 8; trajectory count 1; constant sections with lastFrame 0 and rate 0; keyed "
             "group table with its end entry; 16-byte separators; a tag table in clip 0 whose two "
             "172-byte records point at clips 1 and 2; an event chain of three nodes; clip 2 (constant "
             "sections only) points slot 8 at its own end%s." % (v.upper(), guess),
             [{"slots": [1, 0, 2, 3, 4, 5, 6, 7], "last": 20, "bits": (6, 3, 1, 2)},
              {"slots": [2, 3, 5], "last": 12, "bits": (2, 2, 0, 1)},
              {"slots": [2, 4], "last": 0, "bits": (3, 0, 2, 0)}])
    # Blood Dragon (0x62): only listed by BUU (spec 2); mabkit tries the FC3 reading on it. These
    # files are that reading's layout; the opaque_* files are bodies it must keep opaque.
    def bd(name, desc, specs, spoil=None):
        def build(rng):
            specs_now = [dict(sp) for sp in specs]
            if 6 in specs_now[0]["slots"]:
                specs_now[0]["tags"] = retail_tags(rng)
                specs_now[0]["events"] = retail_events(rng)
            data, blocks, hdr = build_retail_bank("fc3bd", rng, specs_now)
            if spoil is not None:
                spoil(data, blocks)
            doc = top_json("fc3bd", data, hdr, desc, blocks)
            doc["layout"] = "legacy"
            return data, doc
        GOOD.append(("fc3bd", name, build))

    bd("legacy_clip", "Blood Dragon file in the guessed FC3 legacy layout (9-word masks, f32 rates): one "
       "clip with trajectory, constant and keyed rotations, constant and animated translations, in the "
       "retail order of fc2/retail_bank. A GUESS: no public source describes Blood Dragon's body.",
       [{"slots": [1, 0, 2, 3, 4, 5], "last": 15, "bits": (4, 3, 1, 1)}])
    bd("legacy_bank", "Blood Dragon bank in the guessed FC3 legacy layout: three chained clips, a tag "
       "table and an event chain in clip 0, as fc3/retail_bank. A GUESS.",
       [{"slots": [1, 0, 2, 3, 6, 7], "last": 11, "bits": (3, 2, 0, 0)},
        {"slots": [2, 3], "last": 11, "bits": (2, 1, 0, 0)},
        {"slots": [2], "last": 0, "bits": (2, 0, 0, 0)}])

    def wrong_group(data, blocks):
        # Clip 0's second group offset moved by 2: the container reads, the tracks do not decode.
        b = blocks[0]
        at = b["base"] + b["offsets"][3] + 8 + 4
        struct.pack_into("<i", data, at, struct.unpack_from("<i", data, at)[0] + 2)
        b.pop("tracks")
        b["undecodable"] = "sections[3]: group 1 offset is not where the previous group ends"

    bd("legacy_undecodable", "Blood Dragon file in the guessed FC3 layout whose keyed-rotation group table "
       "is off by 2 bytes at group 1: the container reads, the clip does not decode (mab info says why) "
       "and the bytes round-trip.",
       [{"slots": [2, 3], "last": 17, "bits": (2, 2, 0, 0)}], wrong_group)

    # Not a retail order: the tag table and the events lead, so when clip 0's tracks grow, the
    # chained clips move away from the records that point at them.
    bank("fc2", "tags_first", "FC2 bank whose first clip stores its tag table (two records, for clips 1 "
         "and 2) and event chain before its track sections (order 6, 7, 1, 0, 2, 3, 8), otherwise in the "
         "retail layout of fc2/retail_bank.",
         [{"slots": [6, 7, 1, 0, 2, 3], "last": 9, "bits": (2, 2, 0, 0)},
          {"slots": [2, 3], "last": 9, "bits": (1, 1, 0, 0)},
          {"slots": [3], "last": 4, "bits": (0, 1, 0, 0)}], 2)


# Issue 25: a 6-byte code with no valid quaternion, 1 - a^2 - b^2 - c^2 < 0 (spec 9.1: the
# public FC2 readers reject it). a = b = c = 0x7FFF * step - bias = 0.7071: the sum is 1.5.
INVALID_Q6 = struct.pack("<3H", 0x7FFF, 0xFFFF, 0x7FFF)


def define_invalid_codes():
    def spoil(data, blocks):
        # Clip 0: its first constant rotation, and track 0's key at frame 8 (group 1's first code).
        b = blocks[0]
        t = b["tracks"]
        at = b["base"] + b["offsets"][2] + 8
        data[at:at + 6] = INVALID_Q6
        t["constant_rotations"][0]["code"] = INVALID_Q6.hex()
        s3 = b["base"] + b["offsets"][3]
        at = s3 + struct.unpack_from("<i", data, s3 + 8 + 4)[0]
        data[at:at + 6] = INVALID_Q6
        keys = t["rotations"][0]
        keys["codes"][keys["frames"].index(8)] = INVALID_Q6.hex()
        b["invalid_codes"] = ["constant rotation of bone %d" % t["constant_rotations"][0]["bone"],
                              "bone %d key %d (frame 8)" % (keys["bone"], keys["frames"].index(8))]

    def build(rng):
        data, blocks, hdr = build_retail_bank("fc2", rng, [{"slots": [1, 0, 2, 3], "last": 12, "bits": (2, 2, 0, 0)}], 3)
        spoil(data, blocks)
        return data, top_json("fc2", data, hdr, "FC2 clip in the retail layout holding two 6-byte codes with no "
                              "valid quaternion (1 - a^2 - b^2 - c^2 < 0, spec 9.1; public FC2 readers reject "
                              "them): a constant rotation and a keyed key. The file reads, round-trips and "
                              "decodes (docs/legacy.md, 'Codes with no valid quaternion'); verify warns.", blocks)
    GOOD.append(("fc2", "invalid_quaternion", build))


def define_opaque():
    for v, sizes in (("fc3bd", (0, 7, 64, 700)), ("primal", (0, 33, 256))):
        for sz in sizes:
            def build(rng, v=v, sz=sz):
                hdr, checksum, tail = outer_header(rng, v)
                data = bytearray(hdr + bytes(rng.getrandbits(8) for _ in range(sz)))
                desc = ("%s: 16-byte header with magic 0x%02X and %d random body bytes; the body is "
                        "OPAQUE (layout unknown) and must round-trip verbatim." % (v, FC_MAGIC[v], sz))
                return data, top_json(v, data, (hdr, checksum, tail), desc, [])
            GOOD.append((v, "opaque_%d" % sz, build))


# ---------------------------------------------------------------------------------
# translations, root motion and part entries (spec 10, 12; issue 16)
#
# The spec gives one decoder, for a single-bone translation stream (spec 10.1); the rest is
# guesswork, which mabkit tries as numbered hypotheses (docs/motion.md). Each file below is
# built for one hypothesis, and the script checks, with its own reading of the documented
# rules, that the hypotheses before it fail on the bytes and no later one is ambiguous with it,
# so the expected evidence is what a reader of those rules must conclude.
# ---------------------------------------------------------------------------------
TSCALE = 0.00029802325                      # spec 10.1: scale = (entry >> 8) * this
MOTION_SLOTS = {"wd": {"table": 1, "root_rot": 2, "root_tr": 3, "const_tr": 5, "tr": 7, "parts": 8},
                "fc5": {"table": 0, "root_rot": 1, "root_tr": 2, "const_tr": 4, "tr": 6, "parts": 7}}
MAX_PAD = 15                                # fewer than 16 zero bytes may follow the data
PART_ENTRY = 32


def motion_slots(variant):
    return MOTION_SLOTS["fc5" if variant == "fc5" else "wd"]


def gen_translation_sections(rng, tbones, K):
    """tbones: [(bone, n, scale_code)] in stream order (spec 10.1: 3 constant flags, then per
    component a 16-bit constant or a 16-bit header and F x n bits, times the scale). Returns
    (table bytes, stream bytes, {bone: [[x, y, z] per key]})."""
    num_chunks = (K + 7) // 8
    vals = {b: [] for b, _, _ in tbones}
    chunks = []
    for c in range(num_chunks):
        F = min(8, K - 8 * c)
        bw = BitWriter()
        for b, n, sc in tbones:
            cf = rng.getrandbits(3)
            STATS["tcflags"].add(cf)
            bw.put(cf, 3)
            comps = []
            for j in range(3):
                if (cf >> j) & 1:
                    v = rng.randint(0, 65535)
                    bw.put(v, 16)
                    comps.append([const_value(v)] * F)
                else:
                    h = random_header(rng)
                    raws = [rng.getrandbits(n) for _ in range(F)]
                    bw.put(h, 16)
                    for r in raws:
                        bw.put(r, n)
                    comps.append(varying_values(h, raws, n))
            scale = sc * TSCALE
            for f in range(F):
                vals[b].append([comps[j][f] * scale for j in range(3)])
        chunks.append(bw.to_bytes())
    entries = [table_size_for(num_chunks)]
    for ch in chunks:
        entries.append(entries[-1] + len(ch))
    stream = struct.pack("<%dI" % len(entries), *entries) + b"".join(chunks)
    table = struct.pack("<%dI" % len(tbones), *[(sc << 8) | n for _, n, sc in tbones])
    return table, stream, vals


def table_size_for(num_chunks):
    return 4 * (num_chunks + 1)


def padding_ok(rest):
    return len(rest) <= MAX_PAD and all(b == 0 for b in rest)


def read_translation_stream(data, K, entries):
    """Independent reader. entries: [(n, scale)]. Returns [[x, y, z] per key] per bone, or a
    string saying why the bytes do not fit (table, exact chunk ends, zero pad bits, tail)."""
    num_chunks = (K + 7) // 8
    tsz = table_size_for(num_chunks)
    if len(data) < tsz or u("I", data, 0)[0] != tsz:
        return "chunk table size"
    table = list(u("%dI" % (num_chunks + 1), data, 0))
    for i in range(1, len(table)):
        if table[i] < table[i - 1] or table[i] > len(data):
            return "chunk table entry %d" % i
    out = [[] for _ in entries]
    for c in range(num_chunks):
        F = min(8, K - 8 * c)
        chunk = data[table[c]:table[c + 1]]
        br = BitReader(chunk)
        for i, (n, scale) in enumerate(entries):
            cf = br.get(3)
            comps = []
            for j in range(3):
                if (cf >> j) & 1:
                    comps.append([const_value(br.get(16))] * F)
                else:
                    h = br.get(16)
                    comps.append(varying_values(h, [br.get(n) for _ in range(F)], n))
            for f in range(F):
                out[i].append([comps[j][f] * scale for j in range(3)])
        if (br.pos + 7) // 8 != len(chunk):
            return "chunk %d is not consumed exactly" % c
        if br.pos % 8 and chunk[-1] >> (br.pos % 8):
            return "chunk %d pad bits" % c
    if not padding_ok(data[table[-1]:]):
        return "stream tail"
    return out


def count_ok(counts, i, n):
    return counts is None or i >= len(counts) or counts[i] in (0, n)


def plausible(x):
    m = abs(x)
    return math.isfinite(x) and (m == 0 or 1e-20 <= m <= 1e4)


def select(flags, rule):
    return [i for i, f in enumerate(flags) if rule == "all" or f & rule]


def evidence_translations(sec, flags, counts, K, fc5):
    """The documented rules (docs/motion.md) for TranslationTable + JointTranslations.
    sec: {name: bytes or None}. Returns ("decoded" | "hypothesis N" | "opaque" | "absent",
    rule, values per selected bone)."""
    table, stream = sec.get("table"), sec.get("tr")
    if table is None and stream is None:
        return "absent", None, None
    if table is None or stream is None or K == 0:
        return "opaque", None, None
    single = fc5 and len(flags) == 1
    cands = ([("decoded", "all")] if single else []) + [("hypothesis 1", 0x40), ("hypothesis 2", 0x80)]
    if not single:
        cands.append(("hypothesis 3", "all"))

    def fits(rule):
        sel = select(flags, rule)
        t = len(sel)
        if t == 0 or len(table) < 4 * t or not padding_ok(table[4 * t:]):
            return None
        if not (count_ok(counts, 5, t) and count_ok(counts, 6, t)):
            return None
        raw = u("%dI" % t, table, 0)
        if any(not 1 <= (e & 0xFF) <= 16 for e in raw):
            return None
        vals = read_translation_stream(stream, K, [(e & 0xFF, (e >> 8) * TSCALE) for e in raw])
        return None if isinstance(vals, str) else (sel, vals)

    for k, (name, rule) in enumerate(cands):
        got = fits(rule)
        if got is None:
            continue
        for _, later in cands[k + 1:]:
            if select(flags, later) != got[0] and fits(later) is not None:
                return "opaque", None, None
        return name, rule, dict(zip(got[0], got[1]))
    return "opaque", None, None


def evidence_constants(data, flags, counts, animated):
    if data is None:
        return "absent", None
    cands = [("hypothesis 1", 0x80), ("hypothesis 2", 0x40)]

    def fits(rule):
        sel = select(flags, rule)
        n = len(sel)
        if n == 0 or len(data) < 12 * n or not padding_ok(data[12 * n:]) or not count_ok(counts, 3, n):
            return None
        if any(b in animated for b in sel):
            return None
        vals = [list(u("3f", data, 12 * i)) for i in range(n)]
        if not all(plausible(x) for v in vals for x in v):
            return None
        return dict(zip(sel, vals))

    for k, (name, rule) in enumerate(cands):
        got = fits(rule)
        if got is None:
            continue
        for _, later in cands[k + 1:]:
            if select(flags, later) != select(flags, rule) and fits(later) is not None:
                return "opaque", None
        return name, got
    return "opaque", None


def q6_unit_code(b):
    """A 6-byte code a unit quaternion encodes to: bit 15 of word 2 clear, the stored three
    square-sum to at most 3/4, none larger than the dropped one (one quantum of slack)."""
    w0, w1, w2 = struct.unpack("<3H", bytes(b))
    if w2 & 0x8000:
        return False
    a = (w0 & 0x7FFF) * Q6_STEP - Q6_BIAS
    bb = (w1 & 0x7FFF) * Q6_STEP - Q6_BIAS
    c = w2 * Q6_STEP - Q6_BIAS
    s = a * a + bb * bb + c * c
    q = 2 * Q6_STEP
    if s > 0.75 + 3 * q:
        return False
    return max(abs(a), abs(bb), abs(c)) <= math.sqrt(max(0.0, 1 - s)) + q


def evidence_root_rotations(data, counts, K):
    if data is None:
        return "absent", None
    if K and len(data) >= 6 * K and padding_ok(data[6 * K:]) and count_ok(counts, 0, K):
        codes = [data[6 * i:6 * i + 6] for i in range(K)]
        if all(q6_unit_code(c) for c in codes):
            return "hypothesis 1", [decode_q6(c) for c in codes]
    if K and len(data) >= 16 * K and padding_ok(data[16 * K:]) and count_ok(counts, 0, K):
        qs = [list(u("4f", data, 16 * i)) for i in range(K)]
        if all(math.isfinite(sum(x * x for x in q)) and abs(math.sqrt(sum(x * x for x in q)) - 1) <= 1e-3
               for q in qs):
            return "hypothesis 2", qs
    return "opaque", None


def evidence_root_translations(data, counts, K):
    if data is None:
        return "absent", None
    for name, el in (("hypothesis 1", 12), ("hypothesis 2", 16)):
        if not (K and len(data) >= el * K and padding_ok(data[el * K:]) and count_ok(counts, 1, K)):
            continue
        vals = [list(u("3f", data, el * i)) for i in range(K)]
        if not all(plausible(x) for v in vals for x in v):
            continue
        if el == 16:
            ws = [data[16 * i + 12:16 * i + 16] for i in range(K)]
            if ws[0] not in (struct.pack("<f", 0.0), struct.pack("<f", 1.0)) or any(w != ws[0] for w in ws):
                continue
        return name, vals
    return "opaque", None


def evidence_parts(data, sec_abs, block_base, bases, duration):
    """Returns (evidence, [part dicts]) under the documented rules; bases: every block base."""
    if data is None:
        return "absent", None
    limit = duration * (1 + 1e-6) + 1e-6 if duration > 0 else 1e-6
    for name, head in (("hypothesis 1", 16), ("hypothesis 2", 4)):
        if len(data) < head:
            continue
        count = u("I", data, 0)[0]
        if count == 0 or count > (len(data) - head) // PART_ENTRY:
            continue
        if not padding_ok(data[head + PART_ENTRY * count:]):
            continue
        parts, ok, nested = [], True, []
        for i in range(count):
            e = head + PART_ENTRY * i
            off, start, end, parent, attach = u("iffII", data, e)
            typ = data[e + 20]
            if not (math.isfinite(start) and math.isfinite(end) and 0 <= start <= end <= limit and 1 <= typ <= 8):
                ok = False
            nested.append(off)
            parts.append({"start": start, "end": end, "parent": parent, "attachment": attach, "type": typ,
                          "nested_block": None})
        if not ok:
            continue
        if any(nested):
            found = False
            for origin in ("entry", "section", "block"):
                hits = []
                for i, off in enumerate(nested):
                    if off == 0:
                        hits.append(None)
                        continue
                    o = {"entry": sec_abs + head + PART_ENTRY * i, "section": sec_abs, "block": block_base}[origin]
                    t = o + off
                    hits.append(bases.index(t) if t in bases and t != block_base else -1)
                if all(h != -1 for h in hits):
                    for p, h in zip(parts, hits):
                        p["nested_block"] = h
                    found = True
                    break
            if not found:
                continue
        return name, parts
    return "opaque", None


class Motion:
    """What one 'aNi' block carries besides rotations: which sections to build and what a reader
    of the documented rules must find. Built after the Clip, from its own draws of the rng."""

    def __init__(self, rng, clip, variant, translated=None, tbits=None, constants=None, root_rot=None,
                 root_tr=None, parts=None, flag_bits=None, counts=True, break_stream=False):
        self.slots = motion_slots(variant)
        self.sections = {}
        self.expect = {}
        self.counts = {}
        self.data = {}
        self.parts_spec = parts
        K = clip.K
        for b, bit in (flag_bits or {}).items():
            clip.bones[b]["flags"] |= bit
        if translated is not None:
            tb = [(b, n, rng.randint(300, 700000)) for b, n in zip(translated, tbits)]
            # break_stream: the table lists every bone but the stream is built for all but the
            # last, so no reading consumes the chunks exactly.
            built = tb[:-1] if break_stream else tb
            table, stream, vals = gen_translation_sections(rng, built, K)
            if break_stream:
                table = struct.pack("<%dI" % len(tb), *[(sc << 8) | n for _, n, sc in tb])
            self.sections["table"] = table
            self.sections["tr"] = stream
            self.data["translation_table"] = [[b, n, sc] for b, n, sc in tb]
            self.data["translations"] = vals
            if counts:
                self.counts[5] = len(tb)
                self.counts[6] = len(tb)
        if constants is not None:
            vals = {b: [f32(rng.uniform(-2.0, 2.0)) for _ in range(3)] for b in constants}
            self.sections["const_tr"] = b"".join(struct.pack("<3f", *vals[b]) for b in constants)
            self.data["constant_translations"] = vals
            if counts:
                self.counts[3] = len(constants)
        if root_rot is not None:
            if root_rot == "quat48":
                codes = [encode_q6(random_unit_quat(rng)) for _ in range(K)]
                self.sections["root_rot"] = b"".join(codes)
            else:
                qs = [[f32(c) for c in random_unit_quat(rng)] for _ in range(K)]
                self.sections["root_rot"] = b"".join(struct.pack("<4f", *q) for q in qs)
            if counts:
                self.counts[0] = K
        if root_tr is not None:
            el = [[f32(rng.uniform(-3.0, 3.0)) for _ in range(3)] for _ in range(K)]
            if root_tr == "f32x3":
                self.sections["root_tr"] = b"".join(struct.pack("<3f", *v) for v in el)
            else:
                self.sections["root_tr"] = b"".join(struct.pack("<4f", *(v + [1.0])) for v in el)
            if counts:
                self.counts[1] = K
        if parts is not None:
            head, entries = parts["head"], parts["entries"]
            body = struct.pack("<I", len(entries))
            if head == 16:
                body += bytes(rng.getrandbits(8) for _ in range(12))
            for e in entries:
                start = f32(e["start"] * clip.duration)
                end = f32(e["end"] * clip.duration)
                body += struct.pack("<iffIIB", 0, start, end, zlib.crc32(e["parent"].encode()),
                                    zlib.crc32(e["attachment"].encode()), e["type"])
                body += bytes(rng.getrandbits(8) for _ in range(11))
            self.sections["parts"] = body

    def opaque(self):
        """The sections as {slot: bytes}, for the builders' `opaque` argument."""
        return {self.slots[k]: v for k, v in self.sections.items()}

    def patch_nested(self, data, sec_abs, bases):
        """Writes each entry's nested offset (measured from the entry, spec 12) now that the
        blocks are placed."""
        if not self.parts_spec:
            return
        head = self.parts_spec["head"]
        for i, e in enumerate(self.parts_spec["entries"]):
            if e.get("nested") is not None:
                origin = sec_abs + head + PART_ENTRY * i
                struct.pack_into("<i", data, origin, bases[e["nested"]] - origin)


def motion_json(expect, data):
    out = {"evidence": expect}
    for k in ("translation_table", "translations", "constant_translations", "root_rotations",
              "root_translations", "parts"):
        if k in data:
            out[k] = data[k]
    return out


def verify_motion(data, bj, variant, B, flags, counts, offsets, sizes, K, bases):
    """Re-reads the motion sections of one block with the documented rules and compares the
    evidence and values with the expected JSON."""
    m = bj["motion"]
    slots = motion_slots(variant)
    sec = {k: (bytes(data[B + offsets[s]:B + offsets[s] + sizes[s]]) if offsets.get(s) else None)
           for k, s in slots.items()}
    ev = {}
    tr_ev, _, tr_vals = evidence_translations(sec, flags, counts, K, variant == "fc5")
    ev["translations"] = tr_ev
    if tr_vals is not None:
        assert {str(b): [qround(v) for v in vs] for b, vs in tr_vals.items()} == m["translations"]
    animated = set(tr_vals or {})
    c_ev, c_vals = evidence_constants(sec["const_tr"], flags, counts, animated)
    ev["constant_translations"] = c_ev
    if c_vals is not None:
        assert {str(b): qround(v) for b, v in c_vals.items()} == m["constant_translations"]
    r_ev, r_vals = evidence_root_rotations(sec["root_rot"], counts, K)
    ev["root_rotations"] = r_ev
    if r_vals is not None:
        assert [qround(q) for q in r_vals] == m["root_rotations"]
    t_ev, t_vals = evidence_root_translations(sec["root_tr"], counts, K)
    ev["root_translations"] = t_ev
    if t_vals is not None:
        assert [qround(v) for v in t_vals] == m["root_translations"]
    sec_abs = B + offsets[slots["parts"]] if offsets.get(slots["parts"]) else None
    p_ev, p_vals = evidence_parts(sec["parts"], sec_abs, B, bases, bj["duration"])
    ev["parts"] = p_ev
    if p_vals is not None:
        assert [{k: (rnd(v) if isinstance(v, float) else v) for k, v in p.items()} for p in p_vals] == m["parts"], \
            (p_vals, m["parts"])
    assert ev == m["evidence"], (ev, m["evidence"])


def finish_motion_json(motion, clip, expect):
    d = dict(motion.data)
    if expect.get("translations") == "opaque":
        d.pop("translations", None)                  # stored, but no reading gives values
    if "translations" in d:
        d["translations"] = {str(b): [qround(v) for v in vs] for b, vs in sorted(d["translations"].items())}
    if "constant_translations" in d:
        d["constant_translations"] = {str(b): qround(v) for b, v in sorted(d["constant_translations"].items())}
    sec = motion.sections
    if "root_rot" in sec:
        K = clip.K
        if len(sec["root_rot"]) == 6 * K:
            d["root_rotations"] = [qround(decode_q6(sec["root_rot"][6 * i:6 * i + 6])) for i in range(K)]
        else:
            d["root_rotations"] = [qround(list(u("4f", sec["root_rot"], 16 * i))) for i in range(K)]
    if "root_tr" in sec:
        K = clip.K
        el = len(sec["root_tr"]) // K
        d["root_translations"] = [qround(list(u("3f", sec["root_tr"], el * i))) for i in range(K)]
    if motion.parts_spec:
        ps = []
        for e in motion.parts_spec["entries"]:
            ps.append({"start": rnd(f32(e["start"] * clip.duration)), "end": rnd(f32(e["end"] * clip.duration)),
                       "parent": zlib.crc32(e["parent"].encode()), "attachment": zlib.crc32(e["attachment"].encode()),
                       "type": e["type"], "nested_block": e.get("nested")})
        d["parts"] = ps
    full = {"translations": "absent", "constant_translations": "absent", "root_rotations": "absent",
            "root_translations": "absent", "parts": "absent"}
    full.update(expect)
    return motion_json(full, d)


def define_motion():
    def wd_motion_file(variant, name, desc, kinds, K, motion_kw, expect, key_mode="linear", **kw):
        def build(rng):
            unit, rate = wd_unit(variant)
            bones = make_bones(rng, kinds)
            clip = Clip(rng, bones, K, unit, rate, key_mode)
            motion = Motion(rng, clip, variant, **motion_kw)
            data, bj, info = build_wd(variant, rng, clip, opaque=motion.opaque(),
                                      counts_extra=motion.counts, **kw)
            bj["motion"] = finish_motion_json(motion, clip, expect)
            return data, top_json(variant, data, info["hdr"], desc, [bj])
        GOOD.append((variant, name, build))

    wd_motion_file(
        "wd1", "translations_flag40",
        "WD1, 6 bones, K=20: TranslationTable (slot 1) and JointTranslations (slot 7) for the 3 bones "
        "with flag bit 0x40 (n = 16, 9, 4), m_dataCounts[5] = [6] = 3: hypothesis 1.",
        ["a12", "c", "a7", "n", "a16", "i"], 20,
        {"translated": [0, 2, 3], "tbits": [16, 9, 4], "flag_bits": {0: 0x40, 2: 0x40, 3: 0x40}},
        {"translations": "hypothesis 1"})
    wd_motion_file(
        "wdl", "translations_flag80_constants40",
        "WDL, 7 bones, K=17, padded: JointTranslations for the 2 bones with flag bit 0x80 "
        "(hypothesis 2), JointConstantTranslations (3 x f32) for the 3 bones with flag bit 0x40 "
        "(constant hypothesis 2).",
        ["a5", "a16", "c", "n", "a9", "i", "a3"], 17,
        {"translated": [1, 4], "tbits": [13, 6], "constants": [0, 3, 6],
         "flag_bits": {1: 0x80, 4: 0x80, 0: 0x40, 3: 0x40, 6: 0x40}},
        {"translations": "hypothesis 2", "constant_translations": "hypothesis 2"}, align16=True)
    wd_motion_file(
        "wd2", "translations_all_bones_root_motion",
        "WD2, 3 bones, K=12: every bone translated (hypothesis 3), root motion as one 6-byte "
        "quaternion and one 3 x f32 per key (hypotheses 1), m_dataCounts[0] = [1] = 12.",
        ["a8", "a16", "c"], 12,
        {"translated": [0, 1, 2], "tbits": [16, 11, 2], "root_rot": "quat48", "root_tr": "f32x3"},
        {"translations": "hypothesis 3", "root_rotations": "hypothesis 1", "root_translations": "hypothesis 1"})
    wd_motion_file(
        "wd1", "root_motion_f32x4_constants80",
        "WD1, 4 bones, K=9: root motion as (x, y, z, w) f32 quaternions and (x, y, z, 1) f32 "
        "translations per key (hypotheses 2), constant translations for the 2 bones with flag bit "
        "0x80 (hypothesis 1); no m_dataCounts for them.",
        ["a10", "c", "a2", "n"], 9,
        {"constants": [1, 3], "flag_bits": {1: 0x80, 3: 0x80}, "root_rot": "f32x4", "root_tr": "f32x4",
         "counts": False},
        {"constant_translations": "hypothesis 1", "root_rotations": "hypothesis 2",
         "root_translations": "hypothesis 2"})
    wd_motion_file(
        "wd1", "translations_inconsistent",
        "WD1, 5 bones, K=16: 3 bones with flag bit 0x40 and a 3-entry TranslationTable, but "
        "JointTranslations written for 2 bones: no reading consumes its chunks exactly, so it stays "
        "opaque.",
        ["a6", "a14", "c", "a1", "n"], 16,
        {"translated": [0, 1, 4], "tbits": [12, 8, 5], "flag_bits": {0: 0x40, 1: 0x40, 4: 0x40},
         "break_stream": True},
        {"translations": "opaque"})
    wd_motion_file(
        "wd1", "parts_no_nested",
        "WD1, 4 bones, K=24: a part animation array (slot 8) as u32 count then 32-byte entries from "
        "+4 (hypothesis 2): an InPossession part and a SubPartInPossession part, no nested blocks.",
        ["a9", "a16", "c", "n"], 24,
        {"parts": {"head": 4, "entries": [
            {"start": 0.0, "end": 0.5, "parent": "R Hand", "attachment": "prop_phone", "type": 1},
            {"start": 0.25, "end": 1.0, "parent": "L Hand", "attachment": "prop_bag", "type": 8}]}},
        {"parts": "hypothesis 2"})

    v = "fc5"

    def fc5_motion_file(name, desc, block_specs):
        def build(rng):
            blocks, motions = [], []
            for spec in block_specs:
                bones = make_bones(rng, spec["kinds"], spec.get("names"))
                clip = Clip(rng, bones, spec["K"], 1, 30.0, spec.get("key_mode", "linear"))
                motion = Motion(rng, clip, v, **spec.get("motion", {}))
                kw = {"clip": clip, "opaque": motion.opaque(), "counts_extra": motion.counts}
                for k in ("order", "align16", "ani_flags"):
                    if k in spec:
                        kw[k] = spec[k]
                blocks.append(kw)
                motions.append((motion, clip, spec.get("expect", {})))
            data, bjs, hdr, infos = build_fc5(rng, blocks)
            bases = [bj["base"] for bj in bjs]
            for (motion, clip, expect), bj, info in zip(motions, bjs, infos):
                slot = motion.slots["parts"]
                if info["offsets"].get(slot):
                    motion.patch_nested(data, info["B"] + info["offsets"][slot], bases)
                bj["motion"] = finish_motion_json(motion, clip, expect)
            return data, top_json(v, data, hdr, desc, bjs)
        GOOD.append((v, name, build))

    fc5_motion_file(
        "root_translation_block",
        "FC5, 2 blocks: a main block (5 bones, K=20) and a single-bone 'Root' block (flags 0x0F, K=20) "
        "with a one-entry TranslationTable (slot 0) and JointTranslations (slot 6): spec 10.1's "
        "public decoder case, 'decoded'.",
        [{"kinds": ["a16", "c", "a4", "n", "a10"], "K": 20, "ani_flags": 3},
         {"kinds": ["a12"], "names": ["Root"], "K": 20, "ani_flags": 0x0F,
          "motion": {"translated": [0], "tbits": [16]}, "expect": {"translations": "decoded"}}])
    fc5_motion_file(
        "parts_nested",
        "FC5, 3 blocks: a prop block, the main block (5 bones, K=18) whose part array (slot 7, u32 "
        "count, 12 bytes, 32-byte entries from +16: hypothesis 1) links the prop block (before it) and "
        "a translated 'Root' block (after it) by offsets from each entry, and that 'Root' block.",
        [{"kinds": ["a7", "c"], "names": ["prop_gun_root", "prop_gun_mag"], "K": 18, "ani_flags": 3},
         {"kinds": ["a16", "a5", "c", "n", "a11"], "K": 18, "ani_flags": 7,
          "motion": {"parts": {"head": 16, "entries": [
              {"start": 0.0, "end": 1.0, "parent": "R Hand", "attachment": "prop_gun", "type": 1, "nested": 0},
              {"start": 0.1, "end": 0.6, "parent": "Root", "attachment": "Root", "type": 7, "nested": 2},
              {"start": 0.5, "end": 0.75, "parent": "L Hand", "attachment": "prop_mag", "type": 8}]}},
          "expect": {"parts": "hypothesis 1"}},
         {"kinds": ["a9"], "names": ["Root"], "K": 18, "ani_flags": 0x0F,
          "motion": {"translated": [0], "tbits": [14]}, "expect": {"translations": "decoded"}}])


# ---------------------------------------------------------------------------------
# the corpus: bad files
# ---------------------------------------------------------------------------------
def bad_doc(stage, error, field, offset, desc, variant):
    return {"synthetic": True, "variant": variant, "stage": stage, "error": error, "field": field,
            "offset": offset, "description": desc}


def base_wd(rng, variant, kinds, K, **kw):
    unit, rate = wd_unit(variant)
    clip = Clip(rng, make_bones(rng, kinds), K, unit, rate)
    data, bj, info = build_wd(variant, rng, clip, **kw)
    return data, info, clip


def define_bad():
    @bad("empty")
    def _(rng):
        return bytearray(), bad_doc("parse", "truncated", "magic", 0,
                                    "0-byte file: not even the magic can be read.", None)

    @bad("unknown_magic")
    def _(rng):
        data = bytearray(struct.pack("<I", 0x12345678) + bytes(rng.getrandbits(8) for _ in range(60)))
        return data, bad_doc("parse", "unsupported_version", "magic", 0,
                             "u32 magic 0x12345678 (byte 0 = 0x78) matches no variant.", None)

    @bad("wd1_offset_past_end")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["a5", "c"], 9)
        struct.pack_into("<I", data, 0x48, len(data) - 16 + 8)
        return data, bad_doc("parse", "out_of_bounds", "m_offsets[6]", 0x48,
                             "WD1 m_offsets[6] (JointRotations) = file size - 16 + 8, past the end.", "wd1")

    @bad("wdl_offset_past_end")
    def _(rng):
        data, info, _ = base_wd(rng, "wdl", ["a5", "c"], 9)
        struct.pack_into("<I", data, 0x60, len(data) - 16 + 1)
        return data, bad_doc("parse", "out_of_bounds", "m_offsets[6]", 0x60,
                             "WDL m_offsets[6] (JointRotations) = file size - 16 + 1, past the end.", "wdl")

    @bad("wd1_offset_into_header")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["c", "a4", "c"], 8)
        struct.pack_into("<I", data, 0x40, 8)
        return data, bad_doc("parse", "bad_offset", "m_offsets[4]", 0x40,
                             "WD1 m_offsets[4] (JointConstantRotations) = 8: points inside the "
                             "CAnimData header.", "wd1")

    @bad("wd1_bones_65535")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["a5", "c"], 8)
        struct.pack_into("<H", data, 0x20, 0xFFFF)
        return data, bad_doc("parse", "limit_exceeded", "m_nbBonesInAnim", 0x20,
                             "WD1 m_nbBonesInAnim = 0xFFFF: count 32767 (low 15 bits) exceeds the "
                             "limit 4095.", "wd1")

    @bad("wdl_bones_0xffff")
    def _(rng):
        data, info, _ = base_wd(rng, "wdl", ["a5", "c"], 8)
        struct.pack_into("<H", data, 0x30, 0xFFFF)
        return data, bad_doc("parse", "truncated", "bone_hashes", 0x80,
                             "WDL m_nbBonesInAnim = 0xFFFF: count 4095 (low 12 bits); the bone tables "
                             "(4095 x 5 bytes from 0x80) do not fit in the file.", "wdl")

    @bad("wd1_bad_signature")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["a5", "c"], 8)
        data[0x14:0x17] = b"aNx"
        return data, bad_doc("parse", "bad_signature", "signature", 0x14,
                             "WD1 signature 'aNx' instead of 'aNi'.", "wd1")

    @bad("wdl_truncated_header")
    def _(rng):
        data, info, _ = base_wd(rng, "wdl", ["a5", "c"], 8)
        return data[:42], bad_doc("parse", "truncated", "m_duration", 0x28,
                                  "WDL file cut to 42 bytes: m_duration (0x28..0x2C) is incomplete.",
                                  "wdl")

    @bad("fc2_bad_tag")
    def _(rng):
        data, blocks, hdr = build_legacy("fc2", rng, [{"slots": [2], "last": 5, "bits": (3, 0, 0, 0)}])
        data[0x80:0x84] = b"AnX\x1a"
        return data, bad_doc("parse", "bad_signature", "tag", 0x80,
                             "FC2 clip tag 'AnX\\x1a' instead of 'AnD\\x1a' at clip base + 0x70.", "fc2")

    @bad("wd1_overlap_const")
    def _(rng):
        unit, rate = wd_unit("wd1")
        clip = Clip(rng, make_bones(rng, ["c", "a6", "c", "c"]), 9, unit, rate)
        data, bj, info = build_wd("wd1", rng, clip, order=[0, 4, 6],
                                  overrides={4: clip.const_bytes[:12]})
        start = info["B"] + info["offsets"][4]
        assert info["sizes"][4] == 12
        return data, bad_doc("validate", "overlap", "m_offsets[4]", start,
                             "WD1 with 3 constant bones (flags and m_dataCounts[2] agree) but the "
                             "JointConstantRotations extent is 12 bytes (18 needed): the next section "
                             "starts 12 bytes later.", "wd1")

    @bad("wd1_keytimes_overlap")
    def _(rng):
        unit, rate = wd_unit("wd1")
        clip = Clip(rng, make_bones(rng, ["a6", "c"]), 40, unit, rate)
        data, bj, info = build_wd("wd1", rng, clip, order=[0, 4, 6],
                                  overrides={0: clip.keytimes_bytes[:20]})
        start = info["B"] + info["offsets"][0]
        assert info["sizes"][0] == 20
        return data, bad_doc("validate", "overlap", "m_offsets[0]", start,
                             "WD1 m_lastFrame = 39 (40 keys, 80 bytes) but the KeyTimes extent is 20 "
                             "bytes.", "wd1")

    @bad("wdl_rotations_overlap")
    def _(rng):
        unit, rate = wd_unit("wdl")
        clip = Clip(rng, make_bones(rng, ["a6", "c", "a3"]), 17, unit, rate)
        data, bj, info = build_wd("wdl", rng, clip, order=[0, 4, 6, 9],
                                  opaque={9: opaque_bytes(rng, 24, 24)})
        start = info["B"] + info["offsets"][6]
        nchunks = (clip.K + 7) // 8
        struct.pack_into("<I", data, start + 4 * nchunks, info["sizes"][6] + 8)
        return data, bad_doc("validate", "overlap", "m_offsets[6]", start,
                             "WDL JointRotations chunk table: last entry = section extent + 8, so "
                             "the last chunk runs into the following markup section.", "wdl")

    @bad("wd1_size_mismatch")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["a5", "c"], 8)
        struct.pack_into("<I", data, 0x18, len(data) - 16 + 4)
        return data, bad_doc("validate", "size_mismatch", "m_animationDataSize", 0x18,
                             "WD1 m_animationDataSize = file size - 12 (should be file size - 16).",
                             "wd1")

    @bad("wd1_count_mismatch")
    def _(rng):
        data, info, _ = base_wd(rng, "wd1", ["a5", "c", "a2"], 8)
        struct.pack_into("<H", data, 0x2A, 3)
        return data, bad_doc("validate", "count_mismatch", "m_dataCounts[4]", 0x2A,
                             "WD1 m_dataCounts[4] = 3 but only 2 bones have flags & 0x30 == 0x10.",
                             "wd1")

    # ---- extra cases ----
    @bad("wd2_size_mismatch")
    def _(rng):
        data, info, _ = base_wd(rng, "wd2", ["a5", "c"], 9)
        struct.pack_into("<I", data, 0x24, len(data) - 16 - 2)
        return data, bad_doc("validate", "size_mismatch", "m_animationDataSize", 0x24,
                             "WD2 m_animationDataSize = file size - 18 (should be file size - 16).",
                             "wd2")

    @bad("wd1_bone_flags_truncated")
    def _(rng):
        # 20 bones, every offset 0, file ends after the hashes and 5 of the 20 flag bytes.
        unit, rate = wd_unit("wd1")
        clip = Clip(rng, make_bones(rng, ["n"] * 20), 1, unit, rate)
        data, bj, info = build_wd("wd1", rng, clip, overrides={})
        struct.pack_into("<I", data, 0x30, 0)              # KeyTimes offset -> 0
        cut = 0x60 + 4 * 20 + 5
        data = data[:cut]
        struct.pack_into("<I", data, 0x18, len(data) - 16)
        return data, bad_doc("parse", "truncated", "bone_flags", 0x60 + 80,
                             "WD1 with 20 bones and no sections: the file ends 5 bytes into the "
                             "20-byte flag array.", "wd1")

    @bad("fc5_count_mismatch")
    def _(rng):
        clip = Clip(rng, make_bones(rng, ["c", "a4", "c"]), 9, 1, 30.0)
        data, bjs, hdr, infos = build_fc5(rng, [{"clip": clip}])
        struct.pack_into("<H", data, 0x10 + 0x22 + 4, 1)
        return data, bad_doc("validate", "count_mismatch", "m_dataCounts[2]", 0x36,
                             "FC5 m_dataCounts[2] = 1 but 2 bones have flags & 0x30 == 0x30.", "fc5")

    @bad("fc5_offset_past_end")
    def _(rng):
        clip = Clip(rng, make_bones(rng, ["c", "a4"]), 9, 1, 30.0)
        data, bjs, hdr, infos = build_fc5(rng, [{"clip": clip}])
        struct.pack_into("<I", data, 0x10 + 0x38 + 4 * 5, len(data) - 16 + 4)
        return data, bad_doc("parse", "out_of_bounds", "m_offsets[5]", 0x5C,
                             "FC5 m_offsets[5] (JointRotations) points 4 bytes past the end of the "
                             "only block.", "fc5")

    # No "offset into the next FC5 block" file: blocks after the first are found only
    # after everything the previous block points at (spec 4.3 gives no block table), so
    # such an offset makes the later 'aNi' part of block 0's data, not an error.

    @bad("fc4_offset_past_end")
    def _(rng):
        clip = Clip(rng, make_bones(rng, ["c", "a4"]), 9, 1, 30.0)
        data, bj, hdr, info = build_fc4(rng, clip)
        struct.pack_into("<H", data, 0x40 + 2 * 4, len(data) - 0x18 + 2)
        return data, bad_doc("parse", "out_of_bounds", "sectionOffsets[4]", 0x48,
                             "FC4 sectionOffsets[4] (JointRotations, relative to 0x18) points 2 "
                             "bytes past the end of the file.", "fc4")


# ---------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------
MAX_FILE = 64 * 1024
MAX_TOTAL = 1024 * 1024


def generate(out):
    """Write everything into out (created). Returns the list of relative paths written."""
    for k in STATS:
        STATS[k] = set() if isinstance(STATS[k], set) else 0
    GOOD.clear()
    BAD.clear()
    define_wd_family()
    define_fc5()
    define_fc4()
    define_legacy()
    define_retail()
    define_invalid_codes()
    define_opaque()
    define_motion()
    define_bad()
    out = Path(out)
    written = {}
    rows = []
    for variant, name, fn in GOOD:
        rng = seeded_rng(variant, name)
        data, doc = fn(rng)
        data = bytes(data)
        doc = json.loads(dumps(doc))                   # compare exactly what is written
        verify_good(data, doc)
        rel = "%s/%s" % (variant, name)
        written[rel + ".mab"] = data
        written[rel + ".expected.json"] = (dumps(doc) + "\n").encode()
        rows.append((rel + ".mab", len(data), doc["description"]))
    for name, fn in BAD:
        rng = seeded_rng("bad", name)
        data, doc = fn(rng)
        data = bytes(data)
        doc["file_size"] = len(data)
        rel = "bad/" + name
        # ".bad", not ".mab": `mab verify corpus/` looks for *.mab and must see only good files.
        written[rel + ".bad"] = data
        written[rel + ".expected.json"] = (dumps(doc) + "\n").encode()
        rows.append((rel + ".bad", len(data), "%s/%s at 0x%X (%s): %s" % (
            doc["stage"], doc["error"], doc["offset"], doc["field"], doc["description"])))
    # coverage and size limits
    assert STATS["cflags"] == set(range(64)), sorted(set(range(64)) - STATS["cflags"])
    assert {1, 16} <= STATS["nbits"]
    assert {1, 7, 8, 9, 16, 17} <= STATS["key_counts"]
    assert STATS["overflow_keys"] > 0 and STATS["normal_keys"] > 0
    assert STATS["identity_const"] > 0
    assert STATS["tcflags"] == set(range(8)), sorted(set(range(8)) - STATS["tcflags"])
    for rel, d in written.items():
        assert len(d) <= MAX_FILE, (rel, len(d))
    # The names make_bones hashes, for `mab export --names` (its --help examples use it).
    written["bone_names.txt"] = ("".join(n + "\n" for n in BASE_NAMES)).encode()
    written["README.md"] = readme(rows).encode()
    total = sum(len(d) for d in written.values())
    assert total <= MAX_TOTAL, total
    for rel, d in written.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(d)
    return written


def managed_files(out):
    """Files in out that this generator owns (README, variant folders, bad)."""
    out = Path(out)
    found = set()
    for name in ("README.md", "bone_names.txt"):
        if (out / name).exists():
            found.add(name)
    for sub in VARIANTS + ["bad"]:
        d = out / sub
        if d.is_dir():
            for p in d.iterdir():
                if p.is_file() and not p.name.startswith("."):
                    found.add("%s/%s" % (sub, p.name))
    return found


def describe_diff(rel, a, b):
    if rel.endswith(".json"):
        try:
            ja, jb = json.loads(a), json.loads(b)
        except ValueError:
            return "invalid JSON"
        paths = []

        def walk(x, y, path):
            if len(paths) >= 5:
                return
            if type(x) != type(y):
                paths.append(path or "/")
            elif isinstance(x, dict):
                for k in sorted(set(x) | set(y)):
                    if k not in x or k not in y:
                        paths.append("%s/%s" % (path, k))
                    else:
                        walk(x[k], y[k], "%s/%s" % (path, k))
            elif isinstance(x, list):
                if len(x) != len(y):
                    paths.append("%s (length %d vs %d)" % (path, len(x), len(y)))
                for i, (p, q) in enumerate(zip(x, y)):
                    walk(p, q, "%s[%d]" % (path, i))
            elif x != y:
                paths.append("%s: %r vs %r" % (path, x, y))
        walk(ja, jb, "")
        return "JSON differs at " + "; ".join(paths) if paths else "JSON formatting differs"
    if len(a) != len(b):
        return "size %d (committed) vs %d (regenerated)" % (len(a), len(b))
    first = next(i for i in range(len(a)) if a[i] != b[i])
    return "first differing byte at 0x%X" % first


def check(out):
    out = Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        written = generate(tmp)
        fresh = set(written)
        have = managed_files(out)
        problems = []
        for rel in sorted(fresh - have):
            problems.append("missing: %s" % rel)
        for rel in sorted(have - fresh):
            problems.append("unexpected: %s" % rel)
        for rel in sorted(fresh & have):
            if not filecmp.cmp(str(Path(tmp) / rel), str(out / rel), shallow=False):
                problems.append("differs: %s: %s" % (rel, describe_diff(
                    rel, (out / rel).read_bytes(), (Path(tmp) / rel).read_bytes())))
    for p in problems:
        print(p)
    if problems:
        print("check: %d difference(s) between %s and a fresh generation" % (len(problems), out))
        return 1
    print("check: %s matches a fresh generation (%d files)" % (out, len(fresh)))
    return 0


# ---------------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------------
README_HEAD = """# Synthetic `.mab` test corpus

**Every file in this folder is SYNTHETIC.** None of it is real game data, none of it was
extracted from, derived from or compared with a Ubisoft file, and no real `.mab` was
available when it was made. The files only follow this project's reading of the format in
`shared/spec/mab-format.md` (the "spec") and `shared/spec/decisions.md`, so they test that
the code implements *that reading*; they say nothing about whether the reading matches the
games.

## How the files were made

`scripts/gen_corpus.py` (Python 3, standard library only) assembles each file field by field
from the spec: the 16-byte outer header (spec 3), the 'aNi' CAnimData headers of WD1
(spec 4.2), WDL/WD2 (spec 4.1, decision D4) and FC5 (spec 4.3, several blocks per file), the
FC4 container (spec 4.4, layout unverified), the legacy FC2 clip body and its FC3 variant
(spec 13, the FC3 layout is a guess), bone tables with zlib CRC-32 name hashes (spec 5.1, D11)
and flag bytes (spec 5.3), section tables and extents (spec 8.3), 6-byte constant quaternions
(spec 9.1) and the chunked JointRotations bitstream (spec 9.2, D1, D2, D6). Blood Dragon
(`fc3bd`) and Primal files are a valid header followed by random bytes: their bodies are
opaque.

Rotation bitstreams are built from random *codes* (random cflags, with all 64 values
present in `wd1/cflags_all_64`; random constants; random 16-bit headers; random raw values), and
the expected quaternions are computed from those codes with the decoder formulas of spec 9.2
and decisions D1/D2 (both the `s <= 1` and the `s > 1` renormalising branch occur). Codes
whose sum of squares lies within 1e-3 of 1 are avoided so that float and double readers
take the same branch. Before writing, the script re-reads every good file from its bytes
with its own reader and compares the result with the JSON.

Each file has a fixed seed derived from its variant and name, so the output is identical on
every run.

    python3 scripts/gen_corpus.py            # regenerate this folder
    python3 scripts/gen_corpus.py --check    # regenerate into a temp dir, compare byte for byte

`--check` prints every difference (missing, unexpected or changed files; for JSON, the first
differing paths) and exits 1 if there is any. This README is generated too.

## Layout

* `<variant>/<name>.mab` + `<variant>/<name>.expected.json`: well-formed files. Variants:
  `fc2`, `fc3`, `fc3bd`, `fc4`, `primal`, `fc5`, `wd1`, `wd2`, `wdl`.
* `bad/<name>.bad` + `bad/<name>.expected.json`: malformed files (named `.bad` so that
  `mab verify corpus/`, which looks for `*.mab`, sees only good files), each with exactly one
  defect, and the error a reader must report:
  `{"stage": "parse"|"validate", "error": CODE, "field": NAME, "offset": FILE_OFFSET, ...}`
  (plus `synthetic`, `variant`, `file_size` and a `description`). Each bad file is a
  well-formed generated file with one field patched, one section shortened or the file cut.
* `bone_names.txt`: the bone names the generator hashes into the bone tables (CRC-32, D11),
  one per line, for `mab export --names` (the examples of `mab export --help` use it).
* `external/`: not generated and not synthetic: two glTF 2.0 sample rigs from the Khronos
  glTF-Sample-Models repository (CC BY 4.0, Cesium), unmodified, for the glTF import tests;
  their origin, licence and checks are in `external/README.md`.

### expected.json of a good file

* top level: `synthetic` (always true), `variant`, `magic`, `file_size`, `layout`
  (`ani`, `fc4`, `legacy`, `opaque`), `layout_unverified`, `description`, `header`
  (`checksum` = u32 at +4, `bytes_8_16` in hex, `fc2_minor` = u16 at +2 for FC2), `blocks`.
* an 'aNi' / FC4 block: `base` (file offset), `bone_count`, `bone_count_field` (raw u16),
  `signature`, `flags` (byte after `aNi`), `animation_data_size`, `duration` (exactly the
  stored f32), `frame_rate` (null where the layout has none), `data_counts`, `last_frame`
  (null for FC4/FC5), `key_time_rate` (120 ticks/s for WD1, 30 otherwise), `bones`
  (`name`, `hash` = zlib crc32 of the name, `flags`), `sections` (every non-zero slot with
  `offset` relative to the base, `file_offset`, and `size` = extent by the spec 8.3 rule),
  `key_count`, `key_times`, `constant_rotations` (bone index -> x, y, z, w),
  `rotations` (bone index -> one x, y, z, w per stored key), `chunk_cflags` (bone index ->
  the 6-bit cflags of each chunk, for debugging). FC5 blocks add `key_times_file_offset`;
  FC4 adds `hash_table` / `flag_table` (which count as extent anchors) and the two unknown
  header words. WD blocks add `skeleton_bone_crc` (and `skeleton_path_id` for WDL/WD2/FC5).
* decoded components are rounded to 7 decimals; compare with a tolerance of about 1e-5
  (the engine constants are single precision).
* a legacy block (one per chained clip, in chain order): `base`, `signature`, `duration`,
  `masks`, `trajectory_orientation`, `loop_rotation`, `pointer_slot`, `offsets` (the 9 raw
  slots), `array_headers` (count/lastFrame/fps of the array sections), `sections`,
  `chained_clip_base`. Section contents are plausible but are not decoded here.
* an opaque file has `blocks: []`.
* `motion` (only in the files built for issue 16, listed last below): what a reader of the
  hypothesis rules of `docs/motion.md` must find in an 'aNi' block besides rotations.
  `evidence` maps `translations`, `constant_translations`, `root_rotations`,
  `root_translations` and `parts` to `absent`, `decoded` (spec 10.1's single-bone reading),
  `hypothesis N` or `opaque`; then, where accepted, `translation_table` (`[bone, n,
  scale_code]` per entry, in stream order), `translations` (bone index -> one `[x, y, z]` per
  key, in file units), `constant_translations` (bone index -> `[x, y, z]`),
  `root_rotations` (one `[x, y, z, w]` per key), `root_translations` (one `[x, y, z]` per
  key) and `parts` (`start`, `end` in seconds, `parent` and `attachment` CRC-32s, `type`,
  `nested_block`: the index of the block its nested offset lands on, or null). Translations
  are built like rotations, from random codes (all 8 values of the 3 constant flags occur),
  and compared with a tolerance relative to the bone's scale. Before writing, the script
  applies the documented rules itself, so the hypotheses before the expected one fail on the
  bytes and no later one fits them with other bones.

### Conventions the generator relies on (beyond the spec text)

* KeyTimes: WD1 ticks at 120/s (mostly multiples of 4, i.e. 30 fps frames; `bit15_k7` uses
  off-grid ticks), frames at 30/s elsewhere; `duration` = last key time / rate (so a
  single-key clip has duration 0).
* Key count: WD1/WDL/WD2 `m_lastFrame + 1`. FC5: (first section offset - end of the flag
  array) / 2, or up to the block end when the block has no section; FC4: KeyTimes extent
  / 2. Therefore FC4 and FC5 files never have padding directly after KeyTimes.
* FC5 extra blocks start on a 16-byte boundary; the zero padding before a block is the tail
  of the previous block's last section (every non-final block has one).
  `animation_data_size` is file size - 16 for block 0 and the block's own extent for the
  others.
* FC4 with no bones: both table offsets point at the end of the file (empty tables).
* Constant bones use flag 0x30, animated bones 0x10 | (nbits - 1), others 0x00; only
  `m_dataCounts[2]` and `[4]` are non-zero.
* Opaque sections (random bytes) sit in slots the decoders do not interpret (WD 9, 10, 11;
  FC5 9, 10; FC4 5, 7; legacy 6, 7). In `wdl/long_k60_alias` slots 9 and 10 hold the same
  offset and share one extent.
* Legacy: every section and every chained clip starts on a 16-byte boundary and every clip
  ends padded to 16; a chained clip is the last section of its parent, so each clip's
  extent runs to the end of the file. Keyframed-rotation group offsets are relative to the
  section start (a guess; not checked by any expectation).

## Files

| File | Bytes | What it exercises |
|---|---:|---|
"""


def readme(rows):
    lines = [README_HEAD.rstrip("\n")]
    for rel, size, desc in rows:
        lines.append("| `%s` | %d | %s |" % (rel, size, desc.replace("|", "\\|")))
    nfiles = len(rows)
    total = sum(r[1] for r in rows)
    lines.append("")
    lines.append("%d `.mab` files, %d bytes in total (each has an `.expected.json` beside it)." %
                 (nfiles, total))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(REPO / "corpus"), help="output folder (default: <repo>/corpus)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temp dir and compare with --out; exit 1 on any difference")
    args = ap.parse_args(argv)
    if args.check:
        return check(args.out)
    out = Path(args.out)
    stale = managed_files(out)
    written = generate(out)
    for rel in sorted(stale - set(written)):
        if rel.endswith(".mab") or rel.endswith(".expected.json"):
            (out / rel).unlink()
            print("removed stale %s" % rel)
    nmab = sum(1 for r in written if r.endswith(".mab"))
    total = sum(len(d) for d in written.values())
    print("wrote %d .mab files (+ expected.json, README.md) to %s, %d bytes" % (nmab, out, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())

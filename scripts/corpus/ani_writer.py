"""The writer of 'aNi' files (WD1, WDL, WD2, FC5) and of FC4: random rotation codes packed into
the JointRotations bitstream (format 9.2), bones and key times, and the containers that place a
clip's sections (format 4, 8). Each builder returns the bytes and what a correct reader must report
(the expected JSON of the block), computed from the codes drawn, never by reading the bytes back."""

import math
import struct
import zlib

from .base import STATS, align, f32, qround
from .bits import BitWriter
from .spec import (FC_MAGIC, IDENTITY_Q6, LAYOUT, UNVERIFIED, WD_MAGIC, const_value, decode_q6, encode_q6,
                   extents, reconstruct, section_list, varying_values)

# ---------------------------------------------------------------------------------
# rotation codes and the JointRotations bitstream, format 9.1, 9.2
# ---------------------------------------------------------------------------------
def random_unit_quat(rng):
    """Uniform on the 3-sphere by rejection from the unit 4-ball (arithmetic + sqrt only)."""
    while True:
        q = [rng.uniform(-1.0, 1.0) for _ in range(4)]
        n2 = sum(c * c for c in q)
        if 1e-4 < n2 <= 1.0:
            n = math.sqrt(n2)
            return [c / n for c in q]


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


def clip_from(rng, kinds, K, unit=1, rate=30.0, key_mode="linear", names=None, cflag_fn=None):
    """A Clip of bones of these kinds (a list, or a function of the rng drawing one)."""
    bones = make_bones(rng, kinds(rng) if callable(kinds) else kinds, names)
    return Clip(rng, bones, K, unit, rate, key_mode, cflag_fn)


def wd_clip_file(rng, variant, kinds, K, key_mode="linear", names=None, cflag_fn=None, opaque_fn=None,
                 overrides_fn=None, **kw):
    """A WD1/WDL/WD2 file of one clip: opaque_fn(rng) draws opaque sections after the clip,
    overrides_fn(clip) replaces sections (bad files). Returns (bytes, block json, info, clip)."""
    unit, rate = wd_unit(variant)
    clip = clip_from(rng, kinds, K, unit, rate, key_mode, names, cflag_fn)
    if opaque_fn:
        kw["opaque"] = opaque_fn(rng)
    if overrides_fn:
        kw["overrides"] = overrides_fn(clip)
    data, bj, info = build_wd(variant, rng, clip, **kw)
    return data, bj, info, clip


# ---------------------------------------------------------------------------------
# section placement and the outer header
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


def top_json(variant, data, hdr_info, description, blocks):
    hdr, checksum, tail = hdr_info
    magic = WD_MAGIC.get(variant, FC_MAGIC.get(variant))
    return {"synthetic": True, "variant": variant, "magic": magic, "file_size": len(data),
            "layout": LAYOUT[variant], "layout_unverified": variant in UNVERIFIED,
            "description": description, "header": header_json(variant, hdr, checksum, tail),
            "blocks": blocks}


def wd_unit(variant):
    return (4, 120.0) if variant == "wd1" else (1, 30.0)


def section_items(clip, slots, opaque, overrides, order):
    """A block's sections in file order, [(slot, bytes)]: KeyTimes, constant and animated rotations
    in slots = (keytimes or None, const, rot), the latter two only when the clip has such bones,
    then opaque sections added and overrides replacing; order defaults to ascending slots."""
    content = {}
    if slots[0] is not None:
        content[slots[0]] = clip.keytimes_bytes
    if clip.n_const:
        content[slots[1]] = clip.const_bytes
    if clip.n_anim:
        content[slots[2]] = clip.rot_bytes
    content.update(opaque or {})
    content.update(overrides or {})
    if order is None:
        order = sorted(content)
    assert sorted(order) == sorted(content), (order, sorted(content))
    return [(s, content[s]) for s in order]


# ---------------------------------------------------------------------------------
# WD1 / WDL / WD2 ('aNi', single block, base 0x10)
# ---------------------------------------------------------------------------------
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
    items = section_items(clip, (0, 4, 6), opaque, overrides, order)
    tables_end = hdr_size + 5 * n
    body, offs, end_rel = place_sections(tables_end, B, items, align16)
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


# ---------------------------------------------------------------------------------
# FC5 ('aNi', one or more blocks, bone tables at base+0x68, KeyTimes after the flags)
# ---------------------------------------------------------------------------------
def build_fc5_block(rng, clip, order=None, align16=False, opaque=None, ani_flags=3, overrides=None,
                    counts_extra=None):
    """Block bytes relative to its own (16-aligned) base; animationDataSize patched later."""
    n = len(clip.bones)
    items = section_items(clip, (None, 3, 5), opaque, overrides, order)
    kt_start = 0x68 + 5 * n
    sec_start = kt_start + len(clip.keytimes_bytes)
    # KeyTimes run directly into the first section: no padding before the first one.
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
# FC4 (format 4.4, layout unverified): base 0x18, u16 section offsets, tables at the end
# ---------------------------------------------------------------------------------
def build_fc4(rng, clip, order=None, align16=False, opaque=None, ani_flags=3, overrides=None):
    B = 0x18
    n = len(clip.bones)
    hdr, checksum, tail = outer_header(rng, "fc4")
    items = section_items(clip, (2, 0, 4), opaque, overrides, order)
    body_start = 0x54 - B
    # No padding directly after KeyTimes: FC4 has no key count field, so the KeyTimes
    # extent must be exactly 2*K bytes.
    body, offs, end_rel = place_sections(body_start, B, items, align16, no_pad_after=(2,))
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

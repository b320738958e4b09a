"""The writer of Far Cry 2/3 files (format 13; the FC3 layout is a guess): chains of 'AnD' clips as
format 13 lays them out, and banks in the layout JB-DOC describes for retail FC2 files (farcry-sdk
mab.md and its writer): sections in the order 1, 0, 2, 3, 4, 5, 6, 7, 8; trajectory headers count
one track; constant sections store lastFrame 0 and rate 0; the keyed group table ends with where
the last group ends; a 16-byte zero block separates the last track section from the events or the
chained clip; the last clip points slot 8 at its own end; the first clip's tag table (u32 count,
172-byte records) points each record at a chained clip, relative to the record. Event chain nodes
(format 11): f32 time, u32 type, u16 size, u16 next, payload; here size = payload bytes and next =
bytes from this node to the next, 0 at the end (our reading of JB-DOC, a [guess]), payloads
zero-padded to 4 bytes."""

import struct
import zlib

from .ani_writer import opaque_bytes, outer_header, place_sections, random_unit_quat
from .base import f32, popcount
from .spec import MASK_NAMES, TAG_RECORD, TAG_SLOT_NAMES, encode_q6, extents, legacy_dims, section_list

def random_mask(rng, nw, bits):
    words = [0] * nw
    for b in rng.sample(range(32 * nw), bits):
        words[b // 32] |= 1 << (b % 32)
    return words


def legacy_array_header(count, last, variant="fc2"):
    # Format 13: FC2 `u16 count, u16 lastFrame, u16 fps, u16 0`; FC3 replaces the last two with
    # an f32 frame rate (the format reference's reconciliation of BUU's "magic float", a [guess]).
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


def clip_head(masks, traj, loop, duration, offsets):
    """Format 13: the four bone masks, trajectory orientation, loop rotation, 'AnD\\x1a', duration,
    the nine section offsets and the pointer slot (0)."""
    head = b"".join(struct.pack("<%dI" % len(m), *m) for m in masks)
    head += struct.pack("<4f", *traj) + struct.pack("<4f", *loop)
    return head + b"AnD\x1a" + struct.pack("<f9iI", duration, *[offsets[s] for s in range(9)], 0)


def chained_blocks(child, at):
    """The block json of a chained clip (and those it chains), rebased to where it is placed."""
    out = []
    for cb in (child[1] if child is not None else []):
        cb = dict(cb)
        cb["base"] += at
        out.append(cb)
    return out


def build_chain(variant, rng, specs, fc2_minor, build_clip):
    """The outer header, then the clips of specs (first = outermost) built inside out by
    build_clip(variant, rng, spec, child); each block json gets its file base, sections and
    chained clip. Returns (bytes, blocks, header info)."""
    hdr, checksum, tail = outer_header(rng, variant, fc2_minor)
    child = None
    for spec in reversed(specs):
        child = build_clip(variant, rng, spec, child)
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
    return data, blocks, (hdr, checksum, tail)


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
    head = clip_head(masks, traj, loop, duration, offsets)
    assert len(head) == data_off
    data = head + body
    bj = {"base": 0, "signature": "AnD\x1a", "duration": duration,
          "masks": {MASK_NAMES[i]: masks[i] for i in range(4)},
          "trajectory_orientation": traj, "loop_rotation": loop, "pointer_slot": 0,
          "offsets": [offsets[s] for s in range(9)],
          "array_headers": {str(s): {"count": c, "last_frame": last, "fps": 30}
                            for s, c in sorted(arrays.items())},
          "_offsets": offsets}
    if 6 in spec["slots"]:
        # Random bytes in the tag table's place: no table of 172-byte records reads from them,
        # which `mab verify` warns about (format 13.5).
        bj["tag_table_undecodable"] = True
    blocks = [bj] + chained_blocks(child, offsets[8])
    return data, blocks


def build_legacy(variant, rng, specs, fc2_minor=1):
    """specs: list of clip specs, first = outermost. Builds the chain inside out."""
    return build_chain(variant, rng, specs, fc2_minor, build_legacy_clip)


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
    head = clip_head(masks, traj, loop, duration, offsets)
    data = bytearray(head + body)
    bj = {"base": 0, "signature": "AnD\x1a", "duration": duration,
          "masks": {MASK_NAMES[i]: masks[i] for i in range(4)},
          "trajectory_orientation": traj, "loop_rotation": loop, "pointer_slot": 0,
          "offsets": [offsets[s] for s in range(9)],
          "array_headers": {str(s): {"count": c, "last_frame": lf, "fps": r}
                            for s, (c, lf, r) in sorted(heads.items())},
          "tracks": tracks, "_offsets": offsets}
    blocks = [bj] + chained_blocks(child, offsets[8])
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
    data, blocks, hdr = build_chain(variant, rng, specs, fc2_minor, build_retail_clip)
    for bj in blocks:
        for r in bj.get("tag_table", {}).get("records", []):
            r["clip_base"] = blocks[r["clip_block"]]["base"]
    return data, blocks, hdr


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

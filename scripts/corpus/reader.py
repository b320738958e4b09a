"""The oracle: an independent re-read of every good file from its bytes (headers, bone tables,
section extents, key times, the rotation bitstream with its own bit reader, legacy clips and the
retail banks' tags, events and tracks), compared with the expected JSON the writers computed from
the codes they drew. A packing or placement mistake in a writer fails the run."""

import struct
import zlib

from .base import f32, qround, u
from .bits import BitReader, read_components
from .motion_reader import verify_motion
from .spec import (FC_MAGIC, MASK_NAMES, TAG_RECORD, WD_MAGIC, decode_q6, extents, legacy_dims,
                   reconstruct, section_list)

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
            comps = read_components(br, cf, F, n)
            for f in range(F):
                q, _ = reconstruct([comps[0][f], comps[1][f], comps[2][f]], (cf >> 4) & 3,
                                   (signs >> f) & 1)
                out[b].append(q)
        assert (br.pos + 7) // 8 == len(chunk), "chunk does not end at its byte boundary"
    return out


def verify_ani_block(data, bj, variant, block_end):
    B = bj["base"]
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

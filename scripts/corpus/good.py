"""The good files: each a (variant, name, builder) whose builder draws from the file's own seeded
rng and returns the bytes and the expected JSON. Listed by family, in the order of corpus/README.md."""

import struct

from .ani_writer import (build_fc4, build_fc5, build_wd, clip_from, opaque_bytes, outer_header, random_kinds,
                         top_json, wd_clip_file, wd_unit)
from .legacy_writer import build_legacy, build_retail_bank, retail_events, retail_tags
from .motion_writer import Motion, finish_motion_json
from .spec import FC_MAGIC

GOOD = []      # (variant, name, builder)


def good_cases():
    """Every good file, in order."""
    GOOD.clear()
    for define in (define_wd_family, define_fc5, define_fc4, define_legacy, define_retail, define_invalid_codes,
                   define_opaque, define_motion):
        define()
    return list(GOOD)


def all_cflags_fn(c, pos):
    """8 bones x 8 chunks = every 6-bit cflags value exactly once."""
    return (c * 8 + pos) % 64


def make_wd_file(variant, name, desc, kinds, K, **kw):
    def build(rng):
        data, bj, info, _ = wd_clip_file(rng, variant, kinds, K, **kw)
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


def fc5_file(name, desc, block_specs, motion=False):
    """An FC5 file of one block per spec (kinds, K, key_mode, names, order, align16, ani_flags,
    opaque_fn); with motion, each block also gets a Motion (spec "motion") and its expected
    evidence (spec "expect")."""
    def build(rng):
        blocks, motions = [], []
        for spec in block_specs:
            clip = clip_from(rng, spec["kinds"], spec["K"], key_mode=spec.get("key_mode", "linear"),
                             names=spec.get("names"))
            kw = {"clip": clip}
            if motion:
                m = Motion(rng, clip, "fc5", **spec.get("motion", {}))
                kw.update(opaque=m.opaque(), counts_extra=m.counts)
                motions.append((m, clip, spec.get("expect", {})))
            for k in ("order", "align16", "ani_flags"):
                if k in spec:
                    kw[k] = spec[k]
            if "opaque_fn" in spec:
                kw["opaque"] = spec["opaque_fn"](rng)
            blocks.append(kw)
        data, bjs, hdr, infos = build_fc5(rng, blocks)
        bases = [bj["base"] for bj in bjs]
        for (m, clip, expect), bj, info in zip(motions, bjs, infos):
            slot = m.slots["parts"]
            if info["offsets"].get(slot):
                m.patch_nested(data, info["B"] + info["offsets"][slot], bases)
            bj["motion"] = finish_motion_json(m, clip, expect)
        return data, top_json("fc5", data, hdr, desc, bjs)
    GOOD.append(("fc5", name, build))


def define_fc5():
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

    def fc4_file(name, desc, kinds, K, key_mode="linear", opaque_fn=None, **kw):
        def build(rng):
            clip = clip_from(rng, kinds, K, key_mode=key_mode)
            opaque = {"opaque": opaque_fn(rng)} if opaque_fn else {}
            data, bj, hdr, _ = build_fc4(rng, clip, **kw, **opaque)
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


def retail_file(variant, name, desc, specs, fc2_minor=3, spoil=None, layout=None):
    """A bank in the retail layout; clip 0 gets the tags and events when it has slot 6. spoil(data,
    blocks) damages the built file and its expectation; layout overrides the variant's."""
    def build(rng):
        specs_now = [dict(sp) for sp in specs]
        if 6 in specs_now[0]["slots"]:
            specs_now[0]["tags"] = retail_tags(rng)
            specs_now[0]["events"] = retail_events(rng)
        data, blocks, hdr = build_retail_bank(variant, rng, specs_now, fc2_minor)
        if spoil is not None:
            spoil(data, blocks)
        doc = top_json(variant, data, hdr, desc, blocks)
        if layout is not None:
            doc["layout"] = layout
        return data, doc
    GOOD.append((variant, name, build))


def define_retail():
    for v in ("fc2", "fc3"):
        guess = "" if v == "fc2" else " (FC3: the FC2 retail layout with 9-word masks, a GUESS)"
        retail_file(v, "retail_bank", "%s bank in the layout JB-DOC gives for retail files: sections 1, 0, 2, "
                    "3, 4, 5, 6, 7, 8; trajectory count 1; constant sections with lastFrame 0 and rate 0; keyed "
                    "group table with its end entry; 16-byte separators; a tag table in clip 0 whose two "
                    "172-byte records point at clips 1 and 2; an event chain of three nodes; clip 2 (constant "
                    "sections only) points slot 8 at its own end%s." % (v.upper(), guess),
                    [{"slots": [1, 0, 2, 3, 4, 5, 6, 7], "last": 20, "bits": (6, 3, 1, 2)},
                     {"slots": [2, 3, 5], "last": 12, "bits": (2, 2, 0, 1)},
                     {"slots": [2, 4], "last": 0, "bits": (3, 0, 2, 0)}])
    # Blood Dragon (0x62): only listed by BUU (format 2); mabkit tries the FC3 reading on it. These
    # files are that reading's layout; the opaque_* files are bodies it must keep opaque.
    def bd(name, desc, specs, spoil=None):
        retail_file("fc3bd", name, desc, specs, 1, spoil, layout="legacy")

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
    retail_file("fc2", "tags_first", "FC2 bank whose first clip stores its tag table (two records, for clips 1 "
                "and 2) and event chain before its track sections (order 6, 7, 1, 0, 2, 3, 8), otherwise in the "
                "retail layout of fc2/retail_bank.",
                [{"slots": [6, 7, 1, 0, 2, 3], "last": 9, "bits": (2, 2, 0, 0)},
                 {"slots": [2, 3], "last": 9, "bits": (1, 1, 0, 0)},
                 {"slots": [3], "last": 4, "bits": (0, 1, 0, 0)}], 2)


# Decision 20: a 6-byte code with no valid quaternion, 1 - a^2 - b^2 - c^2 < 0 (format 9.1: the
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

    retail_file("fc2", "invalid_quaternion",
                "FC2 clip in the retail layout holding two 6-byte codes with no valid quaternion (1 - a^2 - "
                "b^2 - c^2 < 0, format 9.1; public FC2 readers reject them): a constant rotation and a keyed "
                "key. The file reads, round-trips and decodes (docs/legacy.md, 'Codes with no valid "
                "quaternion'); verify warns.",
                [{"slots": [1, 0, 2, 3], "last": 12, "bits": (2, 2, 0, 0)}], 3, spoil)


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


def define_motion():
    def wd_motion_file(variant, name, desc, kinds, K, motion_kw, expect, key_mode="linear", **kw):
        def build(rng):
            clip = clip_from(rng, kinds, K, *wd_unit(variant), key_mode)
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

    fc5_file(
        "root_translation_block",
        "FC5, 2 blocks: a main block (5 bones, K=20) and a single-bone 'Root' block (flags 0x0F, K=20) "
        "with a one-entry TranslationTable (slot 0) and JointTranslations (slot 6): format 10.1's "
        "public decoder case, 'decoded'.",
        [{"kinds": ["a16", "c", "a4", "n", "a10"], "K": 20, "ani_flags": 3},
         {"kinds": ["a12"], "names": ["Root"], "K": 20, "ani_flags": 0x0F,
          "motion": {"translated": [0], "tbits": [16]}, "expect": {"translations": "decoded"}}], motion=True)
    fc5_file(
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
          "motion": {"translated": [0], "tbits": [14]}, "expect": {"translations": "decoded"}}], motion=True)

"""The bad files: each a well-formed generated file with exactly one defect (a field patched, a
section shortened or the file cut), and the error a reader must report, as one table.

A row names the file, its variant, how the good file is built (`base`), the patches applied in
order, the expected error (stage, code, field, file offset) and a description. An offset, a
patched value or a patch position may depend on the file: it is then a function of the built
file (`Built`: its bytes, the builder's info and the clip)."""

import struct
from collections import namedtuple

from .ani_writer import build_fc4, build_fc5, clip_from, opaque_bytes, wd_clip_file
from .legacy_writer import build_legacy

Built = namedtuple("Built", "data info clip")
Bad = namedtuple("Bad", "name variant base patches stage error field offset description")


# ---- how the good file is built (each returns a function of the rng giving a Built) ----
def raw(fn):
    return lambda rng: Built(bytearray(fn(rng)), None, None)


def wd(variant, kinds, K, **kw):
    def build(rng):
        data, _, info, clip = wd_clip_file(rng, variant, kinds, K, **kw)
        return Built(data, info, clip)
    return build


def fc5(kinds, K):
    def build(rng):
        clip = clip_from(rng, kinds, K)
        data, _, _, infos = build_fc5(rng, [{"clip": clip}])
        return Built(data, infos[0], clip)
    return build


def fc4(kinds, K):
    def build(rng):
        clip = clip_from(rng, kinds, K)
        data, _, _, info = build_fc4(rng, clip)
        return Built(data, info, clip)
    return build


def legacy(variant, specs):
    def build(rng):
        data, _, _ = build_legacy(variant, rng, specs)
        return Built(data, None, None)
    return build


# ---- patches: functions of a Built returning the new bytes ----
def value(v, built):
    return v(built) if callable(v) else v


def put(fmt, at, v):
    """struct.pack_into(fmt) at `at`; `at` and `v` may be functions of the Built."""
    def patch(b):
        struct.pack_into(fmt, b.data, value(at, b), value(v, b))
        return b.data
    return patch


def overwrite(at, raw_bytes):
    def patch(b):
        b.data[at:at + len(raw_bytes)] = raw_bytes
        return b.data
    return patch


def cut(size):
    return lambda b: b.data[:size]


def section_start(slot):
    """The file offset of a section of the built file."""
    return lambda b: b.info["B"] + b.info["offsets"][slot]


def past_end(delta, minus=16):
    """A size or offset field pointing `delta` bytes past the end (`minus`: its origin)."""
    return lambda b: len(b.data) - minus + delta


def extent_is(slot, n):
    """No patch: asserts the builder gave the section the shortened extent the case needs."""
    def check(b):
        assert b.info["sizes"][slot] == n, (slot, b.info["sizes"][slot], n)
        return b.data
    return check


def last_chunk_entry(slot):
    """The file offset of the last entry of a rotation section's chunk table."""
    return lambda b: section_start(slot)(b) + 4 * ((b.clip.K + 7) // 8)


CASES = [
    Bad("empty", None, raw(lambda rng: b""), [],
        "parse", "truncated", "magic", 0, "0-byte file: not even the magic can be read."),
    Bad("unknown_magic", None,
        raw(lambda rng: struct.pack("<I", 0x12345678) + bytes(rng.getrandbits(8) for _ in range(60))), [],
        "parse", "unsupported_version", "magic", 0, "u32 magic 0x12345678 (byte 0 = 0x78) matches no variant."),
    Bad("wd1_offset_past_end", "wd1", wd("wd1", ["a5", "c"], 9), [put("<I", 0x48, past_end(8))],
        "parse", "out_of_bounds", "m_offsets[6]", 0x48,
        "WD1 m_offsets[6] (JointRotations) = file size - 16 + 8, past the end."),
    Bad("wdl_offset_past_end", "wdl", wd("wdl", ["a5", "c"], 9), [put("<I", 0x60, past_end(1))],
        "parse", "out_of_bounds", "m_offsets[6]", 0x60,
        "WDL m_offsets[6] (JointRotations) = file size - 16 + 1, past the end."),
    Bad("wd1_offset_into_header", "wd1", wd("wd1", ["c", "a4", "c"], 8), [put("<I", 0x40, 8)],
        "parse", "bad_offset", "m_offsets[4]", 0x40,
        "WD1 m_offsets[4] (JointConstantRotations) = 8: points inside the CAnimData header."),
    Bad("wd1_bones_65535", "wd1", wd("wd1", ["a5", "c"], 8), [put("<H", 0x20, 0xFFFF)],
        "parse", "limit_exceeded", "m_nbBonesInAnim", 0x20,
        "WD1 m_nbBonesInAnim = 0xFFFF: count 32767 (low 15 bits) exceeds the limit 4095."),
    Bad("wdl_bones_0xffff", "wdl", wd("wdl", ["a5", "c"], 8), [put("<H", 0x30, 0xFFFF)],
        "parse", "truncated", "bone_hashes", 0x80,
        "WDL m_nbBonesInAnim = 0xFFFF: count 4095 (low 12 bits); the bone tables (4095 x 5 bytes from "
        "0x80) do not fit in the file."),
    Bad("wd1_bad_signature", "wd1", wd("wd1", ["a5", "c"], 8), [overwrite(0x14, b"aNx")],
        "parse", "bad_signature", "signature", 0x14, "WD1 signature 'aNx' instead of 'aNi'."),
    Bad("wdl_truncated_header", "wdl", wd("wdl", ["a5", "c"], 8), [cut(42)],
        "parse", "truncated", "m_duration", 0x28,
        "WDL file cut to 42 bytes: m_duration (0x28..0x2C) is incomplete."),
    Bad("fc2_bad_tag", "fc2", legacy("fc2", [{"slots": [2], "last": 5, "bits": (3, 0, 0, 0)}]),
        [overwrite(0x80, b"AnX\x1a")],
        "parse", "bad_signature", "tag", 0x80,
        "FC2 clip tag 'AnX\\x1a' instead of 'AnD\\x1a' at clip base + 0x70."),
    Bad("wd1_overlap_const", "wd1",
        wd("wd1", ["c", "a6", "c", "c"], 9, order=[0, 4, 6], overrides_fn=lambda clip: {4: clip.const_bytes[:12]}),
        [extent_is(4, 12)],
        "validate", "overlap", "m_offsets[4]", section_start(4),
        "WD1 with 3 constant bones (flags and m_dataCounts[2] agree) but the JointConstantRotations "
        "extent is 12 bytes (18 needed): the next section starts 12 bytes later."),
    Bad("wd1_keytimes_overlap", "wd1",
        wd("wd1", ["a6", "c"], 40, order=[0, 4, 6], overrides_fn=lambda clip: {0: clip.keytimes_bytes[:20]}),
        [extent_is(0, 20)],
        "validate", "overlap", "m_offsets[0]", section_start(0),
        "WD1 m_lastFrame = 39 (40 keys, 80 bytes) but the KeyTimes extent is 20 bytes."),
    Bad("wdl_rotations_overlap", "wdl",
        wd("wdl", ["a6", "c", "a3"], 17, order=[0, 4, 6, 9], opaque_fn=lambda rng: {9: opaque_bytes(rng, 24, 24)}),
        [put("<I", last_chunk_entry(6), lambda b: b.info["sizes"][6] + 8)],
        "validate", "overlap", "m_offsets[6]", section_start(6),
        "WDL JointRotations chunk table: last entry = section extent + 8, so the last chunk runs into "
        "the following markup section."),
    Bad("wd1_size_mismatch", "wd1", wd("wd1", ["a5", "c"], 8), [put("<I", 0x18, past_end(4))],
        "validate", "size_mismatch", "m_animationDataSize", 0x18,
        "WD1 m_animationDataSize = file size - 12 (should be file size - 16)."),
    Bad("wd1_count_mismatch", "wd1", wd("wd1", ["a5", "c", "a2"], 8), [put("<H", 0x2A, 3)],
        "validate", "count_mismatch", "m_dataCounts[4]", 0x2A,
        "WD1 m_dataCounts[4] = 3 but only 2 bones have flags & 0x30 == 0x10."),
    # ---- extra cases ----
    Bad("wd2_size_mismatch", "wd2", wd("wd2", ["a5", "c"], 9), [put("<I", 0x24, past_end(-2))],
        "validate", "size_mismatch", "m_animationDataSize", 0x24,
        "WD2 m_animationDataSize = file size - 18 (should be file size - 16)."),
    # 20 bones, every offset 0 (KeyTimes' too), the file cut after the hashes and 5 of the 20 flag bytes.
    Bad("wd1_bone_flags_truncated", "wd1", wd("wd1", ["n"] * 20, 1),
        [put("<I", 0x30, 0), cut(0x60 + 4 * 20 + 5), put("<I", 0x18, past_end(0))],
        "parse", "truncated", "bone_flags", 0x60 + 80,
        "WD1 with 20 bones and no sections: the file ends 5 bytes into the 20-byte flag array."),
    Bad("fc5_count_mismatch", "fc5", fc5(["c", "a4", "c"], 9), [put("<H", 0x10 + 0x22 + 4, 1)],
        "validate", "count_mismatch", "m_dataCounts[2]", 0x36,
        "FC5 m_dataCounts[2] = 1 but 2 bones have flags & 0x30 == 0x30."),
    Bad("fc5_offset_past_end", "fc5", fc5(["c", "a4"], 9), [put("<I", 0x10 + 0x38 + 4 * 5, past_end(4))],
        "parse", "out_of_bounds", "m_offsets[5]", 0x5C,
        "FC5 m_offsets[5] (JointRotations) points 4 bytes past the end of the only block."),
    # No "offset into the next FC5 block" file: blocks after the first are found only after
    # everything the previous block points at (format 4.3 gives no block table), so such an offset
    # makes the later 'aNi' part of block 0's data, not an error.
    Bad("fc4_offset_past_end", "fc4", fc4(["c", "a4"], 9), [put("<H", 0x40 + 2 * 4, past_end(2, minus=0x18))],
        "parse", "out_of_bounds", "sectionOffsets[4]", 0x48,
        "FC4 sectionOffsets[4] (JointRotations, relative to 0x18) points 2 bytes past the end of the file."),
]


def build_bad(case, rng):
    """The bytes of a bad file and its expected JSON (without file_size, which the driver adds)."""
    built = case.base(rng)
    for patch in case.patches:
        built = built._replace(data=patch(built))
    doc = {"synthetic": True, "variant": case.variant, "stage": case.stage, "error": case.error,
           "field": case.field, "offset": value(case.offset, built), "description": case.description}
    return built.data, doc

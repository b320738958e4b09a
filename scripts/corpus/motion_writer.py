"""The writer of what an 'aNi' block carries besides rotations (format 10, 12; docs/motion.md):
translations, constant translations, root motion and part entries.

The format reference gives one decoder, for a single-bone translation stream (format 10.1); the rest is
guesswork, which mabkit tries as numbered hypotheses (docs/motion.md). Each corpus file is built
for one hypothesis, and the oracle (motion_reader.py) checks, with its own reading of the
documented rules, that the hypotheses before it fail on the bytes and no later one is ambiguous
with it, so the expected evidence is what a reader of those rules must conclude."""

import struct
import zlib

from .ani_writer import random_header, random_unit_quat
from .base import STATS, f32, qround, rnd, u
from .bits import BitWriter
from .spec import PART_ENTRY, TSCALE, const_value, decode_q6, encode_q6, motion_slots, table_size_for, varying_values

def gen_translation_sections(rng, tbones, K):
    """tbones: [(bone, n, scale_code)] in stream order (format 10.1: 3 constant flags, then per
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
        """Writes each entry's nested offset (measured from the entry, format 12) now that the
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

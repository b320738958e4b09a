"""The oracle's reading of translations, root motion and part entries: the documented rules of
docs/motion.md applied to the bytes, hypothesis by hypothesis, with its own translation-stream
reader. A file's expected evidence must be the first hypothesis that fits, and no later one may
fit other bones."""

import math
import struct

from .base import qround, rnd, u
from .bits import BitReader, read_components
from .spec import (PART_ENTRY, Q6_BIAS, Q6_STEP, TSCALE, decode_q6, motion_slots, padding_ok,
                   table_size_for)

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
            comps = read_components(br, cf, F, n)
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

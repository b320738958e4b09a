"""What the add-on needs of a decoded block, read from `mab export`'s JSON document, and the
edited clip written back into that document for `mab import` (docs/json-format.md).

Kept in one place so the rest of the add-on does not depend on the document's spelling.
Rotations are x y z w float32 (the file's order), translations x y z, in the file's units.
An entry the edit did not change stays in the document as `mab export` wrote it, so an
unedited export sends `mab` its own document back (the template's bytes).
"""
import json

import numpy as np

IDENTITY_XYZW = np.array([0, 0, 0, 1], dtype=np.float32)


def _f32(rows, width):
    """A JSON list of rows -> (N, width) float32; null (a non-finite value JSON cannot hold) -> NaN."""
    if not rows:
        return np.zeros((0, width), dtype=np.float32)
    try:
        return np.array(rows, dtype=np.float32).reshape(-1, width)
    except (TypeError, ValueError):
        return np.array([[np.nan if x is None else x for x in r] for r in rows], dtype=np.float32).reshape(-1, width)


def _rows(a):
    """float32 rows -> JSON lists; NaN -> null (on import: the stored value at that place)."""
    a = np.asarray(a, dtype=np.float32)
    if np.isnan(a).any():
        return [[None if x != x else x for x in r] for r in a.astype(np.float64).tolist()]
    return a.astype(np.float64).tolist()


def _hash(v):
    return int(v, 16) if isinstance(v, str) else int(v)


def _kind(flags):
    bits = flags & 0x30
    return "constant" if bits == 0x30 else "animated" if bits == 0x10 else "none"


class BoneTrack:
    """One bone of a block: kind "none" | "constant" | "animated"."""
    __slots__ = ("index", "hash", "name", "kind", "rotations", "translations", "constant_translation")

    def __init__(self, index, hash_, name, kind, rotations, translations, constant_translation):
        self.index, self.hash, self.name, self.kind = index, hash_, name, kind
        self.rotations = rotations        # (K, 4) (a constant bone: its value on every key), or None for "none"
        self.translations = translations  # (K, 3) animated translation, or None
        self.constant_translation = constant_translation  # (3,) or None


class Clip:
    """The editable side of a block (every game): assign key_times (K), rotations (K, B, 4),
    translations (K, B, 3, NaN for a bone without), constant_translations (B, 3), root_rotations,
    root_translations, duration; to_doc() gives the document `mab import` takes."""

    def __init__(self, doc, raw=None, keys=None):
        self.doc, self.raw = doc, raw  # raw: the document's text as `mab export` wrote it
        keys = keys or {}  # bone index -> its keys when load_doc read them (the document's are then empty)
        self.stripped = set(keys)
        self.changed = None
        clip = doc["clip"]
        motion = doc.get("motion") or {}
        self.key_rate = clip.get("key_rate") or 0.0
        self.duration = clip.get("duration")
        self.key_times = np.asarray(clip["key_times"], dtype=np.int64)
        K = len(self.key_times)
        bones = clip["bones"]
        B = len(bones)
        self.bone_hashes = [_hash(b["hash"]) if "hash" in b else None for b in bones]
        self.kinds = [_kind(int(b["flags"])) for b in bones]
        self.bone_names = [b.get("name") for b in bones]
        self.rotations = np.empty((K, B, 4), dtype=np.float32)
        for i, b in enumerate(bones):
            if i in keys:
                self.rotations[:, i] = keys[i]
            elif "keys" in b:
                self.rotations[:, i] = _f32(b["keys"], 4)
            elif "constant" in b:
                self.rotations[:, i] = np.asarray(b["constant"], dtype=np.float32)
            else:
                self.rotations[:, i] = IDENTITY_XYZW
        self.translations = np.full((K, B, 3), np.nan, dtype=np.float32)
        self.translated = set()
        for t in motion.get("translations", []):
            self.translations[:, int(t["bone"])] = _f32(t["keys"], 3)
            self.translated.add(int(t["bone"]))
        self.constant_translations = np.full((B, 3), np.nan, dtype=np.float32)
        for t in motion.get("constant_translations", []):
            self.constant_translations[int(t["bone"])] = np.asarray(t["translation"], dtype=np.float32)
        rm = motion.get("root_motion") or {}
        self.root_rotations = _f32(rm["rotations"], 4) if rm.get("rotations") else None
        self.root_translations = _f32(rm["translations"], 3) if rm.get("translations") else None
        self.evidence = motion.get("evidence") or {}
        self._original = (self.key_times.copy(), self.rotations.copy(), self.translations.copy(),
                          self.constant_translations.copy(),
                          None if self.root_rotations is None else self.root_rotations.copy(),
                          None if self.root_translations is None else self.root_translations.copy(),
                          self.duration)

    def to_doc(self):
        """The document with the edits; entries whose values did not change kept as exported."""
        times0, rot0, tr0, ct0, rr0, rt0, dur0 = self._original
        doc = self.doc
        clip = doc["clip"]
        same_times = np.array_equal(times0, self.key_times)
        changed = self.changed = {"header": False, "bones": [], "motion": False}
        if not same_times:
            clip["key_times"] = [int(t) for t in self.key_times]
            changed["header"] = True
        if self.duration != dur0:
            clip["duration"] = float(self.duration)
            changed["header"] = True
        for i, b in enumerate(clip["bones"]):
            new = self.rotations[:, i]
            if same_times and np.array_equal(rot0[:, i].view(np.uint32), new.view(np.uint32)):
                continue
            changed["bones"].append(i)
            flags = int(b["flags"])
            kind = _kind(flags)
            b.pop("keys", None)
            b.pop("constant", None)
            if kind != "animated" and np.all(new.view(np.uint32) == new[:1].view(np.uint32)):
                if kind == "none" and np.array_equal(new[0], IDENTITY_XYZW):
                    continue  # still no rotation
                b["flags"] = (flags & 0xCF) | 0x30
                b["constant"] = _rows(new[:1])[0]
            else:
                b["flags"] = (flags & 0xCF) | 0x10 if kind != "animated" else flags
                b["keys"] = _rows(new)
        motion = doc.get("motion")
        if motion is None:
            return doc
        if "translations" in motion:
            for t in motion["translations"]:
                i = int(t["bone"])
                if not (same_times and np.array_equal(tr0[:, i].view(np.uint32), self.translations[:, i].view(np.uint32))):
                    t["keys"] = _rows(self.translations[:, i])
                    changed["motion"] = True
        if "constant_translations" in motion:
            kept = []
            for t in motion["constant_translations"]:
                i = int(t["bone"])
                if np.isnan(self.constant_translations[i]).all() and not np.isnan(self.translations[:, i]).all():
                    # A constant translation the edit made move: a track now (Far Cry 2/3 write it
                    # so; an 'aNi' block refuses it by name on import, docs/json-format.md).
                    motion.setdefault("translations", []).append(
                        {"bone": i, "hash": t["hash"], "keys": _rows(self.translations[:, i])})
                    motion["translations"].sort(key=lambda e: int(e["bone"]))
                    changed["motion"] = True
                    continue
                kept.append(t)
                if not np.array_equal(ct0[i].view(np.uint32), self.constant_translations[i].view(np.uint32)):
                    t["translation"] = _rows(self.constant_translations[i:i + 1])[0]
                    changed["motion"] = True
            motion["constant_translations"] = kept
        rm = motion.get("root_motion")
        if rm is not None:
            for key, now, was in (("rotations", self.root_rotations, rr0), ("translations", self.root_translations, rt0)):
                if now is not None and key in rm and not (
                        same_times and was is not None and np.array_equal(was.view(np.uint32), now.view(np.uint32))):
                    rm[key] = _rows(now)
                    changed["motion"] = True
        return doc

    def to_bytes(self):
        """The edited document's text: `mab export`'s own text with only the changed bones (and
        motion) replaced when the key times are unchanged (writing 400,000 floats again costs more
        than the rest of an export), else the whole document."""
        doc = self.to_doc()
        if self.raw is not None and not self.changed["header"]:
            spliced = _splice(self.raw, doc, self.changed)
            if spliced is not None:
                return spliced
        for i in self.stripped - set(self.changed["bones"]):  # keys load_doc left out of the document
            doc["clip"]["bones"][i]["keys"] = _rows(self.rotations[:, i])
        return doc_bytes(doc)


def _dump(obj):
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _bone_spans(raw):
    """(end of the bones list, [(start, end)] of each bone object) in `mab export`'s text, or None
    when it is not laid out that way (one bone object per `      {` ... `      }` block)."""
    start = raw.find(b'\n    "bones": [\n')  # a list written on one line is read by json
    end = raw.find(b"\n    ]", start)
    clip_end = raw.find(b"\n  }", start)
    if start < 0 or end < 0 or clip_end < end:
        return None
    spans, at = [], start
    while True:
        a = raw.find(b"\n      {", at, end)
        if a < 0:
            return end, spans
        line = raw[a + 1:raw.find(b"\n", a + 1)].rstrip(b",")
        if line.endswith(b"}"):  # a bone written on one line (one without rotation)
            b = a + 1 + len(line)
        else:
            b = raw.find(b"\n      }", a, end)
            if b < 0:
                return None
            b += 8
        spans.append((a, b))
        at = b


_BRACKETS = bytes.maketrans(b"[]\n", b"   ")


def load_doc(raw):
    """(document, {bone index: (K, 4) float32 keys}) of `mab export`'s text. The bones' key arrays
    (400,000 floats for a 100-bone, 1000-key clip) are read by NumPy straight from the text and
    left empty in the document, a third of the time Python's json takes for them; a text laid out
    otherwise is read whole by json ({} then)."""
    found = _bone_spans(raw)
    if found is None:
        return json.loads(raw), {}
    _, spans = found
    keys, pieces, pos = {}, [], 0
    for i, (a, b) in enumerate(spans):
        k = raw.find(b'"keys": [', a, b)
        if k < 0:
            continue
        close = raw.rfind(b"]", k, b)
        text = raw[k + 9:close].translate(_BRACKETS)
        try:
            vals = np.fromstring(text.decode("ascii"), dtype=np.float64, sep=",") if text.strip() else np.zeros(0)
        except (ValueError, UnicodeDecodeError):
            return json.loads(raw), {}
        if vals.size % 4:
            return json.loads(raw), {}
        keys[i] = vals.astype(np.float32).reshape(-1, 4)
        pieces += [raw[pos:k + 8], b"[]"]
        pos = close + 1
    pieces.append(raw[pos:])
    doc = json.loads(b"".join(pieces))
    bones = doc.get("clip", {}).get("bones", [])
    if len(bones) != len(spans) or any(len(q) != len(doc["clip"]["key_times"]) or bones[i].get("keys") != []
                                       for i, q in keys.items()):
        return json.loads(raw), {}
    return doc, keys


def _splice(raw, doc, changed):
    """`raw` with the changed bones' objects (and the motion object) replaced; None when the text is
    not laid out as `mab export` writes it (one bone object per `      {` ... `      }` block)."""
    bones = doc["clip"]["bones"]
    found = _bone_spans(raw)
    if found is None or len(found[1]) != len(bones):
        return None
    end, spans = found
    pieces, pos = [], 0
    for i in changed["bones"]:
        a, b = spans[i]
        pieces += [raw[pos:a], b"\n      ", _dump(bones[i])]
        pos = b
    if changed["motion"]:
        a = raw.find(b'\n  "motion": {', end)
        b = raw.find(b"\n  }", a)
        if a < 0 or b < 0:
            return None
        pieces += [raw[pos:a], b'\n  "motion": ', _dump(doc["motion"])]
        pos = b + 4
    pieces.append(raw[pos:])
    return b"".join(pieces)


class Block:
    """A decoded block of any game, as `mab export` (version 3) writes every family: key times,
    bones with their rotations, translations and root motion. `by_id`: bones are Far Cry 2/3
    skeleton ids (the bone's `hash` holds the id; key times are every frame 0..last, docs/json-format.md,
    "Far Cry 2 and 3 in version 3"), else CRC-32 hashes of names."""

    def __init__(self, doc, raw=None, keys=None):
        self.clip = Clip(doc, raw, keys)
        c = self.clip
        self.by_id = block_layout(doc) == "legacy"
        self.rate = float(c.key_rate or 0.0)
        self.key_times = c.key_times.copy()
        self.bones = []
        for i, (h, kind) in enumerate(zip(c.bone_hashes, c.kinds)):
            t = c.translations[:, i, :].copy() if i in c.translated else None
            ct = c.constant_translations[i]
            self.bones.append(BoneTrack(i, h, c.bone_names[i], kind,
                                        None if kind == "none" else c.rotations[:, i, :].copy(), t,
                                        None if np.isnan(ct).any() else ct.copy()))
        self.root_rotations = None if c.root_rotations is None else c.root_rotations.copy()
        self.root_translations = None if c.root_translations is None else c.root_translations.copy()


def block_layout(doc):
    """The block's layout in the container: "ani", "fc4" or "legacy" (Far Cry 2/3); "opaque" for a
    container whose body is kept as bytes (it has no blocks)."""
    blocks = doc.get("container", {}).get("blocks", [])
    i = int(doc.get("block", 0))
    return blocks[i].get("layout", "ani") if 0 <= i < len(blocks) else "opaque"


class BlockInfo:
    """What the import dialog and the import say of one block before decoding it."""

    def __init__(self, index, doc, raw=None, keys=None):
        self.index = index
        self.doc, self.raw, self.keys = doc, raw, keys
        self.decodable = "clip" in doc
        self.kind = block_layout(doc)
        self.reason = doc.get("clip_absent", "")
        self.bone_count = len(doc["clip"]["bones"]) if "clip" in doc else 0


def from_doc(doc, raw=None, keys=None):
    return Block(doc, raw, keys)


def doc_bytes(doc):
    return _dump(doc)

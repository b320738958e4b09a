"""Which Blender bone carries which clip bone.

'aNi' clips name bones by the CRC-32 of their names (decision 11); Far Cry 2/3 clips by the
bone's index in the game's animation skeleton.
"""
import re
import zlib

_HEX_NAME = re.compile(r"^bone_0x([0-9A-Fa-f]{8})(?:\.dup(\d+))?$")
_ID_NAME = re.compile(r"^bone_(\d+)$")
_DUP = re.compile(r"^(.*)\.dup(\d+)$")


def crc32(name):
    """The bone-name hash as `mab hash` computes it: CRC-32 of the name's UTF-8 bytes (decision 11).
    Bytes a names file held that are not UTF-8 are hashed as they were (surrogateescape). The
    add-on's only one; tested against `mab hash` (tests/blender_addon/test_packaging.py)."""
    return zlib.crc32(name.encode("utf-8", "surrogateescape")) & 0xFFFFFFFF


def parse_names(data):
    """A names file's bytes read as `mab export --names` reads them (cli/cmd_export.cpp): a UTF-8
    byte order mark dropped; per line, a trailing "\r" and spaces or tabs dropped; blank lines and
    lines starting with '#' skipped; spaces inside and before a name kept ("L Thigh")."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    names = []
    for line in data.split(b"\n"):
        line = line.rstrip(b"\r \t")
        if line and not line.startswith(b"#"):
            names.append(line.decode("utf-8", "surrogateescape"))
    return names


def read_names(path):
    with open(path, "rb") as f:
        return parse_names(f.read())


def bone_hash_key(bone):
    """(hash, occurrence) a Blender bone stands for in an 'aNi' clip: `bone_0xHHHHHHHH[.dupN]`
    names (this add-on's and mabkit's glTF export), the `mabkit` hash glTF extras put on a bone,
    else the CRC-32 of its name (a `.dupN` suffix marks the N-th bone of one hash)."""
    m = _HEX_NAME.match(bone.name)
    if m:
        return int(m.group(1), 16), int(m.group(2) or 0)
    extras = bone.get("mabkit")
    if extras is not None and hasattr(extras, "get") and extras.get("hash"):
        try:
            return int(str(extras.get("hash")), 16), 0
        except ValueError:
            pass
    m = _DUP.match(bone.name)
    if m:
        return crc32(m.group(1)), int(m.group(2))
    return crc32(bone.name), 0


def match_hashes(bones, hashes):
    """Clip bone index -> Blender bone name, by hash and occurrence; plus the Blender bones no
    clip bone matched."""
    by_key = {}
    for b in bones:
        by_key.setdefault(bone_hash_key(b), b.name)
    seen, matched = {}, {}
    for i, h in enumerate(hashes):
        occ = seen.get(h, 0)
        seen[h] = occ + 1
        name = by_key.get((int(h), occ))
        if name is not None:
            matched[i] = name
    used = set(matched.values())
    return matched, [b.name for b in bones if b.name not in used]


def match_ids(bones, ids, names=None):
    """Far Cry 2/3: bone id -> Blender bone name. A bone named `bone_<id>`, a bone carrying a
    `mabkit_bone_id` property, or names[id] from a names file (line N names bone id N)."""
    by_name = {b.name: b for b in bones}
    by_id = {}
    for b in bones:
        m = _ID_NAME.match(b.name)
        if m:
            by_id.setdefault(int(m.group(1)), b.name)
        if "mabkit_bone_id" in b:
            by_id.setdefault(int(b["mabkit_bone_id"]), b.name)
    matched = {}
    for i in ids:
        if names and 0 <= i < len(names) and names[i] in by_name:
            matched[i] = names[i]
        elif i in by_id:
            matched[i] = by_id[i]
    used = set(matched.values())
    return matched, [b.name for b in bones if b.name not in used]


def match_bones(bones, blk, names=None):
    """Clip bone index -> Blender bone name for a block of any game, plus the Blender bones no clip
    bone matched. Bones by skeleton id (blk.by_id): a bone both keyed and constant is two clip bones
    of one id, the keyed one first (docs/json-format.md): the first carries the Blender bone."""
    if not blk.by_id:
        return match_hashes(bones, [b.hash for b in blk.bones])
    by_id, unused = match_ids(bones, sorted({b.hash for b in blk.bones}), names)
    matched, seen = {}, set()
    for i, b in enumerate(blk.bones):
        if b.hash in by_id and b.hash not in seen:
            matched[i] = by_id[b.hash]
            seen.add(b.hash)
    return matched, unused

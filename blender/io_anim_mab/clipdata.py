"""What the add-on needs of a decoded block, read from mabkit's Clip or LegacyClip.

Kept in one place so the rest of the add-on does not depend on the module's spelling.
Rotations are x y z w float32 (mabkit's order), translations x y z, in the file's units.
"""
import numpy as np


class BoneTrack:
    """One bone of an 'aNi' block: kind "none" | "constant" | "animated"."""
    __slots__ = ("index", "hash", "name", "kind", "rotations", "translations", "constant_translation")

    def __init__(self, index, hash_, name, kind, rotations, translations, constant_translation):
        self.index, self.hash, self.name, self.kind = index, hash_, name, kind
        self.rotations = rotations        # (K, 4) for every key, or None for "none"
        self.translations = translations  # (K, 3) animated translation, or None
        self.constant_translation = constant_translation  # (3,) or None


class AniBlock:
    legacy = False

    def __init__(self, clip):
        self.clip = clip
        self.rate = float(clip.key_rate)
        self.key_times = np.asarray(clip.key_times, dtype=np.int64)
        rot = np.asarray(clip.rotations, dtype=np.float32)
        tr = np.asarray(clip.translations, dtype=np.float32)
        ct = np.asarray(clip.constant_translations, dtype=np.float32)
        names = list(clip.bone_names)
        self.bones = []
        for i, (h, kind) in enumerate(zip(np.asarray(clip.bone_hashes), clip.kinds)):
            t = tr[:, i, :] if tr.ndim == 3 and tr.shape[1] > i and not np.isnan(tr[:, i, :]).any() else None
            c = ct[i] if ct.ndim == 2 and ct.shape[0] > i and not np.isnan(ct[i]).any() else None
            self.bones.append(BoneTrack(i, int(h), names[i] if i < len(names) else None, kind,
                                        None if kind == "none" else rot[:, i, :], t, c))
        self.root_rotations = _array_or_none(clip.root_rotations, 4)
        self.root_translations = _array_or_none(clip.root_translations, 3)


def _array_or_none(a, width):
    if a is None:
        return None
    a = np.asarray(a, dtype=np.float32)
    return a if a.ndim == 2 and a.shape[1] == width and len(a) else None


class LegacyBlock:
    """A Far Cry 2/3 clip: tracks by bone id, each with its own stored frames."""
    legacy = True

    def __init__(self, lc):
        self.clip = lc
        self.rate = float(lc.frame_rate)
        self.last_frame = int(lc.last_frame)
        self.rotation_tracks = {int(b): (np.asarray(fr, dtype=np.int64), np.asarray(q, dtype=np.float32))
                                for b, (fr, q) in lc.rotation_tracks.items()}
        self.constant_rotations = {int(b): np.asarray(q, dtype=np.float32) for b, q in lc.constant_rotations.items()}
        self.translation_tracks = {int(b): np.asarray(v, dtype=np.float32) for b, v in lc.translation_tracks.items()}
        self.constant_translations = {int(b): np.asarray(v, dtype=np.float32)
                                      for b, v in lc.constant_translations.items()}
        self.root_rotations = _array_or_none(lc.trajectory_rotations, 4)
        self.root_translations = _array_or_none(lc.trajectory_translations, 3)

    def bone_ids(self):
        return sorted(set(self.rotation_tracks) | set(self.constant_rotations) | set(self.translation_tracks)
                      | set(self.constant_translations))


def from_block(block):
    clip = block.decode()
    return LegacyBlock(clip) if block.kind == "legacy" else AniBlock(clip)

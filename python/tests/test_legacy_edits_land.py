"""Far Cry 2/3 edits a modder makes through the module that used to be lost with no error: each
either lands in the written file (read back here) or raises MabError naming the field
(docs/python.md, "Far Cry 2 and 3 clips": "an edit that cannot be written raises")."""
import numpy as np
import pytest

import mabkit
from conftest import CORPUS, angle_deg

TURN = mabkit.quat_from_axis_angle((0.0, 0.0, 1.0), 20.0)


def quat_mul(a, b):
    ax, ay, az, aw = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    bx, by, bz, bw = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def decode(rel, block=0):
    return mabkit.read(CORPUS / rel).blocks[block].decode()


def both_kinds(clip):
    """A skeleton id with a keyed track and a constant rotation both (two bones of the Clip)."""
    ids = [int(h) for h in clip.bone_hashes]
    return next(i for i in ids if ids.count(i) == 2)


def columns(clip, bone_id):
    return [b for b, h in enumerate(clip.bone_hashes) if int(h) == bone_id]


# docs/edit.md: --rotate-bone pre-multiplies "every rotation of BONE (constant or keys)"; a bone
# both keyed and constant (docs/legacy.md) was turned in its keyed track only, exit 0.
@pytest.mark.parametrize("rel", ["fc2/many_tracks.mab", "fc3/many_tracks.mab"])
def test_a_bone_keyed_and_constant_is_rotated_whole_by_its_id(rel):
    clip = decode(rel)
    bone = both_kinds(clip)
    keyed, const = columns(clip, bone)
    assert clip.kinds[keyed] == "animated" and clip.kinds[const] == "constant"
    before = clip.rotations.copy()
    clip.rotate_bone(f"bone_{bone}", TURN)
    data, rep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    assert columns(after, bone) == [keyed, const]
    assert angle_deg(after.rotations[:, keyed], quat_mul(TURN, before[:, keyed])).max() <= rep.max_error_deg + 1e-4
    # A constant is one 6-byte code: within its rounding (decision 20's bound, 0.0076 degrees).
    assert angle_deg(after.rotations[0, const], quat_mul(TURN, before[0, const])) <= 0.008
    for b in range(clip.bone_count):
        if b not in (keyed, const):
            np.testing.assert_array_equal(after.rotations[:, b], before[:, b])


# An index names one of the two bones: only that one turns.
def test_an_index_turns_one_of_the_two():
    clip = decode("fc2/many_tracks.mab")
    keyed, const = columns(clip, both_kinds(clip))
    before = clip.rotations.copy()
    clip.rotate_bone(const, TURN)
    data, _ = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    np.testing.assert_array_equal(after.rotations[:, keyed], before[:, keyed])
    assert angle_deg(after.rotations[0, const], quat_mul(TURN, before[0, const])) <= 0.008


# remove_bone drops "the bone": both its rotations (its constant stayed in the file, exit 0);
# set_constant leaves it one constant rotation (it raised "holds two of these").
@pytest.mark.parametrize("rel", ["fc2/many_tracks.mab", "fc3/many_tracks.mab"])
def test_a_bone_keyed_and_constant_is_removed_or_set_whole(rel):
    clip = decode(rel)
    bone = both_kinds(clip)
    clip.remove_bone(f"bone_{bone}")
    after = mabkit.read(clip.encode()[0]).blocks[0].decode()
    assert columns(after, bone) == []
    assert after.bone_count == clip.bone_count

    clip = decode(rel)
    held = mabkit.quat_from_axis_angle((1.0, 0.0, 0.0), 30.0)
    clip.set_constant(f"bone_{bone}", held)
    after = mabkit.read(clip.encode()[0]).blocks[0].decode()
    (b,) = columns(after, bone)
    assert after.kinds[b] == "constant"
    assert angle_deg(after.rotations[0, b], held) <= 0.008


# copy_track copies the whole bone of the id, as mab edit --copy-track (docs/python.md): a
# constant source onto a bone keyed and constant raised "bone_N holds two of these" at encode.
@pytest.mark.parametrize("rel", ["fc2/many_tracks.mab", "fc3/many_tracks.mab"])
def test_copy_track_copies_the_whole_bone(rel):
    bone = both_kinds(decode(rel))
    held = mabkit.quat_from_axis_angle((1.0, 0.0, 0.0), 30.0)
    source = decode(rel)
    source.set_constant(f"bone_{bone}", held)
    clip = decode(rel)
    clip.copy_track(source, f"bone_{bone}")
    after = mabkit.read(clip.encode()[0]).blocks[0].decode()
    (b,) = columns(after, bone)
    assert after.kinds[b] == "constant"
    assert angle_deg(after.rotations[0, b], held) <= 0.008

    both = decode(rel)
    source.copy_track(both, f"bone_{bone}")
    after = mabkit.read(source.encode()[0]).blocks[0].decode()
    keyed, const = columns(after, bone)
    k0, c0 = columns(both, bone)
    assert angle_deg(after.rotations[:, keyed], both.rotations[:, k0]).max() <= 0.01
    assert angle_deg(after.rotations[0, const], both.rotations[0, c0]) <= 0.008


# A bone is renamed by its name (bone_N, a skeleton id) as mab edit --rename-bone does: the name
# set by hand was written as nothing; the stored track now moves to the new id with its keys.
def test_a_bone_renamed_by_name_keeps_its_stored_keys():
    clip = decode("fc2/many_tracks.mab")
    b = clip.kinds.index("animated")
    before = clip.rotations[:, b].copy()
    clip.bone_names[b] = "bone_159"
    data, rep = clip.encode()
    assert rep.tracks_kept == clip.kinds.count("animated") and rep.tracks_edited == 0
    after = mabkit.read(data).blocks[0].decode()
    (c,) = columns(after, 159)
    assert np.array_equal(after.rotations[:, c], before)
    clip = decode("fc2/many_tracks.mab")
    clip.bone_names[0] = "Head"
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "bone_names[0]"


# A Far Cry 2/3 bone has no flag byte (docs/legacy.md): a bit depth set in bone_flags was dropped
# with the clip written and no error; it raises naming the field.
def test_bone_flags_beside_the_kind_raise():
    clip = decode("fc2/many_tracks.mab")
    clip.bone_flags[0] |= 0x05
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "bone_flags"


# The header duration follows lastFrame by the clip's rule (docs/legacy.md, "Trims"): a duration
# set by hand was dropped with no error; it now lands when it is that value and raises otherwise,
# as a JSON document's /clip/duration (docs/json-format.md).
def test_a_duration_set_by_hand_lands_or_raises():
    clip = decode("fc2/retail_bank.mab")
    clip.duration = 1.0
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "invalid_argument" and e.value.field == "duration"
    assert "trim" in str(e.value)

    clip = decode("fc2/retail_bank.mab")
    clip.trim(0.1, 0.4)                       # frames 3..12: lastFrame 9
    data, _ = clip.encode()                   # the operation's own duration: no error
    assert mabkit.read(data).blocks[0].decode().duration == pytest.approx(9 / 30)
    clip.duration = float(np.float32(9 / 30))  # the value the frames give, set by hand: lands
    data, _ = clip.encode()
    assert np.float32(mabkit.read(data).blocks[0].decode().duration) == np.float32(9 / 30)


# clip_block is decoded from clip_offset (docs/legacy.md, "Tag table"): a changed one was
# ignored with no error; JSON refuses it, and so does the module now.
def test_a_tag_records_clip_block_is_not_editable():
    clip = decode("fc2/retail_bank.mab")
    clip.tags[0].clip_block = 2
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "invalid_argument" and e.value.field == "tags[0].clip_block"


# A name slot is ASCII (JB-DOC): another character raised UnicodeEncodeError, not MabError.
def test_a_tag_name_that_is_not_ascii_raises_mab_error():
    clip = decode("fc2/retail_bank.mab")
    clip.tags[1].names[0] = "ak\u00e9"
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "bad_value" and e.value.field == "tags[1].names[0]"

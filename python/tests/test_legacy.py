"""Far Cry 2 / 3 / Blood Dragon clips (LegacyClip): tracks by bone id against the generator's
masks, unedited round trips, keys at new frames that land in the sparse tracks, banks whose
other clips keep their data, trims, tags, events and refused edits."""
import numpy as np
import pytest

import mabkit
from mabkit._legacy import LegacyClip, Track
from conftest import CORPUS, angle_deg, blocks_of, corpus_files, expected, ident

LEGACY = blocks_of("legacy")
Q40 = mabkit.quat_from_axis_angle((0.2, 1.0, -0.3), 40.0)


def decode(path, block=0):
    return mabkit.read(path).blocks[block].decode()


def bone_ids(mask):
    return [w * 32 + b for w, x in enumerate(mask) for b in range(32) if (x >> b) & 1]


def test_every_legacy_game_decodes():
    assert {p.parent.name for p, _ in LEGACY} == {"fc2", "fc3", "fc3bd"}


@pytest.mark.parametrize("where", LEGACY, ids=ident)
def test_tracks_by_bone_id_and_unedited_round_trip(where):
    path, block = where
    clip = decode(path, block)
    assert isinstance(clip, LegacyClip)
    masks = expected(path)["blocks"][block]["masks"]
    assert sorted(clip.rotation_tracks) == bone_ids(masks["keyframed_rotation"])
    assert sorted(clip.constant_rotations) == bone_ids(masks["const_rotation"])
    assert sorted(clip.translation_tracks) == bone_ids(masks["animated_translation"])
    assert sorted(clip.constant_translations) == bone_ids(masks["const_translation"])
    for bone, t in clip.rotation_tracks.items():
        assert isinstance(t, Track) and t.keys.shape == (len(t.frames), 4) and t.keys.dtype == np.float32
        assert t.frames[0] == 0 and np.all(np.diff(t.frames.astype(np.int64)) > 0) and t.frames[-1] <= clip.last_frame
        # The engine keys every group start (format 13).
        assert set(range(0, clip.frame_count, 8)) <= set(int(f) for f in t.frames)
        np.testing.assert_array_equal(clip.rotation_at(bone, t.frames), t.keys)
    for t in clip.translation_tracks.values():
        assert t.shape == (clip.frame_count, 3)
    for arr, n in ((clip.trajectory_translations, 3), (clip.trajectory_rotations, 4)):
        assert arr is None or arr.shape == (clip.frame_count, n)
    data, rep = clip.encode()
    assert data == path.read_bytes()
    assert rep.kind == "legacy" and rep.sections_rewritten == 0 and rep.frames_added == [] and rep.size_change == 0


def keyed_clips():
    return [w for w in LEGACY if any(len(t.frames) < decode(*w).frame_count for t in decode(*w).rotation_tracks.values())]


def other_clips_unchanged(before, after, block):
    for i, b in enumerate(before.blocks):
        if i == block or not b.decodable:
            continue
        x, y = b.decode(), after.blocks[i].decode()
        assert x.rotation_tracks.keys() == y.rotation_tracks.keys()
        for bone in x.rotation_tracks:
            np.testing.assert_array_equal(x.rotation_tracks[bone].frames, y.rotation_tracks[bone].frames)
            np.testing.assert_array_equal(x.rotation_tracks[bone].keys, y.rotation_tracks[bone].keys)
        for d1, d2 in ((x.constant_rotations, y.constant_rotations), (x.translation_tracks, y.translation_tracks),
                       (x.constant_translations, y.constant_translations)):
            assert d1.keys() == d2.keys()
            for k in d1:
                np.testing.assert_array_equal(d1[k], d2[k])


@pytest.mark.parametrize("where", keyed_clips(), ids=ident)
def test_a_key_at_a_new_frame_lands_and_only_that_bone_changes(where):
    path, block = where
    f = mabkit.read(path)
    clip = f.blocks[block].decode()
    bone = next(b for b, t in clip.rotation_tracks.items() if len(t.frames) < clip.frame_count)
    frame = next(x for x in range(clip.frame_count) if x not in clip.rotation_tracks[bone].frames)
    others = {b: clip.rotation_at(b) for b in clip.bones if b != bone}
    clip.set_key(bone, frame, Q40)
    assert frame in clip.rotation_tracks[bone].frames
    data, rep = clip.encode()
    assert (bone, frame) in rep.frames_added and rep.frames_interpolated == []
    g = mabkit.read(data)
    after = g.blocks[block].decode()
    assert frame in after.rotation_tracks[bone].frames
    assert angle_deg(after.rotation_at(bone, frame)[0], Q40) <= rep.max_error_deg + 1e-4
    # The whole track follows the edit at every frame, within the reported error.
    assert angle_deg(after.rotation_at(bone), clip.rotation_at(bone)).max() <= rep.max_error_deg + 1e-4
    for b, r in others.items():
        np.testing.assert_array_equal(after.rotation_at(b), r)
    other_clips_unchanged(f, g, block)


def test_editing_a_stored_key_and_a_constant():
    f = mabkit.read(CORPUS / "fc2" / "retail_bank.mab")
    clip = f.blocks[0].decode()
    bone = sorted(clip.rotation_tracks)[1]
    frames, keys = clip.rotation_tracks[bone]
    keys[2] = Q40  # in place: the track's array
    cbone = sorted(clip.constant_rotations)[0]
    clip.constant_rotations[cbone][:] = mabkit.quat_from_axis_angle((1, 0, 0), 5.0)
    tbone = sorted(clip.translation_tracks)[0]
    clip.translation_tracks[tbone][4] += np.float32(0.5)
    data, rep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    assert angle_deg(after.rotation_at(bone, frames[2])[0], Q40) <= rep.max_error_deg + 1e-4
    assert angle_deg(after.constant_rotations[cbone], clip.constant_rotations[cbone]) < 0.01
    np.testing.assert_array_equal(after.translation_tracks[tbone], clip.translation_tracks[tbone])
    other_clips_unchanged(f, mabkit.read(data), 0)


def test_a_constant_bone_keyed_becomes_a_track():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    bone = sorted(clip.constant_rotations)[0]
    held = clip.constant_rotations[bone].copy()
    clip.set_key(bone, 5, Q40)
    assert bone not in clip.constant_rotations and list(clip.rotation_tracks[bone].frames) == [0, 5, clip.last_frame]
    data, rep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    assert bone in after.rotation_tracks and bone not in after.constant_rotations
    assert angle_deg(after.rotation_at(bone, 5)[0], Q40) <= rep.max_error_deg + 1e-4
    assert angle_deg(after.rotation_at(bone, 0)[0], held) <= rep.max_error_deg + 1e-4


def test_a_key_at_a_new_frame_is_stored_even_when_it_equals_the_interpolation():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    bone = sorted(clip.rotation_tracks)[0]
    frame = next(x for x in range(clip.frame_count) if x not in clip.rotation_tracks[bone].frames)
    clip.set_key(bone, frame, clip.rotation_at(bone, frame)[0])
    data, rep = clip.encode()
    assert (bone, frame) in rep.frames_added and rep.frames_interpolated == []
    after = mabkit.read(data).blocks[0].decode()
    assert frame in after.rotation_tracks[bone].frames
    assert angle_deg(after.rotation_at(bone, frame)[0], clip.rotation_at(bone, frame)[0]) <= rep.max_error_deg + 1e-4


def test_trim_then_encode():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    before = clip.rotation_at(sorted(clip.rotation_tracks)[0])
    rep = clip.trim(3, 14)
    assert clip.last_frame == 11 and rep["duration_rule"]
    data, erep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    assert after.last_frame == 11
    bone = sorted(after.rotation_tracks)[0]
    assert angle_deg(after.rotation_at(bone), before[3:15]).max() <= erep.max_error_deg + 1e-3
    assert [round(e.time, 6) for e in after.events] == [round(e.time, 6) for e in clip.events]


def test_tags_and_events_edit_in_place():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    assert clip.tags and clip.events
    clip.tags[0].start = 0.25
    clip.tags[0].names[1] = "L Hand"
    clip.events[1].time = 0.4
    data, rep = clip.encode()
    assert rep.tag_records_edited == 1 and rep.events_edited == 1
    after = mabkit.read(data).blocks[0].decode()
    assert after.tags[0].start == pytest.approx(0.25) and after.tags[0].names[1] == "L Hand"
    assert after.tags[0]._name_hashes[1] == mabkit.hash("L Hand")
    assert after.events[1].time == pytest.approx(0.4)


def test_refused_legacy_edits_raise():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    with pytest.raises(mabkit.MabError) as e:
        clip.set_key(sorted(clip.rotation_tracks)[0], clip.last_frame + 1, Q40)
    assert e.value.code == "bad_value" and e.value.field == "frame"
    bone = sorted(clip.rotation_tracks)[0]
    frames, keys = clip.rotation_tracks[bone]
    clip.rotation_tracks[bone] = Track(frames[::-1].copy(), keys)
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "invalid_argument" and e.value.field == "rotations"
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    clip.trajectory_translations = clip.trajectory_translations[:-1]
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "trajectory_translations"
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    clip.constant_rotations.clear()
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "invalid_argument" and "emptying" in str(e.value)
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    clip.tags[0].clip_offset += 4
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "tag_table"
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    clip.rotation_tracks[sorted(clip.rotation_tracks)[0]].keys[0] = np.nan
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "bad_value" and e.value.field.startswith("rotation_tracks[")

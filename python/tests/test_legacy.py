"""Far Cry 2 / 3 / Blood Dragon clips as the one Clip (clip_from_legacy): bones by skeleton id
against the generator's masks, unedited round trips, edits that land as `mab edit` writes them,
banks whose other clips keep their data, trims, tags, events and refused edits."""
import subprocess
import warnings

import numpy as np
import pytest

import mabkit
from conftest import CORPUS, angle_deg, blocks_of, expected, ident

LEGACY = blocks_of("legacy")
Q40 = mabkit.quat_from_axis_angle((0.2, 1.0, -0.3), 40.0)


def decode(path, block=0):
    return mabkit.read(path).blocks[block].decode()


def bone_ids(mask):
    return [w * 32 + b for w, x in enumerate(mask) for b in range(32) if (x >> b) & 1]


def ids_of(clip, kind):
    return sorted(int(h) for h, k in zip(clip.bone_hashes, clip.kinds) if k == kind)


def test_every_legacy_game_decodes():
    assert {p.parent.name for p, _ in LEGACY} == {"fc2", "fc3", "fc3bd"}


@pytest.mark.parametrize("where", LEGACY, ids=ident)
def test_bones_by_id_and_unedited_round_trip(where):
    path, block = where
    clip = decode(path, block)
    assert isinstance(clip, mabkit.Clip) and clip.family == "legacy"
    masks = expected(path)["blocks"][block]["masks"]
    keyed, const = bone_ids(masks["keyframed_rotation"]), bone_ids(masks["const_rotation"])
    assert ids_of(clip, "animated") == keyed
    assert ids_of(clip, "constant") == sorted(const)
    translated = [int(h) for b, h in enumerate(clip.bone_hashes) if not np.isnan(clip.translations[0, b, 0])]
    assert sorted(translated) == bone_ids(masks["animated_translation"])
    constant_t = [int(h) for b, h in enumerate(clip.bone_hashes) if not np.isnan(clip.constant_translations[b, 0])]
    assert sorted(constant_t) == bone_ids(masks["const_translation"])
    assert list(clip.key_times) == list(range(clip.key_count))   # every frame a key
    assert clip.bone_names == [f"bone_{int(h)}" for h in clip.bone_hashes]
    for arr, n in ((clip.root_translations, 3), (clip.root_rotations, 4)):
        assert arr is None or arr.shape == (clip.key_count, n)
    data, rep = clip.encode()
    assert data == path.read_bytes()
    assert rep.kind == "legacy" and rep.sections_rewritten == 0 and rep.frames_added == [] and rep.size_change == 0


def other_clips_unchanged(before, after, block):
    for i, b in enumerate(before.blocks):
        if i == block or not b.decodable:
            continue
        x, y = b.decode(), after.blocks[i].decode()
        assert list(x.bone_hashes) == list(y.bone_hashes) and x.kinds == y.kinds
        for name in ("rotations", "translations", "constant_translations"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name))


def keyed_bone(clip):
    return next(b for b, k in enumerate(clip.kinds) if k == "animated")


@pytest.mark.parametrize("where", [w for w in LEGACY if "animated" in decode(*w).kinds], ids=ident)
def test_a_changed_frame_lands_and_only_that_bone_changes(where):
    path, block = where
    f = mabkit.read(path)
    clip = f.blocks[block].decode()
    b = keyed_bone(clip)
    frame = clip.key_count // 2
    others = clip.rotations.copy()
    clip.rotations[frame, b] = Q40
    data, rep = clip.encode()
    assert rep.tracks_edited == 1 and rep.tracks_kept == clip.kinds.count("animated") - 1
    assert rep.frames_removed == []
    g = mabkit.read(data)
    after = g.blocks[block].decode()
    assert angle_deg(after.rotations[frame, b], Q40) <= rep.max_error_deg + 1e-4
    # The whole track follows the edit at every frame, within the reported error.
    assert angle_deg(after.rotations[:, b], clip.rotations[:, b]).max() <= rep.max_error_deg + 1e-4
    for o in range(clip.bone_count):
        if o != b:
            np.testing.assert_array_equal(after.rotations[:, o], others[:, o])
    other_clips_unchanged(f, g, block)


def test_editing_a_constant_and_a_translation():
    f = mabkit.read(CORPUS / "fc2" / "retail_bank.mab")
    clip = f.blocks[0].decode()
    cb = clip.kinds.index("constant")
    clip.rotations[:, cb] = mabkit.quat_from_axis_angle((1, 0, 0), 5.0)
    tb = next(b for b in range(clip.bone_count) if not np.isnan(clip.translations[0, b, 0]))
    clip.translations[4, tb] += np.float32(0.5)
    data, rep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    assert after.kinds[cb] == "constant"
    assert angle_deg(after.rotations[0, cb], clip.rotations[0, cb]) < 0.01
    np.testing.assert_array_equal(after.translations[:, tb], clip.translations[:, tb])
    other_clips_unchanged(f, mabkit.read(data), 0)


def test_a_constant_bone_given_a_key_becomes_a_track():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    cb = clip.kinds.index("constant")
    held = clip.rotations[0, cb].copy()
    clip.rotations[5, cb] = Q40
    data, rep = clip.encode()
    after = mabkit.read(data).blocks[0].decode()
    bone = int(clip.bone_hashes[cb])
    assert ids_of(after, "animated").count(bone) == 1 and bone not in ids_of(after, "constant")
    a = list(after.bone_hashes).index(bone)
    assert angle_deg(after.rotations[5, a], Q40) <= rep.max_error_deg + 1e-4
    assert angle_deg(after.rotations[0, a], held) <= rep.max_error_deg + 1e-4


@pytest.mark.parametrize("game", ["fc2/retail_bank.mab", "fc3/all_arrays.mab"])
def test_edit_operations_write_what_mab_edit_writes(game, mab_cli, tmp_path):
    path = CORPUS / game
    clip = decode(path)
    keyed = f"bone_{int(clip.bone_hashes[keyed_bone(clip)])}"
    const = f"bone_{int(clip.bone_hashes[clip.kinds.index('constant')])}"
    new = f"bone_{next(i for i in range(160) if i not in set(int(h) for h in clip.bone_hashes))}"
    cases = [
        (["--speed", "2"], lambda c: c.speed(2.0)),
        (["--trim", "0.1", "0.4"], lambda c: c.trim(0.1, 0.4)),
        (["--reverse"], lambda c: c.reverse()),
        (["--loop-fix"], lambda c: c.loop_fix()),
        (["--rotate-bone", keyed, "0,1,0@10"], lambda c: c.rotate_bone(keyed, mabkit.quat_from_axis_angle((0, 1, 0), 10))),
        (["--set-constant", keyed, "1,0,0@20"], lambda c: c.set_constant(keyed, mabkit.quat_from_axis_angle((1, 0, 0), 20))),
        (["--remove-bone", const], lambda c: c.remove_bone(const)),
        (["--add-bone", new, "0,0,1@30"], lambda c: c.add_bone(new, mabkit.quat_from_axis_angle((0, 0, 1), 30))),
        (["--reduce", "1"], lambda c: c.reduce(1.0)),
        (["--copy-track", str(path), keyed, "--speed", "2"],
         lambda c: (c.copy_track(decode(path), keyed), c.speed(2.0))),
    ]
    for i, (args, edit) in enumerate(cases):
        out = tmp_path / f"cli{i}.mab"
        run = subprocess.run([mab_cli, "edit", str(path), "-o", str(out), *args], capture_output=True, text=True)
        assert run.returncode == 0, (args, run.stderr)
        c = decode(path)
        edit(c)
        data, _ = c.encode()
        assert data == out.read_bytes(), args


def test_trim_then_encode():
    clip = decode(CORPUS / "fc2" / "retail_bank.mab")
    b = keyed_bone(clip)
    before = clip.rotations[:, b].copy()
    times = [e.time for e in clip.events]
    clip.trim(3 / clip.key_rate, 14 / clip.key_rate)
    assert clip.key_count == 12
    assert [e.time for e in clip.events] == [float(np.float32(t - 3 / clip.key_rate)) for t in times]
    data, erep = clip.encode()
    assert erep.duration_rule
    after = mabkit.read(data).blocks[0].decode()
    assert after.key_count == 12
    assert angle_deg(after.rotations[:, b], before[3:15]).max() <= erep.max_error_deg + 1e-3
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
    path = CORPUS / "fc2" / "retail_bank.mab"
    for edit, field in ((lambda c: c.set_bits(keyed_bone(c), 8), "nbits"), (lambda c: c.resample(60.0), "fps"),
                        (lambda c: c.encode(requantise_all=True), "requantise_all"),
                        (lambda c: c.add_bone("Spine", (0, 0, 0, 1)), "bone"),
                        (lambda c: c.copy_track(decode(CORPUS / "wd1" / "long_k100.mab"), 0), "source")):
        with pytest.raises(mabkit.MabError) as e:
            edit(decode(path))
        assert e.value.code == "invalid_argument" and e.value.field == field
        # The library's reason names options as Python spells them (reduce), never as mab's flags.
        if field in ("nbits", "fps"):
            assert "reduce" in str(e.value) and "--" not in str(e.value) and "{opt:" not in str(e.value)
    clip = decode(path)
    clip.root_translations = clip.root_translations[:-1]
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "root_translations"
    clip = decode(path)
    for b in reversed([i for i, k in enumerate(clip.kinds) if k == "constant"]):
        clip.remove_bone(b)
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "invalid_argument" and "emptying" in str(e.value)
    clip = decode(path)
    clip.tags[0].clip_offset += 4
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.field == "tag_table"
    clip = decode(path)
    clip.rotations[0, keyed_bone(clip)] = np.nan
    with pytest.raises(mabkit.MabError) as e:
        clip.encode()
    assert e.value.code == "bad_value" and e.value.field.startswith("rotations[")


def test_legacy_clip_is_a_deprecated_alias_of_clip():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert mabkit.LegacyClip is mabkit.Clip
    assert any(issubclass(x.category, DeprecationWarning) for x in w)
    assert "LegacyClip" not in mabkit.__all__

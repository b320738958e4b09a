"""The read-back check behind encode(verify=True): given bytes that do not hold the edit, it
raises round_trip_mismatch naming what is missing (the check itself must be able to fail)."""
import numpy as np
import pytest

import mabkit
from mabkit import _mabkit
from conftest import CORPUS


def ani_clip():
    return mabkit.read(CORPUS / "wd1" / "long_k100.mab").blocks[0].decode()


def check(data, clip, errors=None):
    errors = [0.0] * clip.bone_count if errors is None else errors
    return _mabkit.verify_ani(data, 0, clip._state(), errors, 0.0)


def test_unedited_bytes_pass():
    clip = ani_clip()
    assert check((CORPUS / "wd1" / "long_k100.mab").read_bytes(), clip) == 0.0


def test_a_rotation_that_did_not_land_is_caught():
    clip = ani_clip()
    clip.rotations[5, 1] = mabkit.quat_from_axis_angle((0, 0, 1), 12.0)
    with pytest.raises(mabkit.MabError) as e:
        check((CORPUS / "wd1" / "long_k100.mab").read_bytes(), clip)
    assert e.value.code == "round_trip_mismatch" and e.value.field == "rotations[:, 1]"
    assert "key 5" in str(e.value)
    data, rep = clip.encode()
    assert check(data, clip, list(rep.bone_error_deg)) == pytest.approx(rep.measured_max_error_deg)


def test_a_key_time_that_did_not_land_is_caught():
    clip = ani_clip()
    clip.insert_key(29)
    with pytest.raises(mabkit.MabError) as e:
        check((CORPUS / "wd1" / "long_k100.mab").read_bytes(), clip)
    assert e.value.field == "key_times"


def test_a_translation_that_did_not_land_is_caught():
    path = CORPUS / "wd2" / "translations_all_bones_root_motion.mab"
    clip = mabkit.read(path).blocks[0].decode()
    clip.translations[2, 0] += np.float32(1.0)
    with pytest.raises(mabkit.MabError) as e:
        _mabkit.verify_ani(path.read_bytes(), 0, clip._state(), [0.0] * clip.bone_count, 0.0)
    assert e.value.field == "translations[:, 0]"
    clip = mabkit.read(path).blocks[0].decode()
    clip.root_rotations[3] = mabkit.quat_from_axis_angle((1, 0, 0), 5.0)
    with pytest.raises(mabkit.MabError) as e:
        _mabkit.verify_ani(path.read_bytes(), 0, clip._state(), [0.0] * clip.bone_count, 0.0)
    assert e.value.field == "root_rotations[3]"


def test_a_legacy_key_that_did_not_land_is_caught():
    path = CORPUS / "fc2" / "retail_bank.mab"
    f = mabkit.read(path)
    lc = f.blocks[0].decode()
    assert _mabkit.verify_legacy(f._handle, 0, path.read_bytes(), lc._state(), 1e-4) == 0.0
    b = lc.kinds.index("animated")
    lc.rotations[3, b] = mabkit.quat_from_axis_angle((0, 1, 0), 40.0)
    with pytest.raises(mabkit.MabError) as e:
        _mabkit.verify_legacy(f._handle, 0, path.read_bytes(), lc._state(), 1e-4)
    assert e.value.code == "round_trip_mismatch" and e.value.field == f"rotations[:, {b}]"
    assert "key 3 " in str(e.value)
    lc = f.blocks[0].decode()
    c = lc.kinds.index("constant")
    lc.rotations[:, c] = (0, 0, 0, 1)
    with pytest.raises(mabkit.MabError) as e:
        _mabkit.verify_legacy(f._handle, 0, path.read_bytes(), lc._state(), 1e-4)
    assert e.value.field == f"rotations[:, {c}]"

"""blender/io_anim_mab/fcurves.py against anim_api_double.py, A TEST DOUBLE of Blender's 3.4, 4.4
and 5.0 animation API (not Blender: docs/blender.md says what ran in real Blender). Checks the
module's choices: which collection it writes to, how it groups curves, that it never uses the
4.4 deprecated Action.fcurves proxy on a slotted action, and that what it writes reads back.

    python3 -m pytest -q tests/blender_addon/test_fcurves_double.py   (ctest blender_addon_api_double)
"""
import importlib.util
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import anim_api_double  # noqa: E402


def load_fcurves(shape):
    """fcurves.py loaded alone (not the add-on package, whose __init__ registers operators) with
    the double as `bpy`."""
    bpy = anim_api_double.make_bpy(shape)
    sys.modules["bpy"] = bpy
    spec = importlib.util.spec_from_file_location(
        "fcurves_under_double_" + shape.replace(".", "_"), os.path.join(ROOT, "blender", "io_anim_mab", "fcurves.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return bpy, mod


SHAPES = ["3.4", "4.4", "5.0"]
PATH = 'pose.bones["Spine1"].rotation_quaternion'


def imported(shape):
    """An action filled the way importer.py fills one: new, assigned, two properties written."""
    bpy, fc = load_fcurves(shape)
    obj = anim_api_double.Object("Armature")
    act = fc.new_action("walk block 0")
    fc.assign(obj, act)
    frames = np.array([0.0, 4.0, 8.0])
    q = np.array([[1, 0, 0, 0], [0.9, 0.1, 0, 0], [0.8, 0.2, 0.1, 0]], dtype=np.float64)
    fc.write(act, obj, PATH, frames, q, group="Spine1")
    fc.write(act, obj, "location", frames, np.zeros((3, 3)), group="Object Transforms")
    return bpy, fc, obj, act, frames, q


@pytest.mark.parametrize("shape", SHAPES)
def test_written_curves_read_back(shape):
    _, fc, obj, act, frames, q = imported(shape)
    curves = fc.curves_of(act, obj, PATH, 4)
    assert curves is not None and [c.array_index for c in curves] == [0, 1, 2, 3]
    for i, c in enumerate(curves):
        f, v = fc.keyframes(c)
        assert np.array_equal(f, frames)
        assert np.allclose(v, q[:, i])
    assert fc.data_paths(act, obj) == {PATH, "location"}
    assert fc.active_action(obj) is act


@pytest.mark.parametrize("shape", SHAPES)
def test_rewriting_a_property_replaces_its_curves(shape):
    _, fc, obj, act, frames, q = imported(shape)
    fc.write(act, obj, PATH, frames[:2], q[:2], group="Spine1")
    curves = [c for c in fc.collection(act, obj) if c.data_path == PATH]
    assert len(curves) == 4 and all(len(c.keyframe_points) == 2 for c in curves)


def test_legacy_action_uses_action_fcurves_and_action_group():
    _, fc, obj, act, _, _ = imported("3.4")
    assert not fc.layered(act)
    assert fc.collection(act, obj) is act.fcurves
    news = [c for c in act.fcurves.calls if c[0] == "new"]
    assert news and all("action_group" in kw for _, _, _, kw in news)
    assert {g.name for g in act.groups} == {"Spine1", "Object Transforms"}


@pytest.mark.parametrize("shape", ["4.4", "5.0"])
def test_slotted_action_writes_into_the_slots_channelbag(shape):
    _, fc, obj, act, _, _ = imported(shape)
    assert fc.layered(act)
    assert len(act.slots) == 1 and obj.animation_data.action_slot is act.slots[0]
    assert act.slots[0].target_id_type == "OBJECT"
    bag = act.layers[0].strips[0].channelbag(act.slots[0])
    assert bag is not None and fc.collection(act, obj) is bag.fcurves
    assert len(bag.fcurves) == 7
    assert act.legacy_proxy_uses == 0, "the deprecated Action.fcurves proxy was used on a slotted action"


def test_4_4_groups_curves_through_the_channelbag_groups():
    _, fc, obj, act, _, _ = imported("4.4")
    bag = act.layers[0].strips[0].channelbag(act.slots[0])
    news = [c for c in bag.fcurves.calls if c[0] == "new"]
    assert news and all(kw == {} for _, _, _, kw in news), "4.4's fcurves.new has no group_name"
    assert {g.name for g in bag.groups} == {"Spine1", "Object Transforms"}
    spine = [c for c in bag.fcurves if c.data_path == PATH]
    assert all(c.group is bag.groups.get("Spine1") for c in spine)


def test_5_0_groups_curves_with_group_name():
    _, fc, obj, act, _, _ = imported("5.0")
    bag = act.layers[0].strips[0].channelbag(act.slots[0])
    news = [c for c in bag.fcurves.calls if c[0] == "new"]
    assert news and all(set(kw) == {"group_name"} for _, _, _, kw in news)
    with pytest.raises(AttributeError):
        act.fcurves  # noqa: B018 (removed in 5.0: the module must not need it)


@pytest.mark.parametrize("shape", ["4.4", "5.0"])
def test_reading_an_action_with_nothing_for_the_object(shape):
    bpy, fc = load_fcurves(shape)
    obj = anim_api_double.Object("Armature")
    act = fc.new_action("empty")
    assert fc.collection(act, obj) is None
    assert fc.curves_of(act, obj, PATH, 4) is None
    assert fc.data_paths(act, obj) == set()
    assert not act.layers, "reading must not create layers, strips or slots"
    assert not act.slots


@pytest.mark.parametrize("shape", ["4.4", "5.0"])
def test_the_assigned_slot_is_the_one_read(shape):
    """An action with two object slots: the object's assigned slot is the one read and written."""
    _, fc = load_fcurves(shape)
    act = fc.new_action("two")
    first, second = act.slots.new(id_type="OBJECT", name="A"), act.slots.new(id_type="OBJECT", name="B")
    obj = anim_api_double.Object("B")
    obj.animation_data_create()
    obj.animation_data.action = act
    obj.animation_data.action_slot = second
    fc.write(act, obj, "location", np.array([0.0]), np.zeros((1, 3)))
    strip = act.layers[0].strips[0]
    assert strip.channelbag(first) is None
    assert len(strip.channelbag(second).fcurves) == 3

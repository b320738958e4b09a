"""The one module of the add-on that touches actions, slots, layers, strips, channelbags and
F-curves (docs/blender.md, "Blender versions and their animation API").

Chosen by feature, not by version number:
* an action without `slots` (Blender 3.4-4.3) keeps its curves on `Action.fcurves`, and
  `fcurves.new(data_path, index=, action_group=)` files a new curve in a group;
* an action with `slots` (4.4+: slotted, layered actions; 5.0 removed `Action.fcurves` and
  `Action.groups`) keeps them in the channelbag of the slot that animates the object:
  `action.layers[0].strips[0].channelbag(slot, ensure=True)`;
* that channelbag's `fcurves.new` takes `group_name=` where it has the parameter (5.0);
  before, the group is made with `channelbag.groups.new(name)` and set on the curve.
Ran in real Blender: 3.4 only (the legacy path). The slotted path ran against a test double of
the 4.4 and 5.0 API (tests/blender_addon/anim_api_double.py), never in Blender.
"""
import numpy as np

import bpy


def layered(action):
    """Whether `action` is a slotted (layered) action, the 4.4+ data model."""
    return hasattr(action, "slots") and hasattr(action, "layers")


def new_action(name):
    return bpy.data.actions.new(name)


def active_action(obj):
    """The action `obj` plays, or None."""
    ad = obj.animation_data if obj is not None else None
    return ad.action if ad is not None else None


def _slot(action, obj, create):
    """The slot of `action` animating `obj`: the one assigned to it, else the first object slot,
    else (create) a new one."""
    ad = obj.animation_data
    if ad is not None and ad.action == action and getattr(ad, "action_slot", None) is not None:
        return ad.action_slot
    for s in action.slots:
        if getattr(s, "target_id_type", "OBJECT") == "OBJECT":
            return s
    return action.slots.new(id_type="OBJECT", name=obj.name) if create else None


def _channelbag(action, obj, create):
    """The channelbag holding `obj`'s curves in a slotted action, or None."""
    slot = _slot(action, obj, create)
    if slot is None:
        return None
    if not action.layers:
        if not create:
            return None
        action.layers.new("Layer")
    layer = action.layers[0]
    if not layer.strips:
        if not create:
            return None
        layer.strips.new(type="KEYFRAME")
    return layer.strips[0].channelbag(slot, ensure=create)


def collection(action, obj, create=False):
    """The F-curves of `action` animating `obj` (an armature object): a collection with
    new(), remove() and iteration; None when the action has none for it and create is False."""
    if not layered(action):
        return action.fcurves
    bag = _channelbag(action, obj, create)
    return bag.fcurves if bag is not None else None


def assign(obj, action):
    """Make `action` the one `obj` plays (and, for a slotted action, the slot that animates it)."""
    if obj.animation_data is None:
        obj.animation_data_create()
    obj.animation_data.action = action
    if layered(action) and obj.animation_data.action_slot is None:
        obj.animation_data.action_slot = _slot(action, obj, True)


def curves_of(action, obj, data_path, count):
    """The `count` curves of one property (index order), or None when any is missing."""
    fcs = collection(action, obj)
    if fcs is None:
        return None
    found = [None] * count
    for fc in fcs:
        if fc.data_path == data_path and 0 <= fc.array_index < count:
            found[fc.array_index] = fc
    return found if all(found) else None


def any_curves(action, obj, data_path):
    fcs = collection(action, obj)
    return fcs is not None and any(fc.data_path == data_path for fc in fcs)


def data_paths(action, obj):
    fcs = collection(action, obj)
    return set() if fcs is None else {fc.data_path for fc in fcs}


def remove(action, obj, fc):
    collection(action, obj).remove(fc)


def _takes(collection_, function, parameter):
    """Whether `collection_.function` declares `parameter` (RNA introspection)."""
    try:
        params = collection_.bl_rna.functions[function].parameters
        return any(p.identifier == parameter for p in params)
    except (AttributeError, KeyError):
        return False


def _new_curve(action, obj, fcs, data_path, index, group):
    if not group:
        return fcs.new(data_path, index=index)
    if not layered(action):
        return fcs.new(data_path, index=index, action_group=group)
    if _takes(fcs, "new", "group_name"):  # 5.0
        return fcs.new(data_path, index=index, group_name=group)
    fc = fcs.new(data_path, index=index)  # 4.4, 4.5: the group made on the channelbag
    bag = _channelbag(action, obj, True)
    grp = bag.groups.get(group) or bag.groups.new(group)
    fc.group = grp
    return fc


def write(action, obj, data_path, frames, values, group=None):
    """New curves for one property: keys at `frames` (K) with `values` (K, n), LINEAR, replacing
    any curves the action had for it."""
    fcs = collection(action, obj, create=True)
    for fc in [fc for fc in fcs if fc.data_path == data_path]:
        fcs.remove(fc)
    frames = np.asarray(frames, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    co = np.empty(2 * len(frames), dtype=np.float64)
    co[0::2] = frames
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    for i in range(values.shape[1]):
        fc = _new_curve(action, obj, fcs, data_path, i, group)
        fc.keyframe_points.add(len(frames))
        co[1::2] = values[:, i]
        fc.keyframe_points.foreach_set("co", co)
        fc.keyframe_points.foreach_set("interpolation", [linear] * len(frames))
        fc.update()


def live_modifiers(fc):
    """The F-curve's modifiers that change its value (not muted)."""
    return [m for m in fc.modifiers if not m.mute]


def live_nla_strips(obj):
    """(track name, strip name) of every NLA strip that plays on `obj` (track and strip not muted)."""
    ad = obj.animation_data
    if ad is None:
        return []
    return [(t.name, s.name) for t in ad.nla_tracks if not t.mute for s in t.strips if not s.mute]


def drivers(obj):
    ad = obj.animation_data
    return [d.data_path for d in ad.drivers] if ad is not None else []


def evaluate(fc, frame):
    return fc.evaluate(frame)


def keyframes(fc):
    """(frames, values) of a curve's keyframe points, float64."""
    n = len(fc.keyframe_points)
    co = np.empty(2 * n, dtype=np.float32)
    fc.keyframe_points.foreach_get("co", co)
    return co[0::2].astype(np.float64), co[1::2].astype(np.float64)

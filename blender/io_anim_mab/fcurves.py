"""The one place the add-on reaches an action's F-curves.

Blender up to 4.3 keeps them on Action.fcurves. 4.4 introduced slotted (layered) actions: the
curves live in a channelbag per slot, Action.fcurves remaining as a proxy for the first slot;
5.0 removed that proxy. Tested on Debian's Blender 3.4 (docs/blender.md says which paths were
run where); the slotted path follows the 4.4/5.0 API reference.
"""
import bpy

_SLOTTED = bpy.app.version >= (4, 4, 0)


def _slot(action, obj, create):
    ad = obj.animation_data
    if ad is not None and ad.action == action and getattr(ad, "action_slot", None) is not None:
        return ad.action_slot
    for s in action.slots:
        if getattr(s, "target_id_type", "OBJECT") == "OBJECT":
            return s
    return action.slots.new(id_type="OBJECT", name=obj.name) if create else None


def collection(action, obj, create=False):
    """The F-curves of `action` animating `obj` (an armature object): a collection with
    new(data_path, index=...), iteration and find(); None when the action has none for it
    and create is False."""
    if not _SLOTTED:
        return action.fcurves
    from bpy_extras import anim_utils
    slot = _slot(action, obj, create)
    if slot is None:
        return None
    if create and hasattr(anim_utils, "action_ensure_channelbag_for_slot"):
        return anim_utils.action_ensure_channelbag_for_slot(action, slot).fcurves
    bag = anim_utils.action_get_channelbag_for_slot(action, slot)
    if bag is None and create:
        layer = action.layers[0] if action.layers else action.layers.new("Layer")
        strip = layer.strips[0] if layer.strips else layer.strips.new(type="KEYFRAME")
        bag = strip.channelbags.new(slot)
    return bag.fcurves if bag is not None else None


def assign(obj, action):
    """Make `action` the one `obj` plays (and, from 4.4, the slot that animates it)."""
    if obj.animation_data is None:
        obj.animation_data_create()
    obj.animation_data.action = action
    if _SLOTTED and obj.animation_data.action_slot is None:
        slot = _slot(action, obj, True)
        obj.animation_data.action_slot = slot


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


def write(action, obj, data_path, frames, values, group=None):
    """New curves for one property: keys at `frames` (K) with `values` (K, n), LINEAR, replacing
    any curves the action had for it."""
    fcs = collection(action, obj, create=True)
    for fc in [fc for fc in fcs if fc.data_path == data_path]:
        fcs.remove(fc)
    import numpy as np
    frames = np.asarray(frames, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    co = np.empty(2 * len(frames), dtype=np.float64)
    co[0::2] = frames
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    for i in range(values.shape[1]):
        kw = {"index": i}
        if group:
            kw["action_group" if not _SLOTTED else "group_name"] = group
        try:
            fc = fcs.new(data_path, **kw)
        except TypeError:  # a version without the group argument
            fc = fcs.new(data_path, index=i)
        fc.keyframe_points.add(len(frames))
        co[1::2] = values[:, i]
        fc.keyframe_points.foreach_set("co", co)
        fc.keyframe_points.foreach_set("interpolation", [linear] * len(frames))
        fc.update()


def keyframes(fc):
    """(frames, values) of a curve's keyframe points, float64."""
    import numpy as np
    n = len(fc.keyframe_points)
    co = np.empty(2 * n, dtype=np.float32)
    fc.keyframe_points.foreach_get("co", co)
    return co[0::2].astype(np.float64), co[1::2].astype(np.float64)

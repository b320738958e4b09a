"""A TEST DOUBLE of Blender's animation API, not Blender: just enough of `bpy` for
blender/io_anim_mab/fcurves.py, in three shapes written from the API documentation:

* "3.4": actions without slots, curves on Action.fcurves, fcurves.new(action_group=);
* "4.4": slotted actions (slots, layers, strips, strip.channelbag(slot, ensure=)), Action.fcurves
  kept as a deprecated proxy (which the double counts when it is used), channelbag.fcurves.new()
  without group_name, channelbag.groups.new(name);
* "5.0": as 4.4, Action.fcurves and Action.groups removed, channelbag.fcurves.new(group_name=).

It checks the module's choices (which calls it makes on which shape); whether Blender 4.4 or 5.0
behaves as written here is not tested by it (docs/blender.md says what ran in real Blender).
"""
import types


class _Param:
    def __init__(self, identifier):
        self.identifier = identifier


class _Function:
    def __init__(self, params):
        self.parameters = [_Param(p) for p in params]


class _RNA:
    def __init__(self, functions):
        self.functions = {name: _Function(params) for name, params in functions.items()}


class Keyframes:
    def __init__(self):
        self.co, self.interpolation = [], []

    def add(self, n):
        self.co += [(0.0, 0.0)] * n
        self.interpolation += [0] * n

    def foreach_set(self, attr, seq):
        seq = list(seq)
        if attr == "co":
            self.co = [(float(seq[2 * i]), float(seq[2 * i + 1])) for i in range(len(seq) // 2)]
        else:
            self.interpolation = seq

    def foreach_get(self, attr, out):
        flat = [v for p in self.co for v in p]
        for i, v in enumerate(flat):
            out[i] = v

    def __len__(self):
        return len(self.co)


class FCurve:
    def __init__(self, data_path, index, group=None):
        self.data_path, self.array_index, self.group = data_path, index, group
        self.keyframe_points = Keyframes()

    def update(self):
        self.co_sorted = sorted(self.keyframe_points.co)

    def evaluate(self, frame):
        pts = sorted(self.keyframe_points.co)
        if frame <= pts[0][0]:
            return pts[0][1]
        for (f0, v0), (f1, v1) in zip(pts, pts[1:]):
            if f0 <= frame <= f1:
                return v0 + (v1 - v0) * (frame - f0) / (f1 - f0)
        return pts[-1][1]


class Group:
    def __init__(self, name):
        self.name = name


class Groups(list):
    def new(self, name):
        g = Group(name)
        self.append(g)
        return g

    def get(self, name):
        return next((g for g in self if g.name == name), None)


class FCurves(list):
    """Action.fcurves (3.4) or a channelbag's fcurves (4.4, 5.0)."""

    def __init__(self, shape, owner_groups):
        super().__init__()
        self.shape, self.owner_groups = shape, owner_groups
        params = ["data_path", "index"] + (["action_group"] if shape == "3.4" else
                                           ["group_name"] if shape == "5.0" else [])
        self.bl_rna = _RNA({"new": params, "remove": ["fcurve"]})
        self.calls = []

    def new(self, data_path, index=0, **kw):
        allowed = {p.identifier for p in self.bl_rna.functions["new"].parameters}
        for k in kw:
            if k not in allowed:
                raise TypeError("FCurves.new(): unexpected keyword '%s' (shape %s)" % (k, self.shape))
        self.calls.append(("new", data_path, index, dict(kw)))
        group = kw.get("action_group") or kw.get("group_name")
        g = None
        if group:
            g = self.owner_groups.get(group) or self.owner_groups.new(group)
        fc = FCurve(data_path, index, g)
        self.append(fc)
        return fc

    def remove(self, fc):
        list.remove(self, fc)


class Slot:
    def __init__(self, id_type, name):
        self.target_id_type, self.name = id_type, name


class Slots(list):
    def new(self, id_type="OBJECT", name=""):
        s = Slot(id_type, name)
        self.append(s)
        return s


class Channelbag:
    def __init__(self, shape, slot):
        self.slot = slot
        self.groups = Groups()
        self.fcurves = FCurves(shape, self.groups)


class Strip:
    def __init__(self, shape):
        self.shape, self.bags = shape, {}

    def channelbag(self, slot, ensure=False):
        if id(slot) not in self.bags and ensure:
            self.bags[id(slot)] = Channelbag(self.shape, slot)
        return self.bags.get(id(slot))


class Strips(list):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def new(self, type="KEYFRAME"):
        s = Strip(self.shape)
        self.append(s)
        return s


class Layer:
    def __init__(self, shape, name):
        self.name, self.strips = name, Strips(shape)


class Layers(list):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def new(self, name):
        layer = Layer(self.shape, name)
        self.append(layer)
        return layer


class LegacyAction:
    def __init__(self, name):
        self.name = name
        self.groups = Groups()
        self.fcurves = FCurves("3.4", self.groups)


class SlottedAction:
    def __init__(self, shape, name):
        self.name, self.shape = name, shape
        self.slots = Slots()
        self.layers = Layers(shape)
        self.legacy_proxy_uses = 0

    def __getattr__(self, attr):
        if attr in ("fcurves", "groups"):
            if self.shape == "5.0":
                raise AttributeError("'Action' object has no attribute '%s' (removed in 5.0)" % attr)
            self.legacy_proxy_uses += 1  # 4.4: deprecated proxy of the first slot
            bag = self.layers[0].strips[0].channelbag(self.slots[0]) if self.layers and self.slots else None
            return getattr(bag, attr) if bag is not None else FCurves(self.shape, Groups())
        raise AttributeError(attr)


class AnimData:
    def __init__(self):
        self.action = None
        self.action_slot = None


class Object:
    def __init__(self, name):
        self.name = name
        self.animation_data = None

    def animation_data_create(self):
        self.animation_data = AnimData()
        return self.animation_data


def make_bpy(shape):
    """A `bpy` module double of the given shape ("3.4", "4.4" or "5.0")."""
    assert shape in ("3.4", "4.4", "5.0")
    bpy = types.ModuleType("bpy")
    bpy.app = types.SimpleNamespace(version=tuple(int(x) for x in shape.split(".")) + (0,))
    actions = []

    def new_action(name):
        a = LegacyAction(name) if shape == "3.4" else SlottedAction(shape, name)
        actions.append(a)
        return a
    bpy.data = types.SimpleNamespace(actions=types.SimpleNamespace(new=new_action, all=actions))
    linear = types.SimpleNamespace(value=1)
    interp = types.SimpleNamespace(enum_items={"LINEAR": linear})
    bpy.types = types.SimpleNamespace(Keyframe=types.SimpleNamespace(
        bl_rna=types.SimpleNamespace(properties={"interpolation": interp})))
    bpy.double_shape = shape
    return bpy

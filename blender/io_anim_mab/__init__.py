"""Dunia/Disrupt animation (.mab) import and export for Blender, on the mabkit library.

File > Import / Export > Dunia/Disrupt animation (.mab). docs/blender.md tells the whole
workflow; README.md, "Blender add-on", the short version.
"""
bl_info = {
    "name": "Dunia/Disrupt animation (.mab)",
    "author": "mabkit",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import / Export > Dunia/Disrupt animation (.mab)",
    "description": "Import .mab clips of Far Cry 2-5 / New Dawn and Watch Dogs 1, 2, Legion onto an "
                   "armature, edit them, and write them back with mabkit",
    "category": "Import-Export",
}

import os  # noqa: E402

import bpy  # noqa: E402
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty  # noqa: E402
from bpy_extras.io_utils import ExportHelper, ImportHelper  # noqa: E402

REST_ITEMS = [
    ("AUTO", "Automatic", "Bind rotations stored on the bones (community importer) when present; "
     "the glTF file when one is given; otherwise the Blender rest is the bind"),
    ("BONES", "Blender rest", "Each bone's Blender rest frame is its joint's bind frame (armatures "
     "this add-on builds)"),
    ("BIND", "Bind on bones", "Bones carry their parent-relative bind rotation (the community Dunia "
     "importer's Far Cry 3/4/5 models); joints at the bone heads"),
    ("GLTF", "From glTF", "The joints' rest from a glTF file (the one Blender imported the armature "
     "from, e.g. a `mab export --skeleton` output)"),
]
FAMILY_ITEMS = [
    ("AUTO", "Automatic", "Vote on bones whose bind turns more than 40 degrees: a first key nearer "
     "identity than the bind means the clip was authored against an identity bind"),
    ("CHARACTER", "Character bind", "The clip stores each joint's full local rotation"),
    ("IDENTITY", "Identity bind", "The clip stores rotations relative to the joint's bind"),
]


def _prefs(context):
    addon = context.preferences.addons.get(__name__)
    return addon.preferences if addon else None


def _mab_path(context):
    p = _prefs(context)
    return bpy.path.abspath(p.mab_path) if p and p.mab_path else ""


class MabPreferences(bpy.types.AddonPreferences):
    bl_idname = __name__

    mab_path: StringProperty(
        name="mab executable", subtype="FILE_PATH", default="",
        description="The `mab` program the add-on runs (mab.exe on Windows). Empty: the one bundled "
                    "in the add-on, else `mab` on PATH")

    def draw(self, context):
        from . import mabexe
        self.layout.prop(self, "mab_path")
        try:
            m = mabexe.Mab(_mab_path(context))
            self.layout.label(text="%s (%s: %s)" % (m.version(), m.where, m.path))
        except mabexe.MabError as e:
            self.layout.label(text=str(e)[:150], icon="ERROR")


_block_cache = {}


def _block_lines(path, mtime, mab_path):
    """What the import dialog shows of the selected file (read once per file and change: the
    dialog redraws often)."""
    key = (path, mtime, mab_path)
    if key not in _block_cache:
        from . import mabexe
        try:
            info = mabexe.Mab(mab_path).info(path)
            lines = ["%s: %d block(s)" % (info.get("game", "?"), len(info.get("blocks", [])))]
            lines += ["%d: %s, %d bones" % (i, b.get("signature") or info.get("layout", "?"), b.get("bone_count", 0))
                      for i, b in enumerate(info.get("blocks", []))]
        except mabexe.MabError as e:  # shown, not raised: the dialog must stay usable
            lines = ["! " + str(e)[:100]]
        _block_cache.clear()
        _block_cache[key] = lines
    return _block_cache[key]


def _report_all(op, report):
    for level, text in report.lines:
        op.report({level}, text)
        print("mabkit:", text)


class IMPORT_ANIM_OT_mab(bpy.types.Operator, ImportHelper):
    """Import a Dunia/Disrupt .mab animation onto an armature"""
    bl_idname = "import_anim.mab"
    bl_label = "Import .mab"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".mab"
    filter_glob: StringProperty(default="*.mab", options={"HIDDEN"})
    blocks: StringProperty(name="Blocks", default="all",
                           description="Blocks to import: 'all', or numbers and ranges such as 0,2-3")
    target: EnumProperty(name="Onto", default="AUTO", items=[
        ("AUTO", "Selected, else new", "The selected armature when there is one (as Selected armature), "
         "otherwise a new armature built from the file (as New armature)"),
        ("SELECTED", "Selected armature", "The active (or only selected) armature; bones matched by "
         "the CRC-32 of their names (Far Cry 2/3: by bone id)"),
        ("NEW", "New armature", "An armature built from the file: names from the names file, "
         "hierarchy and rest from the glTF skeleton when given")])
    names_path: StringProperty(name="Names file", subtype="FILE_PATH", default="",
                               description="One bone name per line. 'aNi' games: names whose CRC-32 "
                                           "matches a bone; Far Cry 2/3: line N names bone id N")
    gltf_path: StringProperty(name="glTF skeleton / rest", subtype="FILE_PATH", default="",
                              description="New armature: its hierarchy and rest. Selected armature: "
                                          "the joints' rest (rig imported from a glTF)")
    rest_mode: EnumProperty(name="Rest", default="AUTO", items=REST_ITEMS,
                            description="How the selected armature's rest relates to the game's bind")
    family: EnumProperty(name="Bind family", default="AUTO", items=FAMILY_ITEMS)
    root_motion: EnumProperty(name="Root motion", default="OBJECT", items=[
        ("OBJECT", "On the armature object", "Key the clip's root motion on the object's location "
         "and rotation, relative to where it stands now"),
        ("SKIP", "Skip", "Do not key it; the export keeps the file's root motion")])
    set_scene: BoolProperty(name="Set scene frame rate", default=True,
                            description="Scene frame rate = the clip's key rate (every key on a whole "
                                        "frame) and the frame range to the clip's keys")

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "blocks")
        self._draw_blocks(context, layout)
        layout.prop(self, "target")
        layout.prop(self, "names_path")
        layout.prop(self, "gltf_path")
        if self.target != "NEW":
            layout.prop(self, "rest_mode")
        layout.prop(self, "family")
        layout.prop(self, "root_motion")
        layout.prop(self, "set_scene")

    def _draw_blocks(self, context, layout):
        path = self.filepath
        if not path.lower().endswith(".mab") or not os.path.isfile(path):
            return
        lines = _block_lines(path, os.path.getmtime(path), _mab_path(context))
        box = layout.box()
        for i, text in enumerate(lines[:13]):
            box.label(text=text, icon="ERROR" if text.startswith("!") else "NONE")

    def execute(self, context):
        from . import importer
        opts = importer.Options(blocks=self.blocks, target=self.target, names_path=self.names_path,
                                gltf_path=self.gltf_path, rest_mode=self.rest_mode, family=self.family,
                                root_motion=self.root_motion, set_scene=self.set_scene,
                                mab_path=_mab_path(context))
        if context.mode != "OBJECT" and context.active_object is not None:
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            report, _ = importer.run(context, self.filepath, opts)
        except importer.ImportFailed as e:
            self.report({"ERROR"}, str(e))
            print("mabkit: import failed:", e)
            return {"CANCELLED"}
        _report_all(self, report)
        return {"FINISHED"}


class EXPORT_ANIM_OT_mab(bpy.types.Operator, ExportHelper):
    """Write the active armature's action back into its .mab"""
    bl_idname = "export_anim.mab"
    bl_label = "Export .mab"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".mab"
    filter_glob: StringProperty(default="*.mab", options={"HIDDEN"})
    template_path: StringProperty(name="Template .mab", subtype="FILE_PATH", default="",
                                  description="The file the action came from (empty: the one the "
                                              "action remembers)")
    block: IntProperty(name="Block", default=-1, min=-1,
                       description="Block to write (-1: the one the action remembers)")
    max_error: FloatProperty(name="Max error (degrees)", default=0.01, min=1e-6, max=10.0, precision=4,
                             description="Edited keys are re-quantised within this angle")
    max_translation_error: FloatProperty(name="Max translation error (units)", default=0.001, min=1e-6, max=100.0,
                                         precision=6,
                                         description="Re-quantised translation keys (edited, or moved into "
                                                     "another chunk by a new key time) land within this "
                                                     "distance in file units, as `mab import "
                                                     "--max-translation-error`; what the format cannot hold "
                                                     "within it stops the export, naming the bound that would")
    match_tolerance: FloatProperty(name="Match tolerance (degrees)", default=0.001, min=0.0, max=1.0,
                                   precision=5,
                                   description="A key within this angle of the template's is the "
                                               "template's, bit for bit (Blender keeps float32)")
    in_place: BoolProperty(name="Overwrite the template (keep a .bak)", default=False,
                           description="Allow the output to be the template itself, as `mab import --in-place`: "
                                       "the template is first copied to FILE.bak (FILE.bak.1, ... when taken)")
    bake: BoolProperty(name="Bake the evaluated pose", default=False,
                       description="Constraints, F-curve modifiers (Noise...), NLA strips or drivers move "
                                   "the bones away from the action's keys: write the pose the viewport shows "
                                   "at each key time instead (without this, such an export is refused, "
                                   "naming what would be ignored)")
    match_units: FloatProperty(name="Match tolerance (units)", default=1e-5, min=0.0, max=0.1, precision=6,
                               description="Translations: per component, relative to max(1, |value|)")

    def invoke(self, context, event):
        from . import exporter
        act = exporter.active_action(context)
        if act is not None and act.get("mabkit_source"):
            stem = os.path.splitext(os.path.basename(act["mabkit_source"]))[0]
            self.filepath = os.path.join(os.path.dirname(act["mabkit_source"]), stem + "_edit.mab")
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        from . import exporter
        opts = exporter.Options(template_path=self.template_path, block=self.block, max_error=self.max_error,
                                max_translation_error=self.max_translation_error,
                                match_tolerance=self.match_tolerance, match_units=self.match_units,
                                in_place=self.in_place, bake=self.bake,
                                mab_path=_mab_path(context))
        try:
            report = exporter.run(context, self.filepath, opts)
        except exporter.ExportFailed as e:
            self.report({"ERROR"}, str(e))
            print("mabkit: export failed:", e)
            return {"CANCELLED"}
        _report_all(self, report)
        return {"FINISHED"}


def menu_import(self, context):
    self.layout.operator(IMPORT_ANIM_OT_mab.bl_idname, text="Dunia/Disrupt animation (.mab)")


def menu_export(self, context):
    self.layout.operator(EXPORT_ANIM_OT_mab.bl_idname, text="Dunia/Disrupt animation (.mab)")


CLASSES = (MabPreferences, IMPORT_ANIM_OT_mab, EXPORT_ANIM_OT_mab)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)

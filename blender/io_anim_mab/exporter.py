"""File > Export > Dunia/Disrupt animation (.mab): the work behind the operator.

The active action is written into the block it was imported from (or the template chosen in
the dialog). Every clip bone is read back from the action at the clip's key frames through the
rest convention the import used; a value within the match tolerance of the template's is the
template's float exactly, so mabkit keeps its codes (an unedited action gives the template's
bytes). Keys on frames the clip lacks are added. Anything the action animates that the file
cannot hold stops the export with the reason (docs/blender.md, "What the export refuses").
"""
import os

import bpy
import numpy as np

from . import clipdata, fcurves, importer, mabexe, matching, qmath, rests, rig
from .qmath import Rigid

FRAME_EPS = 1e-3  # a keyframe this close to a whole frame is on it


class ExportFailed(Exception):
    pass


class Options:
    def __init__(self, **kw):
        self.template_path = kw.get("template_path", "")
        self.block = kw.get("block", -1)
        self.max_error = kw.get("max_error", 0.01)
        self.max_translation_error = kw.get("max_translation_error", 0.001)
        self.match_tolerance = kw.get("match_tolerance", 1e-3)
        self.match_units = kw.get("match_units", 1e-5)
        self.in_place = kw.get("in_place", False)
        self.bake = kw.get("bake", False)
        self.mab_path = kw.get("mab_path", "")


def active_action(context):
    arm = importer.selected_armature(context)
    return fcurves.active_action(arm) if arm is not None else None


# --- reading the action ----------------------------------------------------------------------

class Curves:
    """One property's curves (rotation_quaternion: 4, location: 3) sampled at frames: the
    keyframe's value where one is, the curve's evaluation elsewhere."""

    def __init__(self, curves):
        self.curves = curves
        self.keys = [fcurves.keyframes(fc) for fc in curves]

    def frames(self):
        return np.unique(np.concatenate([f for f, _ in self.keys])) if self.keys else np.zeros(0)

    def keyed_at(self, frames):
        """Per frame: whether any of the curves has a keyframe on it."""
        frames = np.asarray(frames, dtype=np.float64)
        hit = np.zeros(len(frames), dtype=bool)
        for kf, _ in self.keys:
            if len(kf):
                i = np.clip(np.searchsorted(kf, frames), 0, len(kf) - 1)
                j = np.maximum(i - 1, 0)
                hit |= (np.abs(kf[i] - frames) < 1e-6) | (np.abs(kf[j] - frames) < 1e-6)
        return hit

    def sample(self, frames):
        frames = np.asarray(frames, dtype=np.float64)
        out = np.empty((len(frames), len(self.curves)))
        for c, (fc, (kf, kv)) in enumerate(zip(self.curves, self.keys)):
            if len(kf) == 0:
                out[:, c] = [fcurves.evaluate(fc, f) for f in frames]
                continue
            # The keyframe's own value where one sits on the frame (exact), else the curve.
            near = np.clip(np.searchsorted(kf, frames), 1, len(kf)) - 1
            nxt = np.minimum(near + 1, len(kf) - 1)
            pick = np.where(np.abs(kf[nxt] - frames) < np.abs(kf[near] - frames), nxt, near)
            hit = np.abs(kf[pick] - frames) < 1e-6
            out[:, c] = np.where(hit, kv[pick], 0.0)
            for k in np.nonzero(~hit)[0]:
                out[k, c] = fcurves.evaluate(fc, frames[k])
        return out


class Baker:
    """The evaluated pose (constraints, F-curve modifiers, NLA, drivers applied) as each bone's
    basis, read once per frame: what the viewport shows, as if keyed without them."""

    def __init__(self, context, arm):
        self.scene, self.arm, self.cache = context.scene, arm, {}
        self.start = self.scene.frame_current

    def at(self, frame):
        frame = int(round(frame))
        if frame not in self.cache:
            self.scene.frame_set(frame)
            pose = {}
            for pb in self.arm.pose.bones:
                m = self.arm.convert_space(pose_bone=pb, matrix=pb.matrix, from_space="POSE", to_space="LOCAL")
                pose[pb.name] = (np.array(m.to_quaternion(), dtype=np.float64),
                                 np.array(m.translation, dtype=np.float64))
            self.cache[frame] = pose
        return self.cache[frame]

    def done(self):
        self.scene.frame_set(self.start)


class BakedCurves:
    """A bone's rotation or location as the Baker evaluates it, with the keyframes (new key times)
    of its curves when it has any."""

    def __init__(self, baker, name, which, curves):
        self.baker, self.name, self.which, self.curves = baker, name, which, curves

    def frames(self):
        return self.curves.frames() if self.curves else np.zeros(0)

    def keyed_at(self, frames):
        return self.curves.keyed_at(frames) if self.curves else np.zeros(len(frames), dtype=bool)

    def sample(self, frames):
        return np.array([self.baker.at(f)[self.name][self.which] for f in frames])


def _curves(ctx, action, arm, name, prop, count, baked_anyway):
    """A bone's curves for the export: its F-curves, or with the bake option the evaluated pose
    (for every bone whose rotation, or translation the file stores, could be moved by it)."""
    c = _bone_curves(action, arm, name, prop, count)
    if ctx.baker is not None and (c is not None or baked_anyway):
        return BakedCurves(ctx.baker, name, 0 if prop == "rotation_quaternion" else 1, c)
    return c


def _ignored_by_export(action, arm):
    """What makes the viewport pose differ from the action's keys, which the export reads."""
    out = []
    for c in arm.constraints:
        if not c.mute and c.influence > 0:
            out.append("object constraint '%s' (%s)" % (c.name, c.type))
    for pb in arm.pose.bones:
        for c in pb.constraints:
            if not c.mute and c.influence > 0:
                out.append("bone %s: constraint '%s' (%s)" % (pb.name, c.name, c.type))
    fcs = fcurves.collection(action, arm)
    for fc in fcs if fcs is not None else []:
        for m in fcurves.live_modifiers(fc):
            out.append("%s modifier on %s[%d]" % (m.type, fc.data_path, fc.array_index))
    for track, strip in fcurves.live_nla_strips(arm):
        out.append("NLA track '%s' strip '%s'" % (track, strip))
    for path in fcurves.drivers(arm):
        out.append("driver on %s" % path)
    return out


def _bone_curves(action, arm, name, prop, count):
    found = fcurves.curves_of(action, arm, 'pose.bones["%s"].%s' % (bpy.utils.escape_identifier(name), prop), count)
    return Curves(found) if found else None


def _check_curves(action, arm, match_names, report):
    """Refuses what the file cannot hold: Euler or axis-angle rotations, scale, curves on bones
    the clip does not have. Returns nothing; raises ExportFailed."""
    fcs = fcurves.collection(action, arm)
    if fcs is None:
        raise ExportFailed("action '%s' has no curves for %s" % (action.name, arm.name))
    foreign, problems = set(), {}  # one reason per bone and property
    for fc in fcs:
        path = fc.data_path
        if not path.startswith("pose.bones["):
            continue
        try:
            name = path[len('pose.bones["'):path.index('"]')]
        except ValueError:
            continue
        name = name.replace('\\"', '"').replace("\\\\", "\\")
        prop = path[path.index('"]') + 3:]
        _, values = fcurves.keyframes(fc)
        if prop in ("rotation_euler", "rotation_axis_angle"):
            problems[name, prop] = ("%s has %s keys: the file stores quaternions; set the bone's rotation mode "
                                    "to Quaternion and key it again" % (name, prop))
        elif prop == "scale" and np.any(np.abs(values - 1.0) > 1e-6):
            problems[name, prop] = ("%s has scale keys away from 1: .mab clips store no scale; clear them "
                                    "(Alt+S, then delete the scale keys)" % name)
        elif prop in ("rotation_quaternion", "location") and name not in match_names:
            foreign.add(name)
    problems = list(problems.values())
    if foreign:
        problems.append("bones animated in the action but not in the block: %s. The export does not add "
                        "bones to a clip: delete their keys, or add the bone with `mab edit FILE --add-bone NAME "
                        "0,0,0,1 -o NEW.mab` and import NEW.mab" % importer.short_list(sorted(foreign)))
    if problems:
        raise ExportFailed("; ".join(problems))


def _new_frames(known, curve_sets):
    """Keyframe frames of the curves that are not in `known` (whole frames), sorted; raises on
    frames between whole frames or before 0."""
    known = np.asarray(known, dtype=np.int64)
    new = []
    for label, cs in curve_sets:
        f = cs.frames()
        r = np.round(f)
        off = np.nonzero(np.abs(f - r) > FRAME_EPS)[0]
        if len(off):
            raise ExportFailed("%s has a keyframe at frame %g: the clip's keys are whole frames at its "
                               "key rate; snap it (Key > Snap > Selection to Nearest Frame)" % (label, f[off[0]]))
        if len(r) and r.min() < 0:
            raise ExportFailed("%s has a keyframe at frame %d: key times start at frame 0" % (label, r.min()))
        new.append(np.setdiff1d(r.astype(np.int64), known))
    return [int(x) for x in np.unique(np.concatenate(new))] if new else []


def _snap_rotations(sampled, template, tol_deg):
    """Keys within tol_deg of the template's take its floats exactly (so mabkit keeps their
    codes); returns (values float32, changed mask)."""
    same = qmath.angle_deg(sampled, template) <= tol_deg
    out = np.where(same[:, None], template, sampled).astype(np.float32)
    return out, ~same


def _snap_vectors(sampled, template, tol):
    scale = np.maximum(1.0, np.abs(template))
    near = np.abs(sampled - template) <= tol * scale
    return np.where(near, template, sampled).astype(np.float32), ~near.all(axis=1)


# --- a block's clip ----------------------------------------------------------------------------

def _timeline(old_times, new_frames):
    times = np.union1d(old_times, np.asarray(new_frames, dtype=np.int64))
    return times, np.searchsorted(times, old_times)


def _fill(old_times, old_values, times, at_old, rotation):
    """A track on the new timeline: the old keys where they were, interpolated between them."""
    out = qmath.sample_keys(old_times, old_values, times, rotation)
    out[at_old] = old_values
    return out


def _root_motion_sampled(action, arm, frames, o_rest, g0):
    """The game-world root motion the object's curves give at `frames`, or None without curves."""
    loc = fcurves.curves_of(action, arm, "location", 3)
    rot = fcurves.curves_of(action, arm, "rotation_quaternion", 4)
    if loc is None and rot is None:
        return None
    k = len(frames)
    t = Curves(loc).sample(frames) if loc else np.broadcast_to(o_rest.t, (k, 3))
    q = qmath.qnormalize(Curves(rot).sample(frames)) if rot else np.broadcast_to(o_rest.q, (k, 4))
    rm = g0.inverted() @ o_rest.inverted() @ Rigid(q, t) @ g0
    return qmath.wxyz_to_xyzw(qmath.qnormalize(rm.q)), rm.t


def _object_curve_sets(action, arm):
    out = []
    for prop, n in (("location", 3), ("rotation_quaternion", 4)):
        c = fcurves.curves_of(action, arm, prop, n)
        if c:
            out.append(("the object's " + prop, Curves(c)))
    return out


def _check_no_root_motion(action, arm, has_root, imported_root, report):
    paths = fcurves.data_paths(action, arm)
    moved = [p for p in ("location", "rotation_quaternion", "rotation_euler", "scale") if p in paths]
    if not moved:
        return
    if not has_root:
        report.warn("the object's %s curves are not written: this block stores no root motion" % ", ".join(moved))
    elif not imported_root:
        report.warn("the object's %s curves are not written: root motion was not imported on the object "
                    "(dialog), so the file's is kept" % ", ".join(moved))


def _export_rotation(action, arm, ctx, bone, name, rest, t):
    """One bone's rotation keys on the new timeline `t` (its frames, the keys the file had, their
    indices): (rotations, the bone's local rotations or None, key times moved)."""
    tmpl_times, times, at_old, at_old_mask, frames = t
    old_rot = bone.rotations if bone.rotations is not None else np.tile(
        np.array([0, 0, 0, 1], dtype=np.float32), (len(tmpl_times), 1))
    base = _fill(tmpl_times, old_rot, times, at_old, True)
    rc = _curves(ctx, action, arm, name, "rotation_quaternion", 4, True) if rest else None
    if rc is None:
        return base, None, np.zeros(len(times), dtype=bool)
    q = rest.file_rotation(rc.sample(frames), ctx.family)
    # A key time the clip gains from another bone's key: this bone, unkeyed there, gets the
    # file's own interpolation (what the game plays), not Blender's per-component curve.
    q = np.where((~at_old_mask & ~rc.keyed_at(frames))[:, None], base, q)
    q, moved = _snap_rotations(q, base, ctx.tol_deg)
    if bone.kind == "none" and not moved.any():
        q = base.astype(np.float32)
    return q, rest.local_rotation(q, ctx.family), moved


def _export_translation(action, arm, ctx, clip, b, bone, name, rest, local_q, t, out):
    """One bone's translation, keyed (into out's tr) or constant (into out's ctr); the key times it
    moved. Location keys on a bone the block stores no translation for, or that vary a constant
    one, raise ExportFailed."""
    tmpl_times, times, at_old, at_old_mask, frames = t
    tr, ctr, changed_bones = out
    lc = _curves(ctx, action, arm, name, "location", 3, bone.translations is not None) if rest else None
    none = np.zeros(len(times), dtype=bool)
    if bone.translations is not None:
        base_t = _fill(tmpl_times, bone.translations, times, at_old, False)
        if lc is None:
            tr[:, b] = base_t
            return none
        v = rest.file_translation(lc.sample(frames), local_q if rest.head_offset() > 0 else None)
        v = np.where((~at_old_mask & ~lc.keyed_at(frames))[:, None], base_t, v)
        v, moved = _snap_vectors(v, base_t, ctx.tol_units)
        if moved.any():
            changed_bones.append(name + " (translation)")
        tr[:, b] = v
        return moved
    if lc is None:
        return none
    v = rest.file_translation(lc.sample(frames), local_q if rest.head_offset() > 0 else None)
    ref = bone.constant_translation if bone.constant_translation is not None else rest.rest_location()
    snapped, moved = _snap_vectors(v, np.broadcast_to(ref, v.shape), ctx.tol_units)
    if moved.any() and bone.constant_translation is None:
        raise ExportFailed(
            "bone %s moves (location keys) but block %d stores no translation for it (%s); "
            "clear its location keys (Alt+G) to export" % (name, ctx.block, _translation_evidence(clip)))
    if moved.any():
        if np.all(snapped == snapped[:1]):
            ctr[b] = snapped[0]
            changed_bones.append(name + " (constant translation)")
        elif ctx.by_id:  # Far Cry 2/3 store it as a translation track (slot 5), as `mab import` makes it
            tr[:, b] = snapped
            ctr[b] = np.nan
            changed_bones.append(name + " (translation)")
        else:
            raise ExportFailed(
                "bone %s: its translation is constant in block %d and the action varies it; the "
                "file cannot make a constant translation animated here: keep it still" % (name, ctx.block))
    return none


def _curve_sets(action, arm, blk, match):
    """The curves whose keys make the clip's key times: (curve sets, whether root motion is written)."""
    sets = []
    for i, name in match.items():
        for prop, n in (("rotation_quaternion", 4), ("location", 3)):
            cs = _bone_curves(action, arm, name, prop, n)
            if cs is not None:
                sets.append(("bone " + name, cs))
    use_root = bool(action.get(importer.P_ROOT_MOTION)) and (blk.root_rotations is not None or
                                                             blk.root_translations is not None)
    if use_root:
        sets += _object_curve_sets(action, arm)
    return sets, use_root


def _check_length_kept(blk, sets):
    """Far Cry 2/3 clips (bones by id) hold every frame 0..last as a key time: a key after the last
    frame would change the clip's length, which the export does not do (docs/blender.md)."""
    last = int(blk.key_times[-1])
    for label, cs in sets:
        f = cs.frames()
        if len(f) and np.round(f).max() > last:
            raise ExportFailed("%s has a key at frame %g: a Far Cry 2/3 clip keeps whole frames 0..%d (its "
                               "length is not changed here)" % (label, np.round(f).max(), last))


def export_block(action, arm, ctx, blk, match, report):
    """The action read back onto the block's clip (every game): its keys at the clip's key times,
    keys on new frames added as key times; returns the edited clipdata.Clip."""
    tmpl_times = blk.key_times
    sets, use_root = _curve_sets(action, arm, blk, match)
    new = _new_frames(tmpl_times, sets)
    if blk.by_id:
        _check_length_kept(blk, sets)
    times, at_old = _timeline(tmpl_times, new)
    frames = times.astype(np.float64)
    at_old_mask = np.zeros(len(times), dtype=bool)
    at_old_mask[at_old] = True
    timeline = (tmpl_times, times, at_old, at_old_mask, frames)
    clip = blk.clip
    K, B = len(times), len(blk.bones)
    rot = np.empty((K, B, 4), dtype=np.float32)
    tr = np.full((K, B, 3), np.nan, dtype=np.float32)
    ctr = np.array(clip.constant_translations, dtype=np.float32, copy=True)
    changed_bones = []
    frame_moved = np.zeros(K, dtype=bool)  # a key time whose values differ from the file's
    for b, bone in enumerate(blk.bones):
        name = match.get(b)
        rest = ctx.rest_of.get(name) if name else None
        rot[:, b], local_q, moved = _export_rotation(action, arm, ctx, bone, name, rest, timeline)
        frame_moved |= moved
        if moved.any():
            changed_bones.append(name)
        frame_moved |= _export_translation(action, arm, ctx, clip, b, bone, name, rest, local_q, timeline,
                                           (tr, ctr, changed_bones))
    rr, rt, root_moved = _export_root_motion(action, arm, ctx, blk, times, at_old, use_root, report)
    # A key on a new frame that changes nothing (a location 0 / scale 1 key, or one equal to the
    # file's interpolation there) is no edit: that key time is not added.
    keep = at_old_mask | frame_moved | root_moved
    if not keep.all():
        dropped = [int(t) for t in times[~keep]]
        times, rot, tr = times[keep], rot[keep], tr[keep]
        rr = rr[keep] if rr is not None else None
        rt = rt[keep] if rt is not None else None
        new = [f for f in new if f not in dropped]
        report.info("block %d: keys at frame(s) %s change nothing (the file plays those values there): "
                    "no key time added for them" % (ctx.block, importer.short_list(dropped)))
    if len(times) and times[-1] > tmpl_times[-1] and blk.rate > 0:
        # Keys after the last one lengthen the clip: the header's duration is the last key's time.
        clip.duration = max(float(clip.duration), float(np.float32(times[-1] / blk.rate)))
    clip.key_times = times.astype(clip.key_times.dtype)
    clip.rotations = rot
    clip.translations = tr
    clip.constant_translations = ctr
    if rr is not None:
        clip.root_rotations = np.ascontiguousarray(rr, dtype=np.float32)
    if rt is not None:
        clip.root_translations = np.ascontiguousarray(rt, dtype=np.float32)
    report.info("block %d: %d key(s) added%s; bones changed: %s" % (
        ctx.block, len(new), (" at frames " + importer.short_list(new)) if new else "",
        importer.short_list(changed_bones) if changed_bones else "none"))
    return clip


def _translation_evidence(clip):
    ev = getattr(clip, "evidence", {}) or {}
    for k, v in ev.items():
        if "translation" in k:
            return "%s: %s" % (k.replace("_", " "), v)
    return "the file has no translation for it"


def _export_root_motion(action, arm, ctx, blk, times, at_old, use_root, report):
    """(root rotations, root translations, per-frame moved mask) on the new timeline; the
    arrays None where the block has none."""
    has_root = blk.root_rotations is not None or blk.root_translations is not None
    moved = np.zeros(len(times), dtype=bool)
    if not use_root:
        _check_no_root_motion(action, arm, has_root, use_root, report)
    if not has_root:
        return None, None, moved
    tmpl = blk.key_times
    rr = _fill(tmpl, blk.root_rotations, times, at_old, True) if blk.root_rotations is not None else None
    rt = _fill(tmpl, blk.root_translations, times, at_old, False) if blk.root_translations is not None else None
    if use_root:
        frames = times.astype(np.float64)
        got = _root_motion_sampled(action, arm, frames, ctx.o_rest, ctx.g0)
        if got is not None:
            q, t = got
            # New key times the object has no keyframe on play the file's interpolation.
            keyed = np.zeros(len(times), dtype=bool)
            for _, cs in _object_curve_sets(action, arm):
                keyed |= cs.keyed_at(frames)
            fill = np.ones(len(times), dtype=bool)
            fill[at_old] = False
            fill &= ~keyed
            if rr is not None:
                q = np.where(fill[:, None], rr, q)
                rr, moved_r = _snap_rotations(q, rr, ctx.tol_deg)
                moved |= moved_r
            elif np.any(qmath.angle_deg(q, np.array([0, 0, 0, 1.0])) > ctx.tol_deg):
                raise ExportFailed("the object turns, but block %d's root motion stores no rotation: "
                                   "remove the object's rotation keys" % ctx.block)
            if rt is not None:
                t = np.where(fill[:, None], rt, t)
                rt, moved_t = _snap_vectors(t, rt, ctx.tol_units)
                moved |= moved_t
            elif np.any(np.abs(t) > ctx.tol_units):
                raise ExportFailed("the object moves, but block %d's root motion stores no translation: "
                                   "remove the object's location keys" % ctx.block)
    return rr, rt, moved


# --- the whole export ------------------------------------------------------------------------

# mab's options in its error lines, and the export dialog's labels that set them.
DIALOG_LABELS = (("--in-place", "Overwrite the template (keep a .bak)"), ("--max-error", "Max error (degrees)"),
                 ("--max-translation-error", "Max translation error (units)"))


def _dialog_words(line):
    """mab's error line, with the dialog label of each mab option it names."""
    named = ["%s is '%s'" % (opt, label) for opt, label in DIALOG_LABELS if opt in line]
    return line + (" (in the export dialog: %s)" % "; ".join(named) if named else "")


class Context:
    pass


def run(context, out_path, opts):
    report = importer.Report()
    arm = importer.selected_armature(context)
    if arm is None:
        raise ExportFailed("select the armature whose action to export")
    action = fcurves.active_action(arm)
    if action is None:
        raise ExportFailed("%s plays no action: assign the imported action (Dope Sheet > Action Editor)" % arm.name)
    source = bpy.path.abspath(opts.template_path) if opts.template_path else action.get(importer.P_SOURCE, "")
    if not source:
        raise ExportFailed("action '%s' does not remember a .mab: choose the template in the dialog" % action.name)
    block = opts.block if opts.block >= 0 else int(action.get(importer.P_BLOCK, 0))
    try:
        mab = mabexe.Mab(opts.mab_path)
        raw = mab.export_json(source, block)
        doc, keys = clipdata.load_doc(raw)
    except mabexe.MabError as e:
        raise ExportFailed("template %s: %s" % (source, e))
    except ValueError as e:
        raise ExportFailed("template %s: mab export gave no JSON document: %s" % (source, e))
    info = clipdata.BlockInfo(block, doc)
    if not info.decodable:
        raise ExportFailed("block %d of %s does not decode: %s" % (block, source, info.reason))
    blk = clipdata.from_doc(doc, raw, keys)
    ctx = Context()
    ctx.block = block
    ctx.tol_deg, ctx.tol_units = opts.match_tolerance, opts.match_units
    ctx.family = action.get(importer.P_FAMILY, rig.CHARACTER)
    mode = action.get(importer.P_REST, "AUTO")
    w = action.get(importer.P_OBJECT_WORLD)
    world = np.array(list(w), dtype=np.float64).reshape(4, 4) if w else None
    try:
        ctx.rest_of, _, _, ctx.g0 = rests.armature_rests(arm, mode, action.get(importer.P_REST_GLTF, ""), world)
    except rests.RestError as e:
        raise ExportFailed(str(e))
    m = action.get(importer.P_OBJECT_REST)
    ctx.o_rest = Rigid.from_matrix(np.array(list(m), dtype=np.float64).reshape(4, 4)) if m else \
        importer.object_rest(arm)
    names_path = action.get(importer.P_NAMES, "") if blk.by_id else ""
    names = matching.read_names(names_path) if names_path and os.path.isfile(names_path) else []
    match, _ = matching.match_bones(list(arm.data.bones), blk, names)
    ctx.by_id = blk.by_id
    _check_curves(action, arm, set(match.values()), report)
    ctx.baker = None
    ignored = _ignored_by_export(action, arm)
    if ignored and not opts.bake:
        raise ExportFailed("the viewport shows a pose the action's keys do not, and the export reads the keys: %s "
                           "would be ignored. Tick 'Bake the evaluated pose' (bake=True) to write what the "
                           "viewport shows, or mute them" % importer.short_list(ignored, 4))
    if ignored:
        objects = [x for x in ignored if x.startswith("object constraint")]
        if objects:
            raise ExportFailed("%s: the bake writes bones' poses, not the object's; mute it (root motion "
                               "comes from the object's own keys)" % importer.short_list(objects, 4))
        ctx.baker = Baker(context, arm)
        report.info("baked the evaluated pose over %s" % importer.short_list(ignored, 4))
    try:
        edited = export_block(action, arm, ctx, blk, match, report)
    finally:
        if ctx.baker is not None:
            ctx.baker.done()
    out_path = os.path.abspath(bpy.path.abspath(out_path))
    try:
        lines = mab.import_json(edited.to_bytes(), source, out_path, opts.max_error,
                                max_translation_error=opts.max_translation_error, in_place=opts.in_place)
    except mabexe.MabError as e:
        raise ExportFailed(_dialog_words(str(e)))
    for line in lines:
        report.info(" ".join(line.split()))
    return report

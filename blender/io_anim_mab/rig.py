"""Rest conventions: how a clip's stored rotation becomes a pose-bone rotation, and back.

A .mab stores, per bone and key, the joint's rotation relative to its parent joint (and, where
decoded, its translation), in the frames of the game's skeleton. A Blender armature has rest
frames of its own (bone.matrix_local: the bone's Y axis along head->tail, its roll), which an
importer chooses. Per bone (docs/blender.md, "Rest conventions"):

  Rm   the Blender bone's rest frame, armature space (bone.matrix_local)
  Jm   the joint's bind frame, armature space: where the game's skeleton puts the joint
  Jp   the bind frame of its parent joint (the game world's frame for a root)
  L(t) the joint's parent-relative transform at a key: the file's translation (else the bind's)
       and rotation: q (character-bind clips) or bind_local * q (identity-bind clips)

  pose basis B(t) = Rm^-1 . Jp . L(t) . Jm^-1 . Rm          (export: L = Jp^-1 . Rm . B . Rm^-1 . Jm)

Through Blender's parenting this poses every bone at the game's world motion away from the bind,
applied to the Blender rest, whatever frames the importer gave the bones. Where Rm == Jm (the
armature this add-on builds) B is L relative to the bind. Rotation and location are converted
separately (a bone's rotation keys and translation keys need not share frames); they couple only
where the Blender head is not at the joint (head_offset), which no importer we know does.
"""
import numpy as np

from . import qmath
from .qmath import Rigid

CHARACTER = "CHARACTER"
IDENTITY = "IDENTITY"
# Bones whose bind turns at least this far from identity decide the family vote.
VOTE_MIN_BIND_DEG = 40.0


class BoneRest:
    __slots__ = ("name", "rm", "jm", "jp", "source")

    def __init__(self, name, rm, jm, jp, source):
        self.name, self.rm, self.jm, self.jp, self.source = name, rm, jm, jp, source

    @property
    def bind_local(self):
        """The joint's bind, relative to its parent joint: Jp^-1 . Jm."""
        return self.jp.inverted() @ self.jm

    def _pre_post(self):
        return self.rm.inverted() @ self.jp, self.jm.inverted() @ self.rm

    def local_rotation(self, q_xyzw, family=CHARACTER):
        """File rotations (K, 4) x y z w -> the joint's parent-relative rotation w x y z."""
        q = qmath.qnormalize(qmath.xyzw_to_wxyz(q_xyzw))
        return qmath.qmul(self.bind_local.q, q) if family == IDENTITY else q

    def basis_rotation(self, q_xyzw, family=CHARACTER):
        """File rotations (K, 4) x y z w -> pose-bone rotation_quaternion (K, 4) w x y z, keys
        kept on one hemisphere."""
        pre, post = self._pre_post()
        q = qmath.qmul(qmath.qmul(pre.q, self.local_rotation(q_xyzw, family)), post.q)
        return qmath.continuous(qmath.qnormalize(q))

    def basis_location(self, t, local_q=None):
        """File translations (K, 3) -> pose-bone location (K, 3). local_q (K, 4) w x y z: the
        joint's rotation at the same keys, needed only where the Blender head is not at the
        joint (default: the bind)."""
        pre, post = self._pre_post()
        t = np.asarray(t, dtype=np.float64)
        lq = self.bind_local.q if local_q is None else local_q
        return pre.t + qmath.qrot(pre.q, t + qmath.qrot(lq, post.t))

    def rest_location(self):
        """The file translation a bone without one has: its bind's."""
        return self.bind_local.t

    def file_rotation(self, basis_q, family=CHARACTER):
        """Pose-bone rotation_quaternion (K, 4) w x y z -> file rotations (K, 4) x y z w."""
        pre, post = self._pre_post()
        q = qmath.qmul(qmath.qmul(qmath.qconj(pre.q), qmath.qnormalize(basis_q)), qmath.qconj(post.q))
        if family == IDENTITY:
            q = qmath.qmul(qmath.qconj(self.bind_local.q), q)
        return qmath.wxyz_to_xyzw(qmath.qnormalize(q))

    def file_translation(self, basis_t, local_q=None):
        """Pose-bone location (K, 3) -> file translations (K, 3)."""
        pre, post = self._pre_post()
        lq = self.bind_local.q if local_q is None else local_q
        return qmath.qrot(qmath.qconj(pre.q), np.asarray(basis_t, dtype=np.float64) - pre.t) - qmath.qrot(lq, post.t)

    def head_offset(self):
        """How far the Blender head is from the joint (0 for every importer we know)."""
        return float(np.linalg.norm(self._pre_post()[1].t))


def bind_angle_deg(rest):
    return float(qmath.angle_deg(rest.bind_local.q, np.array([1.0, 0.0, 0.0, 0.0])))


def vote_family(pairs):
    """The community importer's test of which bind a clip was authored against, in our words:
    among bones whose bind turns more than VOTE_MIN_BIND_DEG, a first key nearer identity than
    the bind votes identity-bind, else character-bind; the majority wins, a tie is
    character-bind. pairs: (BoneRest, first key x y z w). Returns (family, identity votes,
    character votes)."""
    ident = character = 0
    one = np.array([1.0, 0.0, 0.0, 0.0])
    for rest, q in pairs:
        bind = rest.bind_local.q
        if qmath.angle_deg(bind, one) < VOTE_MIN_BIND_DEG:
            continue
        q = qmath.xyzw_to_wxyz(q)
        if qmath.angle_deg(q, one) < qmath.angle_deg(q, bind):
            ident += 1
        else:
            character += 1
    return (IDENTITY if ident > character else CHARACTER), ident, character

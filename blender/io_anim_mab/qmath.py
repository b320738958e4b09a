"""Rigid transforms in float64 numpy: the rest-convention maths of the add-on.

mathutils computes in float32; a bone's rest composed with a key through four float32 products
moves it by ~1e-6 degree, close to the 1e-3 degree match tolerance of the export when clips are
long. numpy float64 keeps that error at the float32 rounding of the F-curve values themselves.

Quaternions are (w, x, y, z) here, as in Blender; mabkit gives (x, y, z, w). A rigid transform is
a pair (q, t): first rotate by q, then translate by t. Arrays broadcast over leading axes.
"""
import numpy as np


def qmul(a, b):
    aw, ax, ay, az = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def qconj(q):
    q = np.asarray(q, dtype=np.float64)
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def qnormalize(q):
    q = np.asarray(q, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(n > 0, q / np.where(n > 0, n, 1.0), np.array([1.0, 0.0, 0.0, 0.0]))


def qrot(q, v):
    """v rotated by the unit quaternion q."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    w = q[..., :1]
    u = q[..., 1:]
    c = np.cross(u, v)
    return v + 2.0 * (w * c + np.cross(u, c))


def xyzw_to_wxyz(q):
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def wxyz_to_xyzw(q):
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([q[..., 1:4], q[..., 0:1]], axis=-1)


def angle_deg(a, b):
    """Angle between the rotations a and b (q and -q are one rotation), in degrees."""
    d = np.abs(np.sum(qnormalize(a) * qnormalize(b), axis=-1))
    return np.degrees(2.0 * np.arccos(np.clip(d, 0.0, 1.0)))


def continuous(q):
    """Keys flipped onto one hemisphere, each next to the one before: F-curves interpolate
    components, and q and -q would pass through zero between two keys."""
    q = np.array(q, dtype=np.float64, copy=True)
    for k in range(1, len(q)):
        if np.dot(q[k], q[k - 1]) < 0:
            q[k] = -q[k]
    return q


def matrix_to_quat(m):
    """Unit quaternion of a 3x3 rotation (columns normalised first: a bone matrix is float32)."""
    m = np.asarray(m, dtype=np.float64)[:3, :3]
    m = m / np.linalg.norm(m, axis=0, keepdims=True)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = 2.0 * np.sqrt(tr + 1.0)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = qnormalize(np.array(q))
    return q if q[0] >= 0 else -q


class Rigid:
    """A rigid transform (rotation q, then translation t); q and t may carry leading axes."""
    __slots__ = ("q", "t")

    def __init__(self, q=(1.0, 0.0, 0.0, 0.0), t=(0.0, 0.0, 0.0)):
        self.q = np.asarray(q, dtype=np.float64)
        self.t = np.asarray(t, dtype=np.float64)

    @staticmethod
    def from_matrix(m):
        m = np.asarray(m, dtype=np.float64)
        return Rigid(matrix_to_quat(m), m[:3, 3])

    def __matmul__(self, o):
        return Rigid(qmul(self.q, o.q), self.t + qrot(self.q, o.t))

    def inverted(self):
        qi = qconj(self.q)
        return Rigid(qi, -qrot(qi, self.t))

    def apply(self, v):
        return self.t + qrot(self.q, v)

    def matrix(self):
        w, x, y, z = self.q
        m = np.identity(4)
        m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
        m[:3, 3] = self.t
        return m


def slerp(a, b, u):
    """Shortest-arc interpolation between unit quaternions a and b (..., 4) at u (...)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)[..., None]
    d = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    th = np.arccos(np.clip(d, -1.0, 1.0))
    s = np.sin(th)
    small = s < 1e-9
    wa = np.where(small, 1.0 - u, np.sin((1.0 - u) * th) / np.where(small, 1.0, s))
    wb = np.where(small, u, np.sin(u * th) / np.where(small, 1.0, s))
    return qnormalize(wa * a + wb * b)


def sample_keys(times, values, at, rotation):
    """A keyed track (times ascending, values (N, n)) at the times `at`: the key where one
    is, slerp (rotations) or lerp between the keys around, the end keys held outside."""
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    at = np.asarray(at, dtype=np.float64)
    if len(times) == 1:
        return np.repeat(values[:1], len(at), axis=0)
    i = np.clip(np.searchsorted(times, at, side="right") - 1, 0, len(times) - 2)
    u = np.clip((at - times[i]) / (times[i + 1] - times[i]), 0.0, 1.0)
    if rotation:
        return slerp(values[i], values[i + 1], u)
    return values[i] + (values[i + 1] - values[i]) * u[:, None]

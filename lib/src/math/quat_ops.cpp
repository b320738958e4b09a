// Rotation arithmetic on the vocabulary type (quat.hpp), below the codec that measures its
// error with it (quat48, requantise) and the edits and interchange that compose rotations.
// Depends on nothing else.
#include <mab/quat.hpp>

#include <algorithm>
#include <cmath>

namespace mab {

namespace {

Quat from(double x, double y, double z, double w) noexcept {
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0) || !std::isfinite(n)) return Quat{};
  return {static_cast<float>(x / n), static_cast<float>(y / n), static_cast<float>(z / n), static_cast<float>(w / n)};
}

}  // namespace

double angular_error_deg(const Quat& a, const Quat& b) noexcept {
  double p[4], q[4];
  double np = 0, nq = 0, dot = 0;
  for (unsigned i = 0; i < 4; ++i) {
    p[i] = a[i];
    q[i] = b[i];
    np += p[i] * p[i];
    nq += q[i] * q[i];
  }
  if (!(np > 0 && nq > 0 && std::isfinite(np) && std::isfinite(nq))) return 180.0;
  np = std::sqrt(np);
  nq = std::sqrt(nq);
  for (unsigned i = 0; i < 4; ++i) {
    p[i] /= np;
    q[i] /= nq;
    dot += p[i] * q[i];
  }
  const double s = dot < 0 ? -1.0 : 1.0;
  double diff = 0, sum = 0;
  for (unsigned i = 0; i < 4; ++i) {
    diff += (p[i] - s * q[i]) * (p[i] - s * q[i]);
    sum += (p[i] + s * q[i]) * (p[i] + s * q[i]);
  }
  // |p - q| = 2 sin(phi/2), |p + q| = 2 cos(phi/2) for the 4D angle phi; the rotation angle is
  // 2 phi. atan2 keeps full precision for tiny angles where acos(dot) would not.
  const double rad = 4.0 * std::atan2(std::sqrt(diff), std::sqrt(sum));
  return rad * (180.0 / 3.14159265358979323846);
}

Quat quat_normalised(const Quat& q) noexcept { return from(q.x, q.y, q.z, q.w); }

Quat quat_mul(const Quat& a, const Quat& b) noexcept {
  const double ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
  return from(aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
              aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz);
}

Quat quat_slerp(const Quat& a, const Quat& b, double t) noexcept {
  double d = double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z + double{a.w} * b.w;
  const double s = d < 0 ? -1.0 : 1.0;
  d = std::abs(d);
  double wa, wb;
  if (d > 0.9999995) {
    wa = 1 - t, wb = t;  // nearly equal: linear, then normalised
  } else {
    const double th = std::acos(std::min(d, 1.0));
    const double sn = std::sin(th);
    wa = std::sin((1 - t) * th) / sn, wb = std::sin(t * th) / sn;
  }
  wb *= s;
  return from(wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w);
}

}  // namespace mab

"""Where one shape covers a line of edge samples, worked out along the line at once: the edge
sampler's (``pnp.layout.edges``) fast test, for any shape that is not an upright rectangle.

The sampler's samples along one edge at one depth lie on a line. A filled polygon (a turned
rectangle, a star, a rounded rectangle's or a path's outline) covers that line where the polygon's
winding number is non-zero (odd, for the even-odd rule), which changes only where an edge crosses
the line; an ellipse covers a chord; a stroke, the union of the chords of its segments' capsules
(the points within half its width of a segment). So each shape is cut into spans along the line,
each of one state (``hit`` bits: 1 fill, 2 stroke), in a handful of operations per edge of the
shape, instead of a point test per edge per sample (rotated rectangles along a card's edge:
attack 15, F2).

Exact by construction: around every place where a state may change (a crossing, a chord's end,
and wherever an edge runs within ``TOL`` of the line) a span is ``UNSURE``, and the sampler tests
the samples that fall in it point by point, as it always did (``_Shape.hit``). Outside those
spans every sample lies so far from the shape's outline that the point test cannot answer
otherwise (its rounding errors are some 1e-16 of the coordinates; the margins are 1e-9 of them)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

UNSURE = -1  # a span's state where the sampler must test each sample itself
TOL = 1e-9  # the margin, relative to the size of the coordinates (at least 1 pt)

Point = tuple[float, float]
# an edge's line: origin (x, y), unit direction (x, y), unit normal (x, y); a point Q lies at
# t = (Q - o) . u along it and d = (Q - o) . n off it (a line of samples: d = its depth)
Frame = tuple[float, float, float, float, float, float]
Interval = tuple[float, float]
ALL: Interval = (-math.inf, math.inf)


def _polygon_fill(polys: Sequence[Sequence[Point]], evenodd: bool, frame: Frame, depths: Sequence[float],
                  reach: float) -> list[tuple[list[Interval], list[Interval]]]:
    """For each line (``depths`` off the frame's), the spans inside the polygons (closed
    implicitly) and those within a margin (``TOL`` of the coordinates) of their outline. The
    winding number at t counts, with their direction, the edges that cross the line beyond t (a
    ray along the line itself; a vertex on the line is counted half-open, each vertex's side
    worked out once, so the count is that of a polygon moved by rounding errors only)."""
    ox, oy, ux, uy, nx, ny = frame
    out: list[tuple[list[Interval], list[Interval]]] = [([], []) for _ in depths]
    crossings: list[list[tuple[float, int]]] = [[] for _ in depths]
    for poly in polys:
        ts = [(x - ox) * ux + (y - oy) * uy for x, y in poly]
        d0 = [(x - ox) * nx + (y - oy) * ny for x, y in poly]
        lo, hi = min(d0), max(d0)
        if not math.isfinite(sum(ts) + lo + hi):
            for _, unsure in out:
                unsure.append(ALL)
            continue
        tol = TOL * (reach + max(hi, -lo, max(ts), -min(ts)))
        for j, depth in enumerate(depths):
            if lo - depth > tol or hi - depth < -tol:
                continue  # wholly on one side: crosses nowhere, winds nothing along the line
            unsure, cross = out[j][1], crossings[j]
            ds = [d - depth for d in d0]
            tp, dp = ts[-1], ds[-1]
            for tq, dq in zip(ts, ds, strict=True):
                if not ((dp > tol and dq > tol) or (dp < -tol and dq < -tol)):
                    # the part of the edge within tol of the line, projected on it, tol either side
                    if dq == dp:
                        s0, s1 = 0.0, 1.0
                    else:
                        s0, s1 = (-tol - dp) / (dq - dp), (tol - dp) / (dq - dp)
                        s0, s1 = max(min(s0, s1), 0.0), min(max(s0, s1), 1.0)
                    a, b = tp + s0 * (tq - tp), tp + s1 * (tq - tp)
                    unsure.append((min(a, b) - tol, max(a, b) + tol))
                    if (dp <= 0 < dq) or (dq <= 0 < dp):
                        cross.append((tp + (tq - tp) * (dp / (dp - dq)), 1 if dq > dp else -1))
                tp, dp = tq, dq
    for (inside, _), cross in zip(out, crossings, strict=True):
        cross.sort()
        wn = sum(w for _, w in cross)  # before the first crossing: every crossing lies beyond
        start = -math.inf
        for t, w in cross:
            if wn % 2 != 0 if evenodd else wn != 0:
                inside.append((start, t))
            wn -= w
            start = t
        if wn % 2 != 0 if evenodd else wn != 0:
            inside.append((start, math.inf))
    return out


def _ellipse_fill(cx: float, cy: float, rx: float, ry: float, frame: Frame, depth: float,
                  reach: float) -> tuple[list[Interval], list[Interval]]:
    """The chord of ``line`` inside the ellipse, and the spans where the point test's
    ((x - cx) / rx)² + ((y - cy) / ry)² <= 1 could come out either way: where that sum lies
    within E of 1, E far above its rounding errors (which grow with the coordinates over the
    radii)."""
    size = reach + abs(cx) + abs(cy) + rx + ry
    if not math.isfinite(size):
        return [], [ALL]
    if not (rx > 0 and ry > 0):
        return [], []
    ox, oy, ux, uy, nx, ny = frame
    ox, oy = ox + nx * depth, oy + ny * depth
    x0, y0, kx, ky = (ox - cx) / rx, (oy - cy) / ry, ux / rx, uy / ry
    a = kx * kx + ky * ky  # f(t) = a (t - mid)² + h2, in units of the radii
    mid = -(x0 * kx + y0 * ky) / a
    h2 = (x0 * ky - y0 * kx) ** 2 / a
    ratio = size / min(rx, ry)
    e = 1e-12 * (1 + ratio) ** 2
    if h2 > 1 + 2 * e:
        return [], []
    pad = TOL * (size + abs(mid)) * (1 + max(rx, ry) / min(rx, ry))
    inner = math.sqrt(max(0.0, 1 - e - h2) / a)
    outer = math.sqrt(max(0.0, 1 + e - h2) / a)
    if not (math.isfinite(inner) and math.isfinite(outer) and math.isfinite(mid) and math.isfinite(pad)):
        return [], [ALL]
    inside = [(mid - inner + pad, mid + inner - pad)] if inner > pad else []
    return inside, [(mid - outer - pad, mid - inner + pad), (mid + inner - pad, mid + outer + pad)]


def _capsule(tp: float, dp: float, tq: float, dq: float, r: float) -> Interval | None:
    """The span of the line (d = 0) within ``r`` of the segment (tp, dp)-(tq, dq), if any: the
    union of the chords of the discs at its ends and of the band along it (all within one convex
    capsule, so one span)."""
    lo, hi = math.inf, -math.inf
    for tc, dc in ((tp, dp), (tq, dq)):
        if abs(dc) <= r:
            w = math.sqrt(r * r - dc * dc)
            lo, hi = min(lo, tc - w), max(hi, tc + w)
    et, ed = tq - tp, dq - dp
    ll = et * et + ed * ed
    if ll > 0:
        length = math.sqrt(ll)
        # beside the segment: its projection within it, (t - tp) et - dp ed in [0, ll], and
        # within r of its line, |(t - tp) ed + dp et| <= r length
        b0, b1 = -math.inf, math.inf
        for coef, c0, c1 in ((et, dp * ed, dp * ed + ll), (ed, -dp * et - r * length, -dp * et + r * length)):
            if coef == 0:
                if not c0 <= 0 <= c1:
                    b0, b1 = math.inf, -math.inf
                continue
            u, v = sorted((c0 / coef, c1 / coef))
            b0, b1 = max(b0, tp + u), min(b1, tp + v)
        if b0 <= b1:
            lo, hi = min(lo, b0), max(hi, b1)
    return (lo, hi) if lo <= hi else None


def _stroke(polys: Sequence[Sequence[Point]], closed: bool, half: float, frame: Frame, depths: Sequence[float],
            reach: float) -> list[tuple[list[Interval], list[Interval]]]:
    """For each line, the spans within ``half`` less a margin (``TOL`` of the coordinates) of a
    segment of the polylines (closed: polygons) (surely on the stroke), and those within ``half``
    and the margin (where the point test's distance could come out either way): each segment's
    capsule shrunk and grown."""
    ox, oy, ux, uy, nx, ny = frame
    out: list[tuple[list[Interval], list[Interval]]] = [([], []) for _ in depths]
    for poly in polys:
        ts = [(x - ox) * ux + (y - oy) * uy for x, y in poly]
        ds = [(x - ox) * nx + (y - oy) * ny for x, y in poly]
        tol = TOL * (reach + half + max(max(ts), -min(ts), max(ds), -min(ds)))
        if not math.isfinite(tol + sum(ts) + sum(ds)):
            for _, unsure in out:
                unsure.append(ALL)
            continue
        far = half + tol
        lo, hi = min(depths) - far, max(depths) + far
        k0 = 0 if closed else 1
        for k in range(k0, len(poly)):
            tp, dp0, tq, dq0 = ts[k - 1], ds[k - 1], ts[k], ds[k]
            if (dp0 > hi and dq0 > hi) or (dp0 < lo and dq0 < lo):
                continue  # far from every line
            for j, depth in enumerate(depths):
                dp, dq = dp0 - depth, dq0 - depth
                if (dp > far and dq > far) or (dp < -far and dq < -far):
                    continue
                outer = _capsule(tp, dp, tq, dq, far)
                if outer is None:
                    continue
                out[j][1].append(outer)
                if half > tol and (span := _capsule(tp, dp, tq, dq, half - tol)) is not None:
                    out[j][0].append(span)
    return out


def marks(fill: tuple | None, stroke: tuple[Sequence[Sequence[Point]], bool] | None, half: float, frame: Frame,
          depths: Sequence[float], ts: Sequence[float], reach: float) -> list[list[tuple[int, int, int]]]:
    """For each line of samples (``depths`` off the line of ``frame``: origin, unit direction,
    unit normal; the samples at ``ts`` along it, ascending), the samples the shape may cover:
    runs (first, last + 1 index in ``ts``, state), the state the ``hit`` bits (1 its fill, 2 its
    stroke) or UNSURE. ``fill``: None, ("poly", polygons, evenodd) or ("ellipse", cx, cy, rx,
    ry); ``stroke``: the polylines its stroke follows and whether they are closed (None: no
    stroke), ``half`` half its width; ``reach``: the size of the edge's coordinates."""
    lines = range(len(depths))
    if fill is None:
        fills: list[tuple[list[Interval], list[Interval]]] = [([], []) for _ in lines]
    elif fill[0] == "poly":
        fills = _polygon_fill(fill[1], fill[2], frame, depths, reach)
    else:
        fills = [_ellipse_fill(fill[1], fill[2], fill[3], fill[4], frame, depth, reach) for depth in depths]
    strokes = _stroke(stroke[0], stroke[1], half, frame, depths, reach) if stroke is not None else None
    left, right = bisect.bisect_left, bisect.bisect_right
    out: list[list[tuple[int, int, int]]] = []
    for j in lines:
        inside, unsure = fills[j]
        doubt = [(q0, q1) for a, b in unsure if (q0 := left(ts, a)) < (q1 := right(ts, b))]
        if strokes is None and not doubt:  # the usual case: a fill, no sample near its outline
            out.append([(q0, q1, 1) for a, b in inside if (q0 := left(ts, a)) < (q1 := left(ts, b))])
            continue
        got: dict[int, int] = {}
        for a, b in inside:
            got.update(dict.fromkeys(range(left(ts, a), left(ts, b)), 1))
        for q0, q1 in doubt:
            got.update(dict.fromkeys(range(q0, q1), UNSURE))
        if strokes is not None:
            on, maybe = strokes[j]
            stroked: dict[int, int] = {}
            for a, b in maybe:
                stroked.update(dict.fromkeys(range(left(ts, a), right(ts, b)), UNSURE))
            for a, b in on:
                stroked.update(dict.fromkeys(range(left(ts, a), right(ts, b)), 2))
            for q, h in stroked.items():
                f = got.get(q, 0)
                got[q] = UNSURE if f == UNSURE or h == UNSURE else f | h
        out.append([(q, q + 1, h) for q, h in got.items()])
    return out

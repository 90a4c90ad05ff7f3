"""Edge colours of laid-out pieces (pnp.layout.edges): what a miscut would show of a neighbour."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.layout.edges import (
    DEPTHS_MM,
    EdgeSampler,
    edge_classes,
    edge_match,
    hex_sides,
    profiles_match,
    rect_sides,
)
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Paint, Path, Rect, Text
from pnp.plan.component import LazyPieces, plan_component
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.units import MM

W, H, B = 40 * MM, 60 * MM, 3 * MM


def piece(*prims) -> PieceLayout:
    return PieceLayout(W, H, B, tuple(prims))


def background(colour: str) -> Rect:
    return Rect(-B, -B, W + 2 * B, H + 2 * B, Paint(fill=colour))


def profiles(lay: PieceLayout) -> dict[str, tuple[str, ...]]:
    s = EdgeSampler()
    return {name: s.profile(lay, seg) for name, seg in rect_sides(lay.width, lay.height).items()}


def test_a_full_bleed_fill_is_the_colour_of_every_edge() -> None:
    p = profiles(piece(background("#336699")))
    assert all(set(v) == {"#336699"} for v in p.values())
    # every 1 mm along the edge, clear of the corners, at each depth
    assert len(p["left"]) == int((60 - 1) / 1) * len(DEPTHS_MM)


def test_nothing_drawn_is_the_paper_and_text_is_left_out() -> None:
    p = profiles(piece(Text(0.2 * MM, 30 * MM, "edge", "Lato", 9, "#000000")))
    assert all(set(v) == {"#ffffff"} for v in p.values())


def test_a_band_shows_only_on_the_edges_it_touches_and_where() -> None:
    band = Rect(-B, H - 12 * MM, W + 2 * B, 12 * MM + B, Paint(fill="#aa0000"))  # the top 12 mm
    p = profiles(piece(background("#ffffff"), band))
    assert set(p["top"]) == {"#aa0000"} and set(p["bottom"]) == {"#ffffff"}
    left = p["left"][:: len(DEPTHS_MM)]  # bottom to top
    assert left[0] == "#ffffff" and left[-1] == "#aa0000"
    assert sum(c == "#aa0000" for c in left) in (11, 12)
    assert p["left"] == p["right"]  # the band runs across: a copy beside it matches


def test_opacity_and_alpha_are_composited_over_what_is_below() -> None:
    veil = Rect(-B, -B, W + 2 * B, H + 2 * B, Paint(fill="#00000080", opacity=1.0))
    p = profiles(piece(background("#ffffff"), veil))
    (c,) = set(p["left"])
    assert c == "#7f7f7f"  # black at 50 % (0x80 / 255) over white


def test_a_stroke_along_the_edge_counts_and_an_evenodd_hole_does_not() -> None:
    frame = Rect(0, 0, W, H, Paint(stroke="#000000", stroke_width=2 * MM))
    assert set(profiles(piece(background("#ffffff"), frame))["left"]) == {"#000000"}
    ring = Path((("M", (-B, -B)), ("L", (W + B, -B)), ("L", (W + B, H + B)), ("L", (-B, H + B)), ("Z", ()),
                 ("M", (-1, -1)), ("L", (W + 1, -1)), ("L", (W + 1, H + 1)), ("L", (-1, H + 1)), ("Z", ())),
                Paint(fill="#00aa00", fill_rule="evenodd"))
    assert set(profiles(piece(background("#ffffff"), ring))["left"]) == {"#ffffff"}  # inside the hole


def test_edges_match_within_the_colour_tolerance_only() -> None:
    a = profiles(piece(background("#336699")))["left"]
    near = profiles(piece(background("#33669b")))["right"]  # a ΔE00 well under 5
    far = profiles(piece(background("#993333")))["right"]
    assert profiles_match(a, near) and not profiles_match(a, far)


def test_edge_match_per_side_and_per_printed_side() -> None:
    red, blue = piece(background("#cc0000")), piece(background("#0000cc"))
    assert edge_match([[red, red]]) == edge_match([[red]])
    m = edge_match([[red, blue]])
    assert not m.lr and not m.tb
    # fronts that match, backs that differ: nothing may be shared
    assert not edge_match([[red, red], [red, blue]]).lr
    # left and right edges that differ on one piece: it cannot even abut a copy of itself
    half = piece(background("#ffffff"), Rect(-B, -B, W / 2 + B, H + 2 * B, Paint(fill="#000000")))
    m = edge_match([[half]])
    assert not m.lr and m.tb


def test_hex_edges_meet_their_opposite_edge_reversed() -> None:
    sides = hex_sides(50 * MM, 57.735 * MM)
    for i in range(3):
        (a, b), (c, d) = sides[i], sides[i + 3]
        # opposite edges are parallel and run the other way round the hexagon
        assert abs((b[0] - a[0]) + (d[0] - c[0])) < 1e-6 and abs((b[1] - a[1]) + (d[1] - c[1])) < 1e-6
    lay = PieceLayout(50 * MM, 57.735 * MM, B, (Rect(-B, -B, 50 * MM + 2 * B, 57.735 * MM + 2 * B,
                                                      Paint(fill="#118811")),))
    assert edge_match([[lay]], hexagon=True).hexes


def test_classes_group_pieces_whose_edges_all_match() -> None:
    red, red2, blue = piece(background("#cc0000")), piece(background("#cd0000")), piece(background("#0000cc"))
    half = piece(background("#ffffff"), Rect(-B, -B, W / 2 + B, H + 2 * B, Paint(fill="#000000")))
    classes, alone = edge_classes([[red], [blue], [red2], [half], [blue]], lr=True, tb=True)
    assert classes == [[0, 2], [1, 4]] and alone == [3]
    # where only top meets bottom, the half-black piece matches itself
    classes, alone = edge_classes([[half], [half]], lr=False, tb=True)
    assert classes == [[0, 1]] and alone == []


@pytest.mark.parametrize("opts", [BuildOptions(), pytest.param(BuildOptions(ink_saver=True, token_cut="circle"),
                                                                marks=pytest.mark.slow)],
                         ids=["default", "ink-saver-circle"])
def test_the_sampled_fronts_draw_what_the_drawn_fronts_draw_but_text(opts: BuildOptions) -> None:
    """A build's plan samples each item's front laid out without fitting its text
    (``LazyPieces.for_edges``, ``Context.edges_only``; the sampler reads no text). On every item of
    the five bundled games it draws every primitive the full layout draws but Text, in order, so its
    edges are the same; and the plan's sheet, grid and blocks are those of a plan sampled from
    full layouts (``check`` with every piece laid out)."""
    root = DataRoot(bundled_root())
    s = Session(root)
    quick_text = full_text = blocks = 0
    for gid in root.game_ids():
        game = load_game(root, gid)
        for comp in game.components:
            lazy, _ = plan_component(s, game, comp, opts, lazy=True)
            full, _ = plan_component(s, game, comp, opts, lazy=False)
            assert isinstance(lazy.fronts, LazyPieces)
            assert (lazy.sheet, lazy.grid, lazy.blocks) == (full.sheet, full.grid, full.blocks), (gid, comp.id)
            blocks += len(lazy.blocks)
            piece = 0
            for k, item in enumerate(comp.items):
                quick, whole = lazy.fronts.for_edges(k), full.fronts[piece]
                piece += item.copies
                assert [p for p in quick.primitives if type(p) is not Text] == \
                    [p for p in whole.primitives if type(p) is not Text], (gid, comp.id, item.id)
                quick_text += sum(type(p) is Text for p in quick.primitives)  # only texts with inline icons
                full_text += sum(type(p) is Text for p in whole.primitives)
    assert 2 * quick_text < full_text
    assert (blocks > 0) is not opts.ink_saver  # the ink saver drops full-bleed fills: every edge the paper's


def _pairwise_classes(pieces, lr: bool, tb: bool) -> tuple[list[list[int]], list[int]]:
    """edge_classes as it was: every class tried in turn, every comparison made (the reference)."""
    from pnp.layout.colours import delta_e
    from pnp.layout.edges import MATCH_DE

    def match(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return a == b or (len(a) == len(b) and all(
            x == y or (not x.startswith("?") and not y.startswith("?") and delta_e(x, y) <= MATCH_DE)
            for x, y in zip(a, b, strict=True)))

    def _pair_ok(a: list, b: list, lr: bool, tb: bool, _: object) -> bool:
        for x, y in zip(a, b, strict=True):
            if not x or not y:
                continue
            for u, v in ((x, y), (y, x)):
                if (lr and not match(u["right"], v["left"])) or (tb and not match(u["top"], v["bottom"])):
                    return False
            if (lr and not match(x["right"], x["left"])) or (tb and not match(x["top"], x["bottom"])):
                return False
        return True

    sampler = EdgeSampler()
    classes: list[tuple[list, list[int]]] = []
    alone: list[int] = []
    for i, lays in enumerate(pieces):
        prof = [{n: sampler.profile(lay, seg) for n, seg in rect_sides(lay.width, lay.height).items()}
                if lay is not None else {} for lay in lays]
        if not _pair_ok(prof, prof, lr, tb, sampler):
            alone.append(i)
            continue
        for members, idx in classes:
            if all(_pair_ok(prof, q, lr, tb, sampler) for q in members):
                idx.append(i)
                if prof not in members:
                    members.append(prof)
                break
        else:
            classes.append(([prof], [i]))
    return [idx for _, idx in classes], alone


_channel = st.integers(0, 255)
_near = st.tuples(_channel, _channel, _channel).map(lambda c: "#" + "".join(f"{v:02x}" for v in c))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.lists(_near, min_size=1, max_size=6),
       picks=st.lists(st.tuples(st.integers(0, 5), st.integers(-4, 4), st.integers(-4, 4), st.integers(-4, 4),
                                st.integers(0, 3)), min_size=1, max_size=40),
       lr=st.booleans(), tb=st.booleans(), backs=st.booleans())
def test_indexed_classes_are_the_pairwise_ones(base, picks, lr, tb, backs) -> None:
    """The classes found through the index of L slabs (and the quick test on L) are those of trying
    every class with the whole CIEDE2000 formula, on colours drawn near a few bases (so that many
    fall within MATCH_DE of each other, near the threshold, across slab boundaries), some pieces
    half one colour (unlike themselves), some with a back or none."""
    from pnp.layout.colours import ciede2000, srgb_lab
    from pnp.layout.edges import MATCH_DE, same

    def colour(k: int, dr: int, dg: int, db: int) -> str:
        r, g, b = (int(base[k % len(base)][j:j + 2], 16) for j in (1, 3, 5))
        return "#" + "".join(f"{min(255, max(0, v + 3 * d)):02x}" for v, d in ((r, dr), (g, dg), (b, db)))

    pieces = []
    for k, dr, dg, db, shape in picks:
        c = colour(k, dr, dg, db)
        if shape == 3:  # left half another colour: its left edge unlike its right
            front = piece(background(c), Rect(-B, -B, W / 2 + B, H + 2 * B, Paint(fill=colour(k + 1, db, dr, dg))))
        else:
            front = piece(background(c))
        back = piece(background(colour(k + shape, dg, db, dr))) if backs and shape != 2 else None
        pieces.append([front, back] if backs else [front])
        # the quick test on L never decides otherwise than the formula
        other = colour(k + 1, dg, db, dr)
        assert same(c, other) == (ciede2000(srgb_lab(c), srgb_lab(other)) <= MATCH_DE)
    assert edge_classes(pieces, lr, tb) == _pairwise_classes(pieces, lr, tb)


def test_past_the_edge_budget_the_classes_are_refused() -> None:
    from pnp.layout.edges import EdgeBudgetError

    pieces = [[piece(background(f"#{i * 37 % 256:02x}{i * 91 % 256:02x}{i * 13 % 256:02x}"))] for i in range(60)]
    with pytest.raises(EdgeBudgetError, match="more than 500 edge colour comparisons"):
        edge_classes(pieces, lr=True, tb=True, sampler=EdgeSampler(budget=500))
    classes, _ = edge_classes(pieces, lr=True, tb=True, sampler=EdgeSampler())
    assert sum(len(c) for c in classes) == 60


def _naive(lay: PieceLayout, seg) -> tuple[str, ...]:
    """A profile sampled the plain way: every primitive tested at every sample."""
    from pnp.layout.edges import _positions, _Shape
    from pnp.layout.primitives import PAPER

    shapes = [_Shape(p) for p in lay.primitives]
    out = []
    for x, y, nx, ny in _positions(seg):
        for depth in DEPTHS_MM:
            colour = PAPER
            for s in shapes:
                colour = s.paint(x + nx * depth * MM, y + ny * depth * MM, colour)
            out.append(colour)
    return tuple(out)


def test_the_sampled_profiles_are_the_plain_ones_for_every_kind_of_shape() -> None:
    """Shapes of one geometry tested once, each only near its box, plain rectangles by their box:
    the same colours as testing every primitive at every sample (rectangles plain, stroked,
    rounded, seen through; ellipses, paths, lines, art; on the four sides and a hexagon's)."""
    import random

    from pnp.layout.primitives import Ellipse, Image, Line

    rng = random.Random(14)
    prims: list = [background("#f0e0c0")]
    for _ in range(300):
        x, y = rng.uniform(-B, W), rng.uniform(-B, H)
        w, h = rng.choice([0.3, 1, 5, 20, 50]) * MM, rng.choice([0.3, 1, 5, 20, 70]) * MM
        paint = Paint(fill=rng.choice([None, "#aa0000", "#00aa0080"]), stroke=rng.choice([None, "#000000"]),
                      stroke_width=rng.choice([0.0, 0.5, 4.0]), opacity=rng.choice([1.0, 0.5]))
        kind = rng.randrange(6)
        prims.append([Rect(x, y, w, h, paint), Rect(x, y, w, h, paint, radius=2 * MM), Ellipse(x, y, w, h, paint),
                      Path((("M", (x, y)), ("L", (x + w, y)), ("L", (x, y + h)), ("Z", ())), paint),
                      Line(x, y, x + w, y, Paint(stroke="#0000aa", stroke_width=1.0)),
                      Image(x, y, w, h, f"/art{kind}.png")][kind])
        if rng.random() < 0.3:
            prims.append(prims[-1])  # the same geometry again
    lay = piece(*prims)
    s = EdgeSampler()
    for seg in (*rect_sides(W, H).values(), *hex_sides(W, H)):
        assert s.profile(lay, seg) == _naive(lay, seg)


def test_shapes_of_one_geometry_are_tested_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 14, F7: 19,000 full-card rectangles at opacity 0.5 on one piece were tested at every
    sample of every edge, 11 million tests (7 s of `check`). A geometry is tested once, whatever
    its colours and however often drawn, and composited as many times as it is drawn."""
    import pnp.layout.edges as edges

    made = []
    real = edges._Shape.__init__

    def counted(self, p):
        made.append(p)
        real(self, p)
    monkeypatch.setattr(edges._Shape, "__init__", counted)
    half = Rect(-B, -B, W + 2 * B, H + 2 * B, Paint(fill="#204060", opacity=0.5))
    rounded = Rect(-B, -B, W + 2 * B, H + 2 * B, Paint(fill="#ff0000", opacity=0.5), radius=1 * MM)
    lay = piece(*[half] * 19_000, *[rounded] * 5)
    p = profiles(lay)
    assert len(made) == 4 * 2  # each side: the two geometries
    colour = "#ffffff"
    for c in ["#204060"] * 19_000 + ["#ff0000"] * 5:
        colour = edges._over(colour, c, 0.5)
    assert all(set(v) == {colour} for v in p.values())


def _star(cx: float, cy: float, r1: float, r2: float, n: int, turn: float) -> tuple:
    import math

    pts = [(cx + (r1 if i % 2 == 0 else r2) * math.cos(turn + math.pi * i / n),
            cy + (r1 if i % 2 == 0 else r2) * math.sin(turn + math.pi * i / n)) for i in range(2 * n)]
    return (("M", pts[0]), *(("L", p) for p in pts[1:]), ("Z", ()))


def _hostile_shapes(rng, count: int) -> list:
    """Turned rectangles, rounded rectangles and ellipses, stars (both fill rules), open and
    closed stroked paths, lines, ellipses and rectangles, near the edges and across them, many
    of them with an outline exactly on a line of samples or a vertex exactly on a sample."""
    from pnp.layout.edges import _frame
    from pnp.layout.primitives import Ellipse, Line
    from pnp.layout.turn import turn

    on = [d * MM for d in DEPTHS_MM]  # a left edge's lines of samples: x = depth
    ys = _frame(rect_sides(W, H)["left"])[6]  # and its samples' y
    out: list = []
    for _ in range(count):
        exact = rng.random() < 0.4
        x = rng.choice(on) if exact else rng.uniform(-B, 3 * MM)
        y = rng.choice(ys) if exact else rng.uniform(-B, H)
        w, h = rng.choice([0.0, 0.3, 1, 5, 20]) * MM, rng.choice([0.0, 0.3, 1, 5, 70]) * MM
        half = rng.choice([0.25, 1.0, 2.0])
        paint = Paint(fill=rng.choice([None, "#aa0000", "#00aa0080"]), stroke=rng.choice([None, "#000000"]),
                      stroke_width=2 * half, opacity=rng.choice([1.0, 0.5]),
                      fill_rule=rng.choice(["nonzero", "evenodd"]))
        kind = rng.randrange(8)
        if kind == 0:
            out += turn([Rect(x, y, w, h, paint)], rng.choice([1, 7.66, 45, 90, 180, 233.5]), x, y)
        elif kind == 1:
            out += turn([Rect(x, y, w, h, paint, radius=rng.choice([0.5, 2]) * MM)], rng.uniform(0, 360), x, y)
        elif kind == 2:
            out += turn([Ellipse(x - w / 2, y, w, h, paint)], rng.choice([0, 1, 30]), x, y)
        elif kind == 3:
            out.append(Path(_star(x, y, w + 1, h / 3 + 1, rng.choice([5, 7]), rng.uniform(0, 6.3)), paint))
        elif kind == 4:
            ops = (("M", (x, y)), ("L", (x + w, y + h)), ("C", (x, y + h, x - w, y, x, y - h)))
            out.append(Path(ops + ((("Z", ()),) if rng.random() < 0.5 else ()), paint))
        elif kind == 5:  # along a line of samples, half the stroke's width off it, or across
            x2 = x + (0.0 if exact else rng.uniform(-1, 1) * MM)
            out.append(Line(x + (half if exact else 0), y, x2 + (half if exact else 0), y + h,
                            Paint(stroke="#0000aa", stroke_width=2 * half)))
        elif kind == 6:  # an upright ellipse touching a line of samples, or crossing it
            out.append(Ellipse(x - (w if exact else w / 2), y, w, h, paint))
        else:  # an upright rectangle with a stroke, its side on a line of samples
            out.append(Rect(x, y, w * rng.choice([1, -1]), h, paint))
    return out


def test_turned_and_curved_shapes_are_sampled_as_testing_every_sample() -> None:
    """Attack 15, F2: shapes other than upright rectangles are tested along each line of samples
    at once (pnp.layout.spans), a sample on its own only within a hair of an outline. The colours
    are those of testing every primitive at every sample, outlines exactly on samples included."""
    import random

    from pnp.layout.primitives import Ellipse

    rng = random.Random(15)
    far = [Path((("M", (-1e300, 10.0)), ("L", (5.0, 20.0)), ("L", (5.0, 1e300)), ("Z", ())), Paint(fill="#123456")),
           Path((("M", (-float("inf"), 10.0)), ("L", (5.0, 60.0)), ("L", (5.0, 80.0))), Paint(stroke="#654321")),
           Ellipse(-1e-3, 30.0, 1e-9, 1e3, Paint(fill="#0000ff", stroke="#ff0000", stroke_width=1e-9)),
           Ellipse(-1e12, 90.0, 2e12 + 0.15 * MM, 20.0, Paint(fill="#00ff00"))]
    for _ in range(3):
        lay = piece(background("#f0e0c0"), *_hostile_shapes(rng, 250), *far)
        s = EdgeSampler()
        for seg in (*rect_sides(W, H).values(), *hex_sides(W, H)):
            assert s.profile(lay, seg) == _naive(lay, seg)


def test_turned_shapes_along_an_edge_are_not_tested_sample_by_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 15, F2: 19,000 turned rectangles along a card's edge were point-tested at every
    sample they might cover (3 s of a build). Turned rectangles, stars, circles and stroked
    circles that cover a quarter of a side's samples each are now point-tested nowhere (no
    outline within the margin of a sample), and sampled as testing every sample does."""
    import pnp.layout.edges as edges
    from pnp.layout.primitives import Ellipse
    from pnp.layout.turn import turn

    tested = []
    real = edges._Shape.hit

    def counted(self, x, y):
        tested.append((x, y))
        return real(self, x, y)
    prims: list = [background("#ffffff")]
    for k in range(40):
        x, y = -3 * MM + 0.011 * k, 0.7 * k
        fill = Paint(fill=f"#{k * 6:02x}8040")
        prims += turn([Rect(x, y, 9 * MM, 15 * MM, fill)], 1 + 0.37 * k, x + 4.5 * MM, y + 7.5 * MM)
        prims.append(Path(_star(0.013 * k, 20 * MM + y, 5 * MM, 2 * MM, 7, 0.01 * k), fill))
        prims.append(Ellipse(-3 * MM + 0.017 * k, 30 * MM + y, 9 * MM, 15 * MM, fill))
        prims.append(Ellipse(-3 * MM + 0.019 * k, 40 * MM + y, 9 * MM, 15 * MM,
                             Paint(fill="#204060", stroke="#000000", stroke_width=1.0)))
    lay = piece(*prims)
    seg = rect_sides(W, H)["left"]
    monkeypatch.setattr(edges._Shape, "hit", counted)
    got = EdgeSampler().profile(lay, seg)
    assert tested == []
    monkeypatch.setattr(edges._Shape, "hit", real)
    assert got == _naive(lay, seg)
    assert sum(c != "#ffffff" for c in got) > len(got) / 2 and len(set(got)) > 20  # they do cover the edge


def test_past_the_sampling_budget_the_edges_are_refused() -> None:
    """Attack 15, F2's siblings: what sampling costs that the shape budget does not see (a shape
    tested along an edge, each sample it covers, each layer composited) is counted against the
    sampler's own budget: 2,000 lines lying along an edge, each covering all its samples, are
    refused past it; one line along each edge is well within it."""
    from pnp.layout.edges import SAMPLE_BUDGET, SamplingBudgetError, sampling_budget
    from pnp.layout.primitives import Line

    along = [Line(0.3 + 0.001 * i, 0, 0.3 + 0.001 * i, H, Paint(stroke=f"#{i % 256:02x}0000", stroke_width=1.0))
             for i in range(2000)]
    lay = piece(background("#ffffff"), *along)
    s = EdgeSampler(sampling=200_000)
    with pytest.raises(SamplingBudgetError, match="more than 200,000 steps of edge sampling"):
        s.profile(lay, rect_sides(W, H)["left"])
    s = EdgeSampler()
    assert s.sampling == SAMPLE_BUDGET and sampling_budget(10) == SAMPLE_BUDGET + 10 * 5_000
    s.profile(lay, rect_sides(W, H)["left"])
    assert 200_000 < s.sampled < SAMPLE_BUDGET  # (2,000 x 87 samples x 2 lines, and their layers)
    s = EdgeSampler()
    for seg in rect_sides(W, H).values():
        s.profile(piece(background("#ffffff"), *along[:1]), seg)
    assert s.sampled < 2_000

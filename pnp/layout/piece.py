"""layout: (template, item) -> positioned primitives in points. Pure: no canvas.

Template coordinates are mm from the trim's top-left, y down (how designers measure a card);
primitives are points from the trim's bottom-left, y up (how PDF draws). Text fitting happens
here; text that cannot fit at its minimum size becomes a warning naming game, component, item
and element.

Size: over 500 lines because the painter handles every element type of the template language
(shapes, text, icons, images, repeats, tracks), what applies to all (relative coordinates,
``rotate``, ``when``/``otherwise``) and their per-template memo in one class; field references live
in ``pnp.layout.fields``, shapes in ``.shapes``, turning in ``.turn``, SVG files in ``.svg``."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Mapping
from functools import partial
from threading import get_ident
from typing import Any

import msgspec
from msgspec import Struct

from pnp.errors import DataError, Diagnostic
from pnp.input.conditions import REGEX_COST, REGEX_SYNTAX, RegexCostError, matches_steps, regex, reset_matches_steps
from pnp.input.load import NAME_MAX, PATH_MAX, name_too_long
from pnp.input.model import MAX_TEXT, Component, Game, Item
from pnp.input.templates import Element, Template
from pnp.layout.coords import box_mm, point, repeat_count, track_centres, track_span
from pnp.layout.cost import FIT_CHARS, REGEX_STEPS, TEXT_COST, Tally, area, weight
from pnp.layout.fields import DEFAULT_TOKEN_CUT, Env, LayoutError, _num, _suggest
from pnp.layout.fonts import FontBook, FontError
from pnp.layout.paths import PathError
from pnp.layout.primitives import INK, PAPER, Ellipse, Image, Line, Paint, Primitive, Rect, Text, Vector
from pnp.layout.primitives import Path as PathPrim
from pnp.layout.shapes import (
    MAX_GAME_IMAGE_PIXELS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    _polygon_ops,
    hex_points,
    icon_primitives,
    image_size,
)
from pnp.layout.svg import SvgError, svg_art, svg_left_out
from pnp.layout.svg import is_svg as svg_file
from pnp.layout.text import Style, TextLayout, charge_fit
from pnp.layout.turn import quarter, turn
from pnp.units import MM

FITS = ("contain", "cover", "stretch")  # how an image fills its box
LIGHT_KEYS = ("fill", "bg")  # what a template's light variant recolours (text, strokes and symbols keep theirs)
MAX_SHAPES = 20_000  # per piece side: the bundled games draw at most ~700; repeats of repeats could hang
# All the pieces of one command together are held to a budget that follows its input's bytes
# (pnp.layout.cost: SHAPES_BASE, SHAPES_PER_BYTE, TEXT_COST, FIT_CHARS).
_HEX = re.compile(r"#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?")
_MISSING = object()
_SHAPES = frozenset(("rect", "circle", "hex", "polygon", "line"))
TEXT_TYPES = frozenset(("text", "richtext"))  # the element types that lay out text


def _constant_paint(d: Mapping[str, Any]) -> bool:
    """Whether a shape's colours are the same for every item (no palette, no field reference)."""
    for k in ("fill", "stroke"):
        v = d.get(k)
        if v is not None and not (v.__class__ is str and "{" not in v):
            return False
    return True


def _fraction(v: Any) -> float | None:
    """0.25, "0.25" or "25%" as 0.25; None when it is not a fraction from 0 to 1."""
    if isinstance(v, str):
        t = v.strip()
        try:
            v = float(t[:-1]) / 100 if t.endswith("%") else float(t)
        except ValueError:
            return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
        return None
    return float(v)


class PieceLayout(Struct, frozen=True, eq=False):
    """One piece laid out: its primitives in piece coordinates, with what drew them.

    Compared and hashed by identity (``eq=False``): ``sources`` holds template elements, whose
    data are dicts, so a layout has no value hash, and two layouts are the same art when their
    ``primitives`` are equal. That is the key everything that groups pieces by what they draw
    uses: ``plan_component`` keeps one back object per distinct ``primitives``, the renderer one
    form per distinct ``primitives``, and preview and the Tabletop Simulator export group backs
    by them."""

    width: float  # trim, pt
    height: float
    bleed: float  # pt available around the trim
    primitives: tuple[Primitive, ...]
    warnings: tuple[Diagnostic, ...] = ()
    # Which template element drew which primitives, in order: (element, number of primitives).
    # Empty for layouts not made from a template; preflight names elements with it.
    sources: tuple[tuple[Element, int], ...] = ()
    # For each of ``sources``: how far right (pt) a text element's lines reach as its text was
    # fitted (``pnp.layout.text.Fit.right``), None for other elements; empty when sources is.
    reach: tuple[float | None, ...] = ()


class Context(Struct):
    """What every piece of one component shares. It also keeps one painter per template (and
    thread), with what that painter worked out once for all the items (styles, constant colours
    and shapes, texts already fitted), so do not change its fields between pieces."""

    fonts: FontBook
    game: Game
    component: Component
    bleed: float  # pt
    warnings: list[Diagnostic] = msgspec.field(default_factory=list)
    token_cut: str = DEFAULT_TOKEN_CUT  # round pieces: "square" (cut boxes abut) | "circle"
    light: bool = False  # fills and icon backgrounds take the template's light variant (--ink-saver)
    painters: dict[tuple[int, int], _Painter] = msgspec.field(default_factory=dict)
    # shapes charged so far (pnp.layout.cost) to the command's budget, shared by every component's
    # context (and the light variant's copy of it); and which (template, item) sides of this
    # component are charged already: a side laid out again (LazyPieces keeps 64) is not charged twice.
    tally: Tally = msgspec.field(default_factory=Tally)
    counted: set[tuple[int, str]] = msgspec.field(default_factory=set)
    # the game's distinct image files so far and their pixels (shared by every component of the
    # game that a Session lays out), held to MAX_GAME_IMAGE_PIXELS together
    images: dict[str, int] = msgspec.field(default_factory=dict)
    # Lay out for the edge sampler (pnp.layout.edges), which reads no text: a text element is
    # worked out up to its fitting (its field references, `replace`, style, box: the same input
    # errors) and then draws nothing, unless it holds inline icons (shapes, drawn as fitted). Every
    # other primitive is the one a full layout draws. Used on a context of its own (see
    # ``LazyPieces.for_edges``): its painters, shape counts and warnings are not the render's.
    edges_only: bool = False


# MAX_TEXT (pnp.input.model): characters of a text element (fitting more took minutes)


def layout_piece(tpl: Template, item: Item, ctx: Context) -> PieceLayout:
    comp = ctx.component
    key = (id(tpl), get_ident())  # a painter lays out one piece at a time
    painter = ctx.painters.get(key)
    if painter is None or painter.tpl is not tpl or painter.bleed != ctx.bleed:
        painter = ctx.painters[key] = _Painter(tpl, ctx, comp.size[0] * MM, comp.size[1] * MM)
    painter.warnings, painter.sources, painter.reach = [], [], []
    painter.drawn = 0
    painter.work = 0
    painter.regex_cost = painter.regex_charged = 0
    painter.fit_work = 0
    reset_matches_steps()
    side = (id(tpl), item.id)
    tally = ctx.tally
    painter.budget = tally.limit - tally.used if side not in ctx.counted else None
    env = Env(item, comp, ctx.game, token_cut=ctx.token_cut)
    prims: list[Primitive] = []
    for el in tpl.elements:
        prims.extend(painter.element(el, env, 0.0, 0.0))
    if side not in ctx.counted:
        ctx.counted.add(side)
        tally.charge(ctx.game.id, painter.work)
    return PieceLayout(painter.w, painter.h, ctx.bleed, tuple(prims), tuple(painter.warnings),
                       tuple(painter.sources), tuple(painter.reach))


def _not_drawn(el: Element, src: str, what: str, line: int) -> Diagnostic:
    """The warning for what SVG art ``src`` has that pnp does not draw (``svg_left_out``)."""
    return el.doc.diag(el.path, f"SVG {src!r}: {what} (line {line}) is not drawn by pnp and is left out",
                       expected="SVG art of shapes and paths, filled with colours or gradients, "
                       "clipped by clip paths", hint="flatten it in an SVG editor (Inkscape: Path > Object to "
                       "Path, Stroke to Path), or export the art as a PNG", severity="warning")


class _Painter:
    """Lays out the pieces of one component with one template, one piece at a time."""

    def __init__(self, tpl: Template, ctx: Context, w: float, h: float):
        self.tpl = tpl
        self.ctx = ctx
        self.bleed = ctx.bleed
        self.w, self.h = w, h
        self.wmm, self.hmm = ctx.component.size  # what relative coordinates ("w-6", "50%") are of
        self.warnings: list[Diagnostic] = []
        self.text = TextLayout(ctx.fonts)
        self.fit_work = 0  # characters this piece's texts have measured, fitting (at most FIT_WORK)
        self.drawn = 0  # primitives drawn so far by leaf elements
        self.work = 0  # and what they are charged (pnp.layout.cost: a fitted text costs more)
        self.regex_cost = self.regex_charged = 0  # `replace` steps (at most REGEX_COST); shapes charged for all
        self.budget: int | None = None  # shapes this piece may still be charged (None: charged already)
        # Worked out once per template, keyed by id() of the element dict (kept in the value):
        self._styles: dict[int, tuple[Mapping[str, Any], dict[str, Any], dict[Any, Style]]] = {}
        self._static: dict[tuple[int, float, float], tuple[Mapping[str, Any], list[Primitive]]] = {}
        self._kids: dict[Any, tuple[Element, tuple[Element, ...]]] = {}  # by id(el), or (id(el), key)
        self._colors: dict[tuple[str, bool], str | None] = {}  # constant colour strings (and light?), resolved
        self._icons: dict[tuple[Any, ...], tuple[Mapping[str, Any], list[Primitive]]] = {}
        self._warned: dict[tuple[Any, ...], tuple[Element, Diagnostic]] = {}
        self.sources: list[tuple[Element, int]] = []  # leaf elements drawn in order, with their counts
        self.reach: list[float | None] = []  # and PieceLayout.reach of each
        self.text_right = -math.inf  # the last text element's Fit.right

    # -- helpers -----------------------------------------------------------------------
    def fail(self, el: Element, env: Env, exc: LayoutError | FontError | PathError | SvgError) -> DataError:
        msg = exc.message if isinstance(exc, LayoutError) else str(exc)
        expected = exc.expected if isinstance(exc, LayoutError | FontError) else None
        hint = exc.hint if isinstance(exc, FontError | LayoutError) else None
        if isinstance(exc, PathError):
            hint = "fix the icon's SVG path data (commands M L H V C S Q T A Z with numbers)"
        if isinstance(exc, SvgError):
            expected, hint = exc.expected, exc.hint
        key = exc.key if isinstance(exc, LayoutError | SvgError) and exc.key else ()
        path = el.path + (key if isinstance(key, tuple) else (key,))
        return DataError([el.doc.diag(path, f"{msg} (game {self.ctx.game.id}, component "
                                            f"{self.ctx.component.id}, item {env.item.id})",
                                      expected=expected, hint=hint)])

    def box(self, el: Element, dx: float, dy: float) -> tuple[float, float, float, float]:
        d = el.data
        x, y, bw, bh = d["box"]
        if x.__class__ is str or y.__class__ is str or bw.__class__ is str or bh.__class__ is str:
            x, y, bw, bh = box_mm(d["box"], self.wmm, self.hmm)
        if "rotate" in d and quarter(self.degrees(d)):
            # turned a quarter, the element is laid out standing so that it covers its box
            x, y, bw, bh = x + (bw - bh) / 2, y + (bh - bw) / 2, bh, bw
        x, y = x + dx, y + dy
        return (x * MM, self.h - (y + bh) * MM, bw * MM, bh * MM)

    def xy(self, p: list[Any], key: str) -> tuple[float, float]:
        """A point (or an offset, a step) in mm."""
        return point(p, key, self.wmm, self.hmm)

    def pt(self, p: list[float], dx: float, dy: float, key: str = "points") -> tuple[float, float]:
        x, y = p
        if x.__class__ is str or y.__class__ is str:
            x, y = self.xy(p, key)
        return ((x + dx) * MM, self.h - (y + dy) * MM)

    def degrees(self, d: Mapping[str, Any], env: Env | None = None) -> float:
        """An element's ``rotate``: degrees clockwise on the card (a number, or a {field} holding one)."""
        v = d["rotate"]
        if v.__class__ is str:
            if env is None:
                return 0.0  # a turn from the data: laid out in its box as given
            raw = env.get(v[1:-1])
            if raw in (None, ""):
                return 0.0
            if isinstance(raw, str):
                with contextlib.suppress(ValueError):
                    raw = float(raw)
            if isinstance(raw, bool) or not isinstance(raw, int | float) or not -3600 <= raw <= 3600:
                raise LayoutError(f"rotate {v} is {raw!r}", key="rotate", expected="a number of degrees")
            return float(raw)
        return float(v)

    def rotated(self, el: Element, env: Env, out: list[Primitive], dx: float, dy: float) -> list[Primitive]:
        """``out`` turned by the element's ``rotate`` about its ``origin``: by default the centre of
        its box (or of its points); a group, repeat or track turns about the piece's centre."""
        d = el.data
        deg = self.degrees(d, env)
        if deg % 360 == 0 or not out:
            return out
        if "origin" in d:
            cx, cy = self.pt(d["origin"], dx, dy, "origin")
        elif "box" in d:
            x, y, w, h = self.box(el, dx, dy)
            cx, cy = x + w / 2, y + h / 2
        elif "points" in d or "from" in d:
            pts = [self.pt(p, dx, dy) for p in d["points"]] if "points" in d \
                else [self.pt(d["from"], dx, dy, "from"), self.pt(d["to"], dx, dy, "to")]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        else:
            cx, cy = (self.wmm / 2 + dx) * MM, self.h - (self.hmm / 2 + dy) * MM
        return turn(out, deg, cx, cy)

    def color(self, value: Any, env: Env, key: str) -> str | None:
        if value is None:
            return None
        light = self.ctx.light and key in LIGHT_KEYS
        if isinstance(value, dict):
            pal = self.tpl.palettes.get(value["palette"])
            if pal is None:
                name = value["palette"]
                raise LayoutError(f"unknown palette {name!r}{_suggest(name, self.tpl.palettes)}", key=key,
                                  expected="one of " + ", ".join(sorted(self.tpl.palettes)) if self.tpl.palettes
                                  else "a palette defined in the template's `palettes`")
            v = env.get(value["by"])
            key_v = _num(v) if isinstance(v, float) else str(v).lower() if isinstance(v, bool) else str(v)
            if light and key_v in self.tpl.light_palettes.get(value["palette"], {}):
                return self.color(self.tpl.light_palettes[value["palette"]][key_v], env, key)
            if key_v in pal:
                return self.color(pal[key_v], env, key)
            if "default" in value:
                return self.color(value["default"], env, key)
            raise LayoutError(f"palette {value['palette']!r} has no colour for {value['by']}={v!r}", key=key,
                              expected="one of " + ", ".join(sorted(pal)) + ", or a `default`")
        if "{" not in value:
            c = self._colors.get((value, light), _MISSING)
            if c is _MISSING:
                c = self._colors[(value, light)] = self._color_name(value, key, light)
            return c  # type: ignore[return-value]
        return self._color_name(env.sub(value), key, light)

    def _color_name(self, s: str, key: str, light: bool) -> str | None:
        if s == "none" or s == "":
            return None
        if s.startswith("#") and _HEX.fullmatch(s):
            return s.lower()
        if light and s in self.tpl.light_colors:
            return self.tpl.light_colors[s].lower()
        if s in self.tpl.colors:
            return self.tpl.colors[s].lower()
        raise LayoutError(f"unknown colour {s!r}{_suggest(s, self.tpl.colors)}", key=key,
                          expected="#RRGGBB, none, or a name from `colors`: " + ", ".join(sorted(self.tpl.colors)))

    def paint(self, el: Element, env: Env, default_stroke: float = 0.5) -> Paint:
        d = el.data
        dash = d.get("dash")
        fill = self.color(d.get("fill"), env, "fill")
        # A stroke in the fill's own colour widens the fill (a box net's bleed): it takes the fill's
        # light variant too, so an --ink-saver face is not ringed by its normal colour.
        same = d.get("stroke") is not None and d.get("stroke") == d.get("fill")
        return Paint(
            fill=fill,
            stroke=fill if same else self.color(d.get("stroke"), env, "stroke"),
            stroke_width=float(d.get("stroke_width", default_stroke)),
            opacity=float(d.get("opacity", 1.0)),
            dash=(float(dash[0]), float(dash[1])) if dash else None,
        )

    def grow_to_bleed(self, x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
        """Edges lying on the trim move out to the bleed edge."""
        b, eps = self.ctx.bleed, 0.01 * MM
        x0, y0, x1, y1 = x, y, x + w, y + h
        if abs(x0) < eps:
            x0 -= b
        if abs(y0) < eps:
            y0 -= b
        if abs(x1 - self.w) < eps:
            x1 += b
        if abs(y1 - self.h) < eps:
            y1 += b
        return x0, y0, x1 - x0, y1 - y0

    # -- elements ----------------------------------------------------------------------
    def children(self, el: Element, key: str = "elements") -> tuple[Element, ...]:
        ck: Any = id(el) if key == "elements" else (id(el), key)
        kids = self._kids.get(ck)
        if kids is None or kids[0] is not el:
            kids = self._kids[ck] = (el, tuple(el.child(key, ci) for ci in range(len(el.data[key]))))
        return kids[1]

    def element(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        d = el.data
        try:
            held = "when" not in d or env.test(d["when"])
            if "when" in d:
                self.charge_matches()
            if not held:
                if "otherwise" in d:  # the elements drawn instead
                    return [p for kid in self.children(el, "otherwise") for p in self.element(kid, env, dx, dy)]
                self.spend(1)  # tested and left out: 1,000,000 such in nested repeats took 11 s (attack 7)
                return []
            kind = d["type"]
            if kind in _SHAPES and _constant_paint(d):
                # The same shape in the same colours wherever it is drawn: worked out once.
                hit = self._static.get((id(d), dx, dy))
                if hit is not None and hit[0] is d:
                    out = list(hit[1])
                else:
                    out = getattr(self, "el_" + kind)(el, env, dx, dy)
                    if len(self._static) >= 20_000:
                        self._static.clear()
                    self._static[(id(d), dx, dy)] = (d, out)
                    out = list(out)
            else:
                out = getattr(self, "el_" + kind)(el, env, dx, dy)
            if "rotate" in d:
                out = self.rotated(el, env, out, dx, dy)
            leaf = kind not in ("repeat", "group", "track")
            if leaf:
                self.drawn += len(out)
                if out:
                    self.sources.append((el, len(out)))
                    self.reach.append(self.text_right if kind in TEXT_TYPES and "rotate" not in d else None)
                if self.drawn > MAX_SHAPES:
                    raise LayoutError(f"more than {MAX_SHAPES} shapes on one piece",
                                      expected="smaller `repeat` or `track` counts (repeats inside repeats multiply)")
            # a group or repeat: 1 itself, each time it is reached
            self.spend(weight(out) + area(out, self.w, self.h) if leaf else 1)
            return out
        except (LayoutError, FontError, PathError, SvgError) as exc:
            raise self.fail(el, env, exc) from None
        except ValueError as exc:  # a bad `matches` pattern in a condition
            raise self.fail(el, env, LayoutError(str(exc), key="when",
                                                 expected=f"a regular expression in {REGEX_SYNTAX}")) from None

    def spend(self, work: int) -> None:
        """Charge ``work`` shapes (pnp.layout.cost) to the piece, within the command's budget."""
        self.work += work
        if self.budget is not None and self.work > self.budget:
            raise LayoutError(f"the pieces this command lays out draw more than {self.ctx.tally.limit} shapes together "
                              "(pnp's budget)", expected=self.ctx.tally.expected(), hint="fewer shapes on each piece "
                              "(`repeat` and `track` counts from the data, elements shown `when`; shorter dashed "
                              "strokes or longer dashes; narrower or opaque strokes, in SVG art too), fewer "
                              "distinct pieces, or fewer games at a time")

    def charge_matches(self) -> None:
        """LayoutError past REGEX_COST steps of patterns a piece; charged too, REGEX_STEPS a shape."""
        if (owed := (steps := self.regex_cost + matches_steps()) // REGEX_STEPS - self.regex_charged) > 0:
            self.regex_charged += owed
            self.spend(owed)
        if steps > REGEX_COST:
            raise LayoutError(f"the regular expressions in this piece's `matches` and `replace` cost more than "
                              f"{REGEX_COST} steps (each test costs its pattern's instructions x the characters "
                              "it reads)", key="when", expected="fewer or smaller patterns (counted repetitions "
                              "such as `.{0,100}` copy what they repeat), or shorter field values")

    def el_rect(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        x, y, w, h = self.box(el, dx, dy)
        if el.data.get("bleed"):
            x, y, w, h = self.grow_to_bleed(x, y, w, h)
        return [Rect(x, y, w, h, self.paint(el, env), float(el.data.get("radius", 0)) * MM)]

    def el_circle(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        x, y, w, h = self.box(el, dx, dy)
        if el.data.get("bleed"):
            b = self.ctx.bleed
            if self.square_cut_background(x, y, w, h):
                # A round piece cut square: its background disc fills the whole cut box and its
                # bleed, so the corners carry the piece's colour, not bare paper and a circle edge.
                return [Rect(-b, -b, self.w + 2 * b, self.h + 2 * b, self.paint(el, env))]
            x, y, w, h = x - b, y - b, w + 2 * b, h + 2 * b
        return [Ellipse(x, y, w, h, self.paint(el, env))]

    def square_cut_background(self, x: float, y: float, w: float, h: float) -> bool:
        """A bleeding circle on the trim of a round piece that is cut square."""
        eps = 0.01 * MM
        return (self.ctx.component.shape == "round" and self.ctx.token_cut == "square"
                and abs(x) < eps and abs(y) < eps and abs(w - self.w) < eps and abs(h - self.h) < eps)

    def el_hex(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        x, y, w, h = self.box(el, dx, dy)
        grow = self.ctx.bleed if el.data.get("bleed") else 0.0
        pts = hex_points(x, y, w, h, el.data.get("orientation", "pointy"), grow)
        return [PathPrim(_polygon_ops(pts), self.paint(el, env))]

    def el_polygon(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        pts = [self.pt(p, dx, dy) for p in el.data["points"]]
        return [PathPrim(_polygon_ops(pts), self.paint(el, env))]

    def el_line(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        x1, y1 = self.pt(el.data["from"], dx, dy, "from")
        x2, y2 = self.pt(el.data["to"], dx, dy, "to")
        paint = self.paint(el, env)
        if paint.stroke is None and "stroke" not in el.data:
            paint = Paint(stroke=INK, stroke_width=paint.stroke_width, opacity=paint.opacity, dash=paint.dash)
        return [Line(x1, y1, x2, y2, paint)]

    def style(self, el: Element, env: Env) -> Style:
        d = el.data
        got = self._styles.get(id(d))
        if got is None or got[0] is not d:
            base: dict[str, Any] = {}
            if "style" in d:
                if d["style"] not in self.tpl.styles:
                    raise LayoutError(f"unknown style {d['style']!r}{_suggest(d['style'], self.tpl.styles)}",
                                      key="style", expected="one of " + ", ".join(sorted(self.tpl.styles)))
                base = dict(self.tpl.styles[d["style"]])
            for k in ("font", "size", "color", "align", "valign"):
                if k in d:
                    base[k] = d[k]
            got = self._styles[id(d)] = (d, base, {})
        base, made = got[1], got[2]
        # Only the colour can depend on the item; one Style per colour it resolves to.
        color = (self.color(base["color"], env, "color") or INK) if "color" in base else None
        st = made.get(color)
        if st is None:
            fields = {**base, "color": color} if color is not None else base
            st = Style(**{k: v for k, v in fields.items() if k in Style.__struct_fields__})
            for f in (st.font, st.bold_font, st.italic_font):
                if f:
                    self.ctx.fonts.ensure(f)
            made[color] = st
        return st

    def el_text(self, el: Element, env: Env, dx: float, dy: float, markup: bool = False) -> list[Primitive]:
        d = el.data
        st = self.style(el, env)
        text = env.sub(d["text"])
        for i, r in enumerate(d.get("replace", [])):
            try:
                rx = regex(r["pattern"])
            except ValueError as exc:
                raise LayoutError(f"replace[{i}]: {exc}", key=("replace", i, "pattern"),
                                  expected=f"a regular expression in {REGEX_SYNTAX}") from None
            try:
                text, steps = rx.sub_counted(r["with"], text, REGEX_COST - self.regex_cost - matches_steps())
                self.regex_cost += steps
            except RegexCostError:
                raise LayoutError(f"replace[{i}]: regular expression {rx.pattern!r} ({rx.size} instructions) on a "
                                  f"text of {len(text)} characters brings this piece's `replace` patterns to more "
                                  f"than {REGEX_COST} steps (each search costs the pattern's instructions x the "
                                  "characters left to search)", key=("replace", i, "pattern"), expected="fewer or "
                                  "smaller patterns (counted repetitions such as `.{0,100}` copy what they repeat), "
                                  "or shorter texts") from None
            except ValueError as exc:
                raise LayoutError(f"replace[{i}]: {exc}", key="replace", expected=f"a regular expression in "
                                  f"{REGEX_SYNTAX} and a replacement using its groups") from None
            self.charge_matches()
            if len(text) > MAX_TEXT:  # rewrites that grow it (each doubling it, say) stop here
                break
        if len(text) > MAX_TEXT:
            raise LayoutError(f"text of {len(text)} characters: far more than a piece can hold",
                              expected=f"at most {MAX_TEXT} characters after its field references and `replace`")
        if not text.strip():
            return []
        fit = d.get("fit", {})
        # Only inline icons call back into the template (and a text without them has none).
        self.text.icon_fn = self.inline_icon(el, env, st) if markup and "{icon:" in text else None
        box = self.box(el, dx, dy)
        if self.ctx.edges_only and self.text.icon_fn is None:
            return []  # only Text would be drawn, and the edge sampler reads none
        self.work += TEXT_COST
        prims, result = self.text.fit(text, st, box, markup=markup, wrap=d.get("wrap", True),
                                      min_size=fit.get("min_size"), step=fit.get("step", 0.25))
        self.fit_work = charge_fit(self.fit_work, result, text, "fit" if "fit" in d else "text")
        self.work += result.work // FIT_CHARS
        if not result.fits:
            self.warnings.append(self.warning(el, ("fit", result.size), lambda: el.doc.diag(
                el.path, f"text does not fit even at {result.size:g} pt ({el.label})",
                expected=f"text that fits {_num(round(box[2] / MM, 2))} x {_num(round(box[3] / MM, 2))} mm "
                f"at >= {result.size:g} pt",
                hint="shorten the text, enlarge the box or lower fit.min_size", severity="warning")))
        self.text_right = result.right
        fonts = self.ctx.fonts
        for p in prims:  # almost always every character has a glyph: checked without building sets
            if p.__class__ is Text and not fonts.charset(p.font).issuperset(p.text):  # type: ignore[union-attr]
                break
        else:
            return prims
        by_font: dict[str, list[str]] = {}
        for p in prims:
            if p.__class__ is Text:
                by_font.setdefault(p.font, []).append(p.text)  # type: ignore[union-attr]
        missing = sorted({(ch, font) for font, ts in by_font.items() for ch in fonts.missing(font, "".join(ts))})
        for ch, font in missing:
            self.warnings.append(self.warning(el, ("glyph", ch, font), lambda ch=ch, font=font: el.doc.diag(
                el.path, f"character {ch!r} (U+{ord(ch):04X}) is not in font {font} and would not print ({el.label})",
                expected=f"characters that {font} has", hint="use an inline {icon:NAME}, another font, or other text",
                severity="warning")))
        return prims

    def warning(self, el: Element, what: tuple[Any, ...], make: Callable[[], Diagnostic]) -> Diagnostic:
        """The same warning about the same element is made once (locating it in its file is not cheap)."""
        key = (id(el), *what)
        hit = self._warned.get(key)
        if hit is None or hit[0] is not el:
            hit = self._warned[key] = (el, make())
        return hit[1]

    def el_richtext(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        return self.el_text(el, env, dx, dy, markup=True)

    def icon_spec(self, name: str) -> Mapping[str, Any]:
        spec = self.tpl.icons.get(name)
        if spec is None:
            raise LayoutError(f"unknown icon {name!r}{_suggest(name, self.tpl.icons)}", key="name",
                              expected="an icon defined in the template chain (" + ", ".join(self.tpl.chain) + ")")
        return spec

    def inline_icon(self, el: Element, env: Env, st: Style):
        accent, bg = self.tpl.colors.get("accent", st.color), self.tpl.colors.get("paper", PAPER)
        placed = [self.drawn]  # the piece's shapes, with the icons this text has placed so far

        def fn(name: str, size: float):
            spec = self.icon_spec(name)
            vw, vh = self.viewbox(spec)
            ih = size * 1.05
            iw = ih * vw / vh
            adv = iw + size * 0.08

            def draw(x: float, baseline: float) -> list[Primitive]:
                y = baseline - size * 0.2
                out = self.icon(el, name, spec, x + size * 0.04, y, iw, ih, st.color, bg, accent)
                placed[0] += len(out)  # counted as placed: 800 icons of 3,000 shapes took 1.4 GB first
                if placed[0] > MAX_SHAPES:
                    raise LayoutError(f"more than {MAX_SHAPES} shapes on one piece (the text's inline icons)",
                                      expected="fewer inline icons in the text, or icons of fewer shapes")
                return out

            return adv, draw

        return fn

    def el_icon(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        d = el.data
        name = env.sub(d["name"])
        spec = self.icon_spec(name)
        x, y, w, h = self.box(el, dx, dy)
        fg = self.color(d.get("fg", INK), env, "fg") or INK
        bg = self.color(d.get("bg", self.tpl.colors.get("paper", PAPER)), env, "bg") or PAPER
        accent = self.color(d.get("accent", self.tpl.colors.get("accent", fg)), env, "accent") or fg
        vw, vh = self.viewbox(spec)
        scale = min(w / vw, h / vh)
        iw, ih = vw * scale, vh * scale
        return self.icon(el, name, spec, x + (w - iw) / 2, y + (h - ih) / 2, iw, ih, fg, bg, accent)

    def viewbox(self, spec: Mapping[str, Any]) -> tuple[float, float]:
        """An icon's drawing size: its ``viewbox``, or an SVG icon's own size."""
        if "file" in spec:
            return svg_art(spec["file"], spec["svg"])
        vw, vh = spec.get("viewbox", [100, 100])
        return vw, vh

    def left_out(self, el: Element, path: str, shown: str) -> None:
        """A warning on ``el`` for each feature SVG art ``path`` has that pnp does not draw (once)."""
        for what, line in svg_left_out(path):
            said = self.warning(el, ("svg", what, shown), partial(_not_drawn, el, shown, what, line))
            if said not in self.warnings:
                self.warnings.append(said)

    def icon(self, el: Element, name: str, spec: Mapping[str, Any], x: float, y: float, w: float, h: float,
             fg: str, bg: str, accent: str) -> list[Primitive]:
        """``icon_primitives``, remembered: pieces repeat the same icons in the same places. An
        SVG icon is its file's art, in its own colours (what it has that pnp does not draw: a
        warning on ``el``)."""
        if "file" in spec:
            aw, ah = svg_art(spec["file"], spec["svg"])
            self.left_out(el, spec["file"], spec["svg"])
            return [Vector(x, y, w, h, spec["file"], aw, ah)]
        key = (name, x, y, w, h, fg, bg, accent)
        hit = self._icons.get(key)
        if hit is not None and hit[0] is spec:
            return list(hit[1])
        out = icon_primitives(spec, x, y, w, h, fg, bg, accent)
        if len(self._icons) >= 20_000:
            self._icons.clear()
        self._icons[key] = (spec, out)
        return list(out)

    def el_image(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        src = env.sub(el.data["src"])
        folder = self.ctx.game.folder.resolve()
        path = (self.ctx.game.folder / src)
        too_long = name_too_long(path)
        if too_long is not None:
            raise LayoutError(f"image {src!r}: name too long: {too_long}", key="src",
                              expected=f"an existing PNG, JPEG or SVG file, at most {NAME_MAX} bytes a name, "
                              f"{PATH_MAX} in all")
        try:
            real = path.resolve()
            real.relative_to(folder)
        except ValueError:
            raise LayoutError(f"image {src!r} is outside the game folder", key="src",
                              expected="a path inside " + str(self.ctx.game.folder)) from None
        except (RuntimeError, OSError) as exc:  # a loop of links ("Symlink loop"), a path too long
            raise LayoutError(f"image {src!r} cannot be followed to a file ({exc})", key="src",
                              expected="an existing PNG, JPEG or SVG file, not a loop of links") from None
        if not real.is_file():
            raise LayoutError(f"image {src!r} is not a regular file" if real.exists() else f"image {src!r} not found",
                              key="src", expected="an existing PNG, JPEG or SVG file")
        vector = svg_file(str(real))
        if vector:
            iw, ih = svg_art(str(real), src)
            self.left_out(el, str(real), src)
        else:
            try:
                iw, ih = image_size(str(real))
            except (OSError, ValueError) as exc:
                raise LayoutError(f"image {src!r} cannot be read: it {exc}" if isinstance(exc, ValueError)
                                  else f"image {src!r} cannot be read ({exc.strerror})", key="src",
                                  expected=f"a valid PNG or JPEG file of at most {MAX_IMAGE_PIXELS} pixels "
                                  f"and {MAX_IMAGE_BYTES} bytes decoded") from None
            self.count_image(str(real), src, iw * ih)
        if iw <= 0 or ih <= 0:
            raise LayoutError(f"image {src!r} cannot be read", key="src", expected="a valid PNG, JPEG or SVG file")
        x, y, w, h = self.box(el, dx, dy)
        if el.data.get("bleed"):  # art that runs off the card: edges on the trim reach the bleed edge
            x, y, w, h = self.grow_to_bleed(x, y, w, h)
        mode = el.data.get("fit", "contain")
        if "{" in mode:  # the fit from the item's data
            mode = env.sub(mode).strip().lower() or "contain"
            if mode not in FITS:
                raise LayoutError(f"fit {el.data['fit']} is {mode!r}", key="fit", expected="one of " + ", ".join(FITS))
        if mode == "stretch":
            return [Vector(x, y, w, h, str(real), iw, ih) if vector else Image(x, y, w, h, str(real))]
        scale = (min if mode == "contain" else max)(w / iw, h / ih)
        dw, dh = iw * scale, ih * scale
        clip = (x, y, w, h) if mode == "cover" else None
        if "focus" in el.data:  # the point of the image kept in view, as fractions from its top-left
            fx, fy = self.focus(el.data["focus"], env)
            ix, iy = x + (w - dw) * fx, y + (h - dh) * (1 - fy)
        else:
            ix, iy = x + (w - dw) / 2, y + (h - dh) / 2
        if vector:
            return [Vector(ix, iy, dw, dh, str(real), iw, ih, clip)]
        return [Image(ix, iy, dw, dh, str(real), clip)]

    def count_image(self, real: str, src: str, pixels: int) -> None:
        """Add a raster image file to the game's images (once per file); LayoutError when they
        hold more than MAX_GAME_IMAGE_PIXELS pixels together."""
        images = self.ctx.images
        if real in images:
            return
        total = sum(images.values()) + pixels
        if total > MAX_GAME_IMAGE_PIXELS:
            raise LayoutError(f"image {src!r} ({pixels} pixels) brings the game's {len(images) + 1} image files "
                              f"to {total} pixels together, more than pnp's budget of {MAX_GAME_IMAGE_PIXELS} "
                              "a game", key="src",
                              expected=f"images of at most {MAX_GAME_IMAGE_PIXELS} pixels together in one game",
                              hint="scale the art to the resolution it prints at (300 ppi at its size on the piece)")
        images[real] = pixels

    def focus(self, raw: Any, env: Env) -> tuple[float, float]:
        """An image's ``focus``: [x, y] as fractions (0..1) or percentages of the image from its
        top-left, each possibly a {field}; or one {field} holding both ("30%, 20%", or a list)."""
        if isinstance(raw, str):
            v = env.get(raw[1:-1])
            if v in (None, ""):
                return (0.5, 0.5)
            parts = v if isinstance(v, list) else str(v).replace(";", ",").split(",")
        else:
            parts = [env.get(p[1:-1]) if isinstance(p, str) else p for p in raw]
        out = []
        for p in parts:
            f = _fraction(p)
            if f is None or len(parts) != 2:
                raise LayoutError(f"focus is {raw!r} ({parts!r} for this item)", key="focus",
                                  expected="two fractions from 0 to 1 (or percentages), x then y from the "
                                  "image's top-left, e.g. [0.5, 0.25] or \"50%, 25%\"")
            out.append(f)
        return out[0], out[1]

    def el_repeat(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        d = el.data
        count = repeat_count(d["count"], env.get)
        sx, sy = self.xy(d["step"], "step")
        per_row = d.get("per_row") or max(count, 1)
        rx, ry = self.xy(d["row_step"], "row_step") if "row_step" in d else (0, 0)
        out: list[Primitive] = []
        kids = self.children(el)
        for i in range(count):
            row, col = divmod(i, per_row)
            sub = Env(env.item, env.component, env.game,
                      {**env.extra, "n": i + 1, "index": i, "row": row, "col": col}, env.token_cut)
            ox, oy = dx + col * sx + row * rx, dy + col * sy + row * ry
            for kid in kids:
                out.extend(self.element(kid, sub, ox, oy))
        return out

    def el_track(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        """Numbered spaces along a path; one track may span several pieces, each piece showing
        the spaces first..last of its item."""
        d = el.data
        first, last = track_span(d, env.get)
        points = track_centres(d, last - first + 1, self.wmm, self.hmm)
        sw, sh = self.xy(d["size"], "size")
        out: list[Primitive] = []
        kids = self.children(el)
        for i, (px, py) in enumerate(points):
            sub = Env(env.item, env.component, env.game,
                      {**env.extra, "value": first + i, "index": i, "n": i + 1}, env.token_cut)
            for kid in kids:
                out.extend(self.element(kid, sub, dx + px - sw / 2, dy + py - sh / 2))
        return out

    def el_group(self, el: Element, env: Env, dx: float, dy: float) -> list[Primitive]:
        ox, oy = self.xy(el.data["offset"], "offset") if "offset" in el.data else (0, 0)
        out: list[Primitive] = []
        for kid in self.children(el):
            out.extend(self.element(kid, env, dx + ox, dy + oy))
        return out


"""SVG art: an ``image`` (or an icon) may be an ``.svg`` file, drawn as vectors. svglib reads the
file into a reportlab Drawing (maintained, pure Python over lxml, and its output is reportlab's
own drawing operations, so the art stays vector and lands in the same PDF stream as everything
else); the renderer draws that Drawing scaled into the element's box.

Checked before svglib sees the file, with the same kind of message as a bad PNG: at most
``MAX_BYTES`` and ``MAX_NODES`` elements; well-formed XML with an ``<svg>`` root; no entity
declarations (a DOCTYPE with an internal subset: "billion laughs"); no reference to another file
(``href`` or CSS ``url()`` other than ``#id``, ``@import``): the art must be self-contained, as an
image inside the game folder is; no embedded raster image (``data:`` URLs: svglib cannot draw them); at most
``MAX_PATH_CHARS`` characters of path data, and the same limits with every ``<use>`` drawn out
(nested at most ``MAX_USE_DEPTH`` deep, never containing itself, copying at most
``MAX_USE_COPIES`` elements); a ``<style>`` sheet within the bounds of ``pnp.layout.svg_css``
(its bytes, selectors and the steps of matching them); no ``<text>``: svglib would set
it in a standard PDF font that is not embedded (print shops reject those), so text must be
converted to outlines. After conversion a group whose transform is singular (``scale(0)``,
``matrix(1 1 1 1 0 0)``) is emptied: it draws nothing, as in a browser (reportlab would divide by
its determinant).

Size: over 500 lines because the checks made before svglib reads a file sit beside the
conversion they guard; the style sheet checks are pnp.layout.svg_css, the cost of drawing what
svglib makes (shapes, segments, dashes, gradients, the areas and edges they paint) is
pnp.layout.svg_cost."""

from __future__ import annotations

import io
import logging
import math
import os
import re
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from pnp.input.load import read_regular
from pnp.layout.svg_cost import ArtCost, art_cost, drawn_scale
from pnp.layout.svg_css import MAX_PROPERTIES, CssError, check_css

MAX_BYTES = 10 * 1024 * 1024  # 10 MB of SVG is far more than card art needs
MAX_NODES = 50_000  # elements: svglib converts ~0.2 ms each (50,000 in ~10 s), once per build
# Functions in one transform list (`translate(..) scale(..) ...`): svglib parses a list in time
# quadratic in its length (200,000 took 132 s); editors write one matrix, people a few.
MAX_TRANSFORMS = 100
MAX_USE_DEPTH = 16  # <use> of a <use> of ...: editors' clones nest a few deep
# Elements svglib copies to draw out every <use> (each copies what it refers to, and that
# copy's own <use>s are drawn out in turn): <use> of <use>s doubling 10 levels deep copies
# ~39,000 and took 6 s (~0.16 ms an element), 8 levels ~7,700 and 1.5 s; 1,000 <use> of one
# path copy 1,000 (0.8 s).
MAX_USE_COPIES = 10_000
# elements in one clip path: svglib joins them in time growing with their square (2,000 rects: 5 s,
# measured); editors clip with one path or a few
MAX_CLIP_ELEMENTS = 500
MAX_PATH_CHARS = 1_000_000  # of path data (d, points) in all: a 1,000,000-segment path took minutes and GBs
TEXT_TAGS = frozenset(("text", "tspan", "textPath", "flowRoot", "flowPara"))
EXPECTED = "a self-contained SVG file (an <svg> root, shapes and paths, text converted to outlines)"


class SvgError(Exception):
    def __init__(self, message: str, expected: str = EXPECTED, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.hint = hint
        self.key = "src"


def is_svg(path: str) -> bool:
    return path.lower().endswith(".svg")


def svg_art(path: str, shown: str) -> tuple[float, float]:
    """The width and height (pt) of the SVG file at ``path`` (``shown``: its name in messages),
    after the checks above; SvgError when it fails one."""
    _, w, h, _, _ = _cached(path, shown)
    return w, h


def svg_left_out(path: str) -> tuple[tuple[str, int], ...]:
    """What the checked file's art has that svglib does not draw (markers, masks, filters,
    pattern fills, gradient strokes, element opacity), each with the line it is first used on:
    the art is drawn without it, and the layout warns."""
    return _cached(path, os.path.basename(path))[4]


def svg_drawing(path: str) -> Any:
    """The checked file's reportlab Drawing (read once per file version)."""
    return _cached(path, os.path.basename(path))[0]


def svg_cost(path: str) -> ArtCost:
    """What drawing the checked file's art costs (``pnp.layout.svg_cost.ArtCost``), read once:
    its shapes at a scale (``at``), the area its gradients fill (``gradient``), its edges
    (``edges_at``) and what a strip along one side holds of them (``band``)."""
    return _cached(path, os.path.basename(path))[3]


def svg_shapes(path: str) -> int:
    """The shapes of the checked file's art (``art_cost``) without its dashes: what a rasteriser
    holds each time it draws the art (``pnp.render.pixels.held``)."""
    return _cached(path, os.path.basename(path))[3].shapes


_Art = tuple[Any, float, float, ArtCost, tuple[tuple[str, int], ...]]  # drawing, width, height, cost, left out
_ART: OrderedDict[tuple[str, int, int], _Art] = OrderedDict()  # the last 64 read


def _cached(path: str, shown: str) -> _Art:
    """``_art`` once per file version (path, mtime, size), whatever name messages give it: the
    check and the drawing of one build read a file once (svglib takes ~0.2 ms an element)."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    hit = _ART.get(key)
    if hit is None:
        hit = _ART[key] = _art(path, st.st_size, shown)
        if len(_ART) > 64:
            _ART.popitem(last=False)
    return hit


def _check_expansion(root: Any, shown: str) -> int:
    """SvgError when the drawing, with every ``<use>`` replaced by what it refers to (as svglib
    draws it), would hold more than MAX_NODES elements, nest ``<use>`` more than MAX_USE_DEPTH
    deep, or refer to itself: 2 KB of ``<use>`` doubling 29 levels deep is 500 million
    elements. One pass over the elements, each weighed once (no recursion). Returns the number
    of elements copied to draw out the ``<use>`` references."""
    from lxml import etree

    ids = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    # what a <style> fills with url(#id) may be any element: each is counted as drawing it
    styled = [ids[m] for st in root.iter() if isinstance(st.tag, str) and etree.QName(st).localname == "style"
              for m in _local_urls("".join(st.itertext())) if m in ids]
    # (but not what lies inside a definition: a clip path's own shapes are not clipped by it)
    defined = {d for el in root.iter() if isinstance(el.tag, str) and etree.QName(el).localname in _NOT_DRAWN
               and etree.QName(el).localname not in ("svg", "g") for d in el.iter()} if styled else set()

    def targets(el: Any) -> list[Any]:
        """What ``el`` draws again: a <use>'s element, a gradient's (its stops), and every clip
        path, gradient, mask, pattern or marker it names by url(#id): svglib draws each of them
        out again for each element that refers to it."""
        name = etree.QName(el).localname
        out = []
        for attr, value in el.attrib.items():
            if etree.QName(attr).localname == "href" and value.strip().startswith("#") and name in _HREF_DRAWN:
                out.append(ids.get(value.strip()[1:]))
            elif "url(" in value.lower():
                out += [ids.get(m) for m in _local_urls(value)]
        if styled and name not in _NOT_DRAWN and el not in defined:
            out += styled
        return [t for t in out if t is not None]

    weight: dict[Any, int] = {}  # element -> elements it stands for, expanded
    depth: dict[Any, int] = {}  # element -> <use> levels below it
    chars: dict[Any, int] = {}  # element -> characters of path data it stands for, expanded
    copies: dict[Any, int] = {}  # element -> elements copied to draw out the <use>s in it
    open_: set[Any] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        el, done = stack.pop()
        if el in weight:
            continue
        kids = [ch for ch in el if isinstance(ch.tag, str)]
        used = targets(el)
        if not done:
            if el in open_:
                raise SvgError(f"SVG {shown!r} has a <use> or url(#...) that contains itself (line {el.sourceline})",
                               hint="remove the reference to its own group")
            open_.add(el)
            stack.append((el, True))
            stack.extend((x, False) for x in (*kids, *used) if x not in weight)
            continue
        w = 1 + sum(weight[ch] for ch in kids) + sum(weight[u] for u in used)
        d = max([depth[ch] for ch in kids] + [depth[u] + 1 for u in used] + [0])
        c = (sum(len(v) for a, v in el.attrib.items() if etree.QName(a).localname in ("d", "points"))
             + sum(chars[ch] for ch in kids) + sum(chars[u] for u in used))
        if c > MAX_PATH_CHARS:
            raise SvgError(f"SVG {shown!r} has more than {MAX_PATH_CHARS} characters of path data with each "
                           "<use> drawn out", hint="simplify the paths (fewer nodes), or export the art as a PNG")
        k = sum(copies[ch] for ch in kids) + sum(weight[u] + copies[u] for u in used)
        if k > MAX_USE_COPIES:
            raise SvgError(f"SVG {shown!r} needs more than {MAX_USE_COPIES} elements copied to draw out its <use> "
                           f"references (and clip paths, gradients, masks named by url()) (line {el.sourceline})",
                           expected=f"at most {MAX_USE_COPIES} elements copied for <use> and url()",
                           hint="simplify the art (fewer, shallower references; a gradient of fewer stops), "
                           "or export it as a PNG")
        if w - 1 > MAX_CLIP_ELEMENTS and etree.QName(el).localname == "clipPath":
            raise SvgError(f"SVG {shown!r} has a clip path of more than {MAX_CLIP_ELEMENTS} elements (line "
                           f"{el.sourceline})", expected=f"clip paths of at most {MAX_CLIP_ELEMENTS} elements",
                           hint="clip with one path (an SVG editor's Path > Union), or export the art as a PNG")
        if w > MAX_NODES:
            raise SvgError(f"SVG {shown!r} has more than {MAX_NODES} elements with each <use> drawn out",
                           expected=f"at most {MAX_NODES} elements, <use> included",
                           hint="simplify the art, or export it as a PNG")
        if d > MAX_USE_DEPTH:
            raise SvgError(f"SVG {shown!r} nests <use> more than {MAX_USE_DEPTH} deep (line {el.sourceline})",
                           expected=f"<use> nested at most {MAX_USE_DEPTH} deep",
                           hint="simplify the art, or export it as a PNG")
        weight[el], depth[el], chars[el], copies[el] = w, d, c, k
        open_.discard(el)
    return copies[root]


def _art(path: str, size: int, shown: str) -> _Art:
    if size > MAX_BYTES:
        raise SvgError(f"SVG {shown!r} is {size / 1e6:.1f} MB", expected=f"at most {MAX_BYTES // 1024 // 1024} MB",
                       hint="simplify the art, or export it as a PNG")
    from lxml import etree  # only SVG art needs them

    try:
        data = read_regular(path, MAX_BYTES)
    except OSError as exc:
        raise SvgError(f"SVG {shown!r} cannot be read: {exc.strerror or exc}",
                       hint="open it in an SVG editor and save it again") from None
    if data[:2] == b"\x1f\x8b" or data[:6] == b"\xfd7zXZ\x00":
        # libxml2 unpacks a compressed file it is given by name: 272 KB of gzip, 4,000,000 <rect/>,
        # took 2.4 GB before the element count was seen (attack 24, F4); bytes in memory it does not
        raise SvgError(f"SVG {shown!r} is compressed ({'gzip' if data[0] == 0x1F else 'xz'}: an .svgz file)",
                       expected="a plain, uncompressed SVG file", hint="save it as plain SVG")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True, huge_tree=False)
    try:
        doc = etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as exc:  # lxml's text may hold a line break and "(<string>, line 1)"
        why = re.sub(r"\s*\(<string>, line \d+\)$", "", " ".join(str(exc).split()))
        raise SvgError(f"SVG {shown!r} cannot be read: {why}",
                       hint="open it in an SVG editor and save it again") from None
    del data
    root = doc.getroot()
    if doc.docinfo.internalDTD is not None:
        raise SvgError(f"SVG {shown!r} declares entities in a DOCTYPE",
                       hint="save it again without a DOCTYPE (SVG editors do not need one)")
    if etree.QName(root).localname != "svg":
        raise SvgError(f"SVG {shown!r} has a <{etree.QName(root).localname}> root, not <svg>")
    count = 0
    empty = []  # text elements without text (editors leave them): dropped, so svglib never looks up a font
    path_chars = [0]  # path data read so far
    bad_path: str | None = None  # what is wrong in the first malformed path data
    left_out: dict[str, int] = {}  # what svglib leaves out of the drawing -> its first line
    painted: list[tuple[str, list[str], int]] = []  # (fill or stroke, the ids it names, line)
    kinds: dict[str, str] = {}  # id -> element name
    for node in root.iter():
        if not isinstance(node.tag, str):
            continue  # processing instructions
        count += 1
        if count > MAX_NODES:
            raise SvgError(f"SVG {shown!r} has more than {MAX_NODES} elements",
                           expected=f"at most {MAX_NODES} elements", hint="simplify the art, or export it as a PNG")
        name = etree.QName(node).localname
        if name in TEXT_TAGS:
            if "".join(node.itertext()).strip():
                raise SvgError(f"SVG {shown!r} has text (<{name}> on line {node.sourceline})",
                               hint="convert the text to outlines (Inkscape: Path > Object to Path; Illustrator: "
                               "Type > Create Outlines): its font would not be embedded in the PDF")
            empty.append(node)
        if len(node.attrib) > MAX_PROPERTIES or node.get("style", "").count(";") >= MAX_PROPERTIES:
            what = "attributes" if len(node.attrib) > MAX_PROPERTIES else "declarations in its style attribute"
            raise SvgError(f"SVG {shown!r} has an element with more than {MAX_PROPERTIES} {what} (<{name}> on line "
                           f"{node.sourceline})", expected=f"at most {MAX_PROPERTIES} {what} an element",
                           hint="open it in an SVG editor and save it again")
        foreign = _foreign_url(" ".join(node.attrib.values()), name == "style" and "".join(node.itertext()))
        if foreign is not None:
            raise SvgError(f"SVG {shown!r} refers to another file ({foreign[:60]!r} on line {node.sourceline})",
                           hint="embed the referenced art in the SVG file itself")
        for attr, value in node.attrib.items():
            if etree.QName(attr).localname == "href":
                v = value.strip()
                if v.startswith("data:"):
                    # svglib cannot draw an embedded raster image (it failed deep in the drawing)
                    raise SvgError(f"SVG {shown!r} embeds a raster image (line {node.sourceline})",
                                   hint="use an image element for the raster image, and SVG for vector art only")
                if not v.startswith("#"):
                    raise SvgError(f"SVG {shown!r} refers to another file ({v[:60]!r} on line {node.sourceline})",
                                   hint="embed the referenced art in the SVG file itself")
            elif etree.QName(attr).localname in ("transform", "gradientTransform", "patternTransform"):
                if value.count("(") > MAX_TRANSFORMS:  # svglib reads a list in time quadratic in its length
                    raise SvgError(f"SVG {shown!r} has a transform of more than {MAX_TRANSFORMS} functions (line "
                                   f"{node.sourceline})", expected=f"at most {MAX_TRANSFORMS} functions in one "
                                   "transform", hint="open it in an SVG editor and save it again (editors write "
                                   "one matrix)")
            elif etree.QName(attr).localname in ("d", "points"):
                path_chars[0] += len(value)
                if path_chars[0] > MAX_PATH_CHARS:
                    raise SvgError(f"SVG {shown!r} has more than {MAX_PATH_CHARS} characters of path data",
                                   hint="simplify the paths (fewer nodes), or export the art as a PNG")
                if bad_path is None:  # the first, said once the whole file passed the checks above
                    bad_path = _path_problem(node, etree.QName(attr).localname, value)
        _left_out(node, name, left_out, painted, kinds)
        if name == "image":  # svglib draws no raster image (`href="#a"` failed inside reportlab: attack 21, F4)
            raise SvgError(f"SVG {shown!r} has an <image> (line {node.sourceline}): SVG art is drawn as vectors only",
                           hint="use an image element for the raster image, and SVG for vector art only")
    if bad_path is not None:  # svglib skips what it cannot read: `L nan nan` drew as if it were not there
        raise SvgError(f"SVG {shown!r} cannot be drawn: {bad_path}",
                       expected="path data of commands, each with its count of numbers",
                       hint="open it in an SVG editor and save it as plain SVG")
    copies = _check_expansion(root, shown)
    try:
        check_css(root, shown, size, copies)
    except CssError as exc:
        raise SvgError(exc.message, expected=exc.expected, hint=exc.hint) from None
    for node in empty:
        if node.getparent() is not None:
            node.getparent().remove(node)
    from svglib.svglib import SvgRenderer

    log = logging.getLogger("svglib.svglib")
    quiet, log.disabled = log.disabled, True  # svglib logs unsupported features; the art is drawn without them
    try:
        drawing = SvgRenderer(path, external_reference_root=os.path.dirname(path)).render(root)
    except MemoryError:
        raise  # not the file's fault as such: the command says it ran out of memory
    except Exception as exc:  # svglib raises what its parsing meets; any of it means the file is unusable
        bad = _bad_style(root)  # say where, not "too many values to unpack" (bad path data is refused above)
        raise SvgError(f"SVG {shown!r} cannot be drawn: {bad or exc}",
                       hint="open it in an SVG editor and save it as plain SVG") from None
    finally:
        log.disabled = quiet
    w, h = float(drawing.width or 0), float(drawing.height or 0)
    # at least MIN_ART pt a side: a viewBox of 1e-30 scaled to its box past what a PDF holds (attack 9)
    if not (math.isfinite(w) and math.isfinite(h)) or w < MIN_ART or h < MIN_ART or w > 1e5 or h > 1e5:
        raise SvgError(f"SVG {shown!r} has no usable size ({w:g} x {h:g})",
                       expected="an <svg> with a width and height, or a viewBox")
    _drop_collapsed(drawing)
    bad = _bad_number(drawing)
    if bad is not None:
        kind, name, value = bad
        raise SvgError(f"SVG {shown!r} has a number a PDF cannot hold: {value!r} in a {kind}'s {name}",
                       expected=f"finite numbers of at most {MAX_NUMBER:g} in coordinates, sizes, stroke widths "
                       "and transforms", hint="open it in an SVG editor and save it again")
    _fix_strokes(drawing)
    for prop, ids, line in painted:  # a pattern fill draws nothing, a gradient stroke no stroke
        kind = next((kinds[i] for i in ids if i in kinds), "")
        if kind == "pattern" or (prop == "stroke" and kind.endswith("Gradient")):
            left_out.setdefault(f"a {'pattern' if kind == 'pattern' else 'gradient'} {prop}", line)
    return drawing, w, h, art_cost(drawing), tuple(sorted(left_out.items(), key=lambda t: (t[1], t[0])))


# What svglib reads but does not draw (the shape is drawn without it): by property
_LEFT_OUT = {"marker-start": "a marker", "marker-mid": "a marker", "marker-end": "a marker", "marker": "a marker",
              "mask": "a mask", "filter": "a filter"}


def _left_out(node: Any, name: str, left_out: dict[str, int], painted: list[tuple[str, list[str], int]],
               kinds: dict[str, str]) -> None:
    """Note what of ``node`` svglib leaves out of the drawing (``left_out``: the first line of
    each), the ids its fill and stroke name (``painted``) and its id (``kinds``)."""
    ident = node.get("id")
    if ident:
        kinds.setdefault(ident, name)
    if name == "foreignObject":  # HTML and the like: svglib draws none of it (a <switch> falls back)
        left_out.setdefault("a <foreignObject>", node.sourceline or 0)
    props = {k[k.rfind("}") + 1:]: v for k, v in node.attrib.items()}
    style = props.get("style")
    if style:
        for decl in style.split(";"):
            key, _, value = decl.partition(":")
            props[key.strip().lower()] = value.strip()
    for prop, what in _LEFT_OUT.items():
        if "url(" in props.get(prop, "").lower():
            left_out.setdefault(what, node.sourceline or 0)
    for prop in ("fill", "stroke"):
        if "url(" in props.get(prop, "").lower():
            painted.append((prop, _local_urls(props[prop]), node.sourceline or 0))
    opacity = props.get("opacity", "").strip()
    if opacity and name != "stop":  # (a stop's is stop-opacity)
        try:
            if float(opacity.rstrip("%")) / (100 if opacity.endswith("%") else 1) < 1:
                left_out.setdefault("the opacity of an element", node.sourceline or 0)
        except ValueError:
            pass


def _nodes(drawing: Any) -> Iterator[Any]:
    """Every node of a converted drawing, groups and shapes alike (depth first, from the last)."""
    stack: list[Any] = [drawing]
    while stack:
        node = stack.pop()
        contents = getattr(node, "contents", None)
        if isinstance(contents, list):
            stack.extend(contents)
        yield node


def _fix_strokes(drawing: Any) -> None:
    """Stroke values SVG calls errors, drawn as a browser draws them: a dash array with a
    negative entry, or none above zero, draws a solid line (reportlab raised on it, attack 7); a
    negative dash offset is taken modulo the pattern; a negative width is the initial 1;
    opacities are clamped to 0..1 (reportlab would write them into the PDF as they are)."""
    for node in _nodes(drawing):
        dash = getattr(node, "strokeDashArray", None)
        if dash is not None:
            node.strokeDashArray = _dash(dash)
        width = getattr(node, "strokeWidth", None)
        if isinstance(width, int | float) and width < 0:
            node.strokeWidth = 1.0
        for name in ("strokeOpacity", "fillOpacity"):
            v = getattr(node, name, None)
            if isinstance(v, int | float) and not 0 <= v <= 1:
                setattr(node, name, min(1.0, max(0.0, float(v))))


def _dash(dash: Any) -> Any:
    """A reportlab dash (an array, or (phase, array)) that PDF can draw, or None for a solid line."""
    phase, array = (dash[0], dash[1]) if isinstance(dash, list | tuple) and len(dash) == 2 and \
        isinstance(dash[1], list | tuple) else (0, dash)
    values = [array] if isinstance(array, int | float) else array
    if not isinstance(values, list | tuple) or not values or \
            not all(isinstance(v, int | float) and v >= 0 for v in values) or sum(values) <= 0:
        return None
    if all(round(v, 6) == 0 for v in values):  # written with 6 decimals, all 0: an invalid PDF dash array
        return None  # (attack 13, F2: 1e-300 wrote "[0 0] 0 d")
    if not isinstance(phase, int | float):
        return list(values)
    period = sum(values) * (2 if len(values) % 2 else 1)  # an odd list repeats to an even one
    return dash if 0 <= phase < period else (phase % period, list(values))


def art_area(p: Any, cap: float) -> float:
    """What the shapes of the SVG art a Vector ``p`` draws count for the areas they paint, at the
    size it is drawn (its box, its matrix's stretch), each at most ``cap`` pt² (``ArtAreas``)."""
    scale = drawn_scale(p)
    if scale is None:
        return 0.0
    return _cached(p.src, os.path.basename(p.src))[3].areas.at(abs(scale), cap)


PATH_ARGS = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
_PATH_TOKEN = re.compile(r"([A-Za-z])|([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|[\s,]+|(.)")
_NUM = r"(?:[\s,]*+[+-]?+(?:\d++\.?+\d*+|\.\d++)(?:[eE][+-]?+\d++)?+)"  # possessive: no backtracking
# Well-formed path data, each command with its count of numbers, in one pass of the regex engine
# (``_path_problem`` walks it token by token, in Python, to say what is wrong: 0.16 s for a megabyte).
_PATH_FINE = re.compile(r"(?:[\s,]*+(?:[MmLlTt](?:N{2})++|[HhVv]N++|[Cc](?:N{6})++|[SsQq](?:N{4})++|[Aa]N*+|[Zz]))*+"
                        r"[\s,]*+".replace("N", _NUM))
_POINTS_FINE = re.compile(r"(?:N{2})*+[\s,]*+".replace("N", _NUM))


def _path_fine(value: str, points: bool) -> bool:
    """True when the path data ``value`` (``points``: of a polyline or polygon) is well formed."""
    return (_POINTS_FINE if points else _PATH_FINE).fullmatch(value) is not None


def _path_problem(el: Any, name: str, value: str) -> str | None:
    """What is wrong in the path data ``value`` (``name``: ``d`` of a ``<path>``, ``points`` of a
    polyline or polygon) of the element ``el`` and where, or None: a command with a count of
    numbers it cannot take (``L`` takes them two at a time, ``Z`` none), a letter that is no
    command, a character that is no part of a number."""
    from lxml import etree

    if _path_fine(value, name == "points"):
        return None
    where = f"<{etree.QName(el).localname} {name}=...> on line {el.sourceline}"
    runs: list[tuple[str, int]] = [("points" if name == "points" else "", 0)]
    for m in _PATH_TOKEN.finditer(value):
        letter, number, other = m.groups()
        if other is not None or (letter is not None and (name == "points" or letter.lower() not in PATH_ARGS)):
            return f"{where} has {(letter or other)!r} where a path command or a number belongs"
        if letter is not None:
            runs.append((letter, 0))
        elif number is not None:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
    for cmd, n in runs:
        if cmd == "points" and n % 2:
            return f"{where} has an odd count of numbers ({n}): points are x,y pairs"
        if cmd == "" and n:
            return f"{where} starts with numbers, not a command (M)"
        arity = PATH_ARGS.get(cmd.lower(), 0)
        if cmd.lower() == "z" and n:
            return f"{where} has {n} number(s) after {cmd!r}, which takes none"
        if cmd.lower() not in ("", "z", "a", "points") and (n == 0 or n % arity):
            return (f"{where} has {n} number(s) after {cmd!r}, which takes them {arity} at a time"
                    if n else f"{where} has {cmd!r} without its {arity} numbers")
    return None


def _bad_style(root: Any) -> str | None:
    """The first ``style`` attribute svglib cannot split (it reads each ``;``-separated declaration
    as exactly one ``name:value``: ``font-family:'a:b'`` or a stray ``;x`` failed with "too many
    values to unpack"), and where, or None."""
    for el in root.iter():
        if isinstance(el.tag, str):
            for decl in (el.get("style") or "").split(";"):
                if decl.strip() and decl.count(":") != 1:
                    return (f"the style attribute on line {el.sourceline} has {decl.strip()[:40]!r}, not one "
                            "'name: value' (svglib reads no ':' inside a value)")
    return None


MIN_ART = 1e-3  # pt, a side of the art: scaled up to its box, a smaller one passes a PDF's numbers
_HREF_DRAWN = frozenset(("use", "linearGradient", "radialGradient", "pattern"))  # href copies the target in
_NOT_DRAWN = frozenset(("svg", "defs", "style", "title", "desc", "metadata", "stop", "linearGradient",
                        "radialGradient", "clipPath", "mask", "pattern", "marker", "symbol", "filter", "g"))


def _url_targets(text: str) -> list[str]:
    """What each CSS ``url()`` in ``text`` names (quotes and spaces taken off)."""
    return [next(g for g in m.groups() if g is not None).strip() for m in _URL.finditer(text)]


def _local_urls(text: str) -> list[str]:
    """The ids that ``text`` names by ``url(#id)``."""
    return [t[1:] for t in _url_targets(text) if t.startswith("#")]


_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)""", re.IGNORECASE)


def _foreign_url(attrs: str, style: str | bool) -> str | None:
    """The first reference to another file in ``attrs`` (the values of an element's attributes)
    or in ``style`` (a <style>'s text): a CSS ``url()`` that is not ``#id``, or an ``@import``;
    None when there is none. svglib leaves them alone, but the art must not point outside itself."""
    texts = [_css_unescaped(t) if "\\" in t else t for t in (attrs, style or "")]
    attrs, style = texts[0], style and texts[1]
    for text in texts:
        if "url(" in text.lower():
            foreign = [t for t in _url_targets(text) if not t.startswith("#")]
            if foreign:
                return foreign[0] or "url()"
    if style and "@import" in style.lower():
        return style[style.lower().index("@import"):].split(";")[0].strip()
    return None


_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\(.)", re.S)


def _css_unescaped(text: str) -> str:
    """``text`` with its CSS escapes read (``u\\72l(`` is ``url(``, ``@\\69mport`` is ``@import``:
    attack 17 borderline), so that the references it spells are seen."""
    def read(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(2)
        code = int(m.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"

    return _CSS_ESCAPE.sub(read, text)


MAX_NUMBER = 1e7  # a coordinate, size, width or transform entry: 3.5 km in points; a PDF writer stops at ~1e21


MIN_DETERMINANT = 1e-12  # of a group's transform: below it the group is collapsed (area scaled by < 1e-12)


def _collapsed(node: Any) -> bool:
    """Whether ``node``'s transform (a, b, c, d, e, f) flattens what it holds to a line or a point:
    ``scale(0)``, ``scale(0,1)``, ``matrix(1 1 1 1 0 0)``. reportlab divides by the determinant
    when it draws the group (ZeroDivisionError)."""
    t = getattr(node, "transform", None)
    if not isinstance(t, list | tuple) or len(t) != 6:
        return False
    a, b, c, d = (float(x) for x in t[:4])
    return abs(a * d - b * c) < MIN_DETERMINANT


def _drop_collapsed(drawing: Any) -> None:
    """Empty every group whose transform is singular (and the drawing, if its own is): such a
    group draws nothing in a browser, and nothing here -- it is legal SVG, not an input error."""
    stack: list[Any] = [drawing]
    while stack:
        node = stack.pop()
        contents = getattr(node, "contents", None)
        if not isinstance(contents, list):
            continue
        if _collapsed(node):
            contents.clear()
            continue
        contents[:] = [c for c in contents if not _collapsed(c)]
        stack.extend(contents)


def _bad_number(drawing: Any) -> tuple[str, str, float] | None:
    """The first number of the converted drawing (coordinates, sizes, stroke widths, transforms,
    opacities: every number svglib gave a shape) that is not finite or is beyond MAX_NUMBER, as
    (shape kind, attribute, value); None when all are fine. `1e999` in a path, `scale(1e300)` or a
    `nan` radius passed the XML checks and failed, or wrote `nan`, when the PDF was drawn."""
    stack: list[Any] = [drawing]
    while stack:
        node = stack.pop()
        for name, value in vars(node).items():
            if name == "contents":
                stack.extend(value)
                continue
            todo = [value]
            while todo:
                v = todo.pop()
                if isinstance(v, list | tuple):  # points, transforms, dash arrays, nested pairs
                    todo.extend(v)
                elif isinstance(v, float | int) and not isinstance(v, bool) and not (
                        math.isfinite(v) and abs(v) <= MAX_NUMBER):
                    return type(node).__name__, name, v
    return None

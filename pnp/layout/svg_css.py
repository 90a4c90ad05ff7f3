"""The ``<style>`` sheets of SVG art, weighed before svglib applies them.

svglib hands every ``<style>`` to tinycss2 and cssselect2 and tests, for each element it draws,
every selector cssselect2 cannot rule out by the element's id, class or name: a universal
selector is tested on every element, and a descendant (`` ``) or sibling (``~``) combinator walks
the element's ancestors or earlier siblings. 2,000 rules ``*:not(.q0) *`` over 20,000 rects took
74 s of CPU; 700,000 rules ``rect{fill:red}`` (9.8 MB) took 1.4 GB. Editors' sheets are short
class lists: Illustrator's "style elements" export of an 884 KB logo has 1,989 ``.cls-N`` rules
in 47 KB (svglib draws it in ~1.9 s, the sheet's check adds ~0.1 s).

So, before svglib sees the file: at most ``MAX_STYLE_BYTES`` of style text (tinycss2 and
cssselect2 read ~100 KB a second: pure Python); only rules svglib can read (it fails on the
rest); at most ``MAX_SELECTORS`` selectors; and at most ``MAX_CSS_STEPS`` plus
``CSS_STEPS_PER_BYTE`` for each byte of the file in selector steps, an upper bound of the
matching work: for each selector, the elements it is tested on (those with its id, class or name,
else all, plus the ``<use>`` copies) times ``TEST_STEPS`` plus its weight (1 a simple selector; a
descendant step costs the tree's depth, a sibling step (``~``, ``:nth-*()``, ``:*-of-type``) its
longest row of siblings, ``:has()`` every element). Measured: 25-200 ns a step (a matching
test with its properties applied ~1 µs, ~10 steps)."""

from __future__ import annotations

from collections import Counter
from typing import Any

MAX_STYLE_BYTES = 128 * 1024  # of <style> text in all: Illustrator's 1,989-class sheet is 47 KB; 128 KB ~1.5 s
MAX_SELECTORS = 10_000  # in all <style> sheets (an editor writes one a class: 1,989 in that sheet)
MAX_CSS_STEPS = 1_000_000  # selector steps (see above) any file may take: ~0.2 s at most
CSS_STEPS_PER_BYTE = 10  # and per byte of the file: ~2 s a MB at most (an element is >= 10 bytes)
MAX_NESTING = 8  # :not(:is(...)), parentheses and brackets in one rule: editors write 1 or 2
MAX_SELECTOR_TOKENS = 200  # names, classes, combinators and spaces of one selector (between commas)
# Distinct property names in all <style> sheets, and attributes (or declarations of a `style`
# attribute) of one element: svglib takes time quadratic in an element's properties (40,000
# attributes on one rect: 31 s; 40,000 declarations in its style: 43 s; attack 7). SVG has
# about 60 presentation attributes; editors write a few dozen an element.
MAX_PROPERTIES = 200
TEST_STEPS = 10  # one selector tested on one element (a match: its properties applied)
HINT = "simplify the art's <style> (class rules, as SVG editors write them), or export the art as a PNG"


class CssError(Exception):
    def __init__(self, message: str, expected: str, hint: str = HINT):
        super().__init__(message)
        self.message, self.expected, self.hint = message, expected, hint


def check_css(root: Any, shown: str, size: int, copies: int) -> None:
    """CssError when the ``<style>`` sheets of the SVG tree ``root`` (``shown``: the file's name in
    messages, ``size``: its bytes) are too big or would cost svglib too much to apply;
    ``copies``: elements svglib copies to draw out the ``<use>`` references (matched too)."""
    from lxml import etree

    styles = [el for el in root.iter() if isinstance(el.tag, str) and etree.QName(el).localname == "style"]
    if not styles:
        return
    style_bytes = sum(len("".join(el.itertext()).encode()) for el in styles)
    if style_bytes > MAX_STYLE_BYTES:
        raise CssError(f"SVG {shown!r} has {style_bytes:,} bytes of <style> text (line {styles[0].sourceline})",
                       expected=f"at most {MAX_STYLE_BYTES:,} bytes of <style> text")
    import tinycss2
    from cssselect2 import compiler, parser

    selectors: list[Any] = []  # parsed selectors
    names: set[str] = set()  # property names declared
    for el in styles:
        for rule in tinycss2.parse_stylesheet(el.text or "", skip_comments=True, skip_whitespace=True):
            line = (el.sourceline or 1) + max(getattr(rule, "source_line", 1) - 1, 0)
            if rule.type == "error":  # svglib failed on it ('ParseError' object has no attribute 'prelude')
                raise CssError(f"SVG {shown!r} has a CSS rule that cannot be read (line {line}): {rule.message}",
                               expected="CSS rules `selector { property: value }`",
                               hint="open it in an SVG editor and save it again")
            if not rule.prelude or rule.type == "at-rule":
                continue  # as svglib does
            names.update(d.lower_name for d in tinycss2.parse_declaration_list(rule.content or [], skip_comments=True,
                                                                               skip_whitespace=True)
                         if d.type == "declaration")
            if len(names) > MAX_PROPERTIES:
                raise CssError(f"SVG {shown!r} has a <style> of more than {MAX_PROPERTIES} different properties "
                               f"(line {line})", expected=f"at most {MAX_PROPERTIES} different CSS properties "
                               "(SVG has about 60)")
            too_deep = _shape(rule)
            if too_deep:
                raise CssError(f"SVG {shown!r} has a CSS rule {too_deep} (line {line})",
                               expected=f"CSS rules nested at most {MAX_NESTING} deep, selectors of at most "
                               f"{MAX_SELECTOR_TOKENS} parts", hint="remove or simplify the rule in the art's <style>")
            try:
                for sel in parser.parse(rule.prelude):
                    # what cssselect2 compiles (and svglib then evaluates): '0' never matches
                    if compiler._compile_node(sel.parsed_tree) != "0":
                        selectors.append(sel)
            except (parser.SelectorError, NotImplementedError, TypeError, RecursionError) as exc:
                text = tinycss2.serialize(rule.prelude).strip()[:60]
                raise CssError(f"SVG {shown!r} has a CSS selector svglib cannot apply: {text!r} (line {line}"
                               + "".join(f": {a}" for a in exc.args) + ")",
                               expected="CSS selectors of names, classes, ids and attributes",
                               hint="remove or simplify the rule in the art's <style>") from None
            if len(selectors) > MAX_SELECTORS:
                raise CssError(f"SVG {shown!r} has more than {MAX_SELECTORS:,} CSS selectors (line {line})",
                               expected=f"at most {MAX_SELECTORS:,} CSS selectors in its <style>")
    steps = _steps(root, selectors, copies)
    budget = MAX_CSS_STEPS + CSS_STEPS_PER_BYTE * size
    if steps > budget:
        raise CssError(f"SVG {shown!r} has a <style> whose {len(selectors):,} selectors would take up to {steps:,} "
                       f"steps to match against its elements (line {styles[0].sourceline})",
                       expected=f"at most {budget:,} steps for this file ({MAX_CSS_STEPS:,} + {CSS_STEPS_PER_BYTE} "
                       "a byte); selectors not keyed to a class, id or element name (such as `*`) are tested on "
                       "every element, and descendant (` `) or sibling (`~`) steps cost the most")


def _shape(rule: Any) -> str | None:
    """What makes the rule too deep for tinycss2 and cssselect2 (both recurse: ``:not(`` 5,000
    deep, 20,000 descendant steps or 30,000 ``(`` in a value overflowed Python's stack), or None."""
    todo: list[tuple[Any, int]] = [(t, 1) for t in (*rule.prelude, *rule.content)]
    while todo:
        token, depth = todo.pop()
        inner = getattr(token, "arguments", None) or getattr(token, "content", None)
        if isinstance(inner, list):
            if depth >= MAX_NESTING:
                return f"nested more than {MAX_NESTING} deep (parentheses, brackets or :not()/:is())"
            todo.extend((t, depth + 1) for t in inner)
    parts = 0
    for token in rule.prelude:
        parts = 0 if token.type == "literal" and token.value == "," else parts + 1
        if parts > MAX_SELECTOR_TOKENS:
            return f"with a selector of more than {MAX_SELECTOR_TOKENS} parts"
    return None


def _key(sel: Any) -> tuple[str, str | None]:
    """Which of cssselect2's indexes holds the selector (as ``CompiledSelector`` files it): the
    id, class, name or namespace of its last compound, or ``("", None)``: tested on every element."""
    from cssselect2 import parser

    node = sel.parsed_tree
    if isinstance(node, parser.CombinedSelector):
        node = node.right
    found: dict[str, str] = {}
    for s in node.simple_selectors:
        if isinstance(s, parser.IDSelector):
            found["id"] = s.ident
        elif isinstance(s, parser.ClassSelector):
            found["class"] = s.class_name
        elif isinstance(s, parser.LocalNameSelector):
            found["name"] = s.lower_local_name
    for kind in ("id", "class", "name"):
        if kind in found:
            return kind, found[kind]
    return "", None


def _steps(root: Any, selectors: list[Any], copies: int) -> int:
    """The selector steps of applying ``selectors`` to every element of ``root`` (see the module
    text): an upper bound, in one pass over the elements."""
    from cssselect2.compiler import ascii_lower, split_whitespace
    from lxml import etree

    seen: dict[str, Counter[str]] = {"id": Counter(), "class": Counter(), "name": Counter()}
    count = depth = width = 0
    stack = [(root, 1)]
    while stack:
        el, d = stack.pop()
        count += 1
        depth = max(depth, d)
        seen["name"][ascii_lower(etree.QName(el).localname)] += 1
        if el.get("id") is not None:
            seen["id"][el.get("id")] += 1
        seen["class"].update(set(split_whitespace(el.get("class", ""))))
        kids = [ch for ch in el if isinstance(ch.tag, str)]
        width = max(width, len(kids))
        stack.extend((ch, d + 1) for ch in kids)
    total = 0
    for sel in selectors:
        kind, value = _key(sel)
        tested = seen[kind][value] if kind else count  # type: ignore[index]
        total += (tested + copies) * (TEST_STEPS + _weight(sel.parsed_tree, depth, width, count))
    return total + count * depth  # cssselect2 keeps each element's ancestors as a tuple


def _weight(node: Any, depth: int, width: int, count: int) -> int:
    """Steps of testing one element against the parsed selector ``node``, at most."""
    from cssselect2 import parser

    def w(n: Any) -> int:
        if isinstance(n, parser.CombinedSelector):
            return w(n.right) + {" ": depth, "~": width}.get(n.combinator, 1) * w(n.left)
        if isinstance(n, parser.CompoundSelector):
            return 1 + sum(w(s) for s in n.simple_selectors)
        if isinstance(n, parser.RelationalSelector):  # :has(): the subtree or the later siblings
            return 1 + count * sum(w(r.selector.parsed_tree) for r in n.selector_list)
        if isinstance(n, parser.NegationSelector | parser.MatchesAnySelector | parser.SpecificityAdjustmentSelector):
            return 1 + sum(w(s.parsed_tree) for s in n.selector_list)
        if isinstance(n, parser.FunctionalPseudoClassSelector):  # :nth-child(2n of .a): counts earlier siblings
            args = list(n.arguments)
            of = next((i for i, a in enumerate(args) if a.type == "ident" and a.value == "of"), None)
            inner = sum(w(s.parsed_tree) for s in parser.parse(args[of + 1:])) if of is not None else 1
            return 1 + width * inner
        if isinstance(n, parser.PseudoClassSelector) and n.name.endswith("of-type"):
            return 1 + width
        return 1

    return w(node)

"""quotes: an item's printed values traced to the document quote it comes from, and quotes found in
the document itself. Pure: reads the model (and, for ``in_document``, the document's text).

A component file declares which values its items' quotes give, and how the document writes them
(``quoted``: ``fields`` -> ``{"as": {value: written}, "signed": bool, "format": "{}M"}``,
``in_order``, ``designed_in``). For every item whose ``source`` is the document, each declared
field's value (but those its ``designed_in`` list field names as designed) as the document has it (before
errata; errata are how the printed text may differ) must appear in the item's quote as a whole
word, and with ``in_order`` (the default) after the previous field's. Text is compared with quote
marks and runs of white space normalised, and case too for a field declared ``any_case``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from pnp.errors import DataError, Diagnostic
from pnp.input.model import Component, Game, Item, Rule

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u2033": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})


# Every run of white space that is not already one space (the same result as ``\s+`` -> " ", but
# a document's millions of single spaces are not each a match: re.sub kept a piece per match).
_SPACES = re.compile(r" \s+|[^\S ]\s*")


def normalise(text: str, fold: bool = True) -> str:
    """Text as quotes are compared: NFKC, straight quote marks and dashes, one space for any run of
    white space, and (``fold``) case folded."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()
    return text.casefold() if fold else text


def written(value: Any, spec: Mapping[str, Any]) -> list[str]:
    """How the document writes a value (each element of a list)."""
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        key = str(v).lower() if isinstance(v, bool) else (f"{v:g}" if isinstance(v, float) else str(v))
        if key in spec.get("as", {}):
            w = spec["as"][key]
        elif spec.get("signed") and isinstance(v, int | float) and not isinstance(v, bool) and v > 0:
            w = "+" + key
        else:
            w = key
        out.append(spec["format"].replace("{}", w) if "format" in spec and w else w)
    return out


def find(word: str, text: str, start: int, fold: bool = True) -> int | None:
    """End of the first whole-word occurrence of ``word`` in ``text`` (normalised alike, case
    folded with ``fold``) at or after ``start``."""
    w = normalise(word, fold)
    if not w:
        return start
    i = text.find(w, start)
    while i != -1:
        before_ok = not w[0].isalnum() or i == 0 or not text[i - 1].isalnum()
        after_ok = not w[-1].isalnum() or i + len(w) == len(text) or not text[i + len(w)].isalnum()
        if before_ok and after_ok:
            return i + len(w)
        i = text.find(w, i + 1)
    return None


def trace(comp: Component, spec: Mapping[str, Any], item: Item) -> list[str]:
    """The declared values of one document item that its quote does not give, in words."""
    exact = normalise(item.provenance.text, fold=False)
    folded = exact.casefold()
    in_order = spec.get("in_order", True)
    designed = item.get(spec["designed_in"], document=True) or [] if "designed_in" in spec else []
    pos, problems = 0, []
    for name, how in spec["fields"].items():
        if name in designed:
            continue  # this item's value of the field is designed, not the quote's
        value = item.get(name, document=True)
        if value in (None, "", []):
            continue
        fold = bool(how.get("any_case"))
        quote = folded if fold else exact
        for w in written(value, how):
            end = find(w, quote, pos if in_order else 0, fold)
            if end is None:
                after = " after what precedes it" if in_order and pos and find(w, quote, 0, fold) is not None else ""
                shown = f"{value!r}" + (f" (written {w!r})" if w != str(value) else "")
                problems.append(f"{name}={shown} is not in its quote{after}: {item.provenance.text!r}")
                break
            if in_order:
                pos = end
    return problems


def quote_rule(comp: Component) -> Rule:
    """The built-in rule a ``quoted`` declaration makes, as reports show it."""
    spec = comp.quoted or {}
    fields = ", ".join(spec.get("fields", {}))
    order = " in this order" if spec.get("in_order", True) else ""
    return Rule(f"{comp.id}-values-in-quotes", "quoted",
                f"Every {comp.id} item from the document has the values its quote gives ({fields}{order}).",
                "(each item's own source quote)", {}, (comp.data_file, ("quoted",)))


def unknown_fields(game: Game) -> list[Diagnostic]:
    """A ``quoted`` field that the file does not declare is bad input."""
    diags = []
    for comp in game.components:
        spec = comp.quoted or {}
        names = [*spec.get("fields", {}), *([spec["designed_in"]] if "designed_in" in spec else [])]
        for name in names:
            if name not in comp.fields and name != "copies":
                doc = game.data_docs.get(comp.id)
                path = ("quoted", "fields", name) if name in spec.get("fields", {}) else ("quoted", "designed_in")
                line, col = doc.locate(path, key=True) if doc is not None else (None, None)
                diags.append(Diagnostic(comp.data_file, f"unknown field {name!r} in quoted", path, line, col,
                                        expected="one of copies, " + ", ".join(sorted(comp.fields))))
    return diags


def traced(game: Game) -> Iterable[tuple[Rule, list[tuple[Item, str]]]]:
    """For each component with a ``quoted`` declaration: its rule and each problem found."""
    bad = unknown_fields(game)
    if bad:
        raise DataError(bad)
    for comp in game.components:
        if not comp.quoted:
            continue
        problems = [(it, p) for it in comp.items if it.provenance.kind == "document"
                    for p in trace(comp, comp.quoted, it)]
        yield quote_rule(comp), problems


# -- quotes in the document ------------------------------------------------------------------------

ELISION = re.compile(r" \[\.\.\.\] | \.\.\. ")  # where a quote leaves words out


def in_document(quote: str, document: str) -> bool:
    """Whether ``quote`` is in the (normalised) document: each part between elisions (`` [...] ``,
    `` ... ``), with bold marks, quote marks, case and white space normalised."""
    return all(normalise(part.replace("**", "")) in document for part in ELISION.split(quote))


def document_quotes(game: Game) -> list[tuple[str, tuple[str | int, ...], str]]:
    """Every quote the game says is the document's: (file, JSON path, quote) for each rule, bill of
    materials line and item whose source is the document."""
    out: list[tuple[str, tuple[str | int, ...], str]] = []
    for r in game.rules:
        out.append((r.origin[0], (*r.origin[1], "quote"), r.quote))
    for i, n in enumerate(game.not_printed):
        if n.provenance.kind == "document":
            out.append((game.manifest_file, ("not_printed", i, "source", "document"), n.provenance.text))
    seen: set[tuple[str, tuple[str | int, ...]]] = set()
    for comp in game.components:
        for it in comp.items:
            key = (it.origin[0], (*it.origin[1], "source", "document"))
            if it.provenance.kind == "document" and key not in seen:  # a series' items share one source
                seen.add(key)
                out.append((*key, it.provenance.text))
    return out


def quote_warnings(game: Game, text: str, where: str) -> list[Diagnostic]:
    """A warning for each quote that is not in the document's ``text`` (the file shown as ``where``)."""
    document = normalise(text.replace("**", ""))
    docs = {d.display: d for d in game.data_docs.values()}
    if game.manifest is not None:
        docs[game.manifest.display] = game.manifest
    out = []
    for file, path, quote in document_quotes(game):
        if in_document(quote, document):
            continue
        doc = docs.get(file)
        line, col = doc.locate(path) if doc is not None else (None, None)
        shown = quote if len(quote) <= 80 else quote[:77] + "..."
        out.append(Diagnostic(file, f"quote not found in the document {where}: {shown!r}", path, line, col,
                              hint="quote the document verbatim (white space, case and quote marks may differ; "
                                   "leave words out with ' [...] ')", severity="warning"))
    return out

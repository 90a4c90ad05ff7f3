"""The pages of `pnp serve`, as HTML that needs no JavaScript: the games and their components,
every distinct piece (front and back) with its name, the sheets as they print, the preflight
figures, the errors and rule violations in the words of `pnp check`, and one item's fields,
provenance, place in its data file and the rules that name it. A small script (``LIVE_JS``)
adds the live part: on each server-sent event it fetches the page again and swaps its
``<main>``, so only changed pictures (new URLs) are loaded."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from pnp.qa.figures import EXTREMES, ComponentPreflight
from pnp.serve.gallery import ComponentView, GameView, Piece

CSS = """
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#f4f2ed;color:#26231f}
header{background:#2f2b26;color:#f4f2ed;padding:.6em 1em;display:flex;gap:1em;align-items:baseline}
header a{color:#f4f2ed}#live-status{margin-left:auto;font-size:.85em;opacity:.8}
main{padding:1em}h2{margin:1.2em 0 .4em}a{color:#6b3d12}
.gallery{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;background:#fff;padding:6px;border-radius:4px;box-shadow:0 1px 2px #0002}
figure img{display:block;max-height:200px;width:auto}figure.round img{border-radius:50%}
figure .sides{display:flex;gap:4px}figure.big img{max-height:420px}
figcaption{font-size:.85em;text-align:center;max-width:260px}
.sheets img{max-height:260px;border:1px solid #bbb;background:#fff}
pre{white-space:pre-wrap;margin:.3em 0}
.errors{background:#fde8e6;border-left:4px solid #b3261e;padding:.5em 1em}
.rules-fail{background:#fff4dc;border-left:4px solid #c77700;padding:.5em 1em}
.warnings{background:#f1eee6;border-left:4px solid #8a8170;padding:.5em 1em}
.stale{font-weight:bold}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;
vertical-align:top}
"""

# Live updates: the server says a game changed; the page fetches itself and swaps <main>.
LIVE_JS = """
(function(){
  var status=document.getElementById('live-status');
  function swap(){
    fetch(location.href,{cache:'no-store'}).then(function(r){return r.text();}).then(function(t){
      var doc=new DOMParser().parseFromString(t,'text/html');
      var fresh=doc.querySelector('main'), main=document.querySelector('main');
      if(fresh&&main&&fresh.dataset.version!==main.dataset.version){main.replaceWith(fresh);}
      status.textContent='live: updated '+new Date().toLocaleTimeString();
    });
  }
  var es=new EventSource('/events');
  es.onopen=function(){status.textContent='live';};
  es.onmessage=swap;
  es.onerror=function(){status.textContent='live: reconnecting';};
})();
"""


def page(title: str, body: str, version: str, nav: Sequence[tuple[str, str]] = ()) -> bytes:
    links = " › ".join(f'<a href="{escape(href)}">{escape(text)}</a>' if href else escape(text)
                       for href, text in nav)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)} — pnp serve</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}</style></head><body>'
            f'<header><strong>pnp serve</strong><span>{links}</span><span id="live-status">static</span></header>'
            f'<main data-version="{escape(version)}">{body}</main>'
            f'<script>{LIVE_JS}</script></body></html>').encode()


def _lines(cls: str, title: str, lines: Iterable[str]) -> str:
    lines = list(lines)
    if not lines:
        return ""
    return f'<section class="{cls}"><h3>{escape(title)}</h3><pre>{escape(chr(10).join(lines))}</pre></section>'


def problems(view: GameView) -> str:
    """Input problems, rule violations and warnings, as `pnp check` words them; with input
    problems, a note that the pictures are the last good ones."""
    out = []
    if view.errors:
        stale = ("The pictures below are from the last good version." if view.checked is not None
                 else "Nothing could be rendered yet.")
        out.append(_lines("errors", "Input problems (pnp check)", view.problem_lines()).replace(
            "</h3>", f'</h3><p class="stale">{escape(stale)}</p>', 1))
    rules = view.rule_lines()
    if view.checked is not None and not view.checked.report.ok:
        last = " of the last good version" if view.errors else ""
        out.append(_lines("rules-fail", f"Rulebook violations{last} (pnp check)", rules))
    out.append(_lines("warnings", "Warnings", view.warning_lines()))
    return "".join(out)


def index(views: Sequence[GameView], version: str) -> bytes:
    body = ["<h1>Games</h1><ul>"]
    for v in views:
        gc = v.checked
        title = f"{gc.game.title} ({v.id})" if gc is not None else v.id
        state = "input problems" if v.errors else ("rule violations" if gc and not gc.report.ok else "checks")
        body.append(f'<li><a href="/game/{quote(v.id)}">{escape(title)}</a> — {state}<ul>')
        for c in v.components:
            comp = c.plan.component
            body.append(f'<li><a href="/game/{quote(v.id)}#{quote(comp.id)}">{escape(comp.title)}</a> '
                        f'({escape(comp.id)}: {comp.pieces} pieces, {len(c.pieces)} distinct)</li>')
        body.append("</ul></li>")
    body.append("</ul>")
    return page("Games", "".join(body), version)


def _piece(view: GameView, c: ComponentView, p: Piece, big: bool = False) -> str:
    comp = c.plan.component
    href = f"/game/{quote(view.id)}/{quote(comp.id)}/{quote(p.item.id)}"
    imgs = "".join(f'<img src="/png/{s.png}.png" width="{s.size[0]}" height="{s.size[1]}" '
                   f'alt="{escape(p.item.id)} ({s.side})" data-side="{s.side}"'
                   + ('' if big else ' style="height:160px;width:auto"') + ">" for s in p.sides)
    copies = f" ×{p.item.copies}" if p.item.copies > 1 else ""
    classes = " ".join(c for c, on in (("round", comp.shape == "round"), ("big", big)) if on)
    shape = f' class="{classes}"' if classes else ""
    return (f'<figure{shape} data-item="{escape(p.item.id)}"><a href="{href}"><div class="sides">{imgs}</div></a>'
            f'<figcaption><a href="{href}">{escape(p.item.id)}</a>{copies}</figcaption></figure>')


def _figures(f: ComponentPreflight | None) -> str:
    if f is None:
        return ""
    rows = [("pieces", f.pieces), ("sheets", f.sheets), ("pages", f.pages), ("pieces per sheet", f.per_sheet)]
    for name in EXTREMES:
        e = getattr(f, name)
        if e is not None:
            rows.append((name.replace("_", " "), f"{e.value:g} ({e.where.text()})"))
    rows += [("images", f.images), ("margin mm", "print-shop pages" if f.margin_mm is None else f"{f.margin_mm:.2f}"),
             ("outside the safe zone", f.outside_safe), ("cut crossings", f.cut_crossings),
             ("preflight warnings", f.warnings)]
    if f.bytes is not None:
        rows.append(("file size", f"{f.bytes / 1e6:.2f} MB"))
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in rows)
    return f'<details><summary>Preflight figures</summary><table class="figures">{cells}</table></details>'


def game(view: GameView, version: str) -> bytes:
    gc = view.checked
    title = gc.game.title if gc is not None else view.id
    body = [f"<h1>{escape(title)}</h1>", problems(view)]
    rules = view.rule_lines()
    if rules:
        body.append(f'<p class="rules-summary">Rulebook: {escape(rules[0])}</p>')
    if gc is not None:
        body.append("<p>" + " · ".join(f'<a href="#{quote(c.plan.component.id)}">{escape(c.plan.component.title)}</a>'
                                       for c in view.components) + "</p>")
    for c in view.components:
        comp = c.plan.component
        body.append(f'<section class="component" id="{escape(comp.id)}"><h2>{escape(comp.title)} '
                    f'<small>({escape(comp.id)}: {escape(comp.kind)}, {comp.size[0]:g} × {comp.size[1]:g} mm, '
                    f'{comp.pieces} pieces, {len(c.pieces)} distinct)</small></h2>')
        body.append('<div class="gallery">' + "".join(_piece(view, c, p) for p in c.pieces) + "</div>")
        if c.pdf is not None:
            pdf = f"/out/{quote(view.id)}/{quote(c.pdf)}"
            body.append(f'<h3>Sheets as they print (<a href="{pdf}">{escape(c.pdf)}</a>, '
                        f'{c.pages} pages)</h3><div class="gallery sheets">')
            body.append("".join(f'<a href="/sheet/{quote(view.id)}/{quote(comp.id)}/{n}.png?v={c.pdf_sha[:12]}">'
                                f'<img loading="lazy" alt="{escape(comp.id)} page {n}" '
                                f'src="/sheet/{quote(view.id)}/{quote(comp.id)}/{n}.png?v={c.pdf_sha[:12]}"></a>'
                                for n in range(1, c.pages + 1) if c.pdf_sha))
            body.append("</div>")
        body.append(_figures(c.figures) + "</section>")
    return page(title, "".join(body), version, [("/", "games"), (f"/game/{quote(view.id)}", view.id)])


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def item(view: GameView, c: ComponentView, p: Piece, version: str) -> bytes:
    comp, it = c.plan.component, p.item
    body = [f"<h1>{escape(comp.title)}: {escape(it.id)}</h1>", problems(view),
            f'<div class="gallery">{_piece(view, c, p, big=True)}</div>',
            f'<p>Defined at <code class="where">{escape(view.item_where(it))}</code>; '
            f"{it.copies} {'copy' if it.copies == 1 else 'copies'}.</p>",
            "<h2>Fields</h2><table class=\"fields\">"]
    for name, value in it.fields.items():
        doc = it.document_fields.get(name, value)
        erratum = f' <em>(document: {escape(_value(doc))})</em>' if doc != value else ""
        body.append(f"<tr><th>{escape(name)}</th><td>{escape(_value(value))}{erratum}</td></tr>")
    body.append("</table>")
    pv = it.provenance
    body.append(f'<h2>Source</h2><p class="provenance"><strong>{escape(pv.kind)}</strong>: {escape(pv.text)}'
                + (f" — “{escape(pv.quote)}”" if pv.quote else "") + "</p>")
    if it.errata:
        body.append("<p>Errata applied: " + escape(", ".join(it.errata)) + "</p>")
    rules = view.rules_naming(comp.id, it)
    body.append("<h2>Rules that name it</h2>")
    if rules:
        body.append('<ul class="rules">' + "".join(
            f'<li><strong>{"PASS" if o.passed else "FAIL"} {escape(o.rule.id)}</strong>: {escape(o.rule.description)}'
            f'<br><q>{escape(o.rule.quote)}</q>'
            + ("" if o.passed else f"<br>expected {escape(o.expected)}, actual {escape(o.actual)}") + "</li>"
            for o in rules) + "</ul>")
    else:
        body.append("<p>No rule names this item.</p>")
    nav = [("/", "games"), (f"/game/{quote(view.id)}", view.id),
           (f"/game/{quote(view.id)}#{quote(comp.id)}", comp.id), ("", it.id)]
    return page(f"{comp.title}: {it.id}", "".join(body), version, nav)


def not_found(path: str, version: str) -> bytes:
    return page("Not found", f"<h1>Not found</h1><p>Nothing is served at <code>{escape(path)}</code>.</p>"
                '<p><a href="/">All games</a></p>', version)

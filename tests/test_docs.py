"""The documents (issue 17, "Docs"): README.md stays short and opens with the two set-up
commands, every command is in its table, and every relative link, module path and ``pnp.``
name that README.md and docs/*.md mention exists."""

from __future__ import annotations

import html
import importlib
import re
from pathlib import Path

from conftest import REPO

README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
SETUP = ["pip install . && pnp build", "pip install '.[test]' && python -m pytest"]



def _prose(text: str) -> str:
    """The text without fenced code blocks (what is shown there is output, not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text, lower case, punctuation dropped, spaces
    to hyphens."""
    text = html.unescape(re.sub(r"[`*]", "", heading)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    out: set[str] = set()
    for line in _prose(path.read_text("utf-8")).splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if m:
            slug, n = _slug(m.group(1)), 1
            while slug in out:  # a repeated heading gets -1, -2, ...
                slug, n = f"{_slug(m.group(1))}-{n}", n + 1
            out.add(slug)
    return out


def test_readme_is_short_and_opens_with_the_two_set_up_commands() -> None:
    data = README.read_bytes()
    assert len(data) <= 20_000, f"README.md is {len(data)} bytes; keep it at most 20 KB (move detail to docs/)"
    lines = data.decode("utf-8").splitlines()
    assert lines[0].startswith("# ") and lines[1] == ""
    assert lines[2:6] == ["```sh", *SETUP, "```"]
    # CI runs the README's test command (and ../shared/tools/fresh-check.sh both).
    assert SETUP[1] in (REPO / ".ci" / "run").read_text("utf-8")


def test_every_command_is_in_the_readme_table() -> None:
    import click

    from pnp.cli import main

    def names(group: click.Group, prefix: str) -> list[str]:
        out = []
        for name, cmd in group.commands.items():
            if isinstance(cmd, click.Group):
                out += names(cmd, f"{prefix}{name} ")
            else:
                out.append(f"{prefix}{name}")
        return out

    commands = names(main, "pnp ")
    assert len(commands) >= 11
    rows = [ln for ln in README.read_text("utf-8").split("## Commands")[1].split("\n## ")[0].splitlines()
            if ln.startswith("| `pnp ")]
    documented = [re.match(r"\| `(pnp(?: [a-z]+)+)", row).group(1) for row in rows]  # type: ignore[union-attr]
    assert sorted(documented) == sorted(commands)


def test_every_relative_link_resolves() -> None:
    checked = 0
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(doc.read_text("utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file, _, anchor = target.partition("#")
            dest = (doc.parent / file).resolve() if file else doc
            assert dest.exists(), f"{doc.relative_to(REPO)}: link to {target}: no such file"
            if anchor:
                assert anchor in _anchors(dest), f"{doc.relative_to(REPO)}: link to {target}: no such heading"
            checked += 1
    assert checked > 50


def test_every_path_and_name_the_docs_mention_exists() -> None:
    """`pnp/...`, `tests/...` and `scripts/...` paths, and dotted `pnp.` names (a module, or a
    module and the attributes under it): a module that moves takes its docs with it."""
    for doc in DOCS:
        text = doc.read_text("utf-8")
        for path in re.findall(r"`((?:pnp|tests|scripts)/[^`\s]*)`", text):
            if any(c in path for c in "*<") or "..." in path:
                continue
            assert (REPO / path).exists(), f"{doc.relative_to(REPO)} names {path}, which is not there"
        for name in re.findall(r"`(pnp(?:\.\w+)+)", text):
            if name.endswith((".toml", ".json", ".py", ".md")):
                continue
            parts = name.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    obj: object = importlib.import_module(".".join(parts[:i]))
                except ImportError:
                    continue
                for attr in parts[i:]:
                    assert hasattr(obj, attr), f"{doc.relative_to(REPO)} names {name}: no {attr}"
                    obj = getattr(obj, attr)
                break


def test_no_document_names_what_was_removed() -> None:
    """The hand-written schema checker is gone (jsonschema alone validates), the design notes live
    outside the repository, and docs/ARCHITECTURE.md is docs/architecture.md."""
    for doc in DOCS:
        text = doc.read_text("utf-8")
        assert "fastcheck" not in text, doc
        assert "ARCHITECTURE.md" not in text, doc
        assert not re.search(r"\]\([^)]*DESIGN\.md", text), doc

"""The shape of the code: stage packages with a one-line contract each, imports only from the
same or a lower stage (counting imports inside functions and under TYPE_CHECKING), no import
cycle, no module too long to read. docs/architecture.md describes the same order."""

from __future__ import annotations

import ast
from pathlib import Path

PNP = Path(__file__).resolve().parents[1] / "pnp"
# Lowest first. errors, units and version are the base every stage may use; pnp/__init__.py
# re-exports the front door (pnp.api); the CLI sits on top.
STAGES = ["base", "input", "layout", "impose", "plan", "render", "qa", "products", "pipeline", "api", "serve", "cli",
          "main"]
BASE = {"pnp.errors", "pnp.units", "pnp.version"}
PACKAGES = ["input", "layout", "impose", "plan", "render", "qa", "products", "pipeline", "serve", "cli"]


def _modules() -> dict[str, Path]:
    out = {}
    for p in PNP.rglob("*.py"):
        if "bundled" in p.parts:
            continue
        parts = list(p.relative_to(PNP.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def stage(module: str) -> str:
    if module in BASE:
        return "base"
    parts = module.split(".")
    if module in ("pnp", "pnp.api"):
        return "api"
    if module == "pnp.__main__":
        return "main"
    return parts[1]


def imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every pnp module ``path`` imports, wherever the import statement stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pnp":
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "pnp"}
    return {m for m in found if m in modules}


def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: imports(p, modules) - {m} for m, p in modules.items()}


def test_every_module_belongs_to_a_stage() -> None:
    for m in _modules():
        assert stage(m) in STAGES, m


def test_no_module_imports_from_a_higher_stage() -> None:
    upward = [f"{m} ({stage(m)}) imports {o} ({stage(o)})" for m, outs in graph().items() for o in sorted(outs)
              if STAGES.index(stage(o)) > STAGES.index(stage(m))]
    assert upward == []


def test_no_import_cycle() -> None:
    g = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for o in sorted(g[m]):
            if state.get(o) == 1:
                cycles.append([*path[path.index(o):], o])
            elif o not in state:
                visit(o)
        path.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)
    assert cycles == []


def test_the_checker_sees_upward_imports_and_cycles(tmp_path: Path) -> None:
    """The graph test reads imports inside functions too (it would miss nothing a late import hides)."""
    p = tmp_path / "m.py"
    p.write_text("def f():\n    from pnp.pipeline.build import commit\n    import pnp.cli\n")
    assert imports(p, _modules()) == {"pnp.pipeline.build", "pnp.cli"}


def test_each_package_opens_with_a_one_line_contract() -> None:
    for name in PACKAGES:
        doc = ast.get_docstring(ast.parse((PNP / name / "__init__.py").read_text()))
        assert doc, name
        first = doc.split("\n\n")[0]
        assert first.startswith(f"{name}:") and ("->" in first or name in ("cli", "products", "qa")), first


def test_no_module_is_too_long() -> None:
    """None over 800 lines; one over ~500 says why in its docstring (a paragraph "Size: ...")."""
    for m, p in _modules().items():
        n = len(p.read_text().splitlines())
        assert n <= 800, f"{m}: {n} lines"
        if n > 500:
            doc = ast.get_docstring(ast.parse(p.read_text())) or ""
            assert "\nSize: " in "\n" + doc, f"{m}: {n} lines and no 'Size:' paragraph in its docstring"

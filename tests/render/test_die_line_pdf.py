"""--die-line read back from the PDF: a CutContour Separation stroked along every front piece's
trim, its corners rounded by the component's corner_radius; nothing on backs."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from conftest import run_cli
from pypdf import PdfReader
from pypdf.generic import ContentStream

from pnp.plan.digest import options_key
from pnp.plan.options import BuildOptions
from pnp.units import MM


def _set_entry(root: Path, **values: Any) -> None:
    path = root / "card_data" / "mini" / "game.json"
    data = json.loads(path.read_text())
    data["components"][0].update(values)
    path.write_text(json.dumps(data))


def _die_paths(reader: PdfReader, page: Any) -> list[list[tuple[bytes, list[float]]]]:
    """The paths stroked while the CutContour colour space is the stroke colour."""
    spaces = {name: cs for name, cs in (page["/Resources"].get("/ColorSpace") or {}).items()}
    out: list[list[tuple[bytes, list[float]]]] = []
    current: list[tuple[bytes, list[float]]] = []
    on = False
    for args, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"CS":
            cs = spaces.get(args[0])
            on = cs is not None and cs[0] == "/Separation" and cs[1] == "/CutContour"
        elif op in (b"m", b"l", b"c") and on:
            current.append((op, [float(a) for a in args]))
        elif op == b"S" and on and current:
            out.append(current)
            current = []
        elif op == b"Q":
            on = False
    return out


def test_print_shop_pages_carry_a_rounded_cutcontour(mini: Any, tmp_path: Path) -> None:
    _set_entry(mini.path, corner_radius=3)
    out = tmp_path / "out"
    r = run_cli("build", "--data", mini.path, "--out", out, "--one-per-page", "--die-line", "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    reader = PdfReader(out / "mini" / "deck.pdf")
    fronts = reader.pages[0::2]
    for page in fronts:
        (path,) = _die_paths(reader, page)
        x0, y0, x1, y1 = (float(v) for v in page.trimbox)
        pts = [(a[i], a[i + 1]) for _, a in path for i in range(0, len(a), 2)]
        assert math.isclose(min(p[0] for p in pts), x0, abs_tol=1e-3)
        assert math.isclose(max(p[0] for p in pts), x1, abs_tol=1e-3)
        assert math.isclose(min(p[1] for p in pts), y0, abs_tol=1e-3)
        assert math.isclose(max(p[1] for p in pts), y1, abs_tol=1e-3)
        assert [op for op, _ in path].count(b"c") == 4
        assert math.isclose(path[0][1][0] - x0, 3 * MM, abs_tol=1e-3)  # starts where the top-left arc ends
        (cs,) = [v for v in page["/Resources"]["/ColorSpace"].values() if v[1] == "/CutContour"]
        assert cs[2] == "/DeviceCMYK"
        states = page["/Resources"]["/ExtGState"].values()
        assert any(bool(s.get_object().get("/OP")) for s in states)  # overprints the art
    for page in reader.pages[1::2]:
        assert _die_paths(reader, page) == []  # backs: no die line
    # in CMYK too the spot colour stays a spot colour
    cmyk = tmp_path / "cmyk"
    r = run_cli("build", "--data", mini.path, "--out", cmyk, "--one-per-page", "--die-line", "--color", "cmyk",
                "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    reader = PdfReader(cmyk / "mini" / "deck.pdf")
    assert len(_die_paths(reader, reader.pages[0])) == 1
    # without the option: no CutContour anywhere
    plain = tmp_path / "plain"
    assert run_cli("build", "--data", mini.path, "--out", plain, "--one-per-page", "--jobs", "1").exit_code == 0
    assert b"CutContour" not in (plain / "mini" / "deck.pdf").read_bytes()


def test_die_line_is_an_option_that_keys_builds() -> None:
    assert "die_line" not in options_key(BuildOptions())
    assert options_key(BuildOptions(die_line=True)) != options_key(BuildOptions())


def test_corner_radius_on_a_round_piece_is_an_input_error(mini: Any) -> None:
    _set_entry(mini.path, kind="token", shape="round", size=[30, 30], corner_radius=2)
    r = run_cli("check", "--data", mini.path)
    assert r.exit_code == 2
    assert ("$.components[0].corner_radius: corner_radius is for rectangular pieces, not a round one "
            "(expected no corner_radius (a round or hex piece's outline is its shape))") in r.stderr

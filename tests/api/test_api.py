"""The library front door (pnp.api, re-exported as pnp.*), used as a Python caller would: no
click, no CliRunner. Reports are values: errors are in them, never raised for bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, TEST_DATA, TESTS, run_cli
from pypdf import PdfReader

import pnp
from pnp import api
from pnp.errors import Diagnostic
from pnp.units import MM

MINI = TESTS / "data" / "mini"


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    root = tmp_path / "games"
    shutil.copytree(MINI, root)
    return root


def _edit_deck(root: Path, fn: object) -> None:
    path = root / "card_data" / "mini" / "deck.json"
    data = json.loads(path.read_text())
    fn(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2))


def test_the_front_door_is_the_package() -> None:
    for name in ("check", "build", "preflight", "export_png", "export_tts", "preview", "calibrate", "watch"):
        assert getattr(pnp, name) is getattr(api, name)


def test_check_every_bundled_game() -> None:
    report = pnp.check(layout=False)
    assert report.ok and report.exit_code == 0
    assert [g.id for g in report.games] == ["capek-golems", "cauldron", "cyberiad", "golems", "time-capsules"]
    for g in report.games:
        assert g.checked is not None and g.checked.report.ok and not g.errors
        assert len(g.checked.plans) == len(g.checked.game.components)


def test_check_takes_a_name_or_a_list(mini: Path) -> None:
    assert [g.id for g in pnp.check("golems", layout=False).games] == ["golems"]
    assert [g.id for g in pnp.check(["cyberiad", "golems"], layout=False).games] == ["cyberiad", "golems"]
    assert [g.id for g in pnp.check(data=mini).games] == ["mini"]


def test_check_reports_bad_input_with_file_line_and_path(mini: Path) -> None:
    _edit_deck(mini, lambda d: d["items"][1].update(copies="two"))
    report = pnp.check(data=mini)
    assert not report.ok and report.exit_code == 2
    (game,) = report.games
    assert game.checked is None
    (d,) = game.errors
    assert isinstance(d, Diagnostic)
    # Named as from the working folder (the repository; the data root is outside it: absolute).
    assert d.file == str(mini / "card_data" / "mini" / "deck.json") and d.line is not None and d.line > 1
    assert d.path == ("items", 1, "copies") and "integer" in (d.expected or d.message)


def test_check_a_folder_that_is_not_a_data_root(tmp_path: Path) -> None:
    report = pnp.check(data=tmp_path)
    assert report.exit_code == 2 and not report.games
    assert "not a pnp data root" in report.errors[0].message
    assert "no game 'nope'" in pnp.check("nope").games[0].errors[0].message


def test_check_a_failing_rule(mini: Path) -> None:
    _edit_deck(mini, lambda d: d["items"].pop())
    report = pnp.check(data=mini)
    assert report.exit_code == 1
    checked = report.games[0].checked
    assert checked is not None
    failed = [o.rule.id for o in checked.report.outcomes if not o.passed]
    assert failed == ["deck-5"]


def test_build_writes_pdfs_and_reports_them(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = pnp.build(data=mini, out=out, jobs=1)
    assert report.ok and report.exit_code == 0 and not report.warnings
    (game,) = report.games
    assert game.id == "mini" and game.title == "Mini" and not game.up_to_date
    (deck,) = game.files
    assert deck.path == out / "mini" / "deck.pdf" and deck.rendered
    pdf = PdfReader(deck.path)
    assert len(pdf.pages) == deck.pages and deck.bytes == deck.path.stat().st_size
    # mini cards turned: 3 across, 5 down with gutters (their edges differ in colour; 6 down abutting)
    assert deck.pieces == 5 and deck.grid == "3x5"
    assert set(report.written) == {deck.path, game.contents}
    assert game.preflight is not None and "text >=" in game.preflight
    # Letter paper by default; the options change it.
    assert round(float(pdf.pages[0].mediabox.width)) == 612
    a4 = pnp.build(data=mini, out=tmp_path / "a4", paper="a4", jobs=1)
    page = PdfReader(a4.games[0].files[0].path).pages[0]
    assert abs(float(page.mediabox.width) - 210 * MM) < 0.01


def test_build_is_incremental(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = pnp.build(data=mini, out=out, jobs=1)
    again = pnp.build(data=mini, out=out, jobs=1)
    assert again.ok and again.games[0].up_to_date and again.written == ()
    assert [f.rendered for f in again.games[0].files] == [False]
    assert again.games[0].files[0].bytes == first.games[0].files[0].bytes
    _edit_deck(mini, lambda d: d["items"][0].update(name=d["items"][0]["name"] + " II"))
    edited = pnp.build(data=mini, out=out, jobs=1)
    assert not edited.games[0].up_to_date and edited.games[0].files[0].rendered
    assert out / "mini" / "deck.pdf" in edited.written
    forced = pnp.build(data=mini, out=out, jobs=1, force=True)
    assert forced.games[0].files[0].rendered and forced.written == ()  # same bytes: nothing rewritten


def test_build_the_same_files_as_the_command(mini: Path, tmp_path: Path) -> None:
    pnp.build(data=mini, out=tmp_path / "lib", jobs=1, duplex="short", ink_saver=True)
    assert run_cli("build", "--data", mini, "--out", tmp_path / "cli", "--duplex", "short", "--ink-saver",
                   "--jobs", "1").exit_code == 0
    lib = sorted(p.relative_to(tmp_path / "lib") for p in (tmp_path / "lib").rglob("*.pdf"))
    cli = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*.pdf"))
    assert lib == cli and lib
    for rel in lib:
        assert (tmp_path / "lib" / rel).read_bytes() == (tmp_path / "cli" / rel).read_bytes()


def test_build_stops_on_rule_violations_and_bad_input(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _edit_deck(mini, lambda d: d["items"].pop())
    report = pnp.build(data=mini, out=out, jobs=1)
    assert report.exit_code == 1 and not report.ok
    assert [gc.game.id for gc in report.failed] == ["mini"] and not report.games
    assert not out.exists()
    _edit_deck(mini, lambda d: d["items"].append({"id": 7}))
    report = pnp.build(data=mini, out=out, jobs=1)
    assert report.exit_code == 2 and report.errors and not out.exists()
    assert any(d.file == str(mini / "card_data" / "mini" / "deck.json") for d in report.errors)


def test_build_strict_fails_on_warnings_and_writes_nothing(mini: Path, tmp_path: Path) -> None:
    # A name far too long for its box cannot fit even at the minimum size: a layout warning.
    _edit_deck(mini, lambda d: d["items"][0].update(name="Unbelievably " * 12))
    lenient = pnp.build(data=mini, out=tmp_path / "lenient", jobs=1)
    assert lenient.ok and lenient.warnings
    strict = pnp.build(data=mini, out=tmp_path / "strict", jobs=1, strict=True)
    assert strict.exit_code == 2 and strict.warnings and not (tmp_path / "strict").exists()


def test_unknown_options_are_named() -> None:
    with pytest.raises(TypeError, match=r"unknown option.*colour.*known: .*paper"):
        pnp.build("golems", colour="red")


def test_preflight_renders_in_memory(mini: Path) -> None:
    report = pnp.preflight(data=mini)
    assert report.ok
    pre = report.games[0].preflight
    assert pre is not None and [c.component for c in pre.components] == ["deck"]
    assert pre.components[0].pieces == 5 and pre.coverage is not None and 0 < pre.coverage < 1
    assert sorted(p.name for p in mini.iterdir()) == ["card_data", "templates"]  # nothing written


def test_exports_and_preview(mini: Path, tmp_path: Path) -> None:
    png = pnp.export_png("mini", data=mini, out=tmp_path, dpi=72, bleed_mm=0)
    assert png.ok
    (deck,) = png.exported
    assert deck.size_px == (round(44 / 25.4 * 72), round(63 / 25.4 * 72))
    assert all((deck.folder / f).is_file() for f in deck.files) and deck.index.is_file()
    tts = pnp.export_tts("mini", data=mini, out=tmp_path, dpi=72)
    assert tts.ok and [e.component.id for e in tts.exported] == ["deck"]
    shot = pnp.preview("mini", "deck", data=mini, out=tmp_path, dpi=72)
    assert shot.ok and shot.path is not None and shot.path.is_file()
    missing = pnp.export_png("mini", "nope", data=mini, out=tmp_path)
    assert missing.exit_code == 2 and "nope" in missing.errors[0].message


def test_calibrate_writes_the_sheet(tmp_path: Path) -> None:
    path = pnp.calibrate("a4", "short", out=tmp_path, back_offset=(1.0, -0.5))
    assert path == tmp_path / "calibration-a4-short.pdf"
    assert len(PdfReader(path).pages) == 2


def test_watch_polls(mini: Path, tmp_path: Path) -> None:
    watcher = pnp.watch("mini", data=mini, out=tmp_path, jobs=1)
    lines = watcher.poll()
    assert any(line.startswith("rebuilt deck:") for line in lines)
    assert watcher.poll() == []
    # what it wrote is what a build writes: the build that follows is up to date
    assert pnp.build(data=mini, out=tmp_path, jobs=1).games[0].up_to_date


def test_the_api_doc_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/api.md's example is code that works, not prose."""
    import re

    doc = (REPO / "docs" / "api.md").read_text()
    (example,) = re.findall(r"```python\n(.*?)```", doc, re.S)
    exec(compile(example, "docs/api.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "True ['capek-golems', 'cauldron', 'cyberiad', 'golems', 'time-capsules']" in printed
    assert "golem-deck.pdf" in printed and "(new)" in printed


def test_build_in_cmyk_is_not_the_rgb_build(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    rgb = pnp.build(data=mini, out=out, jobs=1, print_shop=True)
    cmyk = pnp.build(data=mini, out=out, jobs=1, print_shop=True, color="cmyk")
    assert not cmyk.games[0].up_to_date and cmyk.games[0].files[0].rendered  # not reused from the RGB build
    assert cmyk.games[0].files[0].bytes != rgb.games[0].files[0].bytes
    for path in (cmyk.games[0].files[0].path, cmyk.games[0].contents):  # the contents sheet too
        pdf = PdfReader(path)
        assert pdf.pdf_header == "%PDF-1.6" and pdf.trailer["/Info"]["/GTS_PDFXVersion"] == "PDF/X-4"
        assert all("/TrimBox" in p and "/BleedBox" in p for p in pdf.pages)
    assert run_cli("build", "--data", mini, "--out", tmp_path / "cli", "--one-per-page", "--color", "cmyk",
                   "--jobs", "1").exit_code == 0
    assert (tmp_path / "cli" / "mini" / "deck.pdf").read_bytes() == cmyk.games[0].files[0].path.read_bytes()


@pytest.mark.parametrize("opts", [{"bleed_mm": float("nan")}, {"bleed_mm": 11.0}, {"back_offset": (float("inf"), 0.0)},
                                  {"back_offset": (25.0, 0.0)}, {"back_scale": (1.2, 1.0)},
                                  {"back_scale": (float("nan"), 1.0)}])
def test_option_values_out_of_range_raise_value_error(opts: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    """Every number of BuildOptions ends up in a PDF content stream (issue 19): nan, inf or an
    absurd value is refused before anything is read or written."""
    with pytest.raises(ValueError, match="is out of range"):
        pnp.build("mini", data=TEST_DATA / "mini", out=tmp_path / "out", **opts)
    assert not (tmp_path / "out").exists()

"""Print production: calibration sheet readings, back offset/scale, printer profiles,
print-shop pages."""

from __future__ import annotations

import io
from pathlib import Path

import pdfplumber
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from pnp.cli import main
from pnp.impose.sheet import PAPERS
from pnp.input.project import DataRoot, bundled_root
from pnp.layout.fields import MINUS
from pnp.layout.fonts import FontBook
from pnp.products.calibrate import SPREAD_X, SPREAD_Y, calibration_pdf, rulers
from pnp.render.draw import BackCorrection
from pnp.units import MM

FONTS = FontBook(DataRoot(bundled_root()).font_dirs())


def _num(s: str) -> float | None:
    try:
        return float(s.replace(MINUS, "-").replace("+", ""))
    except ValueError:
        return None


def readings(pdf_bytes: bytes, paper: str, duplex: str) -> dict[str, float]:
    """What a person reads: where each back line, seen through the paper, crosses its ruler,
    interpolated between the ruler's long ticks, each valued by the number printed next to it
    (all read back from the PDF)."""
    p = PAPERS[paper]
    out = {}
    with pdfplumber.open(io.BytesIO(pdf_bytes)) as pdf:
        front, back = pdf.pages
        h = float(front.height)
        words = [(((w["x0"] + w["x1"]) / 2, h - (w["top"] + w["bottom"]) / 2), _num(w["text"]))
                 for w in front.extract_words() if _num(w["text"]) is not None]
        ticks = [(ln["x0"], h - ln["top"], ln["x1"], h - ln["bottom"]) for ln in front.lines
                 if abs(ln["linewidth"] - 0.25) < 1e-6]
        lines = [(ln["x0"], h - ln["top"], ln["x1"], h - ln["bottom"]) for ln in back.lines
                 if ln["linewidth"] > 0.4]  # the back lines (0.5 pt, scaled with the back)
    for r in rulers(p):
        if r.axis == "x":  # long ticks are vertical, 5 mm tall, standing on the ruler
            long_ticks = [x0 for x0, y0, x1, y1 in ticks if abs(x0 - x1) < 1e-6 and abs(abs(y1 - y0) - 5 * MM) < 0.01
                          and abs(min(y0, y1) - r.cy) < 0.01 and abs(x0 - r.cx) <= 10 * MM + 0.01]
            xs = [x0 for x0, _, x1, _ in lines if abs(x0 - x1) < 1e-6]
            pos = min(((p.width - x) if duplex == "long" else x for x in xs), key=lambda x: abs(x - r.cx))
            valued = [(t, min(words, key=lambda w: (w[0][0] - t) ** 2 + (w[0][1] - r.cy - 6 * MM) ** 2)[1])
                      for t in long_ticks]
        else:  # long ticks are horizontal, 5 mm long, to the right of the ruler
            long_ticks = [y0 for x0, y0, x1, y1 in ticks if abs(y0 - y1) < 1e-6 and abs(abs(x1 - x0) - 5 * MM) < 0.01
                          and abs(min(x0, x1) - r.cx) < 0.01 and abs(y0 - r.cy) <= 10 * MM + 0.01]
            ys = [y0 for _, y0, _, y1 in lines if abs(y0 - y1) < 1e-6]
            pos = min((y if duplex == "long" else p.height - y for y in ys), key=lambda y: abs(y - r.cy))
            valued = [(t, min(words, key=lambda w: (w[0][0] - r.cx - 8 * MM) ** 2 + (w[0][1] - t) ** 2)[1])
                      for t in long_ticks]
        assert len(valued) == 5, (r.name, valued)
        (p0, v0), (p1, v1) = min(valued), max(valued)
        out[r.name] = round(v0 + (pos - p0) * (v1 - v0) / (p1 - p0), 3)
    return out


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_perfect_printer_reads_zero(paper: str, duplex: str) -> None:
    r = readings(calibration_pdf(PAPERS[paper], duplex, FONTS), paper, duplex)
    assert set(r.values()) == {0.0}


@pytest.mark.parametrize("duplex", ["long", "short"])
@pytest.mark.parametrize("err", [(1.5, -2.0), (-3.0, 0.5)])
def test_reading_is_the_offset_that_cancels_the_printer_shift(duplex: str, err: tuple[float, float]) -> None:
    """A printer that shifts its back by `err` (mm, as seen on the back page) is simulated by
    drawing the back shifted; the rulers then read exactly -err: the --back-offset to use."""
    shifted = BackCorrection(err[0] * MM, err[1] * MM)
    r = readings(calibration_pdf(PAPERS["letter"], duplex, FONTS, shifted), "letter", duplex)
    for name in ("DX", "DX left", "DX right"):
        assert r[name] == pytest.approx(-err[0], abs=0.01)
    for name in ("DY", "DY top", "DY bottom"):
        assert r[name] == pytest.approx(-err[1], abs=0.01)


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_scale_formula_on_the_sheet_recovers_the_printer_scale(duplex: str) -> None:
    k = 1.01  # the printer enlarges its back side by 1 %
    r = readings(calibration_pdf(PAPERS["a4"], duplex, FONTS, BackCorrection(0, 0, k, k)), "a4", duplex)
    ax, bx = ("DX right", "DX left") if duplex == "long" else ("DX left", "DX right")
    ay, by = ("DY bottom", "DY top") if duplex == "long" else ("DY top", "DY bottom")
    scale_x = 1 / (1 + (r[ax] - r[bx]) / (2 * SPREAD_X))
    scale_y = 1 / (1 + (r[ay] - r[by]) / (2 * SPREAD_Y))
    assert scale_x == pytest.approx(1 / k, abs=1e-4)
    assert scale_y == pytest.approx(1 / k, abs=1e-4)
    assert r["DX"] == pytest.approx(0, abs=0.01) and r["DY"] == pytest.approx(0, abs=0.01)


def test_calibrate_cli_writes_two_pages(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["calibrate", "--paper", "a4", "--duplex", "short", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    r = PdfReader(tmp_path / "calibration-a4-short.pdf")
    assert len(r.pages) == 2
    assert float(r.pages[0].mediabox.width) == pytest.approx(PAPERS["a4"].width, abs=0.01)


@pytest.mark.slow
def test_back_offset_moves_back_pages_only(tmp_path: Path) -> None:
    plain, moved = tmp_path / "plain", tmp_path / "moved"
    for out, extra in ((plain, []), (moved, ["--back-offset", "2,-1"])):
        res = CliRunner().invoke(main, ["build", "golems", "--out", str(out), *extra])
        assert res.exit_code == 0, res.output

    def first(path: Path, page: int, word: str) -> tuple[float, float]:
        with pdfplumber.open(path) as pdf:
            w = next(w for w in pdf.pages[page].extract_words() if w["text"] == word)
            return w["x0"], w["top"]

    a, b = first(plain / "golems" / "wizard.pdf", 1, "GOLEMS"), first(moved / "golems" / "wizard.pdf", 1, "GOLEMS")
    assert (b[0] - a[0]) / MM == pytest.approx(2.0, abs=0.01)
    assert -(b[1] - a[1]) / MM == pytest.approx(-1.0, abs=0.01)  # pdfplumber's top grows downwards
    assert first(plain / "golems" / "wizard.pdf", 0, "Wizard") == first(moved / "golems" / "wizard.pdf", 0, "Wizard")


def test_printer_profile_fills_unset_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pnp.toml").write_text('[printers.office]\nback_offset = [1.5, 0]\npaper = "a4"\n')
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    data = (tmp_path / "calibration-a4-long.pdf").read_bytes()  # paper from the profile
    r = readings(data, "a4", "long")
    assert r["DX"] == pytest.approx(-1.5, abs=0.01)  # the correction itself shows as a shift
    # The command line wins over the profile.
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--paper", "letter", "--out", str(tmp_path)])
    assert (tmp_path / "calibration-letter-long.pdf").exists()


def test_unknown_printer_and_bad_profile_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_text('[printers.office]\nback_ofset = [1, 0]\n')
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office"])
    assert res.exit_code == 2 and 'unknown key "back_ofset"' in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(main, ["calibrate", "--printer", "home"])
    assert res.exit_code == 2 and "no printer profile 'home'" in res.output and "office" in res.output
    (tmp_path / "pnp.toml").write_text('[printers.office\n')
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office"])
    assert res.exit_code == 2 and "invalid TOML" in res.output


@pytest.mark.parametrize(("toml", "message"), [
    ("[printers.office]\nback_scale = nan\n", "back_scale nan is out of range"),
    ("[printers.office]\nback_scale = 1.5\n", "back_scale 1.5 is out of range"),
    ("[printers.office]\nback_offset = [inf, 0]\n", "back_offset [inf, 0] is out of range"),
    ("[printers.office]\nbleed = nan\n", "bleed nan"),
    ("[printers.office]\nbleed = 1e300\n", "bleed 1e+300"),
    ("[printers.office]\nx = " + "[" * 5000 + "]" * 5000 + "\n", "invalid TOML: nested too deeply"),
    ("[printers.office]\nx = " + "{a=" * 5000 + "1" + "}" * 5000 + "\n", "invalid TOML: nested too deeply"),
    # attack 16, F4: tomllib keeps a path per prefix of a dotted key (20,000 parts: 1.6 GB, exit 3)
    ("[printers.office]\n" + "a." * 20_000 + "a = 1\n", "pnp.toml:2: $: invalid TOML: a key of 20,001 dotted parts"),
    ("[printers.office]\nx = {" + "'a'." * 33 + "b = 1}\n", "invalid TOML: a key of 34 dotted parts"),
    ("[" + "a." * 40 + "a]\n", "pnp.toml:1: $: invalid TOML: a key of 41 dotted parts (expected keys of at most 32"),
    # attack 9: Python's int() refuses more than 4,300 digits, float() overflows past 1e308 (exit 3)
    ("[printers.office]\nbleed = " + "9" * 5000 + "\n", "invalid TOML: a whole number of more than 4,300 digits"),
    ("[printers.office]\nback_offset = [" + "9" * 400 + ", 0]\n",
     "back_offset [a whole number of 400 digits, 0] is out of range"),
])
def test_hostile_printer_profiles_exit_2(toml: str, message: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """NaN, infinite, huge and out-of-range values, and nesting deep enough to exhaust the TOML
    parser's recursion (issue 19): exit 2 with the reason, never exit 3, nothing written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_text(toml)
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("toml", "said"), [
    ('# profiles\n[printers.home]\npaper = "a4"\n\n[printers.office]  # the laser\nduplex = "long"\n'
     "back_offset = [nan, 0]\n",
     "pnp.toml:7: $.printers.office.back_offset: back_offset [nan, 0] is out of range (expected -20 to 20 mm)"),
    ("[printers.office]\nbleed = 1979-05-27\n", "pnp.toml:2: $.printers.office.bleed: bleed 1979-05-27 (expected"),
    ('[printers."office"]\nduplex = ["long"]\n', 'pnp.toml:2: $.printers.office.duplex: duplex ["long"] (expected'),
    ("[printers.office]\ncolour = 3\n", 'pnp.toml:2: $.printers.office.colour: unknown key "colour" (expected'),
    ("printers = {office = {paper = 3}}\n", "pnp.toml: $.printers.office.paper: paper 3 (expected"),
    ('[printers.office]\npaper = "a4"\npaper = "a4"',  # the last line without a line feed: "at end of document"
     "pnp.toml:3: $: invalid TOML: Cannot overwrite a value (expected"),
    ('[printers.office]\npaper = "a4\x1b[31m"\n',
     "pnp.toml:2:12: $: invalid TOML: Illegal character '\\x1b' (expected"),
])
def test_a_bad_printer_profile_names_its_line_and_path(toml: str, said: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 6, borderline: a profile's problems had no line (tomllib gives no positions, so
    pnp finds the key's line in the text), a date showed as `datetime.date(1979, 5, 27)`, and
    the file was named by its absolute path though it lies in the working folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_text(toml, encoding="utf-8")
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert res.output.startswith(said), res.output
    assert "\x1b" not in res.output and str(tmp_path) not in res.output


def test_every_bad_value_of_a_printer_profile_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 12, borderline B7: a profile with two bad values reported only one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_text('[printers.office]\nback_offset = [{a={b={c=1}}}, 1]\npaper = ["a4"]\n'
                                       'colour = 3\nback_scale = 2\n', encoding="utf-8")
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert res.output.splitlines()[:4] == [
        'pnp.toml:4: $.printers.office.colour: unknown key "colour" (expected one of back_offset, back_scale, '
        "bleed, duplex, paper)",
        'pnp.toml:3: $.printers.office.paper: paper ["a4"] (expected letter, a4 or universal)',
        "pnp.toml:2: $.printers.office.back_offset: back_offset is [{...}, 1] (expected [X, Y] in mm)",
        "pnp.toml:5: $.printers.office.back_scale: back_scale 2 is out of range (expected 0.9 to 1.1)"]
    assert not (tmp_path / "out").exists()


def test_one_per_page_boxes(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["build", "golems", "--one-per-page", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    r = PdfReader(tmp_path / "golems" / "golem-deck.pdf")
    assert len(r.pages) == 96  # 48 cards, front and back each
    for page in r.pages[:4]:
        assert [round(float(v) / MM, 3) for v in page.mediabox] == [0, 0, 69, 94]
        assert [round(float(v) / MM, 3) for v in page.trimbox] == [3, 3, 66, 91]
        assert [round(float(v) / MM, 3) for v in page.bleedbox] == [0, 0, 69, 94]
    with pdfplumber.open(tmp_path / "golems" / "golem-deck.pdf") as pdf:
        assert "Flesh" in pdf.pages[0].extract_text() and "GOLEMS" in pdf.pages[1].extract_text()
        assert not [ln for ln in pdf.pages[0].lines if abs(ln["linewidth"] - 0.25) < 1e-6]  # no crop marks


@pytest.mark.slow
def test_back_scale_scales_back_pages_about_the_centre(tmp_path: Path) -> None:
    plain, scaled = tmp_path / "plain", tmp_path / "scaled"
    for out, extra in ((plain, []), (scaled, ["--back-scale", "1.01,0.99"])):
        res = CliRunner().invoke(main, ["build", "golems", "--out", str(out), *extra])
        assert res.exit_code == 0, res.output
    with pdfplumber.open(plain / "golems" / "wizard.pdf") as a, pdfplumber.open(scaled / "golems" / "wizard.pdf") as b:
        w, h = float(a.pages[1].width), float(a.pages[1].height)
        pa = [(c["x0"], h - c["y0"]) for c in a.pages[1].chars if c["text"] == "G"]
        pb = [(c["x0"], h - c["y0"]) for c in b.pages[1].chars if c["text"] == "G"]
        fronts_equal = a.pages[0].extract_words() == b.pages[0].extract_words()
    assert fronts_equal
    assert len(pa) == len(pb) > 0
    for (xa, ya), (xb, yb) in zip(sorted(pa), sorted(pb), strict=True):
        assert xb - w / 2 == pytest.approx((xa - w / 2) * 1.01, abs=0.05)
        # pdfplumber's y0 is the glyph's bottom in PDF space; h - y0 flips it twice: PDF y again
        assert (h - yb) - h / 2 == pytest.approx(((h - ya) - h / 2) * 0.99, abs=0.05)


def test_a_printer_config_with_a_byte_order_mark_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pnp.toml saved with a UTF-8 BOM (Notepad does) is refused naming the BOM, as a JSON file
    is, not with tomllib's "Invalid statement (at line 1, column 1)" (attack 5, observation 5)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_bytes(b'\xef\xbb\xbf[printers.office]\npaper = "a4"\n')
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert "pnp.toml:1:1: $: file starts with a UTF-8 byte order mark (BOM)" in res.output, res.output
    assert "without BOM" in res.output and "Invalid statement" not in res.output
    assert not (tmp_path / "out").exists()
    (tmp_path / "pnp.toml").write_bytes(b'[printers.office]\npaper = "a4"\n')  # saved again without it
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output


def test_keys_of_up_to_32_parts_and_dots_in_values_are_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "pnp.toml").write_text("# a.b.c." + "d." * 50 + "\n" + "x." * 31 + "y = 1\n"
                                       'z = "' + "v." * 50 + '"\n'
                                       '[printers."my.shop"]\nbleed = 2.5\nback_offset = [0.5, -0.25]\n')
    from pnp.products.printers import load_profile

    profile = load_profile("my.shop", [tmp_path / "pnp.toml"])
    assert profile.back_offset == (0.5, -0.25)

"""Number options take plain ASCII decimal numbers only (issue 19, third attack): float() and
int() read ``1_0`` as 10 and a fullwidth ``５`` as 5, and ``-0`` printed "bleed -0 mm". Every
numeric option of every command is named here; a value is used as written or refused with a
usage error (exit 2) naming the option and what it takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TEST_DATA, assert_no_traceback, run_cli

from pnp.cli import main
from pnp.cli.options import plain_number
from pnp.products.printers import load_profile

MINI = TEST_DATA / "mini"

# (command words, option, a value it takes): every number option pnp has
OPTIONS = [
    (["build", "mini"], "--bleed", "2"),
    (["build", "mini"], "--back-offset", "0.5,-1"),
    (["build", "mini"], "--back-scale", "1.002"),
    (["build", "mini"], "--jobs", "1"),
    (["check", "mini"], "--bleed", "2"),
    (["preflight", "mini"], "--bleed", "2"),
    # a game that is not there: a value taken by mistake ends the command instead of watching forever
    (["watch", "no-such-game"], "--bleed", "2"),
    (["watch", "no-such-game"], "--interval", "0.5"),
    (["watch", "no-such-game"], "--jobs", "1"),
    (["serve", "no-such-game"], "--bleed", "2"),
    (["serve", "no-such-game"], "--interval", "0.5"),
    (["serve", "no-such-game"], "--port", "8000"),
    (["calibrate"], "--back-offset", "0.5,-1"),
    (["calibrate"], "--back-scale", "1.002"),
    (["export", "png", "mini"], "--bleed", "2"),
    (["export", "png", "mini"], "--dpi", "72"),
    (["export", "png", "mini"], "--jobs", "1"),
    (["export", "tts", "mini"], "--dpi", "72"),
    (["export", "png", "mini"], "--max-megapixels", "1000"),
    (["export", "tts", "mini"], "--max-megapixels", "1000"),
    (["preview", "mini", "deck"], "--dpi", "72"),
]
NOT_PLAIN = ["1_0", "\uff15", "\u0663", " 3", "3 ", "nan", "inf", "-infinity", "0x10", "1,5", "1.5.", "e3", "", "+"]


@pytest.mark.parametrize(("words", "opt", "good"), OPTIONS, ids=[f"{w[0]}{o}" for w, o, _ in OPTIONS])
def test_every_number_option_refuses_what_is_not_a_plain_number(words: list[str], opt: str, good: str,
                                                                 tmp_path: Path) -> None:
    writes = words[0] not in ("check", "preflight")
    for bad in NOT_PLAIN:
        if "," in good and bad.strip() != bad:  # a pair takes spaces around its comma ("0.8, -1.2")
            continue
        value = f"{bad},0" if opt == "--back-offset" else bad
        r = run_cli(*words, opt, value, *(["--out", tmp_path / "out"] if writes else []),
                    *(["--data", MINI] if words[0] != "calibrate" else []))
        assert r.exit_code == 2, (opt, value, r.output)
        assert_no_traceback(r)
        assert f"Invalid value for '{opt}'" in r.stderr, (opt, value, r.stderr)
        assert "ASCII digits" in r.stderr or "out of range" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_the_message_names_the_option_and_what_it_takes(tmp_path: Path) -> None:
    cases = {
        ("--bleed", "\uff15"): "Invalid value for '--bleed': '\uff15' is not a plain decimal number like 3, 0.5 or "
                               "-1.2 (ASCII digits, '.' as the decimal mark)",
        ("--back-offset", "1_0,2"): "Invalid value for '--back-offset': '1_0,2' is not two numbers like 0.8,-1.2 "
                                    "(plain decimal numbers: ASCII digits, '.' as the decimal mark)",
        ("--jobs", "1_0"): "Invalid value for '--jobs' / '-j': '1_0' is not a whole number in ASCII digits, like 4",
        ("--bleed", "1e400"): "Invalid value for '--bleed': '1e400' is out of range (expected a number from 0 to 10)",
        ("--back-scale", "1e400"): "Invalid value for '--back-scale': '1e400' is out of range (expected numbers from "
                                   "0.9 to 1.1)",
    }
    for (opt, value), said in cases.items():
        r = run_cli("build", "--data", MINI, "mini", "--out", tmp_path / "out", opt, value)
        assert r.exit_code == 2 and said in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["3", "+3", "3.", ".5", "2.5e-1", "25E-1", "-0", "-0.0", "+0"])
def test_plain_numbers_are_read_as_written(value: str) -> None:
    v = plain_number(value)
    assert v == float(value) and str(v)[0] != "-"  # -0 is 0


@pytest.mark.parametrize("value", NOT_PLAIN + ["1e3_0", "\u2212" + "1", "1\u00a0"])
def test_what_float_would_read_is_not_a_plain_number(value: str) -> None:
    assert plain_number(value) is None


def test_minus_zero_is_zero_in_what_is_printed_and_built(tmp_path: Path) -> None:
    """``--bleed -0`` printed "bleed -0 mm"; ``--back-offset -0,-0`` builds what 0,0 builds."""
    r = run_cli("build", "--data", MINI, "mini", "--out", tmp_path / "a", "--bleed", "-0", "--back-offset", "-0,-0.0")
    assert r.exit_code == 0, r.output
    assert "bleed 0 mm" in r.stdout and "-0" not in r.stdout
    r = run_cli("build", "--data", MINI, "mini", "--out", tmp_path / "b", "--bleed", "0")
    assert r.exit_code == 0, r.output
    for pdf in (tmp_path / "b" / "mini").glob("*.pdf"):
        assert (tmp_path / "a" / "mini" / pdf.name).read_bytes() == pdf.read_bytes(), pdf.name
    r = run_cli("preflight", "--data", MINI, "mini", "--bleed", "-0", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["games"][0]["bleed_mm"] == 0, r.output
    assert '"bleed_mm": -0' not in r.stdout


def test_lengths_are_read_to_the_micrometre(tmp_path: Path) -> None:
    """``--bleed 1e-320`` printed "bleed 9.99989e-321 mm" (a subnormal number); lengths in mm are
    rounded to 0.001 mm, on the command line and in a printer profile alike."""
    r = run_cli("build", "--data", MINI, "mini", "--out", tmp_path / "a", "--bleed", "1e-320",
                "--back-offset", "-1e-320,0.0004")
    assert r.exit_code == 0 and "bleed 0 mm" in r.stdout and "e-" not in r.stdout, r.output
    r = run_cli("build", "--data", MINI, "mini", "--out", tmp_path / "b", "--bleed", "0")
    for pdf in (tmp_path / "b" / "mini").glob("*.pdf"):
        assert (tmp_path / "a" / "mini" / pdf.name).read_bytes() == pdf.read_bytes(), pdf.name
    r = run_cli("preflight", "--data", MINI, "mini", "--bleed", "2.0004", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["games"][0]["bleed_mm"] == 2.0, r.output
    toml = tmp_path / "pnp.toml"
    toml.write_text("[printers.office]\nbleed = 1e-320\nback_offset = [0.12345, -1e-300]\nback_scale = 1.00001\n")
    p = load_profile("office", [toml])
    assert (p.bleed, p.back_offset, p.back_scale) == (0.0, (0.123, 0.0), (1.00001, 1.00001))


def test_a_printer_profile_minus_zero_is_zero_and_toml_syntax_is_tomls(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """pnp.toml numbers are TOML's: the TOML grammar allows 1_0 (10) and refuses fullwidth digits."""
    toml = tmp_path / "pnp.toml"
    toml.write_text("[printers.office]\nbleed = -0.0\nback_offset = [-0.0, 1_0]\nback_scale = -0.0e0\n")
    with pytest.raises(Exception, match="out of range"):  # a scale of 0 is out of 0.9..1.1
        load_profile("office", [toml])
    toml.write_text("[printers.office]\nbleed = -0.0\nback_offset = [-0.0, 1_0]\n")
    p = load_profile("office", [toml])
    assert p.bleed is not None and str(p.bleed) == "0.0" and p.back_offset is not None
    assert str(p.back_offset[0]) == "0.0" and p.back_offset[1] == 10.0
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    toml.write_text("[printers.office]\nbleed = \uff15\n")
    res = CliRunner().invoke(main, ["calibrate", "--printer", "office", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "invalid TOML" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "out").exists()

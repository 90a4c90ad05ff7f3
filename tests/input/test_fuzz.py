"""Property tests: mutated game data (dropped keys, changed types, huge strings, unicode, deep
nesting, extreme numbers, broken bytes) never crashes pnp. ``pnp check`` and ``pnp build`` either
succeed or exit 1 (rulebook) / 2 (input) with messages that say what to do; never a traceback,
never exit 3, never a partial or invalid PDF, never a temporary file left behind.

The normal suite runs a few dozen examples per test; a longer run:

    PNP_FUZZ_EXAMPLES=2000 python -m pytest tests/input/test_fuzz.py
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TEST_DATA, assert_no_traceback, run_cli
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pypdf import PdfReader

pytestmark = pytest.mark.slow  # every test here runs dozens of checks and builds

EXAMPLES = int(os.environ.get("PNP_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

Path_ = tuple[str | int, ...]


# -- the games to mutate -------------------------------------------------------------------------

def _mini_files() -> dict[str, Path]:
    return {str(p.relative_to(TEST_DATA / "mini")): p for p in sorted((TEST_DATA / "mini").rglob("*.json"))}


def _golems_files() -> dict[str, Path]:
    out = {f"card_data/golems/{p.name}": p for p in sorted((REPO / "card_data" / "golems").glob("*.json"))}
    for group in ("golems", "shared"):
        out.update({f"templates/{group}/{p.name}": p for p in sorted((REPO / "templates" / group).glob("*.json"))})
    return out


GAMES: dict[str, dict[str, Path]] = {"mini": _mini_files(), "golems": _golems_files()}
PARSED: dict[str, dict[str, Any]] = {g: {rel: json.loads(p.read_text("utf-8")) for rel, p in files.items()}
                                     for g, files in GAMES.items()}


def _make_root(game: str, base: Path) -> Path:
    root = base / "root"
    if game == "mini":
        shutil.copytree(TEST_DATA / "mini", root)
    else:
        # Golems' data, its templates and the shared icons (found before the bundled ones).
        shutil.copytree(REPO / "card_data" / "golems", root / "card_data" / "golems")
        for group in ("golems", "shared"):
            shutil.copytree(REPO / "templates" / group, root / "templates" / group)
    return root


# -- mutations -----------------------------------------------------------------------------------

def all_paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from all_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from all_paths(v, (*prefix, i))


def get_at(value: Any, path: Path_) -> Any:
    for p in path:
        value = value[p]
    return value


def set_at(doc: Any, path: Path_, new: Any) -> Any:
    if not path:
        return new
    get_at(doc, path[:-1])[path[-1]] = new
    return doc


SPECIAL_STRINGS = [
    "", " ", "{name}", "{nope}", "{name|nope}", "{{", "}", "{", "{icon:nope}", "**", "*", "\n\n",
    "../../etc/passwd", "/etc/passwd", "..", "con", "a/b", "mini/card", "golems/golem-card", "#ff00ff",
    "#12345", "none", "ink", "sun", "poker", "card", "rect", "hex", "round", "top", "upper",
    "\u202egnp", "\x00", "\ud7ff\ue000", "😀" * 3, "Ꙭ" * 50, "e\u0301", "W" * 5000, "word " * 2000,
]
EXTREME_NUMBERS = [0, -1, 1, 2, 0.5, -0.0, 1e-300, 1e300, -1e300, 10**18, -(10**18), 2**63, 10**9, 10_000,
                   10_001, 1000, 1001, 2000, 2001, 4300, 99999, 1.7976931348623157e308]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20), st.sampled_from(EXTREME_NUMBERS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30), st.sampled_from(SPECIAL_STRINGS),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(
                                ["id", "type", "box", "text", "name", "when", "field", "elements",
                                 "copies", "source", "document", "extends", "size", "style"])),
                                inner, max_size=4)),
    max_leaves=10,
)


def nested(depth: int, kind: str) -> Any:
    v: Any = {"field": "name", "present": True} if kind == "not" else 1
    for _ in range(depth):
        v = {"not": v} if kind == "not" else [v] if kind == "list" else {"k": v}
    return v


def retype(v: Any) -> list[Any]:
    """The same value in other JSON types."""
    out: list[Any] = [None, [v], {"value": v}, str(v) if not isinstance(v, str) else len(v)]
    if isinstance(v, bool):
        out.append(int(v))
    elif isinstance(v, int | float):
        out += [float(v) + 0.5, -v, bool(v)]
    elif isinstance(v, list):
        out += [dict(enumerate(v)), v[:1] * 3]
    elif isinstance(v, dict):
        out += [list(v.values()), list(v)]
    return out


@st.composite
def mutated(draw: st.DrawFn, game: str) -> dict[str, bytes]:
    """1-3 mutations of the game's JSON files: {relative path: new bytes}."""
    docs = {rel: copy.deepcopy(d) for rel, d in PARSED[game].items()}
    touched: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        rel = draw(st.sampled_from(sorted(docs)))
        doc = docs[rel]
        paths = list(all_paths(doc))
        path = draw(st.sampled_from(paths))
        target = get_at(doc, path)
        op = draw(st.sampled_from(["drop", "replace", "retype", "insert", "number", "string", "deep",
                                   "duplicate", "empty"]))
        if op == "drop" and path:
            parent = get_at(doc, path[:-1])
            del parent[path[-1]]
        elif op == "replace":
            doc = set_at(doc, path, draw(json_values))
        elif op == "retype":
            doc = set_at(doc, path, draw(st.sampled_from(retype(target))))
        elif op == "insert" and isinstance(target, dict):
            keys = sorted(target) or ["x"]
            key = draw(st.one_of(st.text(max_size=10),
                                 st.sampled_from(keys).map(lambda k: k[:-1] if len(k) > 1 else k + "x")))
            target[key] = draw(json_values)
        elif op == "number":
            doc = set_at(doc, path, draw(st.sampled_from(EXTREME_NUMBERS)))
        elif op == "string":
            doc = set_at(doc, path, draw(st.one_of(st.sampled_from(SPECIAL_STRINGS), st.text(min_size=1))))
        elif op == "deep":
            doc = set_at(doc, path, nested(draw(st.integers(1, 200)), draw(st.sampled_from(["not", "list", "dict"]))))
        elif op == "duplicate" and isinstance(target, list) and target:
            target.append(copy.deepcopy(target[draw(st.integers(0, len(target) - 1))]))
        elif op == "empty":
            doc = set_at(doc, path, type(target)() if isinstance(target, dict | list | str) else None)
        docs[rel] = doc
        touched.add(rel)
        note(f"{op} {rel} at {list(path)}")
    return {rel: (json.dumps(docs[rel], indent=2, ensure_ascii=draw(st.booleans())) + "\n").encode("utf-8")
            for rel in touched}


@st.composite
def mangled(draw: st.DrawFn, game: str) -> dict[str, bytes]:
    """Byte-level damage to one file: truncation, an inserted or deleted character, stray bytes."""
    rel = draw(st.sampled_from(sorted(GAMES[game])))
    raw = GAMES[game][rel].read_bytes()
    pos = draw(st.integers(0, len(raw)))
    op = draw(st.sampled_from(["truncate", "insert", "delete", "bytes", "replace-file"]))
    if op == "truncate":
        raw = raw[:pos]
    elif op == "insert":
        raw = raw[:pos] + draw(st.sampled_from([b",", b"]", b"}", b"{", b"[", b'"', b":", b"\\", b"\n", b"-",
                                                  b"0", b"\xff", b"\xef\xbb\xbf", b"\x00", b"1e999"])) + raw[pos:]
    elif op == "delete":
        raw = raw[:pos] + raw[pos + 1:]
    elif op == "bytes":
        raw = raw[:pos] + draw(st.binary(min_size=1, max_size=8)) + raw[pos:]
    else:
        raw = draw(st.one_of(st.binary(max_size=64), st.text(max_size=64).map(lambda t: t.encode("utf-8"))))
    note(f"{op} {rel} at byte {pos}")
    return {rel: raw}


# -- the property --------------------------------------------------------------------------------

def files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def assert_robust(game: str, changes: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory(prefix="pnp-fuzz-") as tmp:
        root = _make_root(game, Path(tmp))
        for rel, data in changes.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        out = Path(tmp) / "out"

        chk = run_cli("check", "--data", root, game, "--json")
        assert_no_traceback(chk)
        assert chk.exit_code in (0, 1, 2), (chk.exit_code, chk.stderr)
        report = json.loads(chk.stdout)
        (g,) = report["games"]
        if chk.exit_code == 2:
            assert g["errors"], chk.stdout
            for e in g["errors"]:
                assert e["message"] and e["file"], e
                assert e["expected"] or e["hint"], f"no advice in {e}"
        else:
            assert not g["errors"]

        lst = run_cli("list", "--data", root)
        assert_no_traceback(lst)
        assert lst.exit_code == (0 if chk.exit_code < 2 else lst.exit_code) and lst.exit_code in (0, 2)

        b = run_cli("build", "--data", root, game, "--out", out)
        assert_no_traceback(b)
        assert b.exit_code == chk.exit_code, (chk.exit_code, b.exit_code, b.stderr)
        written = files_in(out)
        if b.exit_code != 0:
            assert written == [], written
            if b.exit_code == 2:
                assert "nothing was written" in b.stderr
            return
        assert written, "a successful build wrote nothing"
        for f in written:
            if f.name == ".pnp-build.json":  # the incremental build's record
                continue
            assert f.suffix == ".pdf" and not f.name.startswith("."), f"stray file {f}"
            data = f.read_bytes()
            assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF"), f
            assert len(PdfReader(f).pages) >= 1


@pytest.mark.parametrize("game", ["mini"])
@FUZZ
@given(data=st.data())
def test_mutated_json_never_crashes_mini(game: str, data: st.DataObject) -> None:
    assert_robust(game, data.draw(mutated(game)))


@pytest.mark.parametrize("game", ["mini"])
@FUZZ
@given(data=st.data())
def test_mangled_bytes_never_crash_mini(game: str, data: st.DataObject) -> None:
    assert_robust(game, data.draw(mangled(game)))


@pytest.mark.parametrize("game", ["golems"])
@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(data=st.data())
def test_mutated_json_never_crashes_golems(game: str, data: st.DataObject) -> None:
    assert_robust(game, data.draw(mutated(game)))


# -- hostile input, round two (issue 19) ----------------------------------------------------------

_PATTERN_ATOMS = ["a", "b", ".", "\\d", "\\w", "(", ")", "|", "*", "+", "?", "{2,}", "\\1", "(?=", "(?!",
                  "(?<!", "[ab]", "^", "$", "(?:"]


@FUZZ
@given(atoms=st.lists(st.sampled_from(_PATTERN_ATOMS), max_size=12),
       text=st.text(alphabet="ab1 x", max_size=40))
def test_any_pattern_is_an_answer_or_an_error_never_a_hang(atoms: list[str], text: str) -> None:
    """Every pattern built from regex pieces, backreferences and lookaround included, either answers
    at once on a 40-character text or is refused with a ValueError (never re.error, never a hang)."""
    import time

    from pnp.input.conditions import regex

    pattern = "".join(atoms)
    note(pattern)
    start = time.perf_counter()
    try:
        r = regex(pattern)
        r.fullmatch(text)
        r.sub("x", text)
    except ValueError:
        pass
    assert time.perf_counter() - start < 0.5


@FUZZ
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(
    ["nan", "inf", "-inf", "1e308", "1e-320", "-0", "0x10", "1,nan", "nan,1", "1e400,0"])))
def test_numeric_options_are_used_or_refused_with_exit_2(value: float | str) -> None:
    """--bleed, --back-offset and --back-scale: a value is either in range and finite, or a usage
    error (exit 2): never exit 3, never a nan in a PDF."""
    import math

    with tempfile.TemporaryDirectory() as tmp:
        for opt in ("--bleed", "--back-offset", "--back-scale"):
            arg = str(value) if opt != "--back-offset" or "," in str(value) else f"{value},0"
            r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", Path(tmp) / "o", opt, arg)
            assert r.exit_code in (0, 2), (opt, arg, r.exit_code, r.stderr)
            assert_no_traceback(r)
            if r.exit_code == 0:
                nums = [float(v) for v in arg.split(",")]
                assert all(math.isfinite(v) for v in nums), (opt, arg)


def _valid_image(kind: str) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    img = Image.new("RGB", (64, 48), (200, 60, 20))
    img.paste((20, 60, 200), (10, 10, 40, 30))
    img.save(buf, "PNG" if kind == "png" else "JPEG")
    return buf.getvalue()


def _recrc(png: bytes) -> bytes:
    """The PNG with every chunk's CRC made right again (so only the data inside is broken)."""
    import struct
    import zlib

    out, i = bytearray(png[:8]), 8
    while i + 12 <= len(png):
        n = struct.unpack(">I", png[i:i + 4])[0]
        body = png[i + 4:i + 8 + n]
        if len(body) < n + 4:
            out += png[i:]
            break
        out += png[i:i + 8 + n] + struct.pack(">I", zlib.crc32(body))
        i += 12 + n
    return bytes(out)


@st.composite
def damaged_image(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["png", "jpeg"]))
    raw = bytearray(_valid_image(kind))
    op = draw(st.sampled_from(["truncate", "flip", "flip-recrc"] if kind == "png" else ["truncate", "flip"]))
    if op == "truncate":
        raw = raw[:draw(st.integers(0, len(raw) - 1))]
    else:
        for _ in range(draw(st.integers(1, 8))):
            pos = draw(st.integers(0, len(raw) - 1))
            raw[pos] = draw(st.integers(0, 255))
        if op == "flip-recrc":
            raw = bytearray(_recrc(bytes(raw)))
    note(f"{kind} {op} ({len(raw)} bytes)")
    return bytes(raw)


@FUZZ
@given(image=damaged_image())
def test_damaged_images_are_drawn_or_refused_with_exit_2(image: bytes) -> None:
    """A truncated or damaged PNG or JPEG (chunk CRCs right or wrong): check and build agree, and
    either draw it or refuse it with exit 2; never exit 3, never a half-written output."""
    card = (REPO / "tests" / "bad_inputs" / "image-missing" / "templates" / "mini" / "card.json").read_bytes()
    assert_robust("mini", {"templates/mini/card.json": card, "card_data/mini/art/sun.png": image})


_HOSTILE_VALUES = st.one_of(
    st.sampled_from(["../../etc/passwd", "/etc/passwd", "deck.pdf/..", "\x1b]0;owned\x07", "\x1b[2J", "a" * 5000,
                     "NaN", "", "deck.pdf\n", "DECK.PDF", "deck.PDF"]),
    st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=False), st.booleans(), st.none(),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.text(max_size=20))


def _leaves(v: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _leaves(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _leaves(x, at + (i,))
    yield at


@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(data=st.data())
def test_a_mangled_build_record_is_ignored_or_true(data: st.DataObject) -> None:
    """Any value anywhere in .pnp-build.json: the next build exits 0, prints no control
    character, and leaves a record that matches what is on disk (issue 19, class 3)."""
    from pnp.pipeline import incremental

    with tempfile.TemporaryDirectory(prefix="pnp-fuzz-") as tmp:
        out = Path(tmp) / "out"
        assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
        rec_path = out / "mini" / ".pnp-build.json"
        rec = json.loads(rec_path.read_text())
        for _ in range(data.draw(st.integers(1, 3))):
            paths = [p for p in _leaves(rec) if p]
            where = data.draw(st.sampled_from(paths))
            value = data.draw(_HOSTILE_VALUES)
            note(f"{where} = {value!r}")
            target = rec
            for k in where[:-1]:
                target = target[k]
            target[where[-1]] = value
        rec_path.write_text(json.dumps(rec))
        r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
        assert r.exit_code == 0, r.stderr
        assert_no_traceback(r)
        assert not any(ch in r.stdout + r.stderr for ch in "\x1b\x07\x00")
        record = incremental.load(out / "mini")
        assert record is not None and record.intact(out / "mini")
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["out"]

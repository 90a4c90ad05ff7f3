"""Bundled TrueType fonts, registered with reportlab's metrics by file stem (``Lato-Bold``).
Only TrueType outlines embed; a CFF ``.otf`` or a broken file is reported, never replaced by a
system font."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

from pnp.errors import did_you_mean, interrupts_held
from pnp.input.load import read_regular
from pnp.input.project import shown_path
from pnp.layout.fontcheck import FontDamage, FontUnsupported, check_font

# pnp's own text (sheet labels, contents and assembly pages, previews, the calibration sheet):
# bundled TrueType fonts, so every PDF embeds its fonts (never Helvetica).
UI_FONT = "Lato-Regular"
UI_BOLD = "Lato-Bold"
# The files of a fonts folder: a FontBook registers the TrueType ones (by stem); a build hashes
# and watch polls both kinds (pnp.plan.digest), so an .otf added or changed is noticed too.
FONT_SUFFIXES = (".ttf", ".otf")
MAX_FONT_BYTES = 64 << 20  # the largest TrueType fonts (CJK) are ~20 MB
GLYPH_OUTLINE: dict[str, float] = {}  # each registered font's longest glyph outline, ems (pnp.render.pixels)
SUBSET_CHECK = 32_000  # characters subset at a time when a font is checked to embed (reportlab: 32,762)


class FontError(Exception):
    """A font is missing or unusable; the message says which, ``expected``/``hint`` what to do."""

    def __init__(self, message: str, expected: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.expected = expected
        self.hint = hint


class FontBook:
    def __init__(self, dirs: tuple[Path, ...]):
        self.dirs = dirs
        self.files: dict[str, Path] = {}
        self._dir: dict[str, Path] = {}
        for d in reversed(dirs):  # earlier dirs win
            for f in sorted(d.glob("*.ttf")):
                self.files[f.stem] = f
                self._dir[f.stem] = d
        self._ready: set[str] = set()
        # Widths measured so far: one table per (font, size), text -> width in pt. Layout measures
        # the same words at the same sizes over and over; a table lookup is much cheaper than
        # reportlab's stringWidth, and text layout keeps a table at hand while it measures a text.
        self._widths: dict[tuple[str, float], dict[str, float]] = {}
        self._charsets: dict[str, frozenset[str]] = {}
        self._faces: dict[str, Any] = {}

    def names(self) -> list[str]:
        return sorted(self.files)

    def ensure(self, name: str) -> str:
        """Register the font with reportlab (once) and return its name."""
        if name in self._ready:
            return name
        path = self.files.get(name)
        if path is None:
            raise FontError(f"font {name!r} not found (looked in {', '.join(shown_path(d) for d in self.dirs)})",
                            expected="one of " + (", ".join(self.names()) or "the bundled fonts"),
                            hint=did_you_mean(name, self.names())
                            or f"put {name}.ttf into the data root's fonts/ folder, or use an available font")
        if not path.is_file():  # a folder, or a pipe that would block the read forever
            raise FontError(f"font {name!r} ({shown_path(path)}) is not a regular file", expected="a .ttf file",
                            hint="replace it with a TrueType font file")
        try:
            path.resolve().relative_to(self._dir[name].resolve())
        except ValueError:
            raise FontError(f"font {name!r} ({shown_path(path)}) is a link to a file outside its fonts folder",
                            expected="a font file inside " + str(self._dir[name]),
                            hint="copy the .ttf into the fonts folder instead of linking to it") from None
        _register(name, str(path))
        self._ready.add(name)
        return name

    def variant(self, name: str, bold: bool, italic: bool) -> str:
        """``Lato-Regular`` + bold -> ``Lato-Bold``; falls back to the font itself."""
        if not bold and not italic:
            return name
        family = name.rsplit("-", 1)[0] if "-" in name else name
        suffix = "BoldItalic" if bold and italic else "Bold" if bold else "Italic"
        cand = f"{family}-{suffix}"
        if cand in self.files:
            return cand
        if bold and italic and f"{family}-Bold" in self.files:
            return f"{family}-Bold"
        return name

    def width(self, text: str, font: str, size: float) -> float:
        table = self._widths.get((font, size))
        if table is None:
            table = self.widths(font, size)
        w = table.get(text)
        if w is None:
            w = table[text] = pdfmetrics.stringWidth(text, font, size)
        return w

    def widths(self, font: str, size: float) -> dict[str, float]:
        """The width table of ``font`` at ``size`` (text -> pt); a text not in it yet is measured
        with ``width``, which adds it."""
        table = self._widths.get((font, size))
        if table is None:
            self.ensure(font)
            table = self._widths[(font, size)] = {}
        return table

    def _face(self, font: str) -> Any:  # reportlab's TTFontFace
        face = self._faces.get(font)
        if face is None:
            face = self._faces[font] = pdfmetrics.getFont(self.ensure(font)).face
        return face

    def ascent(self, font: str, size: float) -> float:
        return self._face(font).ascent * size / 1000.0

    def descent(self, font: str, size: float) -> float:
        return -self._face(font).descent * size / 1000.0  # positive number

    def cap_height(self, font: str, size: float) -> float:
        face = self._face(font)
        return getattr(face, "capHeight", face.ascent * 0.7) * size / 1000.0

    def charset(self, font: str) -> frozenset[str]:
        """The characters ``font`` has glyphs for."""
        have = self._charsets.get(font)
        if have is None:
            have = self._charsets[font] = frozenset(map(chr, pdfmetrics.getFont(self.ensure(font)).face.charWidths))
        return have

    def missing(self, font: str, text: str) -> set[str]:
        """Characters of ``text`` (other than spaces) that ``font`` has no glyph for."""
        have = self.charset(font)
        out = set(text)
        out -= have
        return {ch for ch in out if not ch.isspace()} if out else out

    def has_glyph(self, font: str, ch: str) -> bool:
        f = pdfmetrics.getFont(self.ensure(font))
        return ord(ch) in f.face.charWidths


@cache
def _bundled_fonts() -> Path:
    from pnp.input.project import bundled_root

    return (bundled_root() / "fonts").resolve()


@cache
def _register(name: str, path: str) -> None:
    try:
        # reportlab trusts the font's counts (a damaged one can make it allocate gigabytes): the
        # structure is checked first, reading headers only
        GLYPH_OUTLINE[name] = check_font(read_regular(path, MAX_FONT_BYTES))[1]
    except FontUnsupported as exc:
        raise FontError(f"font {name!r} ({shown_path(path)}) cannot be used: {exc}",
                        expected="a TrueType font with a Unicode character map",
                        hint="save the font again without its legacy character maps (a font editor, or "
                        "fontTools' pyftsubset), or use another font") from None
    except FontDamage as exc:
        raise FontError(f"font {name!r} ({shown_path(path)}) is damaged: {exc}", expected="an intact .ttf file",
                        hint="replace the file (a fresh download or another copy)") from None
    except OSError as exc:
        raise FontError(f"font {name!r} ({shown_path(path)}) cannot be read: {exc.strerror or exc}",
                        expected="a readable .ttf file", hint="replace or remove the file") from None
    try:
        with interrupts_held():  # reportlab's parser (a bare except:) reads a Ctrl-C as a damaged font
            font = TTFont(name, path)
        if not Path(path).resolve().is_relative_to(_bundled_fonts()):
            # A damaged font can load and still fail when the PDF embeds its subset (a glyph
            # pointing past the last one: IndexError in reportlab at save, after `check` passed).
            # Subsetting every character it maps now (~15 ms for Lato) makes that a FontError
            # here; pnp's own fonts are known good.
            try:
                with interrupts_held():
                    # in parts: reportlab's subset holds at most 32,762 characters ("'H' format
                    # requires 0 <= number <= 65535" for a font mapping 66,000: attack 25, F1), and
                    # the PDF embeds subsets of 256
                    mapped = sorted(font.face.charToGlyph)
                    for start in range(0, len(mapped), SUBSET_CHECK):
                        font.face.makeSubset(mapped[start:start + SUBSET_CHECK])
            except Exception as exc:
                raise FontError(f"font {name!r} ({shown_path(path)}) is damaged: it cannot be embedded in a PDF "
                                f"({type(exc).__name__}: {exc})", expected="an intact .ttf file",
                                hint="replace the file (a fresh download or another copy)") from None
        face = font.face
        heights = (face.ascent, face.descent, getattr(face, "capHeight", face.ascent))
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in heights) or face.ascent <= 0 \
                or face.ascent - face.descent <= 0:
            # a line's height is ascent + descent: 0 divided the baseline's place by zero (attack 7)
            raise FontError(f"font {name!r} ({shown_path(path)}) is damaged: its ascent and descent ({face.ascent:g} "
                            f"and {face.descent:g} thousandths of the size) leave a line no height",
                            expected="an intact .ttf file (its OS/2 and hhea tables)",
                            hint="replace the file (a fresh download or another copy)")
        pdfmetrics.registerFont(font)
    except FontError:
        raise
    except TTFError as exc:
        with open(path, "rb") as f:  # the CFF advice only for a CFF font (attack 17 borderline)
            cff = f.read(4) == b"OTTO"
        raise FontError(f"font {name!r} ({shown_path(path)}) is not a usable TrueType font: {exc}",
                        expected="a .ttf with TrueType outlines",
                        hint="CFF (PostScript-outline) .otf fonts cannot be embedded: use the font's .ttf" if cff
                        else "replace the file (a fresh download or another copy)") from None
    except AttributeError as exc:
        if "MissingTTFName" not in str(exc):
            raise FontError(f"font {name!r} ({shown_path(path)}) cannot be read: {exc}",
                            expected="a readable .ttf file", hint="replace or remove the file") from None
        # reportlab, finding no PostScript name, asks for a setting it does not have (attack 14, F6)
        raise FontError(f"font {name!r} ({shown_path(path)}) is damaged: its 'name' table gives no PostScript "
                        "name (name ID 6), which a PDF names the embedded font by", expected="an intact .ttf file",
                        hint="replace the file (a fresh download or another copy)") from None
    except ZeroDivisionError:  # a scale of 0 in its tables (units per em: attack 8)
        raise FontError(f"font {name!r} ({shown_path(path)}) is damaged: a scale in its tables (such as its units "
                        "per em) is 0", expected="an intact .ttf file",
                        hint="replace the file (a fresh download or another copy)") from None
    except Exception as exc:
        raise FontError(f"font {name!r} ({shown_path(path)}) cannot be read: {exc}", expected="a readable .ttf file",
                        hint="replace or remove the file") from None


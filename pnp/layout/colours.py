"""Colour difference: CIEDE2000 (ΔE00) between two sRGB colours, for telling apart the colours
that meet on the table (player colours, deck and artifact colours; issue 23).

The formula is Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference Formula: Implementation
Notes, Supplementary Test Data, and Mathematical Observations" (2005), with kL = kC = kH = 1;
sRGB to CIELAB through linear RGB and XYZ with the D65 white (IEC 61966-2-1). tests/layout/
test_colours.py checks it against the paper's test pairs. ``pnp.qa.softproof`` models a colour
printed in CMYK (an ICC round trip) for the same comparisons after printing."""

from __future__ import annotations

import math

_WHITE = (0.95047, 1.0, 1.08883)  # D65, Y = 1


# Machado et al. 2009, severity 1.0: linear RGB -> linear RGB as the dichromat sees it
CVD: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def hex_rgb(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' (an alpha suffix is ignored) -> r, g, b in 0..1."""
    h = colour.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def _linear(colour: str) -> list[float]:
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in hex_rgb(colour)]


def simulate(colour: str, kind: str) -> str:
    """The sRGB '#rrggbb' a dichromat of ``kind`` (a key of ``CVD``) sees for ``colour``."""
    lin = _linear(colour)
    out = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, lin, strict=True)))) for row in CVD[kind]]
    enc = [12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055 for v in out]
    return "#" + "".join(f"{round(v * 255):02x}" for v in enc)


def srgb_lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB '#rrggbb'."""
    lin = _linear(colour)
    r, g, b = lin
    xyz = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
           0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
           0.0193339 * r + 0.1191920 * g + 0.9503041 * b)
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
         for t in (v / w for v, w in zip(xyz, _WHITE, strict=True))]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """ΔE00 between two CIELAB colours."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dlp = l2 - l1
    dcp = c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    d_hp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lbp = (l1 + l2) / 2
    cbp = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hbp = (h1p + h2p + 360) / 2
    else:
        hbp = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    d_theta = 30 * math.exp(-(((hbp - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbp - 50) ** 2 / math.sqrt(20 + (lbp - 50) ** 2)
    sc = 1 + 0.045 * cbp
    sh = 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (d_hp / sh) ** 2 + rt * (dcp / sc) * (d_hp / sh))


def delta_e(colour1: str, colour2: str) -> float:
    """ΔE00 between two sRGB '#rrggbb' colours."""
    return ciede2000(srgb_lab(colour1), srgb_lab(colour2))


def delta_e_cvd(colour1: str, colour2: str) -> float:
    """The smallest ΔE00 between two colours as protanopes, deuteranopes and tritanopes see them."""
    return min(delta_e(simulate(colour1, k), simulate(colour2, k)) for k in CVD)

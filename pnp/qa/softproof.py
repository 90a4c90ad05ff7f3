"""A soft proof: what a colour looks like printed in CMYK, as an ICC profile says (issue 23)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageCms

from pnp.layout.colours import hex_rgb
from pnp.render.ink import PROFILE


class SoftProof:
    """A soft proof (issue 23): what a colour looks like printed on a CMYK press or inkjet, as far as
    an ICC profile says: sRGB -> CMYK through the output profile (relative colorimetric with
    black-point compensation, the transform ``pnp build --color cmyk`` uses) and back to sRGB
    (relative colorimetric). The default profile is the engine's FOGRA39L (ISO coated offset; the
    coated-paper gamut a good inkjet also reaches). Nothing is printed: this is a model of the print."""

    def __init__(self, profile: Path | None = None):
        self.profile = profile or PROFILE
        srgb = ImageCms.createProfile("sRGB")
        out = ImageCms.ImageCmsProfile(str(self.profile))
        self._to = ImageCms.buildTransform(srgb, out, "RGB", "CMYK",
                                           renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                           flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
        self._back = ImageCms.buildTransform(out, srgb, "CMYK", "RGB",
                                             renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
        self._seen: dict[str, str] = {}

    def __call__(self, colour: str) -> str:
        """The sRGB '#rrggbb' that ``colour`` comes back as after the round trip through CMYK."""
        hit = self._seen.get(colour)
        if hit is None:
            px = Image.new("RGB", (1, 1), tuple(round(v * 255) for v in hex_rgb(colour)))
            cmyk = ImageCms.applyTransform(px, self._to)
            rgb = ImageCms.applyTransform(cmyk, self._back).getpixel((0, 0))  # type: ignore[union-attr]
            hit = self._seen[colour] = "#" + "".join(f"{v:02x}" for v in rgb)
        return hit

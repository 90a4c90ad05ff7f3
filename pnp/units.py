"""Units: the conversions every stage shares (templates and options are in mm, PDF in points)."""

MM_PER_INCH = 25.4
MM = 72 / MM_PER_INCH  # points per millimetre
INCH = MM_PER_INCH * MM  # points per inch (72, give or take the last bit)


def to_micrometre(mm: float) -> float:
    """A length in mm as pnp reads one (options, printer profiles): to the micrometre, -0 as 0
    (``--bleed 1e-320`` was echoed as "bleed 9.99989e-321 mm")."""
    return round(mm, 3) + 0.0

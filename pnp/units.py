"""Units: the one conversion every stage shares (templates and options are in mm, PDF in points)."""

MM = 72 / 25.4  # points per millimetre

"""Units: the conversions every stage shares (templates and options are in mm, PDF in points)."""

MM_PER_INCH = 25.4
MM = 72 / MM_PER_INCH  # points per millimetre
INCH = MM_PER_INCH * MM  # points per inch (72, give or take the last bit)

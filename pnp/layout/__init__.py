"""layout: (template, item) -> a PieceLayout of primitives in points; text fitting, shapes, icons,
fonts and the ink-saver recolouring. Pure: no canvas."""

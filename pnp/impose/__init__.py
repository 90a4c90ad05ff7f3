"""impose: (piece count, piece size, sheet options) -> pages of slots, cut lines and marks, then
labels and scale marks; grids, honeycombs, gutterfold, tiles, print-shop pages. Pure."""

"""plan: a game and the build options -> one plan per component (templates checked, backs laid out,
fronts laid out lazily, sheet and grid chosen) and the digests of what it is made from."""

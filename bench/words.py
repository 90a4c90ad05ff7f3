"""The synthetic deck's words: what both sides of a benchmark need to write the same cards.
No imports, so the floor script pays for nothing it does not use."""

WORDS = ["golem", "stone", "rune", "mana", "tower", "clay", "iron", "forest", "water", "battle",
         "spell", "craft", "power", "shield", "armor", "force", "hits", "move", "wizard", "chit",
         "deck", "card", "event", "quarry", "village", "gem", "gold", "silver"]


def paragraph(i: int, n: int) -> str:
    """n words, different for every i (a linear congruential walk through WORDS seeded by i), so
    no two cards share a paragraph and no layout cache can reuse one."""
    x = (i * 2654435761 + 12345) % 2**32
    words = []
    for _ in range(n):
        x = (1103515245 * x + 12345) % 2**31
        words.append(WORDS[(x >> 16) % len(WORDS)])
    return " ".join(words).capitalize() + "."

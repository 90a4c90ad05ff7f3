"""CIEDE2000 against the published test data, and sRGB -> CIELAB against known values."""

from __future__ import annotations

import pytest

from pnp.layout.colours import CVD, ciede2000, delta_e, delta_e_cvd, simulate, srgb_lab

# Sharma, Wu and Dalal (2005), table 1: pairs 1, 7, 17, 19, 25, 34 (L, a, b; L, a, b; ΔE00)
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("lab1", "lab2", "want"), SHARMA)
def test_ciede2000_matches_the_published_test_pairs(lab1, lab2, want) -> None:
    assert ciede2000(lab1, lab2) == pytest.approx(want, abs=5e-5)
    assert ciede2000(lab2, lab1) == pytest.approx(want, abs=5e-5)


def test_srgb_to_lab() -> None:
    assert srgb_lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert srgb_lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.02)
    assert srgb_lab("#000000") == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    assert delta_e("#123456", "#123456") == 0.0


def test_simulated_dichromats_keep_greys_and_lose_red_against_green() -> None:
    for kind in CVD:
        for grey in ("#000000", "#808080", "#ffffff"):
            assert simulate(grey, kind) == grey  # each matrix row sums to 1
    assert delta_e("#d62728", "#2ca02c") > 60  # red and green, as most people see them
    assert delta_e(simulate("#d62728", "deutan"), simulate("#2ca02c", "deutan")) < 15
    assert delta_e_cvd("#d62728", "#2ca02c") < 15
    assert delta_e_cvd("#0072b2", "#e69f00") > 40  # Okabe-Ito blue and orange stay apart

"""The bounds paper 004's theorem checks hold E[W] against: the Cramer rate function against its
definition (a supremum over Theta, found here by search), beta' against its equation, and the
bounds' limiting cases."""

from __future__ import annotations

import math

import pytest

from airtcp.papers.paper004 import theorems


def _rate_by_search(a: float, p1: float, low_share: float) -> float:
    """sup over Theta of Theta a - log E[exp(Theta (1 - P))], P = p1 w.p. low_share else 1, by a
    golden-section search (the function is concave in Theta)."""

    def f(theta: float) -> float:
        return theta * a - math.log(low_share * math.exp(theta * (1 - p1)) + 1 - low_share)

    low, high = -200.0, 200.0
    for _ in range(300):
        m1, m2 = low + (high - low) * 0.382, low + (high - low) * 0.618
        low, high = (m1, high) if f(m1) < f(m2) else (low, m2)
    return f((low + high) / 2)


@pytest.mark.parametrize("p1,low_share", [(0.1, 0.1), (0.3, 0.1), (0.5, 0.25), (0.9, 0.25)])
@pytest.mark.parametrize("fraction", [0.0, 0.05, 0.2, 0.5, 0.8, 0.99])
def test_the_rate_function_is_the_supremum_of_its_definition(p1: float, low_share: float, fraction: float) -> None:
    mean = low_share * (1 - p1)
    a = mean + fraction * (1 - p1 - mean)
    assert theorems._rate(a, p1, low_share) == pytest.approx(_rate_by_search(a, p1, low_share), abs=1e-6)


@pytest.mark.parametrize("m", [2, 4, 8, 16])
@pytest.mark.parametrize("p1", [0.1, 0.3, 0.5])
def test_beta_prime_solves_its_equation_inside_its_interval(m: int, p1: float) -> None:
    beta = theorems.beta_prime(m, 150, p1, 0.1)
    # At beta' = p_1 MC the right side is 0.1^M (l' = -log 0.1 at 1 - p_1): a root exists only
    # if that is below 1 / (p_1 MC) ("for M, C large enough").
    if 0.1**m >= 1 / (p1 * m * 150):
        assert beta is None
        return
    assert beta is not None
    mean_p = 0.1 * p1 + 0.9
    assert p1 * m * 150 <= beta <= mean_p * m * 150
    rhs = math.exp(-m * theorems._rate(1 - beta / (m * 150), p1, 0.1))
    assert 1 / beta == pytest.approx(rhs, rel=1e-9)


def test_with_one_path_no_beta_prime_exists_and_theorem_2_is_theorem_1s_form() -> None:
    # exp(-l'(1 - p1)) = 0.1 > 1 / beta' for every beta' >= p1 C = 15: no root.
    assert theorems.beta_prime(1, 150, 0.1, 0.1) is None
    assert theorems.theorem2_bound(1, 150, 0.1, 0.1) == pytest.approx(0.75 * 0.1 * 150 - 1)


def test_theorem_2s_bound_grows_towards_e_p_per_path_with_more_paths() -> None:
    per_path = [theorems.theorem2_bound(m, 150, 0.1, 0.1) / (m * 150) for m in (2, 4, 8, 32, 128)]
    assert all(b >= a - 1e-12 for a, b in zip(per_path, per_path[1:]))
    # The limit: 0.75 E[P] (1 - 2/e), the min's first term.
    assert per_path[-1] <= 0.75 * 0.91 * (1 - 2 / math.e) + 1e-12
    assert per_path[-1] > 0.9 * 0.75 * 0.91 * (1 - 2 / math.e)


def test_theorem_3s_bound_is_the_harmonic_mean_share_of_c() -> None:
    c = 1000.0
    harmonic = 1 / (0.25 / 0.5 + 0.75)
    expected = harmonic * (c - math.log(c / 2) - 1) * (1 - 2 / math.e)
    assert theorems.theorem3_bound(c, 0.5, 0.25) == pytest.approx(expected)
    assert theorems.theorem3_bound(c, 1.0, 0.25) > theorems.theorem3_bound(c, 0.5, 0.25)

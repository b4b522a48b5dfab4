"""Claims about the losses of lpboosting.losses, each taken from a paper.

Proper losses: Mansour, Nock, Williamson, *What killed the convex booster?*
(papers/002): eqs. (1)-(9), (14), (32)-(34), Lemma 1, Table A5, LOSS (18).
Margin losses: Krause & Singer, *Leveraging the margin more carefully*
(papers/000), Secs. 2-4.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting.losses import (
    MARGIN_LOSSES,
    PROPER_LOSSES,
    AsymmetricLoss,
    LogisticDifferenceLoss,
    LogisticMixtureLoss,
    MatusitaLoss,
    ProperLoss,
    UnknownLossError,
    eps_from_mu,
    get_margin_loss,
    get_proper_loss,
    mu_from_eps,
)

NAMES = sorted(PROPER_LOSSES)
U_GRID = np.linspace(0.0, 1.0, 20001)
FAST = settings(max_examples=40, deadline=None, database=None)


@pytest.fixture(params=NAMES)
def loss(request) -> ProperLoss:
    return get_proper_loss(request.param)


# -- properness (eqs. 2-3) ----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(v=st.floats(0.0, 1.0))
def test_conditional_risk_is_minimised_at_the_true_posterior(name, v):
    """Proper: L(v, v) = min_u L(u, v) (eq. 2 and the definition after it)."""
    loss = get_proper_loss(name)
    risks = loss.conditional_risk(U_GRID, v)
    at_v = float(loss.conditional_risk(v, v))
    assert np.isfinite(at_v)
    assert at_v <= np.nanmin(risks) + 1e-12 * max(1.0, abs(at_v))


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(v=st.floats(0.0, 1.0), u=st.floats(0.0, 1.0))
def test_strictly_proper(name, v, u):
    """Strictly proper: u = v is the only minimiser (SPD assumption)."""
    loss = get_proper_loss(name)
    if abs(u - v) < 1e-3:
        return
    assert loss.conditional_risk(u, v) > loss.conditional_risk(v, v)


def test_bayes_risk_is_the_conditional_risk_at_the_posterior(loss):
    """Eq. (3): L_(v) = v l_1(v) + (1-v) l_{-1}(v) = inf_u L(u, v); the table's closed forms agree."""
    v = np.linspace(0.0, 1.0, 201)
    np.testing.assert_allclose(loss.bayes_risk(v), loss.conditional_risk(v, v), atol=1e-12)
    grid_min = np.array([np.nanmin(loss.conditional_risk(U_GRID, vv)) for vv in v[::10]])
    np.testing.assert_allclose(loss.bayes_risk(v[::10]), grid_min, atol=1e-6)


def test_losses_are_fair(loss):
    """The four losses of Table A5 are fair: l_1(1) = l_{-1}(0) = L_(0) = L_(1) = 0."""
    assert loss.l1(1.0) == pytest.approx(0.0, abs=1e-14)
    assert loss.lm1(0.0) == pytest.approx(0.0, abs=1e-14)
    assert loss.bayes_risk(0.0) == pytest.approx(0.0, abs=1e-14)
    assert loss.bayes_risk(1.0) == pytest.approx(0.0, abs=1e-14)


def test_symmetry_flag(loss):
    """Symmetric: l_1(u) = l_{-1}(1 - u); only 'Asymmetric 1' is not (Fig. 6)."""
    u = np.linspace(0.01, 0.99, 99)
    assert np.allclose(loss.l1(u), loss.lm1(1 - u)) == loss.symmetric
    assert (loss.name != "asymmetric") == loss.symmetric


# -- link and inverse link (eqs. 5, 34) -------------------------------------------


def test_link_is_minus_the_derivative_of_the_bayes_risk(loss):
    """-L_'(u) by central differences, and eq. (34): L_' = l_1 - l_{-1}."""
    u = np.linspace(0.02, 0.98, 97)
    h = 1e-6
    fd = -(loss.bayes_risk(u + h) - loss.bayes_risk(u - h)) / (2 * h)
    np.testing.assert_allclose(loss.link(u), fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss.link(u), loss.lm1(u) - loss.l1(u), rtol=1e-12, atol=1e-12)


@FAST
@given(u=st.floats(1e-6, 1 - 1e-6))
def test_inverse_link_inverts_the_link(u):
    """eta~ = (-L_')^{-1} (eq. 5), for every loss."""
    for name in NAMES:
        loss = get_proper_loss(name)
        assert loss.inverse_link(loss.link(u)) == pytest.approx(u, abs=1e-9)


def test_inverse_link_is_a_nondecreasing_map_onto_0_1(loss):
    """Im(eta~) = [0, 1] (Sec. 3), with the saturation of ``link_range``."""
    z = np.linspace(-60, 60, 4001)
    eta = loss.inverse_link(z)
    assert np.all(np.diff(eta) >= 0)
    assert eta[0] == pytest.approx(0.0, abs=1e-3) and eta[-1] == pytest.approx(1.0, abs=1e-3)
    lo, hi = loss.link_range
    if np.isfinite(lo):
        assert loss.inverse_link(lo - 1.0) == 0.0 and loss.inverse_link(hi + 1.0) == 1.0
        assert loss.link(0.0) == pytest.approx(lo) and loss.link(1.0) == pytest.approx(hi)


def test_matusita_link_follows_its_partial_losses_not_table_A5():
    """Table A5's Matusita link (1 + z/sqrt(1+z^2))/2 is the inverse of -L_' for half the loss;
    with l_1 = sqrt((1-u)/u) (L_ = 2 sqrt(u(1-u))) it is (1 + z/sqrt(4+z^2))/2."""
    loss = MatusitaLoss()
    u = np.linspace(0.05, 0.95, 19)
    z = loss.link(u)
    table = 0.5 * (1 + z / np.sqrt(1 + z * z))
    assert not np.allclose(table, u)
    np.testing.assert_allclose(loss.inverse_link(z), u, atol=1e-12)


# -- surrogate (eqs. 7, 32, 33) and Lemma 1 ------------------------------------------


def test_surrogate_is_the_conjugate_of_minus_the_bayes_risk(loss):
    """Phi_l(z) = (-L_)^*(-z) = sup_u {-z u + L_(u)} (eqs. 7, 32), numerically on a grid."""
    z = np.linspace(-8, 8, 81)
    L = loss.bayes_risk(U_GRID)
    sup = np.array([np.max(-zz * U_GRID + L) for zz in z])
    np.testing.assert_allclose(loss.surrogate(z), sup, atol=1e-6)


def test_asymmetric_surrogate_pieces_are_at_minus_C_and_B():
    """Eq. (32) with L_'([0,1]) = [-C, B]: Phi = -z for z <= -C and 0 for z >= B
    (Table A5 prints the thresholds swapped; z = -3 lies between -C and -B)."""
    loss = AsymmetricLoss()
    assert loss.surrogate(-loss.C - 0.5) == pytest.approx(loss.C + 0.5)
    assert loss.surrogate(loss.B + 0.5) == 0.0
    z = -3.0  # -C < z < -B: the table would give -z = 3
    assert -loss.C < z < -loss.B
    L = loss.bayes_risk(U_GRID)
    assert loss.surrogate(z) == pytest.approx(np.max(-z * U_GRID + L), abs=1e-6)
    assert loss.surrogate(z) > 3.0 + 0.1


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(a=st.floats(-30, 30), b=st.floats(-30, 30), t=st.floats(0, 1))
def test_lemma1_surrogate_is_convex_and_decreasing(name, a, b, t):
    """Lemma 1: Phi_l is convex and decreasing."""
    loss = get_proper_loss(name)
    phi = loss.surrogate
    lo, hi = min(a, b), max(a, b)
    assert phi(hi) <= phi(lo) + 1e-12
    mid = t * a + (1 - t) * b
    assert phi(mid) <= t * phi(a) + (1 - t) * phi(b) + 1e-10


def test_lemma1_derivative_limits_and_value_at_zero(loss):
    """Lemma 1: Phi_l is C^1 with Phi_l' = -eta~(-z) (eq. 33), Phi_l'(0) < 0,
    Phi_l(+inf) = L_(0) and Phi_l(z) = -z + L_(1) for z -> -inf."""
    z = np.linspace(-10, 10, 2001)
    h = 1e-6
    fd = (loss.surrogate(z + h) - loss.surrogate(z - h)) / (2 * h)
    d = loss.surrogate_derivative(z)
    np.testing.assert_allclose(d, fd, atol=1e-5)
    assert np.max(np.abs(np.diff(d))) < 0.05  # continuous derivative (no jump on a 0.01 grid)
    assert np.all(d <= 0) and np.all(d >= -1)
    assert loss.surrogate_derivative(0.0) < 0
    assert loss.surrogate(1e4) == pytest.approx(float(loss.bayes_risk(0.0)), abs=1e-3)
    assert loss.surrogate(-1e4) - 1e4 == pytest.approx(float(loss.bayes_risk(1.0)), abs=1e-3)


def test_symmetric_losses_are_margin_losses(loss):
    """Eq. (8)/(9): for symmetric losses Phi_l(-H) - yH = Phi_l(y* H); not so for the asymmetric loss."""
    H = np.linspace(-5, 5, 101)
    # y = 0 (y* = -1): both forms are Phi_l(-H) by definition; y = 1 needs the symmetry
    general = loss.surrogate(-H) - H
    margin = loss.surrogate(H)
    assert np.allclose(general, margin, atol=1e-12) == loss.symmetric


def test_surrogate_risk_equals_the_proper_risk_of_the_posterior(loss):
    """Eq. (6) with fair losses: Phi_l(-h) - y h = l(y, eta~(h)) (the surrogate is a reparameterisation)."""
    H = np.linspace(-0.9, 0.9, 37)  # inside every link range
    for y in (0, 1):
        lhs = loss.surrogate(-H) - y * H
        rhs = loss.partial_loss(np.full_like(H, y), loss.inverse_link(H))
        np.testing.assert_allclose(lhs, rhs, atol=1e-10)


@FAST
@given(H=st.floats(-50, 50), y=st.sampled_from([0, 1]))
def test_modaboost_weight_is_in_0_1(H, y):
    """Eq. (14): w = y - y* eta~(H) in [0, 1], and it is minus Phi's derivative along y* (proof of Lemma J)."""
    for name in NAMES:
        loss = get_proper_loss(name)
        w = float(loss.weight(y, H))
        assert 0.0 <= w <= 1.0
        assert w == pytest.approx(y - (2 * y - 1) * float(loss.inverse_link(H)), abs=1e-12)


def test_kappa_is_the_infimum_of_the_loss_weight(loss):
    """LOSS (18): kappa = inf (l_{-1}' - l_1') = inf (-L_)'' (Theorem B)."""
    h = 1e-5
    u = np.linspace(2 * h, 1 - 2 * h, 20001)
    second = -(loss.bayes_risk(u + h) - 2 * loss.bayes_risk(u) + loss.bayes_risk(u - h)) / h ** 2
    assert np.min(second) == pytest.approx(loss.kappa, rel=1e-3)


def test_posterior_threshold():
    """eta~(0) = 1/2 for symmetric losses; p* ~ 0.573 for the asymmetric loss (w(0) of Lemma 8)."""
    for name in NAMES:
        loss = get_proper_loss(name)
        p = loss.posterior_threshold()
        assert (p == pytest.approx(0.5)) == loss.symmetric
    assert AsymmetricLoss().posterior_threshold() == pytest.approx(0.5732, abs=1e-4)


def test_proper_registry_and_errors():
    assert isinstance(get_proper_loss("LOG"), type(get_proper_loss("logistic")))
    inst = AsymmetricLoss()
    assert get_proper_loss(inst) is inst
    with pytest.raises(UnknownLossError, match="use one of"):
        get_proper_loss("hinge")
    with pytest.raises(ValueError):
        get_proper_loss(3)


# -- margin losses (Krause & Singer) ---------------------------------------------------


@settings(max_examples=60, deadline=None, database=None)
@given(eps=st.floats(1e-3, 0.499), z=st.floats(-40, 40))
def test_normalised_ld_equals_normalised_lm_when_mu_matches_eps(eps, z):
    """K&S Sec. 4: with mu = ln((1-eps)/eps), LD^N(z) = LM^N(z) for every margin z."""
    mu = mu_from_eps(eps)
    lm = LogisticMixtureLoss(eps, normalized=True)
    ld = LogisticDifferenceLoss(mu, normalized=True)
    assert lm(z) == pytest.approx(ld(z), rel=1e-9, abs=1e-12)
    assert lm.derivative(z) == pytest.approx(ld.derivative(z), rel=1e-9, abs=1e-12)
    # before normalisation they differ by the constant ln(1 - eps)
    assert LogisticMixtureLoss(eps)(z) == pytest.approx(LogisticDifferenceLoss(mu)(z) - np.log1p(-eps),
                                                        rel=1e-9, abs=1e-12)
    assert eps_from_mu(mu) == pytest.approx(eps)


def test_normalised_lm_and_ld_differ_when_mu_does_not_match():
    eps = 0.1
    z = np.linspace(-5, 5, 11)
    lm = LogisticMixtureLoss(eps, normalized=True)(z)
    ld = LogisticDifferenceLoss(mu_from_eps(eps) + 1.0, normalized=True)(z)
    assert not np.allclose(lm, ld)


@settings(max_examples=40, deadline=None, database=None)
@given(eps=st.floats(1e-3, 0.45))
def test_normalised_losses_bound_the_01_loss(eps):
    """K&S Sec. 4: the normalised loss is 1 at z = 0, tends to 0 as z -> inf, bounds the 0-1 loss
    and is bounded above by M = ln((1-eps)/eps) / (ln 2 + ln(1-eps))."""
    loss = get_margin_loss("lm", eps=eps, normalized=True)
    z = np.linspace(-60, 60, 2401)
    v = loss(z)
    assert loss(0.0) == pytest.approx(1.0)
    assert loss(200.0) == pytest.approx(0.0, abs=1e-12)
    assert np.all(v >= (z <= 0) - 1e-12)
    M = np.log((1 - eps) / eps) / (np.log(2) + np.log1p(-eps))
    assert np.all(v <= M + 1e-9)
    assert loss(-200.0) == pytest.approx(M, rel=1e-9)
    assert np.all(np.diff(v) <= 1e-12)  # non-increasing in the margin


def test_margin_loss_derivatives_and_limits():
    z = np.linspace(-20, 20, 401)
    h = 1e-6
    for loss in (LogisticMixtureLoss(0.2), LogisticMixtureLoss(0.2, True), LogisticDifferenceLoss(3.0),
                 LogisticDifferenceLoss(3.0, True), LogisticMixtureLoss(0.0)):
        fd = (loss(z + h) - loss(z - h)) / (2 * h)
        np.testing.assert_allclose(loss.derivative(z), fd, atol=1e-6)
    # eps = 0 is the logistic loss; LD is bounded by mu (K&S Sec. 3)
    np.testing.assert_allclose(LogisticMixtureLoss(0.0)(z), np.log1p(np.exp(-z)), rtol=1e-12)
    assert np.all(LogisticDifferenceLoss(3.0)(z) <= 3.0 + 1e-12)
    # finite for extreme margins (no overflow)
    assert np.all(np.isfinite(LogisticMixtureLoss(0.1)(np.array([-1e4, 1e4]))))


def test_margin_registry_and_errors():
    assert sorted(MARGIN_LOSSES) == ["ld", "lm"]
    assert isinstance(get_margin_loss("logistic_difference", mu=2.0), LogisticDifferenceLoss)
    assert get_margin_loss("LM", eps=0.3).eps == 0.3
    with pytest.raises(UnknownLossError, match="unknown margin loss"):
        get_margin_loss("savage")
    with pytest.raises(ValueError, match="eps must be"):
        LogisticMixtureLoss(0.5)
    with pytest.raises(ValueError, match="mu must be"):
        LogisticDifferenceLoss(0.0)

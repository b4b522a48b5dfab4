"""Losses for leveraging boosters: proper (CPE) losses and bounded margin losses.

Proper losses for class probability estimation
----------------------------------------------
Mansour, Nock, Williamson, *What killed the convex booster?* (papers/002),
Sec. 2-3 and Table A5.  Labels are ``y`` in {0, 1} (the paper's "binary"
encoding) and ``y* = 2y - 1`` in {-1, +1}.  A CPE loss is given by its two
*partial losses* (eq. 1)::

    l(y, u) = [y = 1] l_1(u) + [y = -1] l_{-1}(u),        u in [0, 1],

its pointwise conditional risk (eq. 2) and Bayes risk (eq. 3)::

    L(u, v) = v l_1(u) + (1 - v) l_{-1}(u),     L_(v) = inf_u L(u, v) = L(v, v)  (proper),

the canonical link ``-L_'`` and its inverse (eq. 5), which maps a real
prediction H to a posterior estimate::

    eta~(z) = (-L_')^{-1}(z),     -L_'(u) = l_{-1}(u) - l_1(u)   (eq. 34),

and the *surrogate* (eq. 7, the convex conjugate form of eq. 32)::

    Phi_l(z) = (-L_)^*(-z) = sup_{u in [0,1]} { -z u + L_(u) }.

The surrogate risk that MODABOOST decreases is (eq. 9, general form)::

    Phi(H, S) = E_i [ Phi_l(-H(x_i)) - y_i H(x_i) ],

and the MODABOOST weight of an example is (eq. 14)::

    w((x, y), H) = y - y* eta~(H(x))  in [0, 1].

Lemma 1: for every strictly proper differentiable (SPD) loss, ``Phi_l`` is
C^1, convex, decreasing, ``Phi_l'(0) < 0`` and ``Phi_l(+inf) = L_(0)``.

Two entries of Table A5 are not consistent with their own partial losses
and are implemented here from the definitions (eqs. 3, 5, 7) instead:

* **Matusita**: with ``l_1(u) = sqrt((1-u)/u)`` the Bayes risk is
  ``2 sqrt(u(1-u))`` (as the table says), whose inverse link is
  ``(1 + z / sqrt(4 + z^2)) / 2`` and surrogate ``(-z + sqrt(4 + z^2)) / 2``;
  the table's ``z / sqrt(1 + z^2)`` and ``(-z + sqrt(1 + z^2)) / 2`` belong to
  half that loss (Bayes risk ``sqrt(u(1-u))``).
* **Asymmetric 1**: the table's surrogate has its two thresholds swapped;
  from eq. (32), ``Phi_l(z) = -z`` for ``z <= -C`` and ``0`` for ``z >= B``
  (``L_'([0,1]) = [-C, B]``), the middle formula holding on ``[-C, B]``.

The tests check every loss against the definitions (properness on a grid,
the link inverts ``-L_'``, the surrogate equals the conjugate sup), so these
statements are verified, not assumed.

Bounded margin losses
---------------------
Krause & Singer, *Leveraging the margin more carefully* (ICML 2004,
papers/000), Secs. 2-4, for a margin ``z = y* f(x)``:

* logistic mixture (LM, label-noise rate ``eps``), the per-example negative
  log-likelihood of Sec. 2.1::

      LM(z) = -ln( (1 - eps) / (1 + e^{-z}) + eps / (1 + e^{z}) )

* logistic difference (LD, shift ``mu > 0``), Sec. 3::

      LD(z) = ln(1 + e^{-z}) - ln(1 + e^{-z-mu})

* normalised forms (Sec. 4), equal to 1 at z = 0, tending to 0 as z -> +inf
  and bounding the 0-1 loss from above::

      LM^N(z) = (LM(z) + ln(1 - eps)) / (ln 2 + ln(1 - eps))
      LD^N(z) = LD(z) / (ln 2 - ln(1 + e^{-mu}))

  With ``mu = ln((1 - eps) / eps)`` the two normalised losses coincide
  (``LM = LD - ln(1 - eps)`` before normalisation).

Everything is vectorised over numpy arrays.  Registries:
:func:`get_proper_loss` / :data:`PROPER_LOSSES` and
:func:`get_margin_loss` / :data:`MARGIN_LOSSES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import expit, logit

from lpboosting.errors import LPBoostingError

__all__ = [
    "MARGIN_LOSSES",
    "PROPER_LOSSES",
    "AsymmetricLoss",
    "LogLoss",
    "LogisticDifferenceLoss",
    "LogisticMixtureLoss",
    "MarginLoss",
    "MatusitaLoss",
    "ProperLoss",
    "SquareLoss",
    "UnknownLossError",
    "eps_from_mu",
    "get_margin_loss",
    "get_proper_loss",
    "mu_from_eps",
]


class UnknownLossError(LPBoostingError, ValueError):
    """A loss name that the registry does not know."""


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=float)


# ---------------------------------------------------------------------------
# Proper losses
# ---------------------------------------------------------------------------


class ProperLoss:
    """A strictly proper, differentiable (SPD) loss for class probability estimation.

    Subclasses give the partial losses ``l1`` (``l_1``), ``lm1`` (``l_{-1}``),
    the Bayes risk ``bayes_risk`` (``L_``), the canonical link ``link``
    (``-L_'``), its inverse ``inverse_link`` (``eta~``) and the surrogate
    ``surrogate`` (``Phi_l``); everything else is derived from them.

    Attributes
    ----------
    name : str
        Registry name.
    symmetric : bool
        ``l_1(u) = l_{-1}(1 - u)`` for all u (then eq. 8 gives a margin loss).
    kappa : float
        ``inf_u (l_{-1}' - l_1')(u) = inf_u (-L_)''(u)``, the constant of the
        LOSS assumption (eq. 18) that enters Theorem 1 / Theorem B.
    link_range : (float, float)
        ``(-L_'(0), -L_'(1))``: the inverse link is 0 below and 1 above it
        (infinite for log and Matusita).
    """

    name: str = ""
    symmetric: bool = True
    kappa: float = float("nan")
    link_range: tuple[float, float] = (-np.inf, np.inf)

    # -- to be defined by subclasses -------------------------------------
    def l1(self, u: Any) -> np.ndarray:
        """Partial loss ``l_1(u)`` of predicting u on a positive example."""
        raise NotImplementedError

    def lm1(self, u: Any) -> np.ndarray:
        """Partial loss ``l_{-1}(u)`` of predicting u on a negative example."""
        raise NotImplementedError

    def bayes_risk(self, v: Any) -> np.ndarray:
        """Pointwise Bayes risk ``L_(v) = v l_1(v) + (1 - v) l_{-1}(v)`` (eq. 3)."""
        v = _arr(v)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = v * self.l1(v) + (1.0 - v) * self.lm1(v)
        # 0 * inf at the ends: the limit is the finite partial loss
        out = np.where(v == 0.0, self.lm1(np.zeros_like(v)), out)
        return np.where(v == 1.0, self.l1(np.ones_like(v)), out)

    def link(self, u: Any) -> np.ndarray:
        """Canonical link ``-L_'(u) = l_{-1}(u) - l_1(u)`` (eq. 34)."""
        raise NotImplementedError

    def inverse_link(self, z: Any) -> np.ndarray:
        """Inverse link ``eta~(z) = (-L_')^{-1}(z)`` in [0, 1] (eq. 5): the posterior of H = z."""
        raise NotImplementedError

    def surrogate(self, z: Any) -> np.ndarray:
        """Surrogate ``Phi_l(z) = (-L_)^*(-z) = sup_u {-z u + L_(u)}`` (eqs. 7, 32)."""
        z = _arr(z)
        u = self.inverse_link(-z)
        return -z * u + self.bayes_risk(u)

    # -- derived quantities ---------------------------------------------
    def partial_loss(self, y: Any, u: Any) -> np.ndarray:
        """``l(y, u)`` of eq. (1); y in {0, 1} or {-1, +1} (1 is the positive class)."""
        y = _arr(y)
        return np.where(y == 1, self.l1(u), self.lm1(u))

    def conditional_risk(self, u: Any, v: Any) -> np.ndarray:
        """``L(u, v) = v l_1(u) + (1 - v) l_{-1}(u)`` (eq. 2): risk of guess u when P(Y=1) = v."""
        u, v = _arr(u), _arr(v)
        with np.errstate(invalid="ignore"):
            a = np.where(v == 0.0, 0.0, v * self.l1(u))
            b = np.where(v == 1.0, 0.0, (1.0 - v) * self.lm1(u))
        return a + b

    def surrogate_derivative(self, z: Any) -> np.ndarray:
        """``Phi_l'(z) = -eta~(-z)`` (eq. 33), in [-1, 0]."""
        return -self.inverse_link(-_arr(z))

    def weight(self, y01: Any, H: Any) -> np.ndarray:
        """MODABOOST weight ``w((x, y), H) = y - y* eta~(H(x))`` (eq. 14), y in {0, 1}."""
        y01 = _arr(y01)
        eta = self.inverse_link(H)
        return np.where(y01 == 1, 1.0 - eta, eta)

    def surrogate_risk(self, y01: Any, H: Any) -> float:
        """``Phi(H, S) = E_i[Phi_l(-H(x_i)) - y_i H(x_i)]`` (eq. 9, general form), y in {0, 1}.

        For fair losses (``L_(0) = L_(1) = 0``, all losses here) this is the
        proper risk ``E_i l(y_i, eta~(H(x_i)))`` of eq. (4) (eq. 6).
        """
        H = _arr(H)
        return float(np.mean(self.surrogate(-H) - _arr(y01) * H))

    def posterior_threshold(self) -> float:
        """``p* = eta~(0)``: sign(H) > 0 iff the posterior exceeds p* (1/2 for symmetric losses)."""
        return float(self.inverse_link(0.0))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class LogLoss(ProperLoss):
    """Log loss: ``l_1(u) = -ln u``, ``L_(u) = -u ln u - (1-u) ln(1-u)``,
    ``eta~(z) = 1 / (1 + e^{-z})``, ``Phi_l(z) = ln(1 + e^{-z})`` (Table A5)."""

    name = "log"
    symmetric = True
    kappa = 4.0  # 1 / (u(1-u)) >= 4

    def l1(self, u):
        with np.errstate(divide="ignore"):
            return -np.log(_arr(u))

    def lm1(self, u):
        with np.errstate(divide="ignore"):
            return -np.log1p(-_arr(u))

    def bayes_risk(self, v):
        v = _arr(v)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(v > 0, -v * np.log(np.where(v > 0, v, 1.0)), 0.0)
            b = np.where(v < 1, -(1 - v) * np.log1p(-np.where(v < 1, v, 0.0)), 0.0)
        return a + b

    def link(self, u):
        with np.errstate(divide="ignore"):
            return logit(_arr(u))

    def inverse_link(self, z):
        return expit(_arr(z))

    def surrogate(self, z):
        return np.logaddexp(0.0, -_arr(z))

    def weight(self, y01, H):
        H = _arr(H)
        # 1 - sigmoid(H) = sigmoid(-H), computed without cancellation
        return np.where(_arr(y01) == 1, expit(-H), expit(H))


class SquareLoss(ProperLoss):
    """Square loss: ``l_1(u) = (1-u)^2``, ``L_(u) = u(1-u)``, ``eta~(z) = clip((1+z)/2, 0, 1)``,
    ``Phi_l(z) = -z (z < -1), (1-z)^2/4 (|z| <= 1), 0 (z > 1)`` (Table A5)."""

    name = "square"
    symmetric = True
    kappa = 2.0
    link_range = (-1.0, 1.0)

    def l1(self, u):
        return (1.0 - _arr(u)) ** 2

    def lm1(self, u):
        return _arr(u) ** 2

    def bayes_risk(self, v):
        v = _arr(v)
        return v * (1.0 - v)

    def link(self, u):
        return 2.0 * _arr(u) - 1.0

    def inverse_link(self, z):
        return np.clip((1.0 + _arr(z)) / 2.0, 0.0, 1.0)

    def surrogate(self, z):
        z = _arr(z)
        return np.where(z < -1.0, -z, np.where(z > 1.0, 0.0, (1.0 - z) ** 2 / 4.0))


class MatusitaLoss(ProperLoss):
    """Matusita loss: ``l_1(u) = sqrt((1-u)/u)``, ``L_(u) = 2 sqrt(u(1-u))``,
    ``-L_'(u) = (2u - 1) / sqrt(u(1-u))``, ``eta~(z) = (1 + z / sqrt(4 + z^2)) / 2``,
    ``Phi_l(z) = (-z + sqrt(4 + z^2)) / 2``.

    Partial losses and Bayes risk as in Table A5; link and surrogate derived
    from them (the table's ``sqrt(1 + z^2)`` forms are those of half the loss).
    """

    name = "matusita"
    symmetric = True
    kappa = 4.0  # (-L_)''(u) = 1 / (2 (u(1-u))^{3/2}) >= 4

    def l1(self, u):
        u = _arr(u)
        with np.errstate(divide="ignore"):
            return np.sqrt(1.0 - u) / np.sqrt(u)  # not sqrt((1-u)/u): no overflow for subnormal u

    def lm1(self, u):
        return self.l1(1.0 - _arr(u))

    def bayes_risk(self, v):
        v = _arr(v)
        return 2.0 * np.sqrt(np.clip(v * (1.0 - v), 0.0, None))

    def link(self, u):
        u = _arr(u)
        with np.errstate(divide="ignore"):
            return (2.0 * u - 1.0) / np.sqrt(u * (1.0 - u))

    def inverse_link(self, z):
        z = _arr(z)
        return 0.5 * (1.0 + z / np.sqrt(4.0 + z * z))

    def surrogate(self, z):
        z = _arr(z)
        # (-z + sqrt(4 + z^2)) / 2 written as 2 / (z + sqrt(4 + z^2)) for z > 0 (no cancellation)
        r = np.sqrt(4.0 + z * z)
        with np.errstate(divide="ignore"):
            return np.where(z > 0, 2.0 / (z + r), (r - z) / 2.0)


_ASYM_A = float(np.log(4.0) - 4.0 * np.arctan(2.0) + np.arctan(0.5))
_ASYM_B = float(np.pi / 2.0 + np.log(4.0))
_ASYM_C = float(2.0 * np.pi - np.log(4.0))


class AsymmetricLoss(ProperLoss):
    """"Asymmetric 1" loss of Table A5 (engineered for Sec. 6), with q(u) = 5u^2 - 8u + 4::

        l_1(u)    = ln q(u) + arctan(1/2) - arctan((5u - 4)/2)
        l_{-1}(u) = ln(q(u)/4) + 4 arctan 2 - 4 arctan((4 - 5u)/2)
        L_(u)     = ln q(u) + A u + 4 arctan 2 - ln 4 + (4 - 5u) arctan((5u - 4)/2)
        -L_'(u)   = -A + 5 arctan((5u - 4)/2),                 range [-B, C]
        eta~(z)   = 0 (z < -B),  (2/5)(2 + tan((z + A)/5)) (-B <= z <= C),  1 (z > C)
        Phi_l(z)  = -z (z <= -C),  2 ln(cos((A-B)/5) / cos((A-z)/5)) + 4 (B - z)/5 (-C <= z <= B),
                    0 (z >= B)

    with ``A = ln 4 - 4 arctan 2 + arctan(1/2)``, ``B = pi/2 + ln 4``,
    ``C = 2 pi - ln 4``.  Its weight function is ``(-L_)'' = 10 / q(u)``, so
    ``kappa = 10/4``; the posterior threshold ``p* = eta~(0) ~ 0.573``.
    (The table's surrogate has the thresholds -B / C swapped; see module doc.)
    """

    name = "asymmetric"
    symmetric = False
    kappa = 2.5
    A, B, C = _ASYM_A, _ASYM_B, _ASYM_C
    link_range = (-_ASYM_B, _ASYM_C)

    @staticmethod
    def _q(u):
        return 5.0 * u * u - 8.0 * u + 4.0

    def l1(self, u):
        u = _arr(u)
        return np.log(self._q(u)) + np.arctan(0.5) - np.arctan((5.0 * u - 4.0) / 2.0)

    def lm1(self, u):
        u = _arr(u)
        return np.log(self._q(u) / 4.0) + 4.0 * np.arctan(2.0) - 4.0 * np.arctan((4.0 - 5.0 * u) / 2.0)

    def bayes_risk(self, v):
        v = _arr(v)
        return (np.log(self._q(v)) + self.A * v + 4.0 * np.arctan(2.0) - np.log(4.0)
                + (4.0 - 5.0 * v) * np.arctan((5.0 * v - 4.0) / 2.0))

    def link(self, u):
        return -self.A + 5.0 * np.arctan((5.0 * _arr(u) - 4.0) / 2.0)

    def inverse_link(self, z):
        z = _arr(z)
        zc = np.clip(z, -self.B, self.C)  # clip first: tan is periodic
        mid = np.clip(0.4 * (2.0 + np.tan((zc + self.A) / 5.0)), 0.0, 1.0)
        return np.where(z <= -self.B, 0.0, np.where(z >= self.C, 1.0, mid))

    def surrogate(self, z):
        z = _arr(z)
        zc = np.clip(z, -self.C, self.B)
        mid = 2.0 * np.log(np.cos((self.A - self.B) / 5.0) / np.cos((self.A - zc) / 5.0)) + 4.0 * (self.B - zc) / 5.0
        return np.where(z <= -self.C, -z, np.where(z >= self.B, 0.0, mid))


PROPER_LOSSES: dict[str, type[ProperLoss]] = {
    "log": LogLoss,
    "square": SquareLoss,
    "matusita": MatusitaLoss,
    "asymmetric": AsymmetricLoss,
}
_PROPER_ALIASES = {"logistic": "log", "cross_entropy": "log", "asymmetric1": "asymmetric",
                   "asym": "asymmetric"}


def get_proper_loss(loss: str | ProperLoss) -> ProperLoss:
    """A :class:`ProperLoss` from its name (``"log"``, ``"square"``, ``"matusita"``,
    ``"asymmetric"``) or an instance (returned as is)."""
    if isinstance(loss, ProperLoss):
        return loss
    if isinstance(loss, str):
        key = _PROPER_ALIASES.get(loss.lower(), loss.lower())
        if key in PROPER_LOSSES:
            return PROPER_LOSSES[key]()
    raise UnknownLossError(
        f"unknown proper loss {loss!r}; use one of {sorted(PROPER_LOSSES)} "
        "or pass a lpboosting.losses.ProperLoss instance"
    )


# ---------------------------------------------------------------------------
# Bounded margin losses (Krause & Singer 2004)
# ---------------------------------------------------------------------------


def mu_from_eps(eps: float) -> float:
    """``mu = ln((1 - eps) / eps)``: the LD shift whose loss equals LM with noise eps (K&S Sec. 4)."""
    return float(np.log1p(-eps) - np.log(eps))


def eps_from_mu(mu: float) -> float:
    """``eps = 1 / (1 + e^mu)``, the inverse of :func:`mu_from_eps`."""
    return float(expit(-mu))


class MarginLoss:
    """A loss of the margin ``z = y* f(x)``: call it for the value, ``derivative`` for d/dz."""

    name: str = ""

    def __call__(self, z: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def derivative(self, z: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class LogisticMixtureLoss(MarginLoss):
    """Logistic mixture loss (Krause & Singer 2004, Sec. 2.1), label-noise rate ``eps``::

        LM(z)   = -ln( (1 - eps) / (1 + e^{-z}) + eps / (1 + e^{z}) )
        LM^N(z) = (LM(z) + ln(1 - eps)) / (ln 2 + ln(1 - eps))        (Sec. 4, normalized=True)

    ``eps`` in [0, 1/2) (``eps = 0`` is the logistic loss ln(1 + e^{-z})).
    Derivative: ``-sigma(-z) + sigma(-z - mu)`` with ``mu = ln((1-eps)/eps)``.
    """

    name = "lm"

    def __init__(self, eps: float = 0.1, normalized: bool = False) -> None:
        eps = float(eps)
        if not (0.0 <= eps < 0.5):
            raise ValueError(f"eps must be a noise rate in [0, 1/2), got {eps}; "
                             "the normalisation needs ln 2 + ln(1 - eps) > 0")
        self.eps = eps
        self.normalized = bool(normalized)

    def _raw(self, z: np.ndarray) -> np.ndarray:
        # -ln((1-eps) sigma(z) + eps sigma(-z)) = ln(1+e^{-z}) - ln((1-eps) + eps e^{-z})
        a = np.logaddexp(0.0, -z)
        if self.eps == 0.0:
            return a
        return a - np.logaddexp(np.log1p(-self.eps), np.log(self.eps) - z)

    def __call__(self, z: Any) -> np.ndarray:
        z = _arr(z)
        raw = self._raw(z)
        if not self.normalized:
            return raw
        return (raw + np.log1p(-self.eps)) / (np.log(2.0) + np.log1p(-self.eps))

    def derivative(self, z: Any) -> np.ndarray:
        z = _arr(z)
        d = -expit(-z)
        if self.eps > 0.0:
            d = d + expit(-z - mu_from_eps(self.eps))
        if self.normalized:
            d = d / (np.log(2.0) + np.log1p(-self.eps))
        return d

    def __repr__(self) -> str:
        return f"LogisticMixtureLoss(eps={self.eps!r}, normalized={self.normalized!r})"


class LogisticDifferenceLoss(MarginLoss):
    """Logistic difference loss (Krause & Singer 2004, Sec. 3), shift ``mu > 0``::

        LD(z)   = ln(1 + e^{-z}) - ln(1 + e^{-z-mu})
        LD^N(z) = LD(z) / (ln 2 - ln(1 + e^{-mu}))                     (Sec. 4, normalized=True)

    Derivative: ``-sigma(-z) + sigma(-z - mu)``.  LD is bounded by mu.
    """

    name = "ld"

    def __init__(self, mu: float = 4.0, normalized: bool = False) -> None:
        mu = float(mu)
        if not (mu > 0.0 and np.isfinite(mu)):
            raise ValueError(f"mu must be a positive finite shift, got {mu}")
        self.mu = mu
        self.normalized = bool(normalized)

    def __call__(self, z: Any) -> np.ndarray:
        z = _arr(z)
        raw = np.logaddexp(0.0, -z) - np.logaddexp(0.0, -z - self.mu)
        if not self.normalized:
            return raw
        return raw / (np.log(2.0) - np.logaddexp(0.0, -self.mu))

    def derivative(self, z: Any) -> np.ndarray:
        z = _arr(z)
        d = -expit(-z) + expit(-z - self.mu)
        if self.normalized:
            d = d / (np.log(2.0) - np.logaddexp(0.0, -self.mu))
        return d

    def __repr__(self) -> str:
        return f"LogisticDifferenceLoss(mu={self.mu!r}, normalized={self.normalized!r})"


MARGIN_LOSSES: dict[str, Callable[..., MarginLoss]] = {
    "lm": LogisticMixtureLoss,
    "ld": LogisticDifferenceLoss,
}
_MARGIN_ALIASES = {"logistic_mixture": "lm", "logistic_difference": "ld", "llm": "lm", "lld": "ld"}


def get_margin_loss(name: str, **params: Any) -> MarginLoss:
    """A margin loss by name: ``"lm"`` (``eps=``, ``normalized=``) or ``"ld"`` (``mu=``, ``normalized=``)."""
    key = _MARGIN_ALIASES.get(str(name).lower(), str(name).lower())
    if key not in MARGIN_LOSSES:
        raise UnknownLossError(f"unknown margin loss {name!r}; use one of {sorted(MARGIN_LOSSES)} "
                               f"(aliases {sorted(_MARGIN_ALIASES)})")
    return MARGIN_LOSSES[key](**params)

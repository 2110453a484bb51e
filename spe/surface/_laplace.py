"""Laplace approximation of the multilevel logistic model of correctness.

Each labeled item i in arm a is right with probability sigmoid(eta_i),

    eta_i = alpha + beta * x_i + sum_j Z_aj u_j + e_a,

where x_i is the logit of the classifier's confidence (alpha + beta * x is Bayesian Platt
scaling of correctness), u the ANOVA effects of ``_effects`` (a standard deviation per
group) and e_a an arm's own deviation. The latent vector v = (alpha, u, beta) and e are
Gaussian a priori, so the posterior is approximated by a Gaussian at its mode (Newton's
method on a concave objective). The arm deviations are eliminated by their Schur
complement, so every solve is of the size of v (hundreds), and arms without labels
never enter: their deviation keeps its prior. The group scales are set by maximising the
Laplace approximation of their marginal posterior, with its exact gradient (the implicit
dependence of the mode included, Rasmussen & Williams 2006, section 5.5.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, sparse, special, stats

from ._counts import ArmCounts
from ._effects import Effects

_MAX_NEWTON = 60
#: Points at which the group scales' posterior is evaluated (importance sampling).
SCALE_POINTS = 32
#: Smallest curvature of the scales' log posterior used for the proposal's spread: where the
#: labels say nothing about a scale, its t proposal spans the prior (scale 2 / sqrt(0.5) ~ 2.8
#: in log scale, with the doubled spread of :meth:`LatentLogistic.integrate_scales`).
MIN_SCALE_CURVATURE = 0.5
#: Bounds on log standard deviations while maximising the evidence.
LOG_SD_BOUNDS = (np.log(1e-3), np.log(10.0))


@dataclass(frozen=True)
class Priors:
    """Normal priors of the recalibration map (intercept alpha, slope beta) and the
    half-normal scale of every group's standard deviation (logit scale)."""

    intercept_mean: float = 0.0
    intercept_sd: float = 1.5
    slope_mean: float = 1.0
    slope_sd: float = 1.0
    scale: float = 1.0


@dataclass
class Mode:
    """The Gaussian approximation at the posterior mode, for given group scales."""

    log_sd: np.ndarray
    v: np.ndarray            # (alpha, u..., [beta])
    e: np.ndarray            # deviations of the labeled arms
    chol: np.ndarray         # lower Cholesky factor of the Schur complement (precision of v)
    W: np.ndarray            # the labels' curvature per labeled arm
    Wx: np.ndarray           # sum of curvature x logit-confidence per labeled arm
    D: np.ndarray            # W + prior precision of an arm deviation
    log_evidence: float


@dataclass
class ScalePosterior:
    """The group scales integrated out: a Gaussian approximation at each of several scale
    draws, with normalised importance ``weights`` (effective sample size ``ess``); ``best``
    is the most probable scales'."""

    best: Mode
    modes: list
    weights: np.ndarray
    log_marginal: float
    ess: float


class LatentLogistic:
    """The model for fixed counts: :meth:`mode` for given scales, :meth:`fit_scales`, :meth:`draw`."""

    def __init__(self, counts: ArmCounts, effects: Effects, priors: Priors = Priors()):
        lab = counts.n_labeled > 0
        self.n_arms = counts.n_arms
        self.labeled_arms, self.cell = np.unique(counts.cell_arm[lab], return_inverse=True)
        self.cell = self.cell.ravel()
        self.x = counts.cell_x[lab] if counts.has_confidence else np.zeros(int(lab.sum()))
        self.k = counts.n_correct[lab]
        self.n = counts.n_labeled[lab]
        self.with_slope = counts.has_confidence
        self.design = sparse.hstack([sparse.csr_matrix(np.ones((self.n_arms, 1))), effects.matrix], format="csr")
        # Effects no labeled arm touches keep their prior exactly (they add nothing to the
        # evidence or its gradient), so only the touched ones enter the solves, and the
        # others are drawn from their prior: the dense solve stays the size of what labels reach.
        touched = self.design[self.labeled_arms].getnnz(axis=0) > 0
        touched[0] = True  # the intercept
        self.solved = np.flatnonzero(touched)
        self.free = np.flatnonzero(~touched)
        self.rows = self.design[self.labeled_arms][:, self.solved].toarray()
        self.n_const = self.solved.size
        self.group = effects.group[self.solved[1:] - 1]
        self.free_group = effects.group[self.free - 1]
        self.n_groups = effects.n_groups
        self.multiplicity = np.append(effects.multiplicity, 1.0)  # the arm deviation last
        self.priors = priors

    # ---- pieces -----------------------------------------------------------------------
    def prior(self, log_sd):
        """Prior means and precisions of v, and the precision of an arm deviation."""
        sd = np.exp(np.asarray(log_sd, float))
        p = self.priors
        prec = np.concatenate([[p.intercept_sd ** -2], sd[self.group] ** -2.0])
        mean = np.concatenate([[p.intercept_mean], np.zeros(self.group.size)])
        if self.with_slope:
            prec, mean = np.append(prec, p.slope_sd ** -2), np.append(mean, p.slope_mean)
        return mean, prec, sd[-1] ** -2.0

    def _slope(self, v):
        return v[-1] if self.with_slope else 0.0

    def eta(self, v, e) -> np.ndarray:
        return (self.rows @ v[: self.n_const] + e)[self.cell] + self._slope(v) * self.x

    def objective(self, v, e, mean, prec, prec_e) -> float:
        eta = self.eta(v, e)
        loglik = np.dot(self.k, eta) - np.dot(self.n, np.logaddexp(0.0, eta))
        return float(loglik - 0.5 * np.dot(prec, (v - mean) ** 2) - 0.5 * prec_e * np.dot(e, e))

    def _sum(self, values):
        return np.bincount(self.cell, weights=values, minlength=self.labeled_arms.size)

    def _curvature(self, v, e, prec, prec_e):
        """Per-cell p and curvature w; per-arm W, Wx, D; the Schur complement of e."""
        p = special.expit(self.eta(v, e))
        w = self.n * p * (1 - p)
        W, Wx = self._sum(w), self._sum(w * self.x)
        D = W + prec_e
        schur = self.rows.T @ ((W - W**2 / D)[:, None] * self.rows)
        if self.with_slope:
            cross = self.rows.T @ (Wx - W * Wx / D)
            corner = np.dot(w, self.x**2) - np.sum(Wx**2 / D)
            schur = np.block([[schur, cross[:, None]], [cross[None, :], np.array([[corner]])]])
        schur[np.diag_indices_from(schur)] += prec
        return p, w, W, Wx, D, schur

    def _coupling(self, W, Wx, ve):
        """H_ve @ ve for arm-space vectors ve (rows of a 2-D array allowed)."""
        top = (W * ve) @ self.rows
        return np.concatenate([top, (Wx * ve).sum(-1, keepdims=True)], axis=-1) if self.with_slope else top

    def _arm_part(self, W, Wx, dv):
        """H_ev @ dv: the labeled arms' share of a change dv in v."""
        return W * (dv[..., : self.n_const] @ self.rows.T) + Wx * (dv[..., -1:] if self.with_slope else 0.0)

    # ---- the mode ---------------------------------------------------------------------
    def mode(self, log_sd, start: Mode | None = None) -> Mode:
        """The posterior mode and its Gaussian approximation for group scales exp(log_sd)."""
        mean, prec, prec_e = self.prior(log_sd)
        v = mean.copy() if start is None else start.v.copy()
        e = np.zeros(self.labeled_arms.size) if start is None else start.e.copy()
        value = self.objective(v, e, mean, prec, prec_e)
        for _ in range(_MAX_NEWTON):
            p, _, W, Wx, D, schur = self._curvature(v, e, prec, prec_e)
            g = self.k - self.n * p
            grad_e = self._sum(g) - prec_e * e
            grad_v = np.concatenate([self.rows.T @ self._sum(g), [np.dot(g, self.x)] if self.with_slope else []])
            grad_v -= prec * (v - mean)
            chol = linalg.cholesky(schur, lower=True)
            dv = linalg.cho_solve((chol, True), grad_v - self._coupling(W, Wx, grad_e / D))
            de = (grad_e - self._arm_part(W, Wx, dv)) / D
            step, new = 1.0, value
            while step > 1e-8:
                new = self.objective(v + step * dv, e + step * de, mean, prec, prec_e)
                if new >= value - 1e-12:
                    break
                step /= 2
            v, e = v + step * dv, e + step * de
            converged = new - value < 1e-11 and step * max(np.abs(dv).max(), np.abs(de).max(initial=0.0)) < 1e-8
            value = new
            if converged:
                break
        _, _, W, Wx, D, schur = self._curvature(v, e, prec, prec_e)
        chol = linalg.cholesky(schur, lower=True)
        log_det = np.sum(np.log(D / prec_e)) + 2 * np.sum(np.log(np.diag(chol))) - np.sum(np.log(prec))
        return Mode(np.asarray(log_sd, float), v, e, chol, W, Wx, D, float(value - 0.5 * log_det))

    # ---- the scales -------------------------------------------------------------------
    def evidence_gradient(self, m: Mode) -> np.ndarray:
        """d log_evidence / d log_sd (exact for the Laplace approximation)."""
        mean, prec, prec_e = self.prior(m.log_sd)
        p = special.expit(self.eta(m.v, m.e))
        dw = self.n * p * (1 - p) * (1 - 2 * p)
        s_inv = linalg.cho_solve((m.chol, True), np.eye(m.v.size))
        g_v = (self.rows * (1 - m.W / m.D)[:, None])[self.cell]
        if self.with_slope:
            g_v = np.concatenate([g_v, (self.x - (m.Wx / m.D)[self.cell])[:, None]], axis=1)
        var_eta = np.sum((g_v @ s_inv) * g_v, axis=1) + 1 / m.D[self.cell]
        h_ve = m.W[:, None] * self.rows  # row a: column a of H_ve
        if self.with_slope:
            h_ve = np.concatenate([h_ve, m.Wx[:, None]], axis=1)
        grad = np.zeros(self.n_groups + 1)
        for gi in range(self.n_groups + 1):
            if gi < self.n_groups:
                on = np.zeros(m.v.size, dtype=bool)
                on[1: 1 + self.group.size] = self.group == gi
                explicit = np.sum(prec[on] * (m.v[on] - mean[on]) ** 2) - on.sum() + np.sum(prec[on] * np.diag(s_inv)[on])
                xv = s_inv @ np.where(on, 2 * prec * (m.v - mean), 0.0)
                xe = -self._arm_part(m.W, m.Wx, xv) / m.D
            else:
                h_d = h_ve / m.D[:, None]
                diag_ee = 1 / m.D + np.sum((h_d @ s_inv) * h_d, axis=1)
                explicit = prec_e * np.dot(m.e, m.e) - m.e.size + prec_e * np.sum(diag_ee)
                b_e = 2 * prec_e * m.e
                xv = -s_inv @ self._coupling(m.W, m.Wx, b_e / m.D)
                xe = (b_e - self._arm_part(m.W, m.Wx, xv)) / m.D
            d_eta = (self.rows @ xv[: self.n_const] + xe)[self.cell] + self._slope(xv) * self.x
            grad[gi] = explicit - 0.5 * np.sum(dw * var_eta * d_eta)
        return grad

    def log_hyperprior(self, log_sd) -> tuple[float, np.ndarray]:
        """Log density of the group scales (in log coordinates) and its gradient.

        The prior is on the *total* variance of an arm's logit and its split, not on each
        scale alone: tau = sqrt(sum_g c_g), c_g = m_g s_g^2 the variance group g adds (m_g
        effects: 1 per attribute's main effects and for arms, the number of attribute pairs
        for the interactions), tau ~ half-normal(scale), shares c / tau^2 ~ Dirichlet(1).
        Independent half-normals on every scale would say arms differ by sqrt(G) times the
        scale a priori and keep each group's scale near it when labels are few; split, the
        arms' total spread keeps its stated size however many groups share it (a variance
        decomposition prior, after Fuglstad et al. 2020 and the R2-D2 prior).
        """
        h = np.asarray(log_sd, float)
        c = self.multiplicity * np.exp(2 * h)
        total, g, s0 = c.sum(axis=-1, keepdims=True), c.shape[-1], self.priors.scale
        constant = 0.5 * np.log(2 / np.pi) - np.log(s0) + (g - 1) * np.log(2) + special.gammaln(g)
        value = (constant - 0.5 * total / s0**2 - 0.5 * (2 * g - 1) * np.log(total)).squeeze(-1) \
            + np.sum(np.log(c), axis=-1)
        grad = 2 - c / s0**2 - (2 * g - 1) * c / total
        return (float(value), grad) if h.ndim == 1 else (value, grad)

    def fit_scales(self, start=None) -> Mode:
        """The mode at the group scales maximising the Laplace marginal posterior."""
        h0 = (np.log(0.5 * self.priors.scale / np.sqrt(self.multiplicity.sum())) + np.zeros(self.n_groups + 1)
              if start is None else np.asarray(start))
        last = {"mode": None}

        def loss(h):
            m = self.mode(h, start=last["mode"])
            last["mode"] = m
            prior, prior_grad = self.log_hyperprior(h)
            return -(m.log_evidence + prior), -(self.evidence_gradient(m) + prior_grad)

        res = optimize.minimize(loss, h0, jac=True, method="L-BFGS-B", bounds=[LOG_SD_BOUNDS] * h0.size)
        return self.mode(res.x, start=last["mode"])

    def scale_curvature(self, m: Mode) -> np.ndarray:
        """-Hessian of log evidence + log hyperprior in log_sd at ``m`` (finite differences
        of the exact gradient)."""
        h, step = m.log_sd, 1e-4

        def gradient(hh):
            return self.evidence_gradient(self.mode(hh, start=m)) + self.log_hyperprior(hh)[1]

        hess = np.array([(gradient(h + step * e) - gradient(h - step * e)) / (2 * step) for e in np.eye(h.size)])
        return -(hess + hess.T) / 2

    def sample_hyperprior(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, G) log scales drawn from :meth:`log_hyperprior`'s prior."""
        tau = np.abs(rng.normal(0.0, self.priors.scale, n))
        share = rng.dirichlet(np.ones(self.multiplicity.size), n)
        return 0.5 * np.log(np.maximum(tau[:, None] ** 2 * share, 1e-300) / self.multiplicity)

    def integrate_scales(self, rng: np.random.Generator, n_points: int = SCALE_POINTS) -> "ScalePosterior":
        """The group scales integrated out by importance sampling.

        Plugging in the most probable scales over-states them when labels are few (in log
        coordinates the posterior mode sits near the prior's scale whatever the data).
        Instead the scales are drawn from a defensive mixture, half a Student-t (4 degrees
        of freedom) around their most probable value with twice the inverse curvature as
        its scale, half the prior itself (which reaches the tail towards "all effects
        small" that a t around the mode misses); each draw gets its own Gaussian
        approximation and is weighed by evidence x prior / proposal. The mean of those
        ratios estimates the member's marginal likelihood; their effective sample size is
        reported.
        """
        best = self.fit_scales()
        vals, vecs = np.linalg.eigh(self.scale_curvature(best))
        cov = (vecs / np.maximum(vals, MIN_SCALE_CURVATURE)) @ vecs.T * 4.0
        around = stats.multivariate_t(best.log_sd, cov, df=4)
        from_t = rng.random(n_points) < 0.5
        points = self.sample_hyperprior(n_points, rng)
        if from_t.any():
            points[from_t] = around.rvs(int(from_t.sum()), random_state=rng).reshape(-1, points.shape[1])
        log_prior = self.log_hyperprior(points)[0]
        log_q = np.logaddexp(np.log(0.5) + around.logpdf(points), np.log(0.5) + log_prior)
        # Outside LOG_SD_BOUNDS the evidence is flat in a scale (an effect of sd 1e-3 is no
        # effect; above 10 the prior holds ~nothing, and a near-flat effect makes the Newton
        # system singular), so a point out there is solved at the bound, weighed as drawn.
        modes = [self.mode(np.clip(h, *LOG_SD_BOUNDS), start=best) for h in points]
        log_ratio = np.array([m.log_evidence for m in modes]) + log_prior - log_q
        weights = np.exp(log_ratio - log_ratio.max())
        weights /= weights.sum()
        return ScalePosterior(best, modes, weights, float(special.logsumexp(log_ratio) - np.log(n_points)),
                              float(1.0 / np.sum(weights**2)))

    # ---- draws ------------------------------------------------------------------------
    def draw(self, m: Mode, n_draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draws of every arm's constant (intercept + effects + deviation), (n_draws, arms),
        and of the slope, (n_draws,): the solved effects from their Schur marginal, the
        untouched ones from their prior, then e | v."""
        _, _, prec_e = self.prior(m.log_sd)
        dv = linalg.solve_triangular(m.chol, rng.standard_normal((m.v.size, n_draws)), lower=True, trans="T").T
        e = rng.standard_normal((n_draws, self.n_arms)) / np.sqrt(prec_e)
        e_lab = m.e - self._arm_part(m.W, m.Wx, dv) / m.D + rng.standard_normal((n_draws, m.e.size)) / np.sqrt(m.D)
        e[:, self.labeled_arms] = e_lab
        v = m.v + dv
        const = np.zeros((n_draws, self.design.shape[1]))
        const[:, self.solved] = v[:, : self.n_const]
        const[:, self.free] = rng.standard_normal((n_draws, self.free.size)) * np.exp(m.log_sd)[self.free_group]
        slope = v[:, -1] if self.with_slope else np.zeros(n_draws)
        return np.asarray((self.design @ const.T).T) + e, slope

"""Ji et al.'s Tables 3-7 on the multiclass files we have, SPE-informed priors as extra rows.

    python -m benchmarks.assessment_tables [--runs 40] [--jobs 2] [--quick] [--report] [--only 6] [--check-t6]
    # writes the section "Active assessment, Ji et al.'s Tables 3-7" of RESULTS.md;
    # --quick: 4 runs, prints only; --report: rebuild the section from the last full run's
    # raw results (results/assessment_tables.pkl, not tracked); --only 6 --runs 200: Table 6
    # alone, IPrior + TS and the SPE rows only, on its own runs (results/assessment_tables_t6.pkl),
    # added to the section beside the full run's Table 6; --check-t6: rerun its first 2 runs at
    # this tree and, if bit-identical, say so beside it (about 30 s). 40 runs: 11.5 CPU-minutes (measured),
    # 25 min on 2 processes of a busy machine (load 6-11); 20 runs took 5 min on 2 free cores.

Files: digits (10-class logistic regression, cross-validated),
MNIST and 20 Newsgroups (cleanlab's cross-validated probabilities); skipped when absent.
Ji et al. ran 20 Newsgroups too, with BERT: their numbers stand beside ours there, from a
different classifier of the same test set. Definitions (the paper's; groups = predicted
classes unless said):

* Table 3: RMSE (points) of accuracy per predicted class, sqrt(sum_g p_g (theta_hat_g -
  theta_g)^2), theta_hat the posterior mean, after N = 2K, 5K, 10K labels.
* Table 4: RMSE of the confusion matrix, sqrt(sum_k p_k sum_j (theta_hat_jk - theta_jk)^2),
  divided by theta_0, the score-informed prior's RMSE with no labels.
* Table 5: 100 |ECE - ECE_hat| / ECE (percent), groups = 10 equal-width confidence bins,
  ECE_hat = sum_b p_b |theta_hat_b - s_b|; N = 20, 50, 100. Extra row: the package's
  :meth:`~spe.assessment.Assessor.calibration_error` (shared-offset prior, median).
* Table 6: percent of the test set labeled from which on the mean MRR over runs of the m
  least accurate classes stays above 0.99 (a few straggling runs move it: its bootstrap
  standard error over runs stands beside it), on files whose m-th and (m+1)-th least accurate classes
  differ by at least 0.01 (identifiable); TS methods label one item from each of the m
  groups chosen per step (multiple-play TS), as do UCB and epsilon-greedy.
* Table 7: labels until the most probable ROPE region (eps = 0.05) of a pair of classes is
  the true one and its probability lambda is within 5% of lambda* (all items of both
  classes labeled, uniform prior); mean over sampled pairs of predicted classes and runs
  (the first 20 runs only: the slowest table).

Priors: UPrior Beta(1, 1) / Dirichlet(1/K); IPrior Beta(2 s_g, 2 (1 - s_g)) / Ji et al.'s
score Dirichlet of strength 1; SPE-0 / SPE-10: :func:`spe.fit_multiclass` with 0 or 10
random labels (counted in every budget), then ``multiclass_informed_prior`` (per class or
per bin: centred on the draws' interquartile mean, on the classifier's own probabilities
with no labels)
and ``multiclass_confusion_prior``.

Which row is issue #45's "SPE-informed prior": SPE-10. SPE turns labels into a prior; with
none, its posterior holds only the classifier's probabilities and the generic prior over
label models, the information the score prior already has, so SPE-0 is a zero-label
ablation: IPrior's centre (the classifier's own probabilities) with the strength the label
models' spread supports (never below IPrior's 2). SPE-10's 10 labels count in every
budget, so it is compared with IPrior at equal labels. Why SPE-0 loses ECE cells on the
two miscalibrated files (digits, 20 Newsgroups): it uses the score's information as IPrior
does (the same centre per bin, the classifier's mean confidence) and is not over-confident
(the truth's rms z is under 1 in both priors, table below), but ECE_hat = sum_b p_b
|theta_hat_b - s_b| is 0 at that centre, and in the bins that carry the ECE its Beta is
stronger than IPrior's (strength weighted by each bin's share of the ECE; distance and z
weighted by the bins' shares of items), so a few labels per bin move its posterior mean
away from the confidence more slowly. On calibrated MNIST, where the confidence is the
truth, the same strength costs nothing (its differences there are within about one
standard error of zero, in its favour). The strength is the label models' own spread with
no labels (their fixed prior, centred on a calibrated classifier, not tuned on these files;
the bins' accuracies move together under it, which independent Betas cannot keep); the one fix
inside Ji et al.'s per-bin protocol, strength 2, would make SPE-0 the IPrior row, so the
method is left as is.

Where the truth sits in the SPE-10 posterior, the prior's raw material: for each class
(and each confidence bin) the true accuracy minus the centre of the fit's accuracy draws
(their mean, median, or interquartile mean: the SPE priors' centre),
divided by the draws' root mean square deviation from that centre, pooled over groups and
runs. A mean z near 0 is an unbiased centre; an rms z above 1 an over-confident spread.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

from benchmarks.active_real import cases  # noqa: E402
from benchmarks.assessment_replay import beta_replay, confusion_replay  # noqa: E402
from benchmarks.assessment_tables_report import MIN_GAP, T5_EXTRA, report, t6_more_lines  # noqa: E402
from benchmarks.harness.report import RESULTS_DIR, RESULTS_MD, git_commit, write_section  # noqa: E402
from spe import fit_multiclass  # noqa: E402
from spe.assessment import (Assessor, class_groups, encode_groups, mrr, multiclass_confusion_prior,  # noqa: E402
                            multiclass_informed_prior, score_confusion_prior, score_informed_prior,
                            uniform_confusion_prior, uninformative_prior)
from spe.assessment._confusion import confusion_rmse  # noqa: E402
from spe.assessment._metrics import rope_quadrature as rope_exact  # noqa: E402
from spe.assessment._priors import typical  # noqa: E402

MARKERS = ("<!-- assessment-tables:start -->", "<!-- assessment-tables:end -->")
SPE_DRAWS = 300
CACHE = RESULTS_DIR / "assessment_tables.pkl"
CACHE_T6 = RESULTS_DIR / "assessment_tables_t6.pkl"
ECE_BUDGETS = (20, 50, 100)
N_PAIRS = 6
#: Table 7 (the slowest, and no SPE claim rests on it) on the first runs only.
T7_RUNS = 20


def conf_bins(conf):
    return encode_groups(np.minimum((conf * 10).astype(np.int64), 9))[0]


def spe_priors(probs, y, groups, bins, n_labels, seed):
    """SPE-informed priors (per class, per bin, confusion), the labeled items they hold, and the fit."""
    labels = np.full(y.size, -1)
    held = np.random.default_rng(10_000 + seed).choice(y.size, n_labels, replace=False) if n_labels else np.array([], int)
    labels[held] = y[held]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fit_multiclass(probs, labels, n_draws=SPE_DRAWS, seed=seed)
    return (multiclass_informed_prior(res, groups), multiclass_informed_prior(res, bins),
            multiclass_confusion_prior(res), held, res)


def centre_check(res, s):
    """(truth - centre) / spread per group, centre = the draws' mean, median or interquartile
    mean (the prior's), spread = the
    root mean square deviation of the draws from that centre."""
    correct = res.class_draws == res.predicted
    out = {}
    for kind, g, truth in (("classes", s["groups"], s["acc"]), ("bins", s["bins"], s["acc_b"])):
        size = np.bincount(g)
        acc = np.stack([np.bincount(g, weights=row, minlength=size.size) for row in correct]) / size
        out[kind] = {}
        for name, centre in (("mean", acc.mean(axis=0)), ("median", np.median(acc, axis=0)),
                             ("interquartile mean", typical(acc))):
            spread = np.sqrt(np.mean((acc - centre) ** 2, axis=0))
            out[kind][name] = (truth - centre) / np.maximum(spread, 1e-12)
    return out


def bin_prior_check(s, prior):
    """SPE-0's and IPrior's Beta per confidence bin (Table 5's groups): strength weighted by each
    bin's share of the ECE (p_b |accuracy_b - confidence_b| / ECE: the bins an ECE estimate must
    move), share-weighted |truth - centre|, and the share-weighted rms of z = (truth - mean) / sd."""
    out = {}
    ece_share = s["share_b"] * np.abs(s["acc_b"] - s["s_b"]) / s["ece"]
    for name, p in (("IPrior", s["ip_b"]), ("SPE-0", prior)):
        mean, strength = p.mean(), p.alpha + p.beta
        z = (s["acc_b"] - mean) / np.sqrt(mean * (1 - mean) / (strength + 1))
        out[name] = {"strength": float(ece_share @ strength), "distance": float(s["share_b"] @ np.abs(s["acc_b"] - mean)),
                     "rms z": float(np.sqrt(s["share_b"] @ z**2))}
    return out


def setup(probs, y):
    """Everything a run needs that does not depend on the run."""
    pred = probs.argmax(1)
    k = probs.shape[1]
    groups, _ = class_groups(pred)
    correct = (pred == y).astype(int)
    conf = probs.max(1)
    bins = conf_bins(conf)
    share_b = np.bincount(bins) / y.size
    s_b = np.bincount(bins, weights=conf) / np.bincount(bins)
    acc_b = np.bincount(bins, weights=correct) / np.bincount(bins)
    truth_conf = np.zeros((k, k))
    np.add.at(truth_conf, (y, pred), 1)
    truth_conf /= np.maximum(truth_conf.sum(0), 1)
    share = np.bincount(pred, minlength=k) / y.size
    score_dir = score_confusion_prior(probs, pred)
    return {"pred": pred, "k": k, "groups": groups, "correct": correct, "conf": conf, "bins": bins,
            "share_b": share_b, "s_b": s_b, "acc_b": acc_b, "ece": float(share_b @ np.abs(acc_b - s_b)),
            "acc": np.bincount(groups, weights=correct) / np.bincount(groups), "share": share,
            "truth_conf": truth_conf, "theta0": confusion_rmse(score_dir.mean(), truth_conf, share),
            "ip": score_informed_prior(conf, groups), "ip_b": score_informed_prior(conf, bins),
            "up": uninformative_prior(k), "up_b": uninformative_prior(int(bins.max()) + 1),
            "ud": uniform_confusion_prior(k).alpha, "sd": score_dir.alpha}


def accuracy_rmse(s, prior, strategy, budgets, rng, held=()):
    got = {}
    spent = len(held)

    def check(n, a, b):
        if n + spent in budgets:
            got[n + spent] = 100 * float(np.sqrt(s["share"] @ (a / (a + b) - s["acc"]) ** 2))
    beta_replay(s["groups"], s["correct"], prior, strategy, max(budgets) - spent, rng, exclude=held, check=check)
    return got


def ece_errors(s, prior, strategy, rng, held=()):
    got = {}
    spent = len(held)

    def check(n, a, b):
        if n + spent in ECE_BUDGETS:
            got[n + spent] = 100 * abs(s["ece"] - s["share_b"] @ np.abs(a / (a + b) - s["s_b"])) / s["ece"]
    beta_replay(s["bins"], s["correct"], prior, strategy, max(ECE_BUDGETS) - spent, rng, exclude=held, check=check)
    return got


def ece_hierarchical(s, rng):
    """The package's ECE (shared-offset prior, sample ECE median) on random labels."""
    order = rng.permutation(s["conf"].size)
    a = Assessor(np.zeros(s["conf"].size, dtype=np.int64), None, confidence=s["conf"])
    out = {}
    for n in ECE_BUDGETS:
        a.labels = {int(i): int(s["correct"][i]) for i in order[:n]}
        est = a.calibration_error(n=2000, seed=0).overall["median"]
        out[n] = 100 * abs(s["ece"] - est) / s["ece"]
    return out


def mrr_curve(s, prior, strategy, m, every, rng, held=(), **options):
    """MRR of the m least accurate classes after every ``every`` labels (10 labels of SPE-10 included)."""
    n_total = s["groups"].size
    curve = np.full(n_total // every, np.nan)
    spent = len(held)

    def check(n, a, b):
        if (n + spent) % every == 0 and (n + spent) // every <= curve.size:
            curve[(n + spent) // every - 1] = mrr(a / (a + b), s["acc"], m)
    plays = 1 if strategy == "random" else m
    beta_replay(s["groups"], s["correct"], prior, strategy, n_total - spent, rng, plays=plays, exclude=held,
                check=check, **options)
    return curve


def labels_to_compare(s, prior, strategy, pair, rng, held=()):
    g1, g2 = pair
    sz = np.bincount(s["groups"])
    ok = np.bincount(s["groups"], weights=s["correct"])
    star = rope_exact(1 + ok[g1], 1 + sz[g1] - ok[g1], 1 + ok[g2], 1 + sz[g2] - ok[g2])
    allowed = np.zeros(s["k"], dtype=bool)
    allowed[[g1, g2]] = True

    def stop(a, b):
        mu = rope_exact(a[g1], b[g1], a[g2], b[g2])
        return mu.argmax() == star.argmax() and abs(mu.max() - star.max()) / star.max() < 0.05
    options = {"compare": (g1, g2), "rope": 0.05} if strategy == "ts-compare" else {}
    if stop(prior.alpha, prior.beta):
        return len(held)
    return len(held) + beta_replay(s["groups"], s["correct"], prior, strategy, int(sz[g1] + sz[g2]), rng,
                                   exclude=held, allowed=allowed, stop=stop, **options)


def identifiable(acc, m):
    s = np.sort(acc)
    return s.size > m and s[m] - s[m - 1] >= MIN_GAP


def pairs_of(name, k):
    rng = np.random.default_rng(sum(name.encode()))
    every = [(a, b) for a in range(k) for b in range(a + 1, k)]
    return [every[i] for i in rng.choice(len(every), min(N_PAIRS, len(every)), replace=False)]


def one_run(job):
    """Every table's numbers for one file and one run seed."""
    name, probs, y, spe0, r = job
    s = setup(probs, y)
    k = s["k"]
    rng = np.random.default_rng(r)
    spe10 = spe_priors(probs, y, s["groups"], s["bins"], 10, r)
    beta = {"UPrior (random)": (s["up"], s["up_b"], "random", ()), "IPrior (random)": (s["ip"], s["ip_b"], "random", ()),
            "IPrior + TS": (s["ip"], s["ip_b"], "ts-estimate", ()), "SPE-0 + TS": (spe0[0], spe0[1], "ts-estimate", ()),
            "SPE-10 + TS": (spe10[0], spe10[1], "ts-estimate", spe10[3])}
    budgets = (2 * k, 5 * k, 10 * k)
    out = {"t3": {m: accuracy_rmse(s, p, st, budgets, rng, h) for m, (p, _, st, h) in beta.items()},
           "t5": {m: ece_errors(s, pb, st, rng, h) for m, (_, pb, st, h) in beta.items()}}
    out["t5"][T5_EXTRA] = ece_hierarchical(s, rng)
    out["centre"] = centre_check(spe10[4], s)
    dirichlet = {"UPrior (random)": (s["ud"], "random", ()), "IPrior (random)": (s["sd"], "random", ()),
                 "IPrior + TS": (s["sd"], "ts-confusion", ()), "SPE-0 + TS": (spe0[2].alpha, "ts-confusion", ()),
                 "SPE-10 + TS": (spe10[2].alpha, "ts-confusion", spe10[3])}
    out["t4"] = {}
    for m, (alpha, st, h) in dirichlet.items():
        est = confusion_replay(s["pred"], y, alpha, st, [b - len(h) for b in budgets], rng, exclude=h)
        out["t4"][m] = {b: confusion_rmse(est[b - len(h)], s["truth_conf"], s["share"]) / s["theta0"] for b in budgets}
    every = max(1, y.size // 500)
    t6 = {"UPrior + TS": (s["up"], "ts-worst", ()), "UPrior + UCB": (s["up"], "ucb-worst", ()),
          "UPrior + epsilon-greedy": (s["up"], "epsilon-greedy-worst", ())}
    t6.update({m: (p, "ts-worst" if st == "ts-estimate" else st, h) for m, (p, _, st, h) in beta.items()})
    out["t6"] = {(m, mm): mrr_curve(s, p, st, mm, every, rng, h)
                 for mm in (1, 3) if identifiable(s["acc"], mm) for m, (p, st, h) in t6.items()}
    if r < T7_RUNS:
        out["t7"] = {m: [labels_to_compare(s, p, "ts-compare" if st == "ts-estimate" else st, pair, rng, h)
                         for pair in pairs_of(name, k)] for m, (p, _, st, h) in beta.items()}
    return name, r, out


def one_run_t6(job):
    """Table 6 alone (``--only 6``): the score prior and the SPE priors, on a run's own randomness."""
    name, probs, y, spe0, r = job
    s = setup(probs, y)
    rng = np.random.default_rng([r, 6])
    spe10 = spe_priors(probs, y, s["groups"], s["bins"], 10, r)
    priors = {"IPrior + TS": (s["ip"], ()), "SPE-0 + TS": (spe0[0], ()), "SPE-10 + TS": (spe10[0], spe10[3])}
    every = max(1, y.size // 500)
    return name, r, {"t6": {(m, mm): mrr_curve(s, p, "ts-worst", mm, every, rng, h)
                            for mm in (1, 3) if identifiable(s["acc"], mm) for m, (p, h) in priors.items()}}


def check_t6(n_runs=2):
    """Rerun the first runs of the stored ``--only 6`` table at this tree; if every MRR curve is
    bit-identical, stamp the table with this commit (its longer run stands for the current code)."""
    stored = _load(CACHE_T6)
    old = {(n, r): o for n, r, o in stored["results"]}
    same = True
    for name, (probs, y) in cases().items():
        if name not in {n for n, _, _ in stored["results"]}:
            continue
        s = setup(probs, y)
        spe0 = spe_priors(probs, y, s["groups"], s["bins"], 0, 0)[:4]
        for r in range(n_runs):
            new = one_run_t6((name, probs, y, spe0, r))[2]["t6"]
            same &= all(np.array_equal(v, old[(name, r)]["t6"][k], equal_nan=True) for k, v in new.items())
    print("identical" if same else "changed: rerun --only 6")
    if same:
        stored["checked"] = {"commit": git_commit(), "runs": n_runs, "date": time.strftime("%Y-%m-%d")}
        with open(CACHE_T6, "wb") as f:
            pickle.dump(stored, f)
    return same


def _load(path):
    if not path.exists():
        return None
    with open(path, "rb") as f:
        return pickle.load(f)


def _write(stored, more):
    text = report(__doc__, stored["results"], stored["meta"], stored["runs"], stored["minutes"], stored["jobs"],
                  stored["commit"], stored["date"], t6_more=more)
    print(text)
    write_section(text, RESULTS_MD, MARKERS)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="4 runs, prints only")
    ap.add_argument("--report", action="store_true", help="rebuild the section from the stored raw results")
    ap.add_argument("--only", type=int, choices=(6,), help="6: Table 6 alone, score and SPE priors, its own runs")
    ap.add_argument("--check-t6", action="store_true",
                    help="rerun the stored --only 6 table's first 2 runs; stamp it with this commit if identical")
    args = ap.parse_args(argv)
    if args.check_t6:
        if check_t6() and _load(CACHE) is not None:
            _write(_load(CACHE), _load(CACHE_T6))
        return
    if args.report:
        _write(_load(CACHE), _load(CACHE_T6))
        return
    runs = 4 if args.quick else args.runs
    start = time.time()
    work, meta = [], {}
    for name, (probs, y) in cases().items():
        s = setup(probs, y)
        acc = np.sort(s["acc"])
        meta[name] = {"n": y.size, "k": s["k"], "acc": float(s["correct"].mean()), "ece": s["ece"],
                      "every": max(1, y.size // 500), "gaps": {m: float(acc[m] - acc[m - 1]) for m in (1, 3)}}
        if args.only and not any(identifiable(s["acc"], m) for m in (1, 3)):
            continue
        spe0 = spe_priors(probs, y, s["groups"], s["bins"], 0, 0)[:4]  # the fit itself stays here
        meta[name]["spe0_bins"] = bin_prior_check(s, spe0[1])
        work += [(name, probs, y, spe0, r) for r in range(runs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_run_t6 if args.only else one_run, work))
    stamp = {"runs": runs, "minutes": (time.time() - start) / 60, "jobs": args.jobs, "commit": git_commit(),
             "date": time.strftime("%Y-%m-%d")}
    if args.quick:
        print(report(__doc__, results, meta, **stamp) if not args.only else
              "\n".join(t6_more_lines({"results": results, "meta": meta, **stamp})))
        return
    RESULTS_DIR.mkdir(exist_ok=True)
    with open(CACHE_T6 if args.only else CACHE, "wb") as f:
        pickle.dump({"results": results, "meta": meta, **stamp}, f)
    full = _load(CACHE)
    if full is not None:
        _write(full, _load(CACHE_T6))


if __name__ == "__main__":
    main()

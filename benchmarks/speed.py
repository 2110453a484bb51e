"""Speed on real scores, side by side with an earlier version of the package.

    python -m benchmarks.speed                 # ~15 min; writes its section of RESULTS.md
    python -m benchmarks.speed --quick         # 3 cases, 1 seed, prints only
    python -m benchmarks.speed --ssme-lite     # also one ssme-lite fit beside spe's

Every real case of ``benchmarks/real.py`` (N = 2,000, the full imdb file excluded) is fitted
with 10, 20 and 50 labels: ``spe.fit`` at default settings, then the PR curve (1,000 draws).
The same fits run in fresh processes for this checkout and for a reference commit
(``--reference``, default the last commit before the pooled MAP search and adaptive
importance sampling) checked out in a temporary git worktree; the two alternate case by
case, so machine noise hits both alike, and the ratio of medians is reported. Also:
N = 10^6 synthetic scores in memory (fit + PR curve, seconds and peak RSS of a fresh process).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.harness.cases import QUICK_CASES, all_cases
from benchmarks.harness.fits import ssme_lite_metrics
from benchmarks.harness.report import git_commit, run_stamp, table, write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MARKERS = ("<!-- speed:start -->", "<!-- speed:end -->")
SUMMARY_MARKERS = ("<!-- speed-summary:start -->", "<!-- speed-summary:end -->")
REFERENCE = "dc7825e"
BUDGETS = (10, 20, 50)

CHILD_CASES = r"""
import json, sys, time, warnings
import numpy as np
import spe
warnings.simplefilter("ignore")
name, seeds = sys.argv[2], int(sys.argv[3])
with np.load(sys.argv[1]) as case:  # the case's scores and labels, saved by this checkout
    s, y = case["s"], case["y"]
warm = np.r_[np.zeros(5), np.ones(5), np.full(190, np.nan)]
spe.fit(np.r_[np.linspace(0, 1, 10), np.linspace(0, 1, 190)], warm, seed=0, n_draws=50)  # imports
for budget in %(budgets)r:
    for seed in range(seeds):
        rng = np.random.default_rng(1000 * budget + seed)
        labels = np.full(s.size, np.nan)
        i = rng.choice(s.size, budget, replace=False)
        labels[i] = y[i]
        t = time.perf_counter()
        res = spe.fit(s, labels, seed=seed)
        res.pr_curve()
        sec = time.perf_counter() - t
        mix = res.fits.get("mixture")
        method = mix.posterior.method if mix is not None else "none"
        print(json.dumps({"case": name, "budget": budget, "seed": seed, "s": sec, "method": method}))
""" % {"budgets": BUDGETS}

CHILD_LARGE = r"""
import json, resource, sys, time, warnings
import numpy as np
t = time.perf_counter()
import spe
warnings.simplefilter("ignore")
warm = np.r_[np.zeros(5), np.ones(5), np.full(190, np.nan)]
spe.fit(np.r_[np.linspace(0, 1, 10), np.linspace(0, 1, 190)], warm, seed=0, n_draws=50)  # imports
imports = time.perf_counter() - t
n = int(sys.argv[1])
rng = np.random.default_rng(0)
y = rng.random(n) < 0.3
s = np.where(y, rng.normal(2.0, 1.0, n), rng.normal(0.0, 1.2, n))
labels = np.full(n, np.nan)
labels[:20] = y[:20]
t = time.perf_counter()
res = spe.fit(s, labels, seed=0)
res.pr_curve()
sec = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": sec, "rss_mb": rss, "method": res.fits["mixture"].posterior.method,
                  "groups": int(res.data.n_groups), "imports_s": imports}))
"""


def run_child(tree: Path, code: str, args) -> list[dict]:
    """Run ``code`` in a fresh process that imports spe from ``tree``; its JSON lines."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True,
                         text=True, check=True, cwd=tree)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def worktree(commit: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix="spe-ref-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(path), commit], cwd=ROOT, check=True,
                   capture_output=True)
    return path


def summarise(rows, label):
    sec = np.array([r["s"] for r in rows])
    mcmc = np.array([r["method"] == "emcee" for r in rows])
    return {"version": label, "fits": len(rows), "median_s": float(np.median(sec)),
            "p90_s": float(np.quantile(sec, 0.9)), "max_s": float(sec.max()),
            "share_emcee": float(mcmc.mean()),
            "max_emcee_s": float(sec[mcmc].max()) if mcmc.any() else 0.0}


def ssme_lite_seconds(case="imdb ovr"):
    import warnings

    import spe

    warnings.simplefilter("ignore")
    s, y = all_cases([case])[case]
    labels = np.full(s.size, np.nan)
    # 10 labeled items of each class: ssme-lite needs both
    idx = np.r_[np.flatnonzero(y == 1)[:10], np.flatnonzero(y == 0)[:10]]
    labels[idx] = y[idx]
    # both warmed up on 200 items first: neither pays its imports in the timed fit
    small = np.r_[idx, np.setdiff1d(np.arange(s.size), idx)[:180]]
    ssme_lite_metrics(s[small], labels[small], 0)
    spe.fit(s[small], labels[small], seed=0, n_draws=50)
    t = time.perf_counter()
    ssme_lite_metrics(s, labels, 0)
    t_ssme = time.perf_counter() - t
    t = time.perf_counter()
    spe.fit(s, labels, seed=0).pr_curve()
    return {"case": case, "ssme_lite_s": t_ssme, "spe_s": time.perf_counter() - t}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 cases, 1 seed, no large-N run, no RESULTS.md")
    ap.add_argument("--seeds", type=int, default=2, help="label draws per case and budget")
    ap.add_argument("--reference", default=REFERENCE, help="commit to compare against")
    ap.add_argument("--ssme-lite", action="store_true", help="one ssme-lite fit beside spe's (45-180 s)")
    args = ap.parse_args(argv)
    cases = all_cases()
    names = list(QUICK_CASES) if args.quick else [n for n in cases if n != "imdb ovr full"]
    seeds = 1 if args.quick else args.seeds
    start = time.time()
    extra = [ssme_lite_seconds()] if args.ssme_lite else []  # first: a failure costs no rerun
    ref = worktree(args.reference)
    rows = {"this": [], "reference": []}
    saved = Path(tempfile.mkdtemp(prefix="spe-cases-")) / "case.npz"
    try:
        for name in names:
            np.savez(saved, s=cases[name][0], y=cases[name][1])  # both versions fit the same arrays
            for label, tree in (("this", ROOT), ("reference", ref)):
                rows[label] += run_child(tree, CHILD_CASES, [saved, name, seeds])
            print(f"  {name}: this {np.median([r['s'] for r in rows['this'] if r['case'] == name]):.2f} s, "
                  f"reference {np.median([r['s'] for r in rows['reference'] if r['case'] == name]):.2f} s",
                  flush=True)
        large = []
        if not args.quick:
            for label, tree in (("this", ROOT), ("reference", ref)):
                for r in run_child(tree, CHILD_LARGE, [1_000_000]):
                    large.append({"version": label, **r})
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(ref)], cwd=ROOT, capture_output=True)
        shutil.rmtree(saved.parent, ignore_errors=True)
    summary = [summarise(rows["this"], f"this ({git_commit()})"),
               summarise(rows["reference"], f"reference ({args.reference})")]
    ratio = summary[1]["median_s"] / summary[0]["median_s"]
    per_case = []
    for name in names:
        a = [r["s"] for r in rows["this"] if r["case"] == name]
        b = [r["s"] for r in rows["reference"] if r["case"] == name]
        per_case.append({"case": name, "this_s": float(np.median(a)), "reference_s": float(np.median(b)),
                         "speedup": float(np.median(b) / np.median(a)),
                         "this_emcee": sum(r["method"] == "emcee" for r in rows["this"] if r["case"] == name),
                         "reference_emcee": sum(r["method"] == "emcee" for r in rows["reference"]
                                                if r["case"] == name)})
    lines = [
        "## Speed on real scores (`benchmarks/speed.py`)",
        "",
        run_stamp() + f"; {os.cpu_count()} cores; {(time.time() - start) / 60:.1f} min. " + " ".join(__doc__.split("\n\n")[2].split()),
        "",
        f"Fits at N = 2,000 ({len(names)} cases x budgets {', '.join(map(str, BUDGETS))} x {seeds} label draws; "
        "seconds for `spe.fit` + PR curve at default settings; `share_emcee` = share of fits whose mixture "
        f"posterior needed MCMC). Median speed-up over the reference: **{ratio:.2f}x**. Targets of the speed "
        "issue: median <= 0.5 s, MCMC share <= 10%, no MCMC fit over 2 s.",
        "",
        table(summary, ["version", "fits", "median_s", "p90_s", "max_s", "share_emcee", "max_emcee_s"],
              spec={"version": "{}", "fits": "{:d}", "median_s": "{:.2f}", "p90_s": "{:.2f}", "max_s": "{:.2f}",
                    "share_emcee": "{:.2f}", "max_emcee_s": "{:.2f}"}),
        "",
        table(per_case, ["case", "this_s", "reference_s", "speedup", "this_emcee", "reference_emcee"],
              spec={"this_s": "{:.2f}", "reference_s": "{:.2f}", "speedup": "{:.2f}", "this_emcee": "{:d}",
                    "reference_emcee": "{:d}"}),
        "",
    ]
    if large:
        lines += ["N = 10^6 synthetic scores in memory, 20 labels, fresh process per version (target: <= 3 s, "
                  "peak RSS <= 1 GiB). `s` is fit + PR curve after a small warm-up fit; `imports_s` is that "
                  "warm-up (importing spe, SciPy, ArviZ and xarray), paid once per process:", "",
                  table(large, ["version", "s", "rss_mb", "groups", "method", "imports_s"],
                        spec={"version": "{}", "s": "{:.2f}", "rss_mb": "{:.0f}", "groups": "{}", "method": "{}",
                              "imports_s": "{:.2f}"}), ""]
    if extra:
        lines += ["ssme-lite beside spe on one case (N = 2,000, 20 labels, one fit each, same process, both warmed up on 200 items):", "",
                  table(extra, ["case", "ssme_lite_s", "spe_s"], spec={"case": "{}", "ssme_lite_s": "{:.1f}",
                                                                       "spe_s": "{:.2f}"}), ""]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        write_section(text, HERE / "RESULTS.md", MARKERS)
        write_section(readme_block(summary, ratio, large, args.reference), ROOT / "docs" / "user_guide" / "evidence.md",
                      SUMMARY_MARKERS)


def readme_block(summary, ratio, large, reference):
    this, ref = summary
    text = (f"Speed (`benchmarks/speed.py`, run {datetime.date.today().isoformat()}, commit {git_commit()}, "
            f"{os.cpu_count()} cores, reference commit {reference} run side by side): `spe.fit` + PR curve at "
            f"N = 2,000 on the real cases ({this['fits']} fits) took a median {this['median_s']:.2f} s "
            f"(reference {ref['median_s']:.2f} s; {ratio:.1f}x faster), 90th percentile {this['p90_s']:.2f} s; "
            f"{100 * this['share_emcee']:.0f}% of fits needed MCMC (reference {100 * ref['share_emcee']:.0f}%), "
            f"the slowest of them {this['max_emcee_s']:.2f} s.")
    for r in large:
        if r["version"] == "this":
            text += (f" N = 10^6 in memory: {r['s']:.1f} s ({r['groups']} score groups), peak RSS "
                     f"{r['rss_mb']:.0f} MiB; importing the package and its dependencies takes "
                     f"{r['imports_s']:.1f} s more, once per process.")
    return text


if __name__ == "__main__":
    main()

"""Multiclass classifiers, 20 labels: one model's per-class accuracy, then three models compared.

Three scikit-learn models classify the bundled digits (10 classes, 1,797 images,
5-fold out-of-fold probabilities, so every image is scored by a model that never saw it):
logistic regression, Gaussian naive Bayes and a random forest. 20 random images are
labeled. ``spe.fit_multiclass`` estimates the logistic regression's accuracy overall and
per predicted class; ``spe.fit_many`` compares the three on the same 20 labels. The
truth (every image's label) is printed beside the estimates and marked x in the figures.
Needs ``pip install .[examples]``.

    python examples/multiclass_models.py            # prints, writes figures/multiclass*.png
    python examples/multiclass_models.py --readme   # also rewrites the two README blocks
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import spe

ROOT = Path(__file__).resolve().parents[1]
ONE_MODEL = ("<!-- multiclass-example:start -->", "<!-- multiclass-example:end -->")
MODELS = ("<!-- several-multiclass-example:start -->", "<!-- several-multiclass-example:end -->")


def digits_probabilities(seed: int = 0):
    """{model: (1797, 10) out-of-fold probabilities}, true classes."""
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    models = {"logistic regression": LogisticRegression(max_iter=2000), "naive Bayes": GaussianNB(),
              "random forest": RandomForestClassifier(100, random_state=seed)}
    return {n: cross_val_predict(m, X, y, cv=cv, method="predict_proba") for n, m in models.items()}, y


def run():
    probs, truth = digits_probabilities()
    rng = np.random.default_rng(0)
    labels = np.full(truth.size, -1)
    labeled = rng.choice(truth.size, 20, replace=False)
    labels[labeled] = truth[labeled]

    one = spe.fit_multiclass(probs["logistic regression"], labels, seed=0)
    p = probs["logistic regression"]
    predicted = p.argmax(1)
    per_class_truth = {c: float(np.mean(truth[predicted == c] == c)) for c in range(p.shape[1]) if (predicted == c).any()}
    one_text = "\n".join([
        one.summary(), "",
        f"true top-1 accuracy on these items: {np.mean(predicted == truth):.3f}",
        "true accuracy per predicted class: " + ", ".join(f"{c}: {v:.2f}" for c, v in per_class_truth.items()),
    ])

    many = spe.fit_many(probs, labels, seed=0)
    true_acc = {n: float(np.mean(q.argmax(1) == truth)) for n, q in probs.items()}
    many_text = "\n".join([
        many.summary("accuracy"), "",
        "true top-1 accuracy on these items: " + ", ".join(f"{n} {v:.3f}" for n, v in true_acc.items()),
        "labeled items alone: " + ", ".join(f"{n} {np.mean(q[labeled].argmax(1) == truth[labeled]):.2f}"
                                            for n, q in probs.items()),
    ])
    return one, one_text, per_class_truth, many, many_text, true_acc


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    one, one_text, per_class_truth, many, many_text, true_acc = run()
    print(one_text, many_text, sep="\n\n")
    from spe.report.html import save_figure

    save_figure(ROOT / "figures" / "multiclass.png", lambda ax: one.plot_per_class(ax, truth=per_class_truth))
    save_figure(ROOT / "figures" / "several_multiclass.png",
                lambda ax: many.plot_comparison(ax, metric="accuracy", truth=true_acc))
    if "--readme" in argv:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from readme_numbers import README, replace_block

        text = README.read_text()
        text = replace_block(text, ONE_MODEL, "```\n" + one_text + "\n```")
        README.write_text(replace_block(text, MODELS, "```\n" + many_text + "\n```"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

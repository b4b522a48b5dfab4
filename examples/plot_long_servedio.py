"""
A paper's figure: MODABOOST on the Long–Servedio data
=====================================================

Mansour, Nock and Williamson (*What killed the convex booster?*) show that
Long and Servedio's data, four distinct points with label noise, defeat any
convex potential booster over linear separators, while the same booster over
decision trees or nearest neighbours reaches the Bayes prediction. This is
their Table 1 re-run by :func:`lpboosting.leveraging.reproduce_long_servedio`
(``lpboosting reproduce long-servedio`` on the command line): trained on the
noisy sample, scored on the clean one.
"""

import matplotlib.pyplot as plt
import numpy as np

from lpboosting.leveraging import reproduce_long_servedio

rows = reproduce_long_servedio()  # the paper's gammas, its four losses, three model classes

# %%
# Accuracy on the clean sample and the expected posterior against the margin
# parameter gamma of the data, one line per model class (the log loss; the
# other losses give the same picture, as the table above shows): linear
# separators fall to a fair coin for small gamma, trees and nearest
# neighbours reach the Bayes posterior 1 - eta at every gamma.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for model, style in [("linear", "o-"), ("tree", "s--"), ("nn", "^:")]:
    mine = [r for r in rows if r["loss"] == "log" and r["model"] == model]
    gammas = np.array([r["gamma"] for r in mine])
    axes[0].plot(gammas, [100 * r["accuracy_clean"] for r in mine], style, label=model)
    axes[1].plot(gammas, [r["expected_posterior"] for r in mine], style, label=model)
axes[1].axhline(rows[0]["bayes_posterior"], color="grey", linewidth=0.8, label="Bayes posterior")
for ax in axes:
    ax.set_xscale("log")
    ax.set_xlabel("gamma")
    ax.legend()
axes[0].set_ylabel("accuracy on S_clean (%)")
axes[1].set_ylabel("expected posterior")
fig.tight_layout()
plt.show()

"""
RMBoost under label noise
=========================

Robust minimax boosting (RMBoost) minimises a bound on the error
probability, the minimax risk R, over the distributions consistent with the
training data's expectations; its rule does not chase flipped labels the way
AdaBoost's exponential loss does. Here 0 to 30% of the training labels are
flipped at random (the test labels stay clean), and we compare RMBoost,
LPBoost with nu chosen by cross-validation, and scikit-learn's AdaBoost.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import train_test_split

from lpboosting import LPBoostClassifier, RMBoostClassifier
from lpboosting.datasets import breast_cancer, flip_labels

X, y = breast_cancer()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
rates = [0.0, 0.1, 0.2, 0.3]
scores = {"RMBoost": [], "LPBoost (nu by CV)": [], "AdaBoost (sklearn)": []}
for rate in rates:
    noisy = flip_labels(y_train, rate, random_state=1)
    models = {"RMBoost": RMBoostClassifier(),
              "LPBoost (nu by CV)": LPBoostClassifier(),
              "AdaBoost (sklearn)": AdaBoostClassifier(n_estimators=200, random_state=0)}
    for name, model in models.items():
        scores[name].append(model.fit(X_train, noisy).score(X_test, y_test))
    rm = models["RMBoost"]
    print(f"flipped {rate:.0%}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in scores.items())
          + f"; RMBoost's minimax risk {rm.minimax_risk_:.3f}")

# %%
# Test accuracy on clean labels against the share of flipped training labels.
# AdaBoost fits the flipped labels and loses accuracy as the noise grows;
# RMBoost and LPBoost (whose nu, chosen by cross-validation, lets it give up on
# a fraction of the examples) lose little. RMBoost's minimax risk R, a bound
# on the error probability of its randomised rule under the distributions
# consistent with the (noisy) training data, grows with the noise.
fig, ax = plt.subplots(figsize=(6, 4))
for name, values in scores.items():
    ax.plot(np.array(rates) * 100, values, "o-", label=name)
ax.set_xlabel("training labels flipped (%)")
ax.set_ylabel("test accuracy (clean labels)")
ax.legend()
fig.tight_layout()
plt.show()

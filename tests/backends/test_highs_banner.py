"""HiGHS's start-up banner never reaches a program's standard output."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPTS = {
    "highspy backend": "from lpboosting.masters import LPBoost\n"
                       "import numpy as np\n"
                       "print('before')\n"
                       "LPBoost(0.5).solve(np.array([[1.0], [-1.0]]))\n"
                       "print('after')\n",
    "cvxpy HIGHS": "from lpboosting.masters import LPBoost\n"
                   "import numpy as np\n"
                   "print('before')\n"
                   "LPBoost(0.5).solve(np.array([[1.0], [-1.0]]), backend='cvxpy:HIGHS')\n"
                   "print('after')\n",
    "classifier": "from lpboosting import LPBoostClassifier\n"
                  "import numpy as np\n"
                  "X = np.arange(20.0).reshape(-1, 1); y = (X[:, 0] > 9).astype(int)\n"
                  "print('before')\n"
                  "LPBoostClassifier().fit(X, y)\n"
                  "print('after')\n",
    # threads that build their first models at once (LPBoostCV(n_jobs=2) moves its folds in threads):
    # none may build one while another is spending the banner
    "threads": "import threading\n"
               "import numpy as np\n"
               "from lpboosting.masters import LPBoost\n"
               "barrier = threading.Barrier(8)\n"
               "def run():\n"
               "    barrier.wait()\n"
               "    LPBoost(0.5).solve(np.array([[1.0], [-1.0]]))\n"
               "print('before')\n"
               "threads = [threading.Thread(target=run) for _ in range(8)]\n"
               "[t.start() for t in threads]\n"
               "[t.join() for t in threads]\n"
               "print('after')\n",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_no_banner_on_stdout(name):
    out = subprocess.run([sys.executable, "-c", SCRIPTS[name]], capture_output=True, text=True, check=True)
    assert out.stdout == "before\nafter\n", out.stdout
    assert "Running HiGHS" not in out.stderr

"""The grading stand-in for pyplot: notebook drawing code runs to the end, draws nothing."""

import subprocess
import sys

CELL = '''
from grader.sandbox import nullplot
nullplot.install()
import matplotlib.pyplot as plt
import numpy as np
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
im = axes[0].imshow(np.eye(3), cmap="viridis")
fig.colorbar(im, ax=axes[0])
for ax in axes.flat:
    ax.set_xticks(range(3))
fig2, ax = plt.subplots()
ax.plot([1, 2])
grid = plt.subplots(2, 2)[1]
with plt.style.context("ggplot"):
    plt.figure().add_subplot(111).set_title("x")
plt.tight_layout()
plt.show()
import seaborn
seaborn.heatmap(np.eye(2))
print(axes.shape, grid.shape, type(ax).__name__)
'''


def test_drawing_code_runs_without_drawing():
    proc = subprocess.run([sys.executable, "-c", "import sys\n" + CELL], capture_output=True, text=True,
                          timeout=120, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["(2,)", "(2,", "2)", "Null"]

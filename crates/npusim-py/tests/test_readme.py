"""The README's Python example, read from README.md (so it cannot drift) and executed."""
import re

import numpy as np


def readme_python_example(root):
    text = (root / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "README.md: no ```python block under ## Python"
    return blocks[0]


def test_readme_python_example_runs(root, monkeypatch):
    code = readme_python_example(root)
    assert "npusim" in code and len(code.strip().splitlines()) <= 6
    monkeypatch.chdir(root)
    env = {}
    exec(compile(code, "README.md", "exec"), env)
    # the example's own assert checked z == x + x; check it actually ran the kernel
    assert np.array_equal(env["out"]["z"], env["x"] + env["x"])

"""Issue #16 acceptance 1: docs/tpu-audit.md is what scripts/tpu_audit.py generates from the
committed golden/tpu files and the npusim-tpu tests (so the audit the issue is resolved on
cannot drift from them), and it lists every function of the issue with golden cases."""
import subprocess
import sys


def test_audit_is_current(root):
    p = subprocess.run([sys.executable, str(root / "scripts/tpu_audit.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_audit_covers_every_function(root):
    text = (root / "docs/tpu-audit.md").read_text()
    assert "without golden cases" not in text
    assert "**none**" not in text

"""Nothing Unix-only at import time on the paths the README offers to Windows users."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Modules a Windows user imports through the README's commands: the notebooks' helpers,
# the checks, the real-model fetcher and the benchmarks' entry point.
MODULES = ["helpers", "helpers.checks", "helpers.model.real_model", "helpers.model.cache", "benchmarks.__main__", "benchmarks.suite"]


def test_modules_import_without_unix_only_modules():
    code = textwrap.dedent(f"""
        import sys
        for name in ("resource", "fcntl", "termios", "pwd", "grp"):
            sys.modules[name] = None   # as on Windows: `import resource` raises ImportError
        import importlib
        for mod in {MODULES!r}:
            importlib.import_module(mod)
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr

"""Environment check for the index notebook: versions, and whether widgets can render."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

__all__ = ["environment_report", "print_environment_report"]

PACKAGES = ("numpy", "matplotlib", "ipywidgets", "jupyterlab", "jupyterlab_widgets", "ipykernel")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment_report() -> dict:
    """Versions of the packages the series needs, and the widget-extension status.

    Returns
    -------
    dict
        ``{"python": str, "packages": {name: version or None},
        "widget_extension": bool, "problems": [str, ...]}``
    """
    packages = {name: _version(name) for name in PACKAGES}
    ext_dirs = [Path(p) / "share" / "jupyter" / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager"
                for p in {sys.prefix, sys.base_prefix}]
    widget_extension = importlib.util.find_spec("jupyterlab_widgets") is not None and any(d.is_dir() for d in ext_dirs)
    problems = []
    if sys.version_info < (3, 11):
        problems.append(f"Python {sys.version.split()[0]} 太旧：本系列需要 Python >= 3.11。")
    for name in ("numpy", "matplotlib", "ipywidgets"):
        if packages[name] is None:
            problems.append(f"没有安装 {name}：在仓库目录里运行 `pip install -e .`。")
    if not widget_extension:
        problems.append(
            "这个环境缺少 JupyterLab 的控件扩展（jupyterlab_widgets）：滑块只会显示成一行文字。"
            "运行 `pip install -e \".[lab]\"`（装上 jupyterlab 和这个扩展），然后重启 JupyterLab。"
        )
    return {"python": sys.version.split()[0], "packages": packages, "widget_extension": widget_extension, "problems": problems}


def print_environment_report() -> bool:
    """Print the report as a small table (its verdict line in Chinese); return True when nothing is wrong."""
    rep = environment_report()
    print(f"{'python':<20} {rep['python']}")
    for name, ver in rep["packages"].items():
        print(f"{name:<20} {ver or '未安装'}")
    print(f"{'widget extension':<20} {'有' if rep['widget_extension'] else '缺失'}")
    if rep["problems"]:
        for p in rep["problems"]:
            print("问题：", p)
    else:
        print("一切就绪：需要的包都在。")
    return not rep["problems"]

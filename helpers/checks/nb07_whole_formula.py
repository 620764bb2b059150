"""Self-checks for 2.7 (the whole formula), the transfer exercise: the full (B, T, T) attention weights of a
padded batch with one length per sentence. Exercises 1 and 2 (cross-attention) are in ``nb07_cross_attention``."""

from __future__ import annotations

import contextlib
import functools
import io

import numpy as np

import helpers as H

from .core import FAIL, Case, CheckResult, float_safe, lenient_softmax
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_padded_attention_weights"]


def _real_keys(lengths, T):
    """(B, T) bool: key j of sentence b is a real token iff j < lengths[b] (padding at the end)."""
    return np.arange(T)[None, :] < np.asarray(lengths)[:, None]


def _padded_weights_ref(Q, K, lengths):
    """The (B, T, T) weights: each query of sentence b attends to that sentence's real keys only."""
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    real = _real_keys(lengths, K.shape[1])
    mask = np.broadcast_to(real[:, None, :], (K.shape[0], Q.shape[1], K.shape[1]))
    return H.scaled_dot_product_attention(Q, K, K, mask=mask).weights


def _pw_wrong(*, keys=None, where="before", fill=-np.inf, renormalise=False, axis=-1, scale=None, global_max=False,
              no_shift=False, mask_rows=False, add_bool=False, bare_transpose=False):
    """A classic wrong answer to the padded-batch exercise (a simulated learner's code, hence lenient_softmax).

    ``keys(lengths, T)`` gives the (B, T) table of keys the learner kept; ``where`` says how it is applied to
    the (B, T, T) scores: "before" (the right broadcast), "none", "after" (zero the weights), "rows" (on the
    query axis), "trailing" (the (B, T) table aligned with the last two axes: numpy's default broadcast),
    "both" (a (B, T, T) table that hides the padded queries as well as the padded keys). ``fill`` is what
    "before", "rows" and "both" put in the hidden scores (0.0: the scores multiplied by the mask); ``no_shift`` skips
    subtracting each row's maximum before exp.
    """
    def wrong(Q, K, lengths):
        Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
        B, T, d_k = K.shape
        real = (keys or _real_keys)(lengths, T)
        S = (Q @ K.T if bare_transpose else Q @ np.swapaxes(K, -1, -2)) / (np.sqrt(d_k) if scale is None else scale(d_k, T))
        if add_bool:
            S = S + real[:, None, :].astype(float)
        elif where == "before":
            S = np.where(real[:, None, :], S, fill)
        elif where == "both":
            S = np.where(real[:, :, None] & real[:, None, :], S, fill)
        elif where == "rows":
            S = np.where(real[:, :, None], S, fill)
        elif where == "trailing":
            S = np.where(real, S, -np.inf)
        if global_max or no_shift:
            with np.errstate(all="ignore"):
                E = np.exp(S - S.max()) if global_max else np.exp(S)
                A = E / E.sum(axis=-1, keepdims=True)
        else:
            A = lenient_softmax(S, axis=axis)
        if where == "after":
            A = A * real[:, None, :]
            if renormalise:
                with np.errstate(all="ignore"):
                    A = A / A.sum(axis=-1, keepdims=True)
        if mask_rows:
            A = A * real[:, :, None]
        return A
    return wrong


def _deleted_stacked(Q, K, lengths):
    """Padded keys deleted, one sentence at a time, then stacked (runs only when every sentence has one length)."""
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    out = [lenient_softmax(q @ k[:n].T / np.sqrt(K.shape[-1])) for q, k, n in zip(Q, K, np.asarray(lengths))]
    return np.stack(out)


def _deleted_list(Q, K, lengths):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    return [lenient_softmax(q @ k[:n].T / np.sqrt(K.shape[-1])) for q, k, n in zip(Q, K, np.asarray(lengths))]


_DELETED = ("你把填充的键删掉了：结果少了列。练习要的是完整形状 (B, T, T) 的权重：填充的键留在原位，它们那一列的权重为 0"
            "（句子长度不同时，删掉之后连一个数组都拼不成）。")
_BOTH = ("你把填充位置上的查询（行）也遮住了：它们那几行的分数全被换掉，用 −∞ 时整行是 0/0（NaN），用 −1e9 时整行平均分给了"
         "全部 T 个键（填充的键也分到了权重）。练习要求每一行，包括填充位置上的查询，都在本句真实的键上归一化：掩码只遮键（列）。")
_AFTER = "掩码要在 softmax 之前作用在分数上，而不是之后作用在权重上。"
_PW_WRONG = [
    Wrong(_DELETED, _deleted_stacked),
    Wrong(_DELETED, _deleted_list),
    Wrong("先对全部 T 个键做 softmax、再把填充列清零：清零之后每一行的和小于 1。" + _AFTER, _pw_wrong(where="after")),
    Wrong("先对全部 T 个键做 softmax、再清零并重新归一化：在实数里没错，可填充位置装着很大的数时，softmax 先减去的是填充键的巨大分数，"
          "真实键的 exp 全部下溢成 0，重新归一化得到 0/0。" + _AFTER, _pw_wrong(where="after", renormalise=True)),
    Wrong("掩码遮住的是行（填充位置上的查询），应该遮列（填充位置上的键）：填充是键的属性，每个查询都不能看填充的键。",
          _pw_wrong(where="rows")),
    Wrong("掩码遮住的是行（填充位置上的查询），应该遮列（填充位置上的键）：填充是键的属性，每个查询都不能看填充的键。",
          _pw_wrong(where="rows", fill=-1e9)),
    Wrong("掩码遮住的是行（填充位置上的查询），应该遮列（填充位置上的键）：填充是键的属性，每个查询都不能看填充的键。",
          _pw_wrong(where="none", mask_rows=True)),
    Wrong("填充列遮对了，但你把填充位置上的查询（行）也清零了：练习要求每一行——包括填充位置上的查询——都在本句的真实键上和为 1。只遮键（列）。",
          _pw_wrong(mask_rows=True)),
    Wrong(_BOTH, _pw_wrong(where="both")),
    Wrong(_BOTH, _pw_wrong(where="both", fill=-1e9)),
    Wrong("填充键的分数被换成了 0（或乘上了为 0 的掩码），而不是 −∞：0 也是一个普通的分数，exp(0) = 1，填充的键照样分到了权重。"
          "被排除的键，分数要变成 −∞（或一个负得足够多的数，例如 −1e9）。", _pw_wrong(fill=0.0)),
    Wrong("掩码对了，但取指数之前没有减去每一行的最大值：填充位置上的查询很大，它们那几行的分数 exp 之后溢出成 inf，"
          "inf / inf 得到 NaN。先减去每一行（真实键上）的最大值，再取 exp。", _pw_wrong(no_shift=True)),
    Wrong("不带参数的转置会把三维数组的所有轴倒过来，批量轴也被换到了最后：打分时只交换键的最后两个轴。",
          _pw_wrong(bare_transpose=True)),
    Wrong("掩码的广播轴不对：形状 (B, T) 的表直接和 (B, T, T) 的分数放在一起时，广播从最后一个轴往前对齐，把它当成了（查询, 键）的表，"
          "第 i 行用上了第 i 个句子的长度（B ≠ T 时则直接报错）。要让第 b 个句子的表管住第 b 个句子的每一行：在批量轴和键轴之间留出查询轴。",
          _pw_wrong(where="trailing")),
    Wrong("长度差了一：第 b 个句子的真实键是位置 0 到 lengths[b] − 1（从 0 开始数），你多留了一个填充的键。",
          _pw_wrong(keys=lambda n, T: np.arange(T)[None, :] <= np.asarray(n)[:, None])),
    Wrong("长度差了一：第 b 个句子的真实键是位置 0 到 lengths[b] − 1（从 0 开始数），你少留了最后一个真实的键。",
          _pw_wrong(keys=lambda n, T: np.arange(T)[None, :] < np.asarray(n)[:, None] - 1)),
    Wrong("把布尔掩码当成数加到了分数上：True/False 变成 1/0，只是给真实的键加了 1，填充的键并没有被排除。"
          "被排除的键，分数要变成 −∞（或一个负得足够多的数）。", _pw_wrong(add_bool=True)),
    Wrong("填充的键没有被排除：每一行都对全部 T 个键做了 softmax。（如果你把掩码加在了整行上：同一行的每个分数都减去同一个数，softmax 不变，也是这个结果。）",
          _pw_wrong(where="none")),
    Wrong("softmax 沿的是查询轴：每个查询（每一行）对它的键归一化，应沿最后一个轴。", _pw_wrong(axis=1)),
    Wrong("减去的是整个批量的最大值：远低于它的行会整行下溢成 0/0。每个查询减去自己那一行的最大值。", _pw_wrong(global_max=True)),
    Wrong("分数没有除以 √d_k。", _pw_wrong(scale=lambda d_k, T: 1.0)),
    Wrong("除以的是 d_k 本身：应除以 d_k 的平方根。", _pw_wrong(scale=lambda d_k, T: d_k)),
    Wrong("缩放用了序列长度 T：除以的应是查询、键的宽度 d_k 的平方根。", _pw_wrong(scale=lambda d_k, T: np.sqrt(T))),
]

_NOT_EXACT = "填充列的权重很小，却不是恰好为 0"
_NOT_EXACT_HINT = ("加在填充分数上的负数不够负，exp 之后还剩下一点点。练习要求这些权重恰好为 0："
                   "用 −∞，或一个负得多的数（例如 −1e9）。")


def _padded_columns_not_zero(results, cases) -> int | None:
    """Index of the first case whose padded columns are not all exactly 0.0 (``results`` already passed). Never raises."""
    for k, (got, case) in enumerate(zip(results, cases)):
        try:
            A = np.asarray(got, dtype=float)
            pad = ~_real_keys(case.args[2], A.shape[-1])
            if not np.all(np.moveaxis(A, 1, 0)[:, pad] == 0.0):
                return k
        except Exception:
            return None
    return None


@float_safe
def check_padded_attention_weights(fn) -> CheckResult:
    """Check ``fn(Q, K, lengths) -> A`` of shape (B, T, T), numpy only.

    ``Q`` and ``K`` have shape (B, T, d_k); sentence b has ``lengths[b]`` real tokens (1 <= lengths[b] <= T)
    followed by padding. ``A[b, i, j]`` is the weight query i of sentence b gives key j: every row (padded
    queries included) is a softmax over the sentence's real keys, and the padded keys' columns are exactly
    0.0 (a mask that only damps them, e.g. -100 added to the scores, is named). Whatever the padding holds
    makes no difference. Deleting the padded keys cannot give this shape.
    """
    rng = np.random.default_rng(20260208)

    def draw(B, T, d_k, dtype=float):
        return rng.normal(size=(B, T, d_k)).astype(dtype), rng.normal(size=(B, T, d_k)).astype(dtype)

    Q1, K1 = draw(4, 4, 3)                               # B == T, one length: even a (B, T) mask aligned with
    n1 = np.array([3, 3, 3, 3])                          # (T_q, T_kv) is right here, and deleting keys gives (4, 4, 3)
    Q2, K2 = draw(3, 5, 2)
    n2 = np.array([5, 2, 4])
    Q3, K3 = draw(2, 4, 3)
    n3 = np.array([2, 3])
    # Padding that holds large garbage: in each sentence a padded key outscores every real key of query 0 by
    # about 1000 (after scaling), so "softmax over all keys, then zero the padding and renormalise" underflows
    # the real keys to 0/0. The padded queries are large too: their rows must still be right, and their scores
    # on the real keys lie thousands above the quiet rows' (a max over the whole batch underflows those to 0/0).
    for b, n in enumerate(n3):
        K3[b, n:] = 1000.0 * np.sqrt(3) * Q3[b, 0] / (Q3[b, 0] @ Q3[b, 0])
        Q3[b, n:] = 3000.0 * rng.normal(size=(4 - n, 3))
    Q4, K4 = draw(4, 4, 2)                               # B == T: a (B, T) mask aligned with (T_q, T_kv) runs silently
    n4 = np.array([4, 1, 3, 2])
    Q5, K5 = draw(2, 3, 4, np.float32)
    n5 = np.array([2, 3])
    cases = [
        Case("B=4 个句子一样长（T=4，真实长度都是 3）", (Q1, K1, n1), _padded_weights_ref(Q1, K1, n1),
             "返回形状 (B, T, T) 的权重：填充的键留在原位，它们那一列的权重为 0，每一行在真实的键上和为 1。"),
        Case("B=3 个句子，长度 5、2、4（T=5）", (Q2, K2, n2), _padded_weights_ref(Q2, K2, n2),
             "每个句子有自己的长度：第 b 个句子只遮住它自己的填充键。"),
        Case("填充位置里装着很大的垃圾数", (Q3, K3, n3), _padded_weights_ref(Q3, K3, n3),
             "结果不应依赖填充位置里的数：它们必须在 softmax 之前就被排除。"),
        Case("B = T = 4，有一个句子只有 1 个真实 token", (Q4, K4, n4), _padded_weights_ref(Q4, K4, n4),
             "B 恰好等于 T 时，广播错了轴的掩码也能运行：第 b 个句子的掩码要作用在第 b 个句子的每一行上。"),
        Case("float32 输入", (Q5, K5, n5), _padded_weights_ref(Q5, K5, n5),
             "float32 输入按 float32 的精度比较；先检查形状和掩码的轴。"),
    ]
    name = "check_padded_attention_weights"
    if not callable(fn):
        return run_diagnosed(name, fn, cases)
    results: list = []

    @functools.wraps(fn)
    def recorded(*args, **kwargs):
        got = fn(*args, **kwargs)
        results.append(got)
        return got

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed(name, recorded, cases, wrong=_PW_WRONG, numpy_only=True, learner=fn,
                               atol=1e-9, rtol=1e-6,
                               general_hint="lengths[b] 之后的键是填充：它们的分数在 softmax 之前该变成什么？")
    out = buf.getvalue()
    # The cases are judged in order: the first case within tolerance whose padded columns are not exactly 0
    # comes before any later failure (results[:n_passed] are the returns of the cases that passed).
    k = _padded_columns_not_zero(results[:result.n_passed], cases)
    if k is None:
        print(out, end="")
        return result
    msg = f"{FAIL} {name}：第 {k + 1}/{len(cases)} 个用例（{cases[k].label}）：{_NOT_EXACT}。\n   提示（hint）：{_NOT_EXACT_HINT}"
    print(out.replace(result.message, msg), end="" if out.endswith("\n") else "\n")
    return CheckResult(name, False, len(cases), k, msg)

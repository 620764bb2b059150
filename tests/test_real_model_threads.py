"""2.13's forward pass runs BLAS on one thread (helpers.model.real_model.MiniLM.run): on a shared machine a
second BLAS thread made every small product wait for a core. Checked without the weights: the encoder is
replaced by a probe that reads the BLAS thread count while it runs."""

from pathlib import Path
from types import SimpleNamespace

import pytest
from threadpoolctl import ThreadpoolController, threadpool_info, threadpool_limits

import helpers.model.real_model as real_model


def _blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.mark.parametrize("threads", [None, "controller"])
def test_run_limits_blas_to_one_thread_and_restores_it(monkeypatch, threads):
    seen = []

    def probe(weights, ids, config, mask=None, after_layer=None):
        seen.append(_blas_threads())
        return "encoder output"

    monkeypatch.setattr(real_model, "encoder_forward", probe)
    tokenizer = SimpleNamespace(encode=lambda text: SimpleNamespace(tokens=["[CLS]", text, "[SEP]"], ids=[101, 7, 102]))
    model = real_model.MiniLM(weights={}, config=None, tokenizer=tokenizer, directory=Path("."),
                              threads=None if threads is None else ThreadpoolController())   # load_minilm passes one
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        tokens, out = model.run("hello")
        after = _blas_threads()
    assert tokens == ["[CLS]", "hello", "[SEP]"] and out == "encoder output"
    assert seen and all(n == 1 for n in seen[0]), seen
    assert after == before

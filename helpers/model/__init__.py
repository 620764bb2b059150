"""A real model (2.13): all-MiniLM-L6-v2 run by our own numpy encoder.

    cache.py         fetch the weights once, cache them, verify their SHA-256 (no numpy)
    download.py      one file over HTTP(S) with a progress line (what cache.py fetches with)
    browser.py       the browser edition: the weights from the site itself, in parts, verified (no numpy)
    wordpiece.py     the WordPiece tokenizer
    encoder.py       the Transformer encoder in numpy (2.11's heads, GELU, layer norm)
    real_model.py    load the verified weights (fetched on first use), run them, measure attention (``H.real_model``)
    explorer/        your own sentence: where one token looks in one head or all 72 (``H.explorer``)

Fetch the weights once (~84 MB download; nothing is installed)::

    python -m helpers.model fetch      # or: check | path
"""

"""One module per lesson's tools, beyond the core formula (notebooks: ``H.<module>.<name>``).

    2.1   contextual.py            static vs contextual embeddings of a toy vocabulary
    2.2   soft_lookup.py           hard vs soft dictionary lookup, its temperature and gradient
          gradcheck.py             finite differences against analytic derivatives (2.2, 2.5, 2.9)
    2.4   geometry.py              angles and cosines of 2-D vectors
          cost.py                  flop and byte counts (2.4, 2.7, 2.9)
    2.5   saturation/              softmax saturation: pure state, experiments, the explorer widget
    2.6   normalization.py         row-stochastic matrices, convex hulls
    2.7   shapes.py                the shape flow of the whole formula, parameter counts
    2.9   attention_properties.py  permutation equivariance, sensitivity, a toy RNN
    2.10  causal_view.py           the causal-mask slider (pure state + drawing)
"""

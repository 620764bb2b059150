"""What a learner sees and measures: figures, predictions, timings, the environment check.

    plotting.py      the projector-legible style, attention_heatmap, weights_bar
    predict.py       predict-then-run questions (predict_choice, predict_number, prediction_key)
    reveal.py        blind reveals: a reveal's output shows once its question is answered
    prediction_keys.py  the keys and explanations of every question, out of the notebooks' sight
    warmup.py        the retrieval warm-up that opens each lesson (recall_choice, recall_number)
    timing.py        single_blas_thread, best_time, median_time, peak_traced_mib (timing cells)
    environment.py   the environment report of 2.0
"""

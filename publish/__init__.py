"""Everything the series builds from its notebooks, behind one command: ``python -m publish``.

    python -m publish student OUT     the student edition (no solutions)            student.py
    python -m publish course DIR      the graded lab as an nbgrader course          course.py
    python -m publish web OUT         the web edition (static HTML, any device)     web.py, web_stills.py
    python -m publish lite OUT        the browser edition (JupyterLite + Pyodide)   lite.py
    python -m publish deck [N]        a live lecture deck (Voila)                   deck/
    python -m publish run [NB ...]    re-execute notebooks in place, reproducibly   run.py
    python -m publish link HUB REPO   a one-click nbgitpuller link for a JupyterHub link.py
    python -m publish constraints     constraints/lowest.txt from pyproject.toml    constraints.py
    python -m publish font            re-subset the decks' Chinese font             deck/font.py
    python -m publish minutes [NN]    each notebook's core-path minutes, by the rule minutes.py

:mod:`publish.notebooks` is what they share (the notebook list, cell tags, execution); templates
and configuration files are real files under ``templates/`` and ``share/``. A learner's kernel
never imports this package: ``helpers`` is the learner's.
"""

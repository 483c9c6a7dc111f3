"""The one build engine: ``python build.py``, ``check`` and the dev server all build through ``Engine``
and its keyed store; ``pipeline`` runs the stages in order.
"""

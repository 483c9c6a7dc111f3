"""The bottom layer: messages and their catalogs, ``Problem``, value classes and the one tolerance comparison,
the URL allowlist, provenances and their badge words, the atomic write. Imports nothing else of the project;
figures may import it too.
"""

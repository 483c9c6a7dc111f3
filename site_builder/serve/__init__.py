"""The front doors: the commands ``build.py`` calls, the dev server and its HTTP side, the lesson scaffold.
"""

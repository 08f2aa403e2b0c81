"""The students' own checker (``check.py`` in the release): ``build`` builds it from the
bundle's public checks and the engine code they use; ``runtime`` is its command line and
in-child runner."""

"""groundwire's version, written here once: pyproject.toml, `__version__` and headers read it."""

VERSION = "0.1.0"

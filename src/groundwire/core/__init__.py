"""Old home of the contract: the public paths that the docs use, kept as re-exports."""

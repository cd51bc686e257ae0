"""Lets `python -m groundwire.cli` run the command line, as the `groundwire` script does."""

from groundwire.cli import main

raise SystemExit(main())

"""A documented path, kept: everything of `groundwire.integrations.bigquery`."""

from groundwire.integrations.bigquery import *  # noqa: F403

"""A documented path, kept: everything of `groundwire.integrations.langchain.runnable`."""

from groundwire.integrations.langchain.runnable import *  # noqa: F403

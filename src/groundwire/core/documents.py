"""A documented path, kept: everything of `groundwire.integrations.langchain.documents`."""

from groundwire.integrations.langchain.documents import *  # noqa: F403

"""A documented path, kept: everything of `groundwire.client.interceptors`."""

from groundwire.client.interceptors import *  # noqa: F403

"""Bytes to messages and errors and back, with no I/O: HTTP/1.1, JSON streams, bodies."""

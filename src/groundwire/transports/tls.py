"""TLS settings for the REST transports: the system's by default, or roots and a client certificate.

`ssl` loads a certificate chain only from a file, so the client certificate passes through a
private temporary directory, removed once loaded.
"""

from __future__ import annotations

import functools
import ssl
import tempfile
from pathlib import Path


def client_ssl_context(
    root_certificates: bytes | None, client_certificate: tuple[bytes, bytes] | None
) -> ssl.SSLContext | None:
    """The TLS settings for these PEM roots and (chain, key) client certificate; None: the system's.

    Example:
        >>> client_ssl_context(None, None) is None
        True
    """
    if root_certificates is None and client_certificate is None:
        return None
    context = ssl.create_default_context(
        cadata=None if root_certificates is None else root_certificates.decode("ascii")
    )
    if client_certificate is not None:
        chain, key = client_certificate
        with tempfile.TemporaryDirectory(prefix="groundwire-tls-") as folder:
            chain_file, key_file = Path(folder, "chain.pem"), Path(folder, "key.pem")
            chain_file.write_bytes(chain)
            key_file.touch(mode=0o600)
            key_file.write_bytes(key)
            context.load_cert_chain(chain_file, key_file)
    return context


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """The system's certificate roots, hostname checks, HTTP/1.1 offered by ALPN.

    Example:
        >>> default_ssl_context().check_hostname
        True
    """
    context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])
    return context

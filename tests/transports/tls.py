"""Self-signed certificates and TLS servers on loopback, for tests of TLS, tokens and proxies."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

from tests.transports import servers

HOST_NAME = "grounding.test"
"""A name no resolver knows: only a proxy (which sends every name to loopback) reaches it."""


@dataclass
class Certificate:
    """A certificate for 127.0.0.1 and HOST_NAME, its key, and the files holding both."""

    pem: bytes
    key_pem: bytes
    cert_file: Path
    key_file: Path

    def client_context(self) -> ssl.SSLContext:
        """A client's TLS settings that trust this certificate alone."""
        return ssl.create_default_context(cadata=self.pem.decode())


def make_certificate(folder: Path) -> Certificate:
    """Makes a self-signed certificate with `cryptography` and writes it to `folder`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName(HOST_NAME)]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "cert.pem").write_bytes(pem)
    (folder / "key.pem").write_bytes(key_pem)
    return Certificate(pem, key_pem, folder / "cert.pem", folder / "key.pem")


def start_tls_rest_server(
    certificate: Certificate, *, require_client_certificate: bool = False
) -> servers.RestServer:
    """A RestServer speaking TLS with `certificate`, serving from a background thread.

    `require_client_certificate`: only clients presenting `certificate` too get through.
    """
    rest_server = servers.RestServer()
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(certificate.cert_file, certificate.key_file)
    if require_client_certificate:
        server_tls.verify_mode = ssl.CERT_REQUIRED
        server_tls.load_verify_locations(cadata=certificate.pem.decode())
    rest_server.socket = server_tls.wrap_socket(rest_server.socket, server_side=True)
    threading.Thread(
        target=rest_server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return rest_server

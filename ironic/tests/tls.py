"""A throw-away certificate authority for tests of the HTTPS API."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class TestPKI:
    ca: Path
    cert: Path
    key: Path
    client_cert: Path
    client_key: Path


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _sign(subject: str, key, issuer: str, issuer_key, ca: bool,
          names: list[x509.GeneralName]) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None),
                              critical=True))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names),
                                        critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _write(path: Path, cert=None, key=None) -> Path:
    if cert is not None:
        path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    else:
        path.write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
    return path


def make_pki(directory: Path) -> TestPKI:
    """A CA, a server certificate for 127.0.0.1 and localhost, and a
    client certificate, all written as PEM files under ``directory``."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _sign("test CA", ca_key, "test CA", ca_key, True, [])
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _sign("127.0.0.1", key, "test CA", ca_key, False, [
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.DNSName("localhost")])
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = _sign("client", client_key, "test CA", ca_key, False, [])
    return TestPKI(ca=_write(directory / "ca.pem", cert=ca),
                   cert=_write(directory / "server.pem", cert=cert),
                   key=_write(directory / "server.key", key=key),
                   client_cert=_write(directory / "client.pem", cert=client),
                   client_key=_write(directory / "client.key",
                                     key=client_key))

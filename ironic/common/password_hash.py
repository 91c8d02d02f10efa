"""SHA-crypt password hashes (``$5$`` SHA-256, ``$6$`` SHA-512).

The rescue ramdisk writes the rescue password into ``/etc/shadow``; the
conductor sends it hashed in that format so that the clear password never
travels to the node. The hashing is libpass's (the maintained fork of
passlib, imported as ``passlib``): the stdlib ``crypt`` module is gone
from newer Pythons.
"""

from __future__ import annotations

from passlib import hash as passlib_hash

#: glibc's default; with it the hash carries no ``rounds=`` field, as
#: ``crypt(3)`` writes it and every ``/etc/shadow`` reader expects.
DEFAULT_ROUNDS = 5000
_SALT_LENGTH = 16
_SCHEMES = {"sha256": passlib_hash.sha256_crypt,
            "sha512": passlib_hash.sha512_crypt}


def sha_crypt(password: str, algorithm: str = "sha256",
              salt: str | None = None, rounds: int = DEFAULT_ROUNDS) -> str:
    """The ``$5$salt$hash`` or ``$6$salt$hash`` of ``password`` (a random
    16-character salt unless ``salt`` is given; longer ones are cut to 16
    as crypt(3) does)."""
    scheme = _SCHEMES.get(algorithm)
    if scheme is None:
        raise ValueError(f"unsupported algorithm {algorithm!r}")
    settings: dict = {"rounds": rounds}
    if salt is not None:
        settings["salt"] = salt[:_SALT_LENGTH]
    return scheme.using(**settings).hash(password)

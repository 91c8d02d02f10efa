"""SHA-crypt password hashes (``$5$`` SHA-256, ``$6$`` SHA-512).

The rescue ramdisk writes the rescue password into ``/etc/shadow``; the
conductor sends it hashed in that format so that the clear password never
travels to the node. The algorithm is the public "Unix crypt using SHA-256
and SHA-512" specification (the ``crypt`` module that used to provide it
is gone from newer Pythons).
"""

from __future__ import annotations

import hashlib
import secrets

_ALPHABET = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
DEFAULT_ROUNDS = 5000
_SALT_LENGTH = 16

# Output byte order of the specification: groups of three digest bytes
# encoded as four characters, then what is left.
_ORDER = {
    "sha256": ([(0, 10, 20), (21, 1, 11), (12, 22, 2), (3, 13, 23),
                (24, 4, 14), (15, 25, 5), (6, 16, 26), (27, 7, 17),
                (18, 28, 8), (9, 19, 29)], (None, 31, 30), 3),
    "sha512": ([(0, 21, 42), (22, 43, 1), (44, 2, 23), (3, 24, 45),
                (25, 46, 4), (47, 5, 26), (6, 27, 48), (28, 49, 7),
                (50, 8, 29), (9, 30, 51), (31, 52, 10), (53, 11, 32),
                (12, 33, 54), (34, 55, 13), (56, 14, 35), (15, 36, 57),
                (37, 58, 16), (59, 17, 38), (18, 39, 60), (40, 61, 19),
                (62, 20, 41)], (None, None, 63), 2),
}
_PREFIX = {"sha256": "$5$", "sha512": "$6$"}


def _repeat(block: bytes, length: int) -> bytes:
    """``block`` repeated and cut to ``length`` bytes."""
    return (block * (length // len(block) + 1))[:length]


def _encode(b2: int, b1: int, b0: int, chars: int) -> str:
    value = (b2 << 16) | (b1 << 8) | b0
    out = []
    for _ in range(chars):
        out.append(_ALPHABET[value & 0x3F])
        value >>= 6
    return "".join(out)


def _digest(algorithm: str, password: bytes, salt: bytes,
            rounds: int) -> bytes:
    new = getattr(hashlib, algorithm)
    b = new(password + salt + password).digest()
    a = new(password + salt + _repeat(b, len(password)))
    length = len(password)
    while length:
        a.update(b if length & 1 else password)
        length >>= 1
    a_digest = a.digest()
    p = _repeat(new(password * len(password)).digest(), len(password))
    s = _repeat(new(salt * (16 + a_digest[0])).digest(), len(salt))
    c = a_digest
    for i in range(rounds):
        ctx = new(p if i & 1 else c)
        if i % 3:
            ctx.update(s)
        if i % 7:
            ctx.update(p)
        ctx.update(c if i & 1 else p)
        c = ctx.digest()
    return c


def sha_crypt(password: str, algorithm: str = "sha256",
              salt: str | None = None, rounds: int = DEFAULT_ROUNDS) -> str:
    """The ``$5$salt$hash`` or ``$6$salt$hash`` of ``password``."""
    if algorithm not in _ORDER:
        raise ValueError(f"unsupported algorithm {algorithm!r}")
    if salt is None:
        salt = "".join(secrets.choice(_ALPHABET)
                       for _ in range(_SALT_LENGTH))
    salt = salt[:_SALT_LENGTH]
    digest = _digest(algorithm, password.encode(), salt.encode(), rounds)
    groups, last, last_chars = _ORDER[algorithm]
    text = "".join(_encode(digest[x], digest[y], digest[z], 4)
                   for x, y, z in groups)
    text += _encode(*(0 if i is None else digest[i] for i in last),
                    last_chars)
    setting = "" if rounds == DEFAULT_ROUNDS else f"rounds={rounds}$"
    return f"{_PREFIX[algorithm]}{setting}{salt}${text}"

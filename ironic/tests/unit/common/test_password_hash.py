"""SHA-crypt hashes match the specification's vectors and the C library."""

from __future__ import annotations

import warnings

import pytest

from ironic.common import password_hash


@pytest.mark.parametrize("algorithm,expected", [
    ("sha256", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"),
    ("sha512", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uB"
               "nIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"),
])
def test_known_vectors(algorithm, expected):
    assert password_hash.sha_crypt("Hello world!", algorithm,
                                   "saltstring") == expected


def _libc_crypt():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt
        except ImportError:
            return None
    return crypt.crypt


@pytest.mark.parametrize("algorithm,prefix", [("sha256", "$5$"),
                                              ("sha512", "$6$")])
@pytest.mark.parametrize("password", ["", "a", "pässwörd", "x" * 100])
def test_same_as_the_c_library(algorithm, prefix, password):
    libc = _libc_crypt()
    if libc is None:
        pytest.skip("no crypt module in this Python")
    for salt, setting in (("0123456789abcdefXYZ", "0123456789abcdef"),
                          ("s", "s"), ("rounds", "rounds=1234$rounds")):
        rounds = 1234 if setting.startswith("rounds=") else 5000
        assert password_hash.sha_crypt(password, algorithm, salt, rounds) \
            == libc(password, prefix + setting)


def test_random_salt_differs_and_is_used():
    one = password_hash.sha_crypt("pw", "sha512")
    two = password_hash.sha_crypt("pw", "sha512")
    assert one != two and one.startswith("$6$") and len(one.split("$")) == 4
    salt = one.split("$")[2]
    assert password_hash.sha_crypt("pw", "sha512", salt) == one


def test_unknown_algorithm():
    with pytest.raises(ValueError):
        password_hash.sha_crypt("pw", "md5")

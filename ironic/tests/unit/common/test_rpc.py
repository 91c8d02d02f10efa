"""The ``none`` RPC transport and the version rule both transports share."""

import pytest

from ironic.common import exception, rpc


class _Endpoint:
    RPC_API_VERSION = "1.3"

    def echo(self, context, **kwargs):
        return {"context": context, "kwargs": kwargs}


@pytest.fixture
def local():
    rpc.register_local("here", _Endpoint())
    yield rpc.LocalTransport()
    rpc.unregister_local("here")


def test_call_goes_through_a_json_round_trip(local):
    out = local.call("here", "echo", {"user_id": "u"},
                     {"steps": ({"a": 1},)}, "1.0")
    assert out == {"context": {"user_id": "u"},
                   "kwargs": {"steps": [{"a": 1}]}}


def test_objects_cannot_travel(local):
    with pytest.raises(TypeError):
        local.call("here", "echo", {}, {"bad": object()}, "1.0")


def test_unknown_host_is_no_valid_host(local):
    with pytest.raises(exception.NoValidHost):
        local.call("elsewhere", "echo", {}, {}, "1.0")


@pytest.mark.parametrize("server,wanted,ok", [
    ("1.3", "1.0", True), ("1.3", "1.3", True), ("1.3", "1.4", False),
    ("2.0", "1.0", False)])
def test_version_rule(server, wanted, ok):
    if ok:
        rpc.check_version(server, wanted)
    else:
        with pytest.raises(exception.IronicException):
            rpc.check_version(server, wanted)


def test_newer_call_refused_by_local_transport(local):
    with pytest.raises(exception.IronicException):
        local.call("here", "echo", {}, {}, "1.4")

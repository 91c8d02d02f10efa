"""While the database or the message bus is away the API answers 503 with
the API error body: never a 500, never a hang."""

import json

import oslo_messaging
import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.api.middleware import errors
from ironic.common import exception, rpc
from ironic.tests.fixtures import error_message


@pytest.mark.parametrize("error,what", [
    (db_exc.DBConnectionError("gone"), "database"),
    (sa.exc.OperationalError("SELECT 1", {}, Exception("2013 lost")),
     "database"),
    (db_exc.DBError(sa.exc.OperationalError("x", {}, Exception("y"))),
     "database"),
    (sa.exc.TimeoutError("QueuePool limit reached"), "database"),
    (oslo_messaging.MessageDeliveryFailure("broker away"), "message bus"),
    (oslo_messaging.MessagingTimeout("no reply"), "message bus"),
    (oslo_messaging.RemoteError("KeyError", "x"), None),
    (sa.exc.IntegrityError("INSERT", {}, Exception("dup")), None),
    (ValueError("a bug"), None),
])
def test_which_errors_are_outages(error, what):
    assert errors.dependency_outage(error) == what


class _DeadDatabase:
    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise db_exc.DBConnectionError("connection refused")
        return fail


def _is_503(resp):
    assert resp.status_int == 503, resp.body
    inner = json.loads(resp.json["error_message"])
    assert inner["faultcode"] == "Server"
    return error_message(resp)


def test_database_away_is_503(api, monkeypatch):
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    from ironic import hash_ring
    from ironic.db import api as db_api
    hash_ring.reset()
    monkeypatch.setattr(db_api, "get_instance", lambda: _DeadDatabase())
    assert "database is unavailable" in _is_503(api.get("/v1/nodes"))
    assert "database" in _is_503(api.get(f"/v1/nodes/{node['uuid']}"))
    _is_503(api.put(f"/v1/nodes/{node['uuid']}/states/provision",
                    {"target": "manage"}))
    monkeypatch.undo()
    assert api.get("/v1/nodes").status_int == 200


class _DeadBus(rpc.Transport):
    def call(self, host, method, context, kwargs, version, timeout=None):
        raise oslo_messaging.MessageDeliveryFailure(
            "Unable to connect to AMQP server after 1 tries")

    def cast(self, *args, **kwargs):
        self.call(*args, **kwargs)


def test_message_bus_away_is_503(api, monkeypatch):
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    monkeypatch.setattr(rpc, "_TRANSPORT", _DeadBus())
    message = _is_503(api.put(f"/v1/nodes/{node['uuid']}/states/provision",
                              {"target": "manage"}))
    assert "message bus is unavailable" in message
    # Reads need no bus.
    assert api.get(f"/v1/nodes/{node['uuid']}").status_int == 200


def test_a_conductor_found_dead_is_503():
    e = exception.ConductorUnreachable(host="c1", seconds=3)
    assert e.code == 503 and e.safe

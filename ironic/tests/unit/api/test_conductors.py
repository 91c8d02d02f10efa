"""/v1/conductors."""

import datetime

import pytest
import sqlalchemy as sa

from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import models
from ironic.objects.conductor import Conductor
from ironic.tests import fixtures as ifx


@pytest.fixture
def api49(api_without_conductor, monkeypatch):
    api = api_without_conductor
    api.version = "1.49"
    Conductor.register("beta", "", ["fake-hardware"])
    Conductor.register("alpha", "rack1", ["fake-hardware", "ipmi"])
    return api


def test_list_default_fields(api49):
    resp = api49.get("/v1/conductors")
    assert resp.status_int == 200
    items = resp.json["conductors"]
    assert [c["hostname"] for c in items] == ["beta", "alpha"]
    assert set(items[0]) == {"hostname", "conductor_group", "alive",
                             "links"}
    assert items[1]["conductor_group"] == "rack1"
    assert all(c["alive"] for c in items)


def test_list_detail_sort_and_page(api49):
    resp = api49.get("/v1/conductors?detail=True&sort_key=hostname&limit=1")
    doc = resp.json
    assert [c["hostname"] for c in doc["conductors"]] == ["alpha"]
    assert doc["conductors"][0]["drivers"] == ["fake-hardware", "ipmi"]
    assert "marker=alpha" in doc["next"]
    nxt = api49.get("/v1/conductors?sort_key=hostname&limit=1"
                    "&marker=alpha").json
    assert [c["hostname"] for c in nxt["conductors"]] == ["beta"]


def test_show_and_dead_conductor(api49):
    old = datetime.datetime(2020, 1, 1)
    with sqla_api._writer() as s:
        s.execute(sa.update(models.Conductor).where(
            models.Conductor.hostname == "beta").values(updated_at=old))
    doc = api49.get("/v1/conductors/beta").json
    assert doc["alive"] is False
    assert doc["updated_at"].startswith("2020-01-01T00:00:00")
    assert doc["links"][0]["href"].endswith("/v1/conductors/beta")
    # Ironic 39 links the conductor whatever fields names.
    shown = api49.get("/v1/conductors/alpha?fields=hostname").json
    assert set(shown) == {"hostname", "links"}
    listed = api49.get("/v1/conductors?fields=").json["conductors"]
    assert [set(c) for c in listed] == [{"links"}] * 2


@pytest.mark.parametrize("url,status", [
    ("/v1/conductors/nope", 404),
    ("/v1/conductors?sort_key=drivers", 400),
    ("/v1/conductors?bogus=1", 400),
    ("/v1/conductors?fields=nope", 400),
    ("/v1/conductors?detail=maybe", 400),
    ("/v1/conductors?marker=unknown", 404),
])
def test_bad_requests(api49, url, status):
    resp = api49.get(url)
    assert resp.status_int == status
    assert ifx.error_message(resp)


def test_not_there_before_1_49(api49):
    assert api49.get("/v1/conductors", version="1.48").status_int == 404

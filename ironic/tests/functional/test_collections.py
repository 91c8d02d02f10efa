"""Paging: the clients follow ``next`` links of a service with a small limit.

This module runs its own service (an empty database, ``[api]max_limit = 3``)
so that it can compare whole collections exactly.
"""

from __future__ import annotations

import urllib.parse

import pytest

from ironic.tests.functional import conftest
from ironic.tests.functional import service as svc

NODES = 7
PORTS = 5


@pytest.fixture(scope="module")
def paged_service(tmp_path_factory):
    yield from conftest.run_service(tmp_path_factory, "aio-paged",
                                    api={"max_limit": "3"})


@pytest.fixture(scope="module")
def paged(paged_service):
    """The SDK connection, and the nodes and ports created through it."""
    conn = conftest.sdk_connection(paged_service.endpoint)
    nodes = [conn.baremetal.create_node(driver="fake-hardware",
                                        name=f"col-{i}")
             for i in range(NODES)]
    ports = [conn.baremetal.create_port(node_id=nodes[0].id,
                                        address=f"52:56:00:00:00:{i:02x}")
             for i in range(PORTS)]
    yield conn, nodes, ports
    conn.close()


def test_api_caps_a_page_and_links_the_next(paged_service, paged):
    _, nodes, _ = paged
    doc = svc.get_json(paged_service.endpoint + "/v1/nodes")
    assert [n["uuid"] for n in doc["nodes"]] == [n.id for n in nodes[:3]]
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(doc["next"]).query)
    assert query["limit"] == ["3"]
    assert query["marker"] == [nodes[2].id]


def test_sdk_lists_every_page(paged):
    conn, nodes, ports = paged
    assert [n.id for n in conn.baremetal.nodes()] == [n.id for n in nodes]
    assert [n.id for n in conn.baremetal.nodes(details=True, limit=2)] == [
        n.id for n in nodes]
    assert sorted(p.address for p in conn.baremetal.ports()) == sorted(
        p.address for p in ports)


def test_cli_paging_and_sorting(paged_service, paged):
    _, nodes, _ = paged
    cli = svc.Cli(paged_service.endpoint)
    # Without --limit the CLI shows what the API returns in one page.
    first = cli.json("node", "list")
    assert [n["uuid"] for n in first] == [n.id for n in nodes[:3]]
    # --limit 0 follows the next links to the end.
    every = cli.json("node", "list", "--limit", "0", "--sort", "name:desc")
    assert [n["name"] for n in every] == [f"col-{i}"
                                          for i in reversed(range(NODES))]
    after = cli.json("node", "list", "--limit", "2", "--marker", nodes[4].id)
    assert [n["uuid"] for n in after] == [nodes[5].id, nodes[6].id]

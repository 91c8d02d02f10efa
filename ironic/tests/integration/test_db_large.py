"""Large JSON documents fit on every backend (a configdrive in
instance_info is often megabytes)."""

import pytest

from ironic.db import api as db_api

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("field", ["instance_info", "driver_internal_info"])
def test_megabyte_documents_round_trip(backend_db, field):
    db = db_api.get_instance()
    big = {"configdrive": "x" * (3 * 1024 * 1024)}
    node = db.create_node({"driver": "fake-hardware", field: big})
    assert getattr(db.get_node_by_id(node.id), field) == big
    db.update_node(node.id, {field: {**big, "more": "y" * 1024}})
    assert len(getattr(db.get_node_by_id(node.id), field)["more"]) == 1024

"""Runbooks (API 1.92) and their description and traits (1.112)."""

STEP = {"interface": "bios", "step": "apply_configuration",
        "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
        "order": 1}


def _create(api, version=None, **kw):
    body = {"name": "CUSTOM_FIX_BIOS", "steps": [STEP], **kw}
    return api.post("/v1/runbooks", body, version=version)


def test_gated_at_1_92(api_newest):
    assert api_newest.get("/v1/runbooks", version="1.91").status_int == 404
    assert "runbooks" in api_newest.get("/v1").json


def test_crud(api_newest):
    api = api_newest
    resp = _create(api, owner="p1", public=True, description="fix it")
    assert resp.status_int == 201, resp.body
    rb = resp.json
    assert rb["steps"] == [STEP] and rb["owner"] == "p1"
    assert rb["public"] is True and rb["disable_ramdisk"] is False
    assert rb["traits"] == [] and rb["description"] == "fix it"
    listed = api.get("/v1/runbooks").json["runbooks"]
    assert listed == [{"uuid": rb["uuid"], "name": rb["name"],
                       "links": rb["links"]}]
    assert api.get("/v1/runbooks?public=false").json["runbooks"] == []
    assert api.get("/v1/runbooks?project=p1").json["runbooks"]
    assert api.get("/v1/runbooks/CUSTOM_FIX_BIOS").json["uuid"] == \
        rb["uuid"]
    resp = api.patch(f"/v1/runbooks/{rb['uuid']}", [
        {"op": "replace", "path": "/disable_ramdisk", "value": True},
        {"op": "replace", "path": "/steps/0/order", "value": 5}])
    assert resp.status_int == 200, resp.body
    assert resp.json["disable_ramdisk"] is True
    assert resp.json["steps"][0]["order"] == 5
    assert api.delete("/v1/runbooks/CUSTOM_FIX_BIOS").status_int == 204
    assert api.get(f"/v1/runbooks/{rb['uuid']}").status_int == 404


def test_validation_and_versions(api_newest):
    api = api_newest
    # A name must be a trait before 1.112, any unreserved string after.
    assert _create(api, name="lower", version="1.111").status_int == 400
    assert _create(api, name="has space").status_int == 400
    assert _create(api, name="has/slash").status_int == 400
    named = _create(api, name="fix.bios_v2~a-b")
    assert named.status_int == 201, named.body
    assert api.get("/v1/runbooks/fix.bios_v2~a-b").json["uuid"] == \
        named.json["uuid"]
    assert _create(api, steps=[dict(STEP, order=-1)]).status_int == 400
    assert _create(api, steps=[STEP, dict(STEP, step="x")]).status_int == \
        400  # two steps with the same order
    assert _create(api, description="d",
                   version="1.111").status_int == 406
    resp = _create(api, version="1.92")
    assert resp.status_int == 201
    assert "traits" not in resp.json and "description" not in resp.json
    assert _create(api).status_int == 409


def test_traits(api_newest):
    api = api_newest
    rb = _create(api).json
    url = f"/v1/runbooks/{rb['uuid']}/traits"
    assert api.put(f"{url}/CUSTOM_A").status_int == 204
    assert api.put(f"{url}/CUSTOM_A").status_int == 204
    assert api.get(url).json == {"traits": ["CUSTOM_A"]}
    assert api.put(url, {"traits": ["CUSTOM_B", "CUSTOM_C"]}
                   ).status_int == 204
    assert api.get(f"/v1/runbooks/{rb['uuid']}").json["traits"] == [
        "CUSTOM_B", "CUSTOM_C"]
    assert api.put(f"{url}/bad").status_int == 400
    assert api.delete(f"{url}/CUSTOM_B").status_int == 204
    assert api.delete(f"{url}/CUSTOM_NONE").status_int == 204
    assert api.get(url).json == {"traits": ["CUSTOM_C"]}
    assert api.delete(url).status_int == 204
    assert api.get(url).json == {"traits": []}
    assert api.get(url, version="1.111").status_int == 404

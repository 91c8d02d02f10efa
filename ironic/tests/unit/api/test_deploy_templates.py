"""Deploy templates (API 1.55)."""

STEP = {"interface": "bios", "step": "apply_configuration",
        "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
        "priority": 150}


def _create(api, **kw):
    body = {"name": "CUSTOM_HYPERTHREADING_ON", "steps": [STEP], **kw}
    return api.post("/v1/deploy_templates", body)


def test_gated_at_1_55(api_newest):
    resp = api_newest.get("/v1/deploy_templates", version="1.54")
    assert resp.status_int == 404
    assert "deploy_templates" in api_newest.get("/v1").json


def test_crud(api_newest):
    api = api_newest
    resp = _create(api, extra={"a": 1})
    assert resp.status_int == 201, resp.body
    tpl = resp.json
    assert tpl["steps"] == [STEP] and tpl["extra"] == {"a": 1}
    assert resp.headers["Location"].endswith(tpl["uuid"])
    listed = api.get("/v1/deploy_templates").json["deploy_templates"]
    assert listed == [{"uuid": tpl["uuid"], "name": tpl["name"],
                       "links": tpl["links"]}]
    detail = api.get("/v1/deploy_templates?detail=true").json
    assert detail["deploy_templates"][0]["steps"] == [STEP]
    by_name = api.get("/v1/deploy_templates/CUSTOM_HYPERTHREADING_ON").json
    assert by_name["uuid"] == tpl["uuid"]
    resp = api.patch(f"/v1/deploy_templates/{tpl['uuid']}", [
        {"op": "replace", "path": "/name", "value": "CUSTOM_HT_OFF"},
        {"op": "replace", "path": "/steps/0/priority", "value": 10}])
    assert resp.status_int == 200, resp.body
    assert resp.json["name"] == "CUSTOM_HT_OFF"
    assert resp.json["steps"][0]["priority"] == 10
    assert api.delete("/v1/deploy_templates/CUSTOM_HT_OFF").status_int == \
        204
    assert api.get(f"/v1/deploy_templates/{tpl['uuid']}").status_int == 404


def test_validation(api_newest):
    api = api_newest
    assert _create(api, name="not-a-trait").status_int == 400
    assert _create(api, steps=[]).status_int == 400
    # The reference takes vendor steps, not network ones.
    assert _create(api, steps=[dict(STEP, interface="network")]
                   ).status_int == 400
    assert _create(api, steps=[dict(STEP, priority=-1)]).status_int == 400
    assert _create(api, steps=[STEP, dict(STEP, priority=1)]
                   ).status_int == 400
    assert _create(api, bogus=1).status_int == 400
    assert _create(api).status_int == 201
    assert _create(api).status_int == 409
    tpl = api.get("/v1/deploy_templates").json["deploy_templates"][0]
    resp = api.patch(f"/v1/deploy_templates/{tpl['uuid']}", [
        {"op": "remove", "path": "/steps"}])
    assert resp.status_int == 400
    resp = api.patch(f"/v1/deploy_templates/{tpl['uuid']}", [
        {"op": "replace", "path": "/uuid", "value": tpl["uuid"]}])
    assert resp.status_int == 400
    assert api.get("/v1/deploy_templates?sort_key=steps").status_int == 400

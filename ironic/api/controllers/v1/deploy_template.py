"""/v1/deploy_templates (1.55): named sets of deploy steps.

A template whose name matches one of a node's traits adds its steps to
that node's deployment; the conductor applies them. Here they are stored,
validated and served.
"""

from __future__ import annotations

from typing import Any

from ironic.api import features, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    node_sub,
    step_records,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.objects import records
from ironic.objects.records import DEPLOY_TEMPLATES

_FIELDS = ("uuid", "name", "steps", "extra", "created_at", "updated_at",
           "links")
SCHEMA = schemas.body(records.DEPLOY_TEMPLATE_FIELDS,
                      required=["name", "steps"])


def _validate(doc: dict, what: str = "template") -> dict:
    api_utils.validate(SCHEMA, doc, what)
    node_sub.validate_trait(doc["name"], what)
    step_records.check_unique(
        ((s["interface"], s["step"]) for s in doc["steps"]),
        lambda key: f"Duplicate deploy step {key[0]}.{key[1]} in template "
                    f"{doc['name']}.")
    return step_records.values_of(doc)


def _update(obj: Any, patch: list, ver: int) -> Any:
    values = _validate(step_records.patched(obj, patch,
                                            ("name", "steps", "extra")),
                       "patch")
    return step_records.save_changes(DEPLOY_TEMPLATES, obj, values)


_IDENT = ("template_ident", descriptor.UUID_OR_NAME)

SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first, in these words.
    ident_forms=dict.fromkeys(("get", "update", "delete"), _IDENT),
    singular="deploy template", collection="deploy_templates",
    body_title="template",
    api_fields={name: features.DEPLOY_TEMPLATES for name in _FIELDS},
    default_fields=("uuid", "name", "links"),
    bounds=descriptor.Bounds(
        features.DEPLOY_TEMPLATES, write_too_old=405, plain_refusal=True,
        too_old_message="The API version does not allow deploy templates"),
    sort_keys=frozenset({"id", "uuid", "name", "created_at",
                         "updated_at"}),
    render=lambda rows, fields: step_records.render(
        "deploy_templates", rows, fields),
    create=lambda body, ver: DEPLOY_TEMPLATES.save(_validate(body)),
    update=_update,
    **step_records.spec_hooks(step_records.Kind(
        "deploy_template", DEPLOY_TEMPLATES, "a template")))

DeployTemplatesController = collection.controller(
    SPEC, "DeployTemplatesController")

"""The InspectionRule object: conditions on inspection data and actions
(API 1.96)."""

from __future__ import annotations

from ironic.common import exception
from ironic.db import api as db_api
from ironic.objects.base import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    WRITE,
    Field,
    IronicObject,
    timestamps,
    uuid_field,
)

#: Phases in which rules run; inspection data processing is 'main'.
PHASES = ("main",)


class InspectionRule(IronicObject, db_name="inspection_rule",
                     table="InspectionRule"):
    # What a condition and an action may say is the rules engine's to
    # check (ironic.inspection_rules.validation): it knows the plugins.
    fields = {
        "uuid": uuid_field(96, "Unique UUID of the rule."),
        "description": Field(96, max_length=255, write=WRITE,
                             doc="What the rule is for."),
        # Built-in rules (not stored) may also run before or after.
        "priority": Field(96, type=INTEGER, nullable=False, default=0,
                          write=WRITE, body_null=False,
                          schema={"minimum": 0},
                          doc="Rules with a higher priority run first."),
        "sensitive": Field(96, type=BOOLEAN, nullable=False, default=False,
                           write=WRITE,
                           doc="Hide conditions and actions from the API "
                               "and the logs."),
        "phase": Field(96, nullable=False, default="main", max_length=16,
                       write=WRITE,
                       doc="Inspection phase in which the rule runs."),
        "conditions": Field(96, type=ARRAY, nullable=False, default=[],
                            write=WRITE,
                            doc="Checks that must all hold for the actions "
                                "to run."),
        "actions": Field(96, type=ARRAY, nullable=False, default=[],
                         write=WRITE, body_null=False,
                         doc="What to do when they hold."),
        **timestamps(96),
    }

    _not_found = exception.InspectionRuleNotFound
    _not_found_arg = "rule"

    @classmethod
    def list_for_phase(cls, phase: str) -> list[InspectionRule]:
        """The stored rules of ``phase``, highest priority first."""
        rows = db_api.get_instance().get_inspection_rules_for_phase(phase)
        return [cls.from_db(r) for r in rows]

    def as_rule(self) -> dict:
        """The plain document the rules engine works on."""
        return {"uuid": self.uuid, "priority": self.priority,
                "description": self.description,
                "sensitive": bool(self.sensitive), "phase": self.phase,
                "conditions": list(self.conditions or []),
                "actions": list(self.actions or []), "built_in": False}

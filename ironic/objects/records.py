"""Resources kept as plain rows: deploy templates and runbooks.

They have no behaviour of their own beyond validation, which the API does;
the API reads and writes their rows as the database returns them, through
a ``Records`` store here (the one door to ``ironic.db``). Runbooks also
carry traits.
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic.db import api as db_api
from ironic.db.sqlalchemy import tables


class Records:
    """Get, list, save and destroy the rows of one resource."""

    def __init__(self, name: str, table: str) -> None:
        #: The resource's name in the db API (``get_<name>``...).
        self.name = name
        self.table = table

    def _call(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        return getattr(db_api.get_instance(), verb % self.name)(
            *args, **kwargs)

    def get(self, ident: str, *, by_name: bool = False) -> Any:
        """The row with this UUID (or name); NotFound when none."""
        return self._call("get_%s", ident, by_name=by_name)

    def list(self, criteria: Iterable[tuple[str, Any]] = (),
             **page: Any) -> list:
        """A page of rows meeting the ``(column, value)`` criteria."""
        return self._call("get_%s_list",
                          tables.conditions(self.table, criteria), **page)

    def save(self, values: dict, record_id: int | None = None) -> Any:
        """Create a row (no ``record_id``) or update one; the row saved."""
        return self._call("save_%s", values, record_id)

    def destroy(self, record_id: int) -> None:
        self._call("destroy_%s", record_id)


DEPLOY_TEMPLATES = Records("deploy_template", "DeployTemplate")


def deploy_templates_named(names: Iterable[str]) -> list[Any]:
    """The deploy templates whose names are among ``names`` (a node's
    instance traits), in one query."""
    return db_api.get_instance().get_deploy_templates_by_names(names)
RUNBOOKS = Records("runbook", "Runbook")


def runbook_traits(runbook_ids: Iterable[int]) -> dict[int, list[str]]:
    """{runbook id: its traits} for these runbooks."""
    return db_api.get_instance().get_runbook_traits(list(runbook_ids))


def set_runbook_traits(runbook_id: int, traits: Iterable[str], *,
                       replace: bool = True) -> None:
    """Make ``traits`` the runbook's traits (or add them: replace=False)."""
    db_api.get_instance().set_runbook_traits(runbook_id, traits,
                                             replace=replace)


def delete_runbook_trait(runbook_id: int, trait: str) -> None:
    """Remove one trait of the runbook (nothing when it lacks it)."""
    db_api.get_instance().delete_runbook_trait(runbook_id, trait)


class VolumeRecords:
    """Volume connectors or targets: rows of a node, by UUID."""

    def __init__(self, kind: str, table: str) -> None:
        #: "volume_connector" or "volume_target", as the db API names it.
        self.kind = kind
        self.table = table

    def get(self, uuid: str) -> Any:
        return db_api.get_instance().get_volume(self.kind, uuid)

    def list(self, criteria: Iterable[tuple[str, Any]] = (),
             **page: Any) -> list:
        """A page of rows meeting the criteria (see ``tables``)."""
        return db_api.get_instance().get_volume_list(
            self.kind, tables.conditions(self.table, criteria), **page)

    def create(self, values: dict) -> Any:
        return db_api.get_instance().create_volume(self.kind, values)

    def update(self, record_id: int, values: dict) -> Any:
        return db_api.get_instance().update_volume(self.kind, record_id,
                                                   values)

    def destroy(self, record_id: int) -> None:
        db_api.get_instance().destroy_volume(self.kind, record_id)


VOLUME_CONNECTORS = VolumeRecords("volume_connector", "VolumeConnector")
VOLUME_TARGETS = VolumeRecords("volume_target", "VolumeTarget")

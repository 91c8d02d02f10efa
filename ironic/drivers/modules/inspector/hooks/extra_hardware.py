"""``extra-hardware``: the ``hardware-detect`` records of the ramdisk's
``extra-hardware`` collector, made usable by inspection rules.

The collector posts ``data``, a list of ``[category, item, key, value]``
records. They become ``extra``, nested dictionaries
(``extra[category][item][key] = value``, numbers as integers), and ``data``
is dropped. Data in another shape is left alone (and dropped when
``[inspector]extra_hardware_strict`` is set, which also refuses records
that are not exactly four long).
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)

RECORD_LENGTH = 4


def _well_formed(data: Any, strict: bool) -> bool:
    return isinstance(data, list) and all(
        isinstance(rec, list)
        and (len(rec) == RECORD_LENGTH if strict else True)
        for rec in data)


def _number_or_text(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def nest(data: list, node_uuid: str) -> dict:
    """``[category, item, key, value]`` records as nested dictionaries."""
    extra: dict = {}
    for rec in data:
        if not rec:
            continue
        if len(rec) < RECORD_LENGTH or not all(
                isinstance(part, (str, int)) for part in rec[:3]):
            LOG.warning("Node %s: skipping extra hardware record %r",
                        node_uuid, rec)
            continue
        category, item, key, value = rec[:RECORD_LENGTH]
        extra.setdefault(category, {}).setdefault(item, {})[key] = \
            _number_or_text(value)
    return extra


class ExtraHardwareHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        uuid = task.node.uuid
        if "data" not in plugin_data:
            LOG.warning("Node %s: no extra hardware data (is the "
                        "extra-hardware collector enabled?)", uuid)
            return
        strict = CONF.inspector.extra_hardware_strict
        data = plugin_data["data"]
        if not _well_formed(data, strict):
            LOG.warning("Node %s: extra hardware data is not a list of "
                        "records; not converted", uuid)
            if strict:
                del plugin_data["data"]
            return
        plugin_data["extra"] = nest(data, uuid)
        del plugin_data["data"]

"""Attaching and detaching virtual media (``/v1/nodes/{node}/vmedia``).

The request is checked while the caller waits (the management interface
must support virtual media and validate for the node); the BMC work runs
in a worker, and its failure lands in the node's ``last_error``.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception
from ironic.conductor import utils
from ironic.drivers import base
from ironic.task import Task

LOG = logging.getLogger(__name__)


def _supporting(task: Task, action: str) -> Any:
    """The management interface, validated; 400 when it cannot do
    ``action`` (one of the ``*_virtual_media`` methods)."""
    mgmt = utils.interface(task, "management")
    if getattr(type(mgmt), action) is getattr(base.ManagementInterface,
                                              action):
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension=action)
    mgmt.validate(task)
    return mgmt


def validate(task: Task, action: str) -> None:
    """400 when the node's management interface cannot do ``action``
    (``attach_virtual_media`` or ``detach_virtual_media``)."""
    _supporting(task, action)
    task.node.last_error = None
    task.node.save()


def get(task: Task) -> list[dict]:
    """What the node's virtual drives hold now, asked of the BMC while the
    caller waits (API 1.93)."""
    return _supporting(task, "get_virtual_media").get_virtual_media(task)


def attach(task: Task, device_type: str, image_url: str) -> None:
    """Worker body: insert the image."""
    try:
        task.driver.management.attach_virtual_media(task, device_type,
                                                    image_url)
    except Exception as e:  # noqa: BLE001 - reported through last_error
        _failed(task, f"Failed to attach virtual media {image_url} as "
                      f"{device_type}: {e}")
        return
    task.node.save()
    LOG.info("Node %s: %s attached as virtual %s", task.node.uuid,
             image_url, device_type)


def detach(task: Task, device_types: list[str] | None) -> None:
    """Worker body: eject the media."""
    try:
        task.driver.management.detach_virtual_media(task, device_types)
    except Exception as e:  # noqa: BLE001 - reported through last_error
        _failed(task, f"Failed to detach virtual media "
                      f"{', '.join(device_types or ['(all)'])}: {e}")
        return
    task.node.save()
    LOG.info("Node %s: virtual media %s detached", task.node.uuid,
             ", ".join(device_types or ["(all)"]))


def _failed(task: Task, message: str) -> None:
    LOG.error("Node %s: %s", task.node.uuid, message)
    task.node.last_error = message
    task.node.save()
    utils.record_history(task, message, event_type="management")

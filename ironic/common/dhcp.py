"""The DHCP seam: telling a DHCP server how a node's NICs boot.

Network boot needs the DHCP server to answer a node's NICs with a boot
file (and the TFTP server) while the node boots a ramdisk or a network
booted instance. Which server that is depends on the deployment, so
providers are plugins under the ``ironic.dhcp`` entry points, chosen by
``[dhcp]dhcp_provider``:

* ``none``: the DHCP server is configured by other means (static host
  entries, ``ironic-pxe-filter``...); nothing is updated.
* anything else is loaded from the entry points. A provider gets the
  options as a list of ``{"opt_name", "opt_value", "ip_version"}``, with
  the option names Neutron's extra DHCP options use (``67`` boot file,
  ``66``/``150``/``server-ip-address`` TFTP server, a ``tag:ipxe,`` or
  ``tag:!ipxe,`` prefix when the answer differs for iPXE clients).
"""

from __future__ import annotations

import abc
import threading
from typing import Any, Protocol

import stevedore
import stevedore.exception

from ironic.common import exception
from ironic.conf import CONF

NAMESPACE = "ironic.dhcp"


class TaskNICs(Protocol):
    """The part of a task a provider reads: the node and its ports.

    Declared here, not as the drivers' ``Task``, so that common stays a
    leaf: a provider needs nothing else of the task.
    """

    @property
    def node(self) -> Any: ...

    @property
    def ports(self) -> list: ...


class DHCPProvider(abc.ABC):
    """What a DHCP provider plugin implements."""

    @abc.abstractmethod
    def update_dhcp(self, task: TaskNICs, options: list[dict]) -> None:
        """Answer the node's boot NICs (``task.ports``) with ``options``."""

    @abc.abstractmethod
    def clean_dhcp(self, task: TaskNICs) -> None:
        """Stop answering the node's NICs with boot options."""


class NoDHCP(DHCPProvider):
    """``none``: the DHCP server is managed outside the service."""

    def update_dhcp(self, task: TaskNICs, options: list[dict]) -> None:
        return None

    def clean_dhcp(self, task: TaskNICs) -> None:
        return None


_PROVIDERS: dict[str, DHCPProvider] = {}
_LOCK = threading.Lock()


def provider() -> DHCPProvider:
    """The configured provider; InvalidParameterValue naming the option
    when it cannot be loaded (a node cannot be network booted then)."""
    name = CONF.dhcp.dhcp_provider or "none"
    with _LOCK:
        if name not in _PROVIDERS:
            _PROVIDERS[name] = _load(name)
        return _PROVIDERS[name]


def _load(name: str) -> DHCPProvider:
    try:
        mgr = stevedore.DriverManager(NAMESPACE, name, invoke_on_load=True)
    except (stevedore.exception.NoMatches, ImportError) as e:
        raise exception.InvalidParameterValue(
            err=f"[dhcp]dhcp_provider {name!r} is not available (no "
                f"'{NAMESPACE}' entry point can be loaded: {e}); set it to "
                f"'none' when the DHCP server is configured by other "
                f"means.") from e
    if not isinstance(mgr.driver, DHCPProvider):
        raise exception.InvalidParameterValue(
            err=f"The '{NAMESPACE}' entry point {name!r} is not a DHCP "
                f"provider.")
    return mgr.driver


def reset() -> None:
    """Forget loaded providers (configuration changed; tests)."""
    with _LOCK:
        _PROVIDERS.clear()

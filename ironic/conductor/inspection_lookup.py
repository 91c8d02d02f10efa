"""Which node does inspection data belong to?

The ramdisk knows the MACs and the BMC address of the machine it runs on,
and sometimes the node UUID. The node must be one and only one, and it must
be waiting for inspection data (``inspect wait``); anything else is
answered with the same NotFound so a caller learns nothing about nodes.

BMC addresses are matched against ``lookup_bmc_addresses``, which the
``agent`` inspect interface records in ``driver_internal_info`` when it
starts inspection (the node's ``*_address`` driver_info values, resolved).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import urllib.parse
from typing import Any, Iterable

from ironic.common import exception, states, utils
from ironic.objects import node as node_obj
from ironic.objects.node import Node
from ironic.objects.port import Port

LOG = logging.getLogger(__name__)

BMC_KEY = "lookup_bmc_addresses"


class LookupFailed(exception.NotFound):
    _msg_fmt = "The inspection data does not match a node waiting for it."


class NoMatch(LookupFailed):
    """No node at all has these MAC (or, waiting, BMC) addresses: an
    unknown machine, which auto-discovery may enroll. Answered like any
    other failed lookup when it does not."""


def _host_of(value: str) -> str | None:
    value = value.strip()
    if "://" in value:
        return urllib.parse.urlsplit(value).hostname
    if value.startswith("[") and "]" in value:
        return value[1:value.index("]")]
    if value.count(":") == 1:  # host:port
        return value.split(":")[0]
    return value or None


def _normalize_ip(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.split("%")[0]))
    except ValueError:
        return None


def bmc_addresses(driver_info: dict, resolve: bool = True) -> list[str]:
    """IP addresses of the BMC named in ``driver_info`` (``*_address``)."""
    found: list[str] = []
    for key, value in sorted((driver_info or {}).items()):
        if not key.endswith("_address") or not isinstance(value, str):
            continue
        host = _host_of(value)
        if not host:
            continue
        ip = _normalize_ip(host)
        if ip is None and resolve:
            try:
                infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
            except OSError as e:
                LOG.warning("Cannot resolve BMC address %s: %s", host, e)
                continue
            ips = [_normalize_ip(str(info[4][0])) for info in infos]
            found.extend(i for i in ips if i and i not in found)
        elif ip and ip not in found:
            found.append(ip)
    return found


def _nodes_by_macs(macs: Iterable[str]) -> set[int]:
    macs = [utils.normalize_mac(m) for m in macs]
    if not macs:
        return set()
    return Port.node_ids_with_addresses(macs)


def _waiting_nodes() -> list[dict]:
    return node_obj.list_rows([("provision_state", states.INSPECTWAIT)],
                              columns=["id", "uuid", "driver_internal_info"])


def _nodes_by_bmc(addresses: Iterable[str]) -> set[int]:
    wanted = {ip for ip in (_normalize_ip(a) for a in addresses) if ip}
    if not wanted:
        return set()
    return {row["id"] for row in _waiting_nodes()
            if wanted & set((row["driver_internal_info"] or {}).get(
                BMC_KEY) or ())}


def lookup_node(macs: list[str], bmc: list[str],
                node_uuid: str | None = None) -> Any:
    """The one node in ``inspect wait`` matching every given criterion."""
    candidates: set[int] | None = None
    for what, ids in (("MAC addresses", _nodes_by_macs(macs)),
                      ("BMC addresses", _nodes_by_bmc(bmc))):
        if not ids:
            continue
        candidates = ids if candidates is None else candidates & ids
        LOG.debug("Inspection lookup: %s %s match nodes %s", what,
                  macs if what.startswith("MAC") else bmc, sorted(ids))
    if node_uuid:
        try:
            node = Node.get(node_uuid)
        except exception.NodeNotFound:
            LOG.warning("Inspection lookup: node %s does not exist",
                        node_uuid)
            raise LookupFailed() from None
        if candidates is not None and node.id not in candidates:
            LOG.warning("Inspection lookup: node %s does not own the MAC "
                        "or BMC addresses %s %s", node_uuid, macs, bmc)
            raise LookupFailed()
    else:
        if candidates is None:
            LOG.info("Inspection lookup: no node has the MAC addresses %s "
                     "or BMC addresses %s", macs, bmc)
            raise NoMatch()
        if len(candidates) != 1:
            LOG.warning("Inspection lookup for MACs %s and BMC %s found "
                        "%d nodes", macs, bmc, len(candidates or ()))
            raise LookupFailed()
        node = Node.get(next(iter(candidates)))
    if node.provision_state != states.INSPECTWAIT:
        LOG.warning("Inspection lookup: node %s is in %s, not %s",
                    node.uuid, node.provision_state, states.INSPECTWAIT)
        raise LookupFailed()
    return node

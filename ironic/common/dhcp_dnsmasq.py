"""``[dhcp]dhcp_provider = dnsmasq``: boot options for an external dnsmasq.

The files are the ones Ironic 39's provider writes, so a dnsmasq set up
for it reads them unchanged (``dhcp-hostsdir`` and ``dhcp-optsdir``, with
``dhcp-match=set:ipxe,175`` for iPXE):

* ``[dnsmasq]dhcp_hostsdir/ironic-<mac>.conf`` for each PXE-enabled port
  of the node: ``<mac>,set:<tag>,set:ironic``, the tag being the node's own
  (kept in ``driver_internal_info['dnsmasq_tag']``);
* ``[dnsmasq]dhcp_optsdir/ironic-<node uuid>.conf``: one
  ``tag:<tag>,<option>,<value>`` line per boot option.

Tearing down rewrites the host files as ``<mac>,ignore`` (dnsmasq never
forgets a deleted host file, but re-reads a changed one) and deletes the
option file: nothing is tagged for it any more. Files are replaced
atomically so dnsmasq never reads half of one.
"""

from __future__ import annotations

import logging
import os
import uuid

from ironic.common import dhcp
from ironic.conf import CONF

LOG = logging.getLogger(__name__)

TAG_KEY = "dnsmasq_tag"


def option_line(tag: str, option: dict) -> str:
    """``tag:<tag>[,tag:...],<option>,<value>`` in dnsmasq's syntax:
    named options (``server-ip-address``) need the ``option:`` prefix."""
    *tags, name = str(option["opt_name"]).split(",")
    if not name.isdigit() and ":" not in name:
        prefix = "option6" if option.get("ip_version") == 6 else "option"
        name = f"{prefix}:{name}"
    return ",".join([f"tag:{tag}", *tags, name, str(option["opt_value"])])


def _write(path: str, text: str) -> None:
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def host_path(mac: str) -> str:
    return os.path.join(CONF.dnsmasq.dhcp_hostsdir, f"ironic-{mac}.conf")


def opts_path(node_uuid: str) -> str:
    return os.path.join(CONF.dnsmasq.dhcp_optsdir,
                        f"ironic-{node_uuid}.conf")


def _boot_macs(task: dhcp.TaskNICs) -> list[str]:
    return sorted({p.address.lower() for p in task.ports
                   if p.address and p.pxe_enabled})


def _node_tag(task: dhcp.TaskNICs) -> str:
    node = task.node
    info = dict(node.driver_internal_info or {})
    if not info.get(TAG_KEY):
        info[TAG_KEY] = str(uuid.uuid4())
        node.driver_internal_info = info
        node.save()
    return info[TAG_KEY]


class DnsmasqDHCP(dhcp.DHCPProvider):
    """Host and option files in the directories a dnsmasq watches."""

    def update_dhcp(self, task: dhcp.TaskNICs, options: list[dict]) -> None:
        tag = _node_tag(task)
        # Options first: a NIC tagged before its options exist would be
        # answered without a boot file.
        _write(opts_path(task.node.uuid),
               "".join(option_line(tag, o) + "\n" for o in options))
        for mac in _boot_macs(task):
            _write(host_path(mac), f"{mac},set:{tag},set:ironic\n")
        LOG.info("Node %s: dnsmasq answers %s with boot options",
                 task.node.uuid, ", ".join(_boot_macs(task)) or "no NIC")

    def clean_dhcp(self, task: dhcp.TaskNICs) -> None:
        node = task.node
        for mac in _boot_macs(task):
            if os.path.exists(host_path(mac)):
                _write(host_path(mac), f"{mac},ignore\n")
        try:
            os.remove(opts_path(node.uuid))
        except FileNotFoundError:
            pass
        info = dict(node.driver_internal_info or {})
        if info.pop(TAG_KEY, None) is not None:
            node.driver_internal_info = info
            node.save()
        LOG.info("Node %s: dnsmasq no longer answers its NICs", node.uuid)

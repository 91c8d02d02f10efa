"""Nova's ironic driver, as the service sees it.

``NovaCalls`` sends, through openstacksdk, the requests Nova's compute
driver (``nova/virt/ironic/driver.py``) sends for each operation, with the
same fields, filters and JSON patches, and checks each answer the way the
driver reads it: the node fields it asks for (``_NODE_FIELDS``), the
instance found by ``?instance_uuid=``, ``validate`` results, states it
polls for. The nodes are fake-hardware with the ``flat`` network
interface; a VIF is attached to the node's port as Neutron's would be.
"""

from __future__ import annotations

import base64
import gzip
import time
import uuid

import pytest
from openstack import exceptions as sdk_exc

# The fields Nova's driver reads of a node, and asks for by name.
NODE_FIELDS = ("uuid", "power_state", "target_power_state",
               "provision_state", "target_provision_state", "last_error",
               "maintenance", "properties", "instance_uuid", "traits",
               "resource_class")
# Where Nova considers an unprovision finished.
_UNPROVISIONED = ("available", None, "cleaning", "clean wait",
                  "clean failed")
POLL_DEADLINE = 60.0


class NovaCalls:
    """The driver's requests for one Nova instance on one node."""

    def __init__(self, conn, node_id: str):
        self.sdk = conn.baremetal
        self.node_id = node_id
        self.instance = str(uuid.uuid4())
        self.vif = str(uuid.uuid4())

    # --- reads -----------------------------------------------------------

    def get_node(self):
        node = self.sdk.get_node(self.node_id, fields=NODE_FIELDS)
        assert node.id == self.node_id
        return node

    def node_of_instance(self):
        """``_validate_instance_and_node``: the node by instance UUID."""
        found = list(self.sdk.nodes(instance_id=self.instance,
                                    fields=NODE_FIELDS))
        if not found:
            raise LookupError(f"no node for instance {self.instance}")
        assert len(found) == 1 and found[0].instance_id == self.instance
        return found[0]

    def poll(self, done, what: str):
        deadline = time.monotonic() + POLL_DEADLINE
        while True:
            node = self.node_of_instance()
            if done(node):
                return node
            assert node.provision_state not in ("deploy failed", "error"), \
                f"{what}: {node.provision_state}: {node.last_error}"
            assert time.monotonic() < deadline, f"{what}: {node}"
            time.sleep(0.2)

    # --- spawn and rebuild ----------------------------------------------

    def _instance_info_patch(self, image: str, preserve=None) -> list:
        info = {"image_source": image, "root_gb": "10", "swap_mb": "0",
                "display_name": f"vm-{self.instance[:8]}", "vcpus": "2",
                "nova_host_id": "compute-1", "memory_mb": "4096",
                "local_gb": "10", "ephemeral_gb": "0",
                "capabilities": '{"boot_option": "local"}',
                "traits": ["CUSTOM_GOLD"]}
        if preserve is not None:
            info["preserve_ephemeral"] = preserve
        return [{"op": "add", "path": f"/instance_info/{key}",
                 "value": value} for key, value in info.items()]

    @staticmethod
    def configdrive() -> str:
        # What Nova sends: a gzipped ISO image, base64-encoded.
        return base64.b64encode(gzip.compress(b"\0" * 65536)).decode()

    def spawn(self, image: str = "http://images/cirros.img"):
        node = self.get_node()
        assert node.instance_id is None and \
            node.provision_state == "available"
        # prepare_for_spawn: claim the node for the instance.
        self.sdk.patch_node(self.node_id, [
            {"op": "add", "path": "/instance_uuid",
             "value": self.instance}], retry_on_conflict=False)
        self.sdk.patch_node(self.node_id, self._instance_info_patch(image),
                            retry_on_conflict=False)
        self._plug_vifs()
        self._validate()
        self.sdk.set_node_provision_state(self.node_id, "active",
                                          config_drive=self.configdrive())
        return self.poll(lambda n: n.provision_state == "active",
                         "spawn")

    def _plug_vifs(self):
        ports = list(self.sdk.ports(node=self.node_id, details=True))
        assert ports, "the node has a port to plug the VIF into"
        list(self.sdk.port_groups(node=self.node_id, details=True))
        self.sdk.attach_vif_to_node(self.node_id, self.vif,
                                    retry_on_conflict=False)
        assert self.vif in self.sdk.list_node_vifs(self.node_id)

    def _validate(self):
        result = self.sdk.validate_node(self.node_id, required=None)
        for interface in ("deploy", "power"):
            assert result[interface].result, result[interface].reason

    def rebuild(self, image: str = "http://images/cirros-2.img"):
        self.sdk.patch_node(self.node_id,
                            self._instance_info_patch(image, False),
                            retry_on_conflict=False)
        self.sdk.set_node_provision_state(self.node_id, "rebuild",
                                          config_drive=self.configdrive())
        return self.poll(lambda n: n.provision_state == "active" and
                         n.target_provision_state is None, "rebuild")

    # --- rescue, power -------------------------------------------------

    def rescue(self):
        self.sdk.set_node_provision_state(self.node_id, "rescue",
                                          rescue_password="s3cret")
        return self.poll(lambda n: n.provision_state == "rescue", "rescue")

    def unrescue(self):
        self.sdk.set_node_provision_state(self.node_id, "unrescue")
        return self.poll(lambda n: n.provision_state == "active",
                         "unrescue")

    def power(self, target: str):
        self.sdk.set_node_power_state(self.node_id, target)
        return self.poll(lambda n: n.target_power_state is None,
                         f"power {target}")

    # --- destroy -------------------------------------------------------

    def destroy(self):
        node = self.node_of_instance()
        assert node.provision_state == "active"
        self.sdk.set_node_provision_state(self.node_id, "deleted")
        deadline = time.monotonic() + POLL_DEADLINE
        while True:
            node = self.get_node()
            if node.provision_state in _UNPROVISIONED:
                break
            assert time.monotonic() < deadline, node
            time.sleep(0.2)
        # _cleanup_deploy: volume targets, VIFs, then the instance info.
        for target in self.sdk.volume_targets(node=self.node_id,
                                              details=True):
            self.sdk.delete_volume_target(target)
        self.sdk.detach_vif_from_node(self.node_id, self.vif)
        self.sdk.update_node(self.get_node(), instance_id=None,
                             instance_info={})


@pytest.fixture
def nova_node(conn, unique):
    """A node as an operator enrolls it for Nova: properties, resource
    class, the flat network interface and one port."""
    node = conn.baremetal.create_node(
        driver="fake-hardware", name=f"nova-{unique}",
        network_interface="flat", resource_class="baremetal",
        properties={"cpus": 2, "memory_mb": 4096, "local_gb": 10,
                    "cpu_arch": "x86_64"})
    mac = ":".join(["52", "55"] + [unique[i:i + 2] for i in (0, 2, 4, 6)])
    conn.baremetal.create_port(node_id=node.id, address=mac)
    # The trait the flavor asks for (Nova copies it to instance_info).
    conn.baremetal.set_node_traits(node, ["CUSTOM_GOLD"])
    for verb, state in (("manage", "manageable"), ("provide", "available")):
        conn.baremetal.set_node_provision_state(node, verb, wait=True,
                                                timeout=60)
        assert conn.baremetal.get_node(node.id).provision_state == state
    return node


def test_periodic_node_list(conn, nova_node):
    """``_refresh_cache`` and ``list_instance_uuids``."""
    listed = {n.id: n for n in conn.baremetal.nodes(fields=NODE_FIELDS)}
    node = listed[nova_node.id]
    assert node.resource_class == "baremetal"
    assert node.properties["cpus"] == 2
    assert node.provision_state == "available" and not node.is_maintenance
    associated = list(conn.baremetal.nodes(associated=True,
                                           fields=["instance_uuid"]))
    assert nova_node.id not in {n.id for n in associated}


def test_spawn_rebuild_rescue_power_destroy(conn, nova_node):
    nova = NovaCalls(conn, nova_node.id)
    node = nova.spawn()
    assert node.instance_id == nova.instance
    full = conn.baremetal.get_node(nova_node.id)
    assert full.instance_info["display_name"] == \
        f"vm-{nova.instance[:8]}"
    # The config drive is stored but never shown back.
    assert full.instance_info["configdrive"] == "******"
    assert full.instance_name == f"vm-{nova.instance[:8]}"
    associated = {n.instance_id for n in conn.baremetal.nodes(
        associated=True, fields=["instance_uuid"])}
    assert nova.instance in associated

    assert nova.rebuild().instance_id == nova.instance
    assert conn.baremetal.get_node(nova_node.id).instance_info[
        "image_source"] == "http://images/cirros-2.img"

    nova.rescue()
    nova.unrescue()

    assert nova.power("power off").power_state == "power off"
    assert nova.power("power on").power_state == "power on"
    assert nova.power("rebooting").power_state == "power on"

    nova.destroy()
    node = conn.baremetal.get_node(nova_node.id)
    assert node.instance_id is None and node.instance_info == {}
    assert conn.baremetal.list_node_vifs(nova_node.id) == []
    with pytest.raises(LookupError):
        nova.node_of_instance()


def test_a_claimed_node_refuses_another_instance(conn, no_retry_conn,
                                                 nova_node):
    """``retry_on_conflict=False``: a second claim fails at once (409),
    which Nova turns into a reschedule."""
    first = NovaCalls(conn, nova_node.id)
    conn.baremetal.patch_node(nova_node.id, [
        {"op": "add", "path": "/instance_uuid", "value": first.instance}])
    with pytest.raises(sdk_exc.ConflictException):
        no_retry_conn.baremetal.patch_node(nova_node.id, [
            {"op": "add", "path": "/instance_uuid",
             "value": str(uuid.uuid4())}], retry_on_conflict=False)
    conn.baremetal.patch_node(nova_node.id, [
        {"op": "remove", "path": "/instance_uuid"}])

"""The clients configured the way operators do: a clouds.yaml entry."""

from __future__ import annotations

import openstack.config
import pytest

from ironic.tests.functional import service as svc


@pytest.fixture
def clouds_yaml(tmp_path, service):
    path = tmp_path / "clouds.yaml"
    path.write_text(
        "clouds:\n"
        "  metal:\n"
        "    auth_type: none\n"
        f"    baremetal_endpoint_override: {service.endpoint}\n",
        encoding="utf-8")
    return path


def test_sdk_and_cli_from_clouds_yaml(clouds_yaml, unique):
    config = openstack.config.OpenStackConfig(
        config_files=[str(clouds_yaml)])
    conn = openstack.connection.Connection(
        config=config.get_one(cloud="metal"))
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"cloud-{unique}",
                                      extra={"via": "clouds.yaml"})
    cli = svc.Cli("", env={"OS_CLIENT_CONFIG_FILE": str(clouds_yaml),
                           "OS_CLOUD": "metal"})
    shown = cli.json("node", "show", f"cloud-{unique}")
    assert shown["uuid"] == node.id
    assert shown["extra"] == {"via": "clouds.yaml"}
    conn.close()

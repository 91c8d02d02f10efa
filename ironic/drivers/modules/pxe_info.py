"""What network boot reads from a node: images, boot mode, parameters.

Pure functions of the node and the configuration, shared by the ``pxe``
and ``ipxe`` boot interfaces; each raises InvalidParameterValue or
MissingParameterValue naming the field to fix.
"""

from __future__ import annotations

from typing import Any

from ironic.common import boot_modes, exception, states, utils
from ironic.conf import CONF
from ironic.drivers.modules import image_cache
from ironic.task import Task

PROPERTIES = {
    "deploy_kernel": "URL (http, https or file) of the kernel of the deploy "
                     "ramdisk booted for deployment, cleaning, inspection "
                     "and servicing. Required unless [conductor]"
                     "deploy_kernel is set.",
    "deploy_ramdisk": "URL (http, https or file) of the deploy ramdisk "
                      "(initramfs with the agent). Required unless "
                      "[conductor]deploy_ramdisk is set.",
    "rescue_kernel": "URL of the kernel of the rescue ramdisk. Required for "
                     "rescue unless [conductor]rescue_kernel is set.",
    "rescue_ramdisk": "URL of the rescue ramdisk. Required for rescue "
                      "unless [conductor]rescue_ramdisk is set.",
    "kernel_append_params": "Kernel parameters of the ramdisks booted over "
                            "the network, replacing [pxe]"
                            "kernel_append_params; %default% stands for "
                            "that option's value. Optional.",
    "force_persistent_boot_device": "Which boot device changes are "
                                    "persistent: 'Always', 'Never', or "
                                    "'Default' (only the final one, to "
                                    "the instance). Optional.",
}

#: driver_info keys (and [conductor] options) of each ramdisk.
RAMDISK_IMAGES = {
    "deploy": ("deploy_kernel", "deploy_ramdisk"),
    "rescue": ("rescue_kernel", "rescue_ramdisk"),
}
#: instance_info keys of an instance booted over the network (ramdisk
#: deploy); also the names of their per-node files.
INSTANCE_IMAGES = ("kernel", "ramdisk")
ALL_IMAGES = (*RAMDISK_IMAGES["deploy"], *RAMDISK_IMAGES["rescue"],
              *INSTANCE_IMAGES)

_PERSISTENCE = {"always": "Always", "true": "Always", "default": "Default",
                "false": "Default", "never": "Never"}
# Parameters never written to a boot configuration: files under the TFTP
# and HTTP roots are readable by anyone on the provisioning network, and
# the agent receives its token on lookup instead.
_SECRET_PARAMS = ("ipa-agent-token",)


def ramdisk_mode(node: Any) -> str:
    """``rescue`` while the node is being rescued, else ``deploy``."""
    rescuing = (states.RESCUING, states.RESCUEWAIT)
    return "rescue" if node.provision_state in rescuing else "deploy"


def ramdisk_images(node: Any, mode: str) -> dict[str, str]:
    """{label: URL} of the kernel and ramdisk of the ``mode`` ramdisk."""
    info = node.driver_info or {}
    found = {key: info.get(key) or getattr(CONF.conductor, key)
             for key in RAMDISK_IMAGES[mode]}
    missing = [key for key, value in found.items() if not value]
    if missing:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid} cannot boot its {mode} ramdisk over the "
                f"network: set driver_info/{' and driver_info/'.join(missing)}"
                f" (or [conductor]{', '.join(missing)}).")
    for key, value in found.items():
        image_cache.check_url(value, f"driver_info/{key}")
    return found


def is_ramdisk_deploy(node: Any) -> bool:
    """Whether the instance itself is booted over the network."""
    return node.deploy_interface == "ramdisk"


def instance_images(node: Any) -> dict[str, str]:
    """{label: URL} of the kernel and ramdisk of a ramdisk deployment."""
    info = node.instance_info or {}
    if info.get("boot_iso") and not info.get("kernel"):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: network boot cannot boot "
                f"instance_info/boot_iso; give instance_info/kernel and "
                f"instance_info/ramdisk, or use the redfish-virtual-media "
                f"boot interface.")
    missing = [key for key in INSTANCE_IMAGES if not info.get(key)]
    if missing:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid} is deployed as a ramdisk: set "
                f"instance_info/{' and instance_info/'.join(missing)}.")
    return {key: image_cache.check_url(info[key], f"instance_info/{key}")
            for key in INSTANCE_IMAGES}


def parse_capabilities(value: Any) -> dict[str, str]:
    """A ``capabilities`` value ("k1:v1,k2:v2" or a dict) as a dict."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    pairs = (item.partition(":") for item in str(value or "").split(","))
    return {k.strip(): v.strip() for k, sep, v in pairs if sep and k.strip()}


def requested_boot_mode(node: Any) -> str | None:
    """The boot mode asked for (instance_info/deploy_boot_mode, then the
    boot_mode capability), None when the node names none."""
    sources = (
        ("instance_info/deploy_boot_mode",
         (node.instance_info or {}).get("deploy_boot_mode")),
        ("the boot_mode capability", parse_capabilities(
            (node.properties or {}).get("capabilities")).get("boot_mode")),
    )
    for where, value in sources:
        if value:
            if value not in (boot_modes.UEFI, boot_modes.LEGACY_BIOS):
                raise exception.InvalidParameterValue(
                    err=f"Node {node.uuid}: {where} is {value!r}; it must "
                        f"be '{boot_modes.UEFI}' or "
                        f"'{boot_modes.LEGACY_BIOS}'.")
            return value
    return None


def boot_mode(node: Any) -> str:
    """The mode the node boots in: requested, detected, else the default."""
    return requested_boot_mode(node) or node.boot_mode or \
        CONF.deploy.default_boot_mode


def persistence(node: Any) -> str:
    """``Always``, ``Default`` or ``Never`` (force_persistent_boot_device)."""
    value = (node.driver_info or {}).get("force_persistent_boot_device",
                                         "Default")
    found = _PERSISTENCE.get(str(value).lower())
    if found is None:
        raise exception.InvalidParameterValue(
            err=f"driver_info/force_persistent_boot_device must be one of "
                f"Always, Default, Never; got {value!r}.")
    return found


def _append_params(override: Any) -> str:
    configured = CONF.pxe.kernel_append_params or ""
    if not override:
        return configured
    return str(override).replace("%default%", configured)


def _format(params: dict[str, Any]) -> list[str]:
    return [key if value is None else f"{key}={value}"
            for key, value in params.items() if key not in _SECRET_PARAMS]


def ramdisk_kernel_params(node: Any, ramdisk_params: dict | None) -> str:
    """The command line of a ramdisk: the append parameters, where the
    API is, and what the caller asks the ramdisk to do."""
    params: dict[str, Any] = {"ipa-api-url": utils.ramdisk_api_url()}
    if CONF.debug:
        params["ipa-debug"] = "1"
    params.update(ramdisk_params or {})
    base = _append_params((node.driver_info or {}).get(
        "kernel_append_params"))
    return " ".join(p for p in (base, *_format(params)) if p)


def instance_kernel_params(node: Any) -> str:
    """The command line of an instance booted over the network."""
    info = node.instance_info or {}
    base = _append_params(info.get("kernel_append_params") or (
        node.driver_info or {}).get("kernel_append_params"))
    extra = info.get("ramdisk_kernel_arguments") or ""
    return " ".join(p for p in (base, str(extra)) if p)


def boot_macs(task: Task) -> list[str]:
    """MAC addresses (lower case) of the NICs the node boots from."""
    return [port.address.lower() for port in task.ports
            if port.pxe_enabled and port.address]


def check_boot_nics(task: Task) -> None:
    if not boot_macs(task):
        raise exception.MissingParameterValue(
            err=f"Node {task.node.uuid} has no port with pxe_enabled set: "
                f"network boot needs the MAC address of the NIC it boots "
                f"from.")

"""Redfish BMC emulator: sushy-tools' emulator with an inventory-aware fake
systems driver.

The stock fake driver of sushy-tools has no processors, memory size,
storage, BIOS or firmware versions, and lands power changes after a random
delay. Ours reports the hardware each fake system declares (``cpus``,
``memory_gib``, ``disks``) so out-of-band inspection has something to read;
keeps BIOS attributes (``bios``, defaults below, named as in sushy-tools'
BIOS attribute registry so that registry describes them) that a PATCH of
``/BIOS/Settings`` changes and ``Bios.ResetBios`` restores; reports a
``BiosVersion`` that the UpdateService's SimpleUpdate bumps; and applies
power changes after ``--power-delay`` seconds (0: at once), so tests are
deterministic. Redfish volumes (RAID) created through a Storage's Volumes
collection can also be deleted (sushy-tools has no DELETE for them). Every
change is kept in the emulator's state directory like
the rest of the fake systems' state.

Reset actions (``ComputerSystem.Reset``), including ``Nmi`` which
sushy-tools refuses, are counted per system in
``<state dir>/resets-<system uuid>.json`` (``{"ForceOff": 1, "Nmi": 2}``):
the emulated machine's own account of what it was asked to do; every
system also appends ``<unix time> <uuid> <action>`` to
``<state dir>/resets.log``, when each came.
``--sessions JOURNAL`` adds a SessionService (``redfish_sessions``).

    python -m ironic.tests.emulators.redfish_bmc --config FILE \
        [--power-delay S] [--control JSON] [--sessions JOURNAL]

FILE is a sushy-emulator configuration (Python) with
``SUSHY_EMULATOR_FAKE_DRIVER = True`` and ``SUSHY_EMULATOR_FAKE_SYSTEMS``.

Fault knobs for tests, read from the ``--control`` JSON file on every
request so a test can change them while the emulator runs:
``{"reply_delay": seconds}`` makes every answer late (a slow BMC), and
``{"health": {"<system id>": "Warning"}}`` replaces the ``Status.Health``
the systems report (``OK`` otherwise).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
import threading
import time

from sushy_tools.emulator import main as emulator_main
from sushy_tools.emulator.resources.systems import fakedriver

from ironic.tests.emulators import redfish_sessions


class _FixedDelay:
    """Replaces the fake driver's random power delay with a fixed one."""

    def __init__(self, seconds: int):
        self.seconds = seconds

    def randint(self, _low: int, _high: int) -> int:
        return self.seconds


#: BIOS attributes of a fresh system (and after a BIOS reset).
DEFAULT_BIOS = {"BootMode": "Uefi", "EmbeddedSata": "Raid",
                "L2Cache": "10x256 KB", "NicBoot1": "NetworkBoot",
                "NumCores": "10", "ProcTurboMode": "Enabled",
                "QuietBoot": "true", "SecureBootStatus": "Enabled",
                "SerialNumber": "QPX12345", "SysPassword": ""}
DEFAULT_VERSIONS = {"BiosVersion": "1.0.0"}
_VOLUME_SEQ = itertools.count(1)
_RESETS_LOCK = threading.Lock()


class InventoryFakeDriver(fakedriver.FakeDriver):
    def _count_reset(self, identity, action: str) -> None:
        state_dir = self._config.get("SUSHY_EMULATOR_STATE_DIR")
        if not state_dir:
            return
        path = os.path.join(state_dir, f"resets-{self.uuid(identity)}.json")
        with _RESETS_LOCK:
            try:
                with open(path, encoding="utf-8") as f:
                    counts = json.load(f)
            except FileNotFoundError:
                counts = {}
            counts[action] = counts.get(action, 0) + 1
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                json.dump(counts, f)
            os.replace(path + ".tmp", path)
            # When each reset came, for tests of their spacing (the reboot
            # throttle): "<unix time> <system uuid> <action>" lines.
            with open(os.path.join(state_dir, "resets.log"), "a",
                      encoding="utf-8") as f:
                f.write(f"{time.time():.6f} {self.uuid(identity)} "
                        f"{action}\n")

    def set_power_state(self, identity, state):
        # An NMI changes no power state; the machine only records it.
        if state != "Nmi":
            super().set_power_state(identity, state)
        self._count_reset(identity, state)

    def _stored(self, identity, key: str, default: dict) -> dict:
        return dict(self._get(identity).get(key) or default)

    def get_bios(self, identity):
        return self._stored(identity, "bios", DEFAULT_BIOS)

    def set_bios(self, identity, attributes):
        bios = self.get_bios(identity)
        bios.update(attributes or {})
        self._update(identity, bios=bios)

    def reset_bios(self, identity):
        self._update(identity, bios=dict(DEFAULT_BIOS))

    def get_versions(self, identity):
        return self._stored(identity, "versions", DEFAULT_VERSIONS)

    def set_versions(self, identity, firmware_versions):
        versions = self.get_versions(identity)
        versions.update(firmware_versions or {})
        self._update(identity, versions=versions)

    def reset_versions(self, identity):
        self._update(identity, versions=dict(DEFAULT_VERSIONS))

    # sushy-tools' fake driver cannot keep an HttpBootUri (its API stores
    # one for the whole emulator, without the system): keep it in the
    # state directory so every request sees it.
    def _http_boot_uri_path(self) -> str | None:
        state_dir = self._config.get("SUSHY_EMULATOR_STATE_DIR")
        return os.path.join(state_dir, "http-boot-uri") if state_dir \
            else None

    def get_http_boot_uri(self, identity):
        path = self._http_boot_uri_path()
        try:
            with open(path, encoding="utf-8") as f:
                return f.read() or None
        except (TypeError, FileNotFoundError):
            return None

    def set_http_boot_uri(self, uri):
        path = self._http_boot_uri_path()
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(uri or "")

    def get_total_memory(self, identity):
        return self._get(identity).get("memory_gib", 8)

    def get_total_cpus(self, identity):
        return self._get(identity).get("cpus", 2)

    def get_processors(self, identity):
        return [{"id": f"CPU{i}", "socket": f"Socket {i}",
                 "model": "Emulated CPU", "vendor": "GenuineIntel",
                 "cores": "2", "threads": "2"}
                for i in range(self.get_total_cpus(identity))]

    def get_simple_storage_collection(self, identity):
        disks = self._get(identity).get(
            "disks", [{"Name": "disk0", "CapacityBytes": 20 * 1024 ** 3}])
        return {"SATA": {"Id": "SATA", "Name": "SATA", "DeviceList": disks}}

    def find_or_create_storage_volume(self, data):
        # No backing store: a volume exists as the emulator records it.
        # sushy-tools names a new volume after its pid and the time of day
        # in seconds, so two volumes made in one second would share an
        # Id; a new one (not yet marked) gets a unique suffix.
        if not data.get("_emulated"):
            data["Id"] = f"{data['Id']}{next(_VOLUME_SEQ):04d}"
            data["_emulated"] = True
        return data["Id"]


_SYSTEM_PATH = re.compile(r"^/redfish/v1/Systems/([^/]+)/?$")


class Control:
    """The fault knobs, re-read when the control file changes."""

    def __init__(self, path: str | None):
        self.path = path
        self._stamp: float | None = None
        self.values: dict = {}

    def current(self) -> dict:
        if not self.path:
            return {}
        try:
            stamp = os.stat(self.path).st_mtime_ns
        except FileNotFoundError:
            self._stamp, self.values = None, {}
            return self.values
        if stamp != self._stamp:
            with open(self.path, encoding="utf-8") as f:
                self.values = json.load(f)
            self._stamp = stamp
        return self.values


def install_faults(app, control: Control) -> None:
    """Hook the knobs into the emulator's Flask application."""
    from flask import request

    @app.before_request
    def _slow_down():
        delay = float(control.current().get("reply_delay") or 0)
        if delay > 0:
            time.sleep(delay)

    @app.after_request
    def _health(response):
        wanted = control.current().get("health") or {}
        match = _SYSTEM_PATH.match(request.path)
        if match and request.method == "GET" and response.status_code == 200\
                and match.group(1) in wanted:
            body = response.get_json()
            body.setdefault("Status", {})["Health"] = wanted[match.group(1)]
            response.set_data(json.dumps(body))
        return response


def install_volume_delete(app) -> None:
    """sushy-tools creates Redfish volumes but has no DELETE for them; add
    one that drops the volume from the emulator's records (204), so RAID
    configurations can be removed as on a real BMC."""
    path = "/redfish/v1/Systems/<identity>/Storage/<stg_id>/Volumes/<vol_id>"

    def delete_volume(identity, stg_id, vol_id):
        uuid = app.systems.uuid(identity)
        for vol in list(app.volumes.get_volumes_col(uuid, stg_id) or []):
            if vol["Id"] == vol_id:
                app.volumes.delete_volume(uuid, stg_id, vol)
                return "", 204
        return "", 404

    app.add_url_rule(path, "ironic_delete_volume", delete_volume,
                     methods=["DELETE"])


def _take(argv: list[str], name: str) -> str | None:
    if name not in argv:
        return None
    i = argv.index(name)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


def main(argv: list[str]) -> int:
    delay = int(float(_take(argv, "--power-delay") or 0))
    journal = _take(argv, "--sessions")
    if journal:
        store = redfish_sessions.SessionStore(journal)
        # configure() wraps the app in this class when auth is set up.
        emulator_main.RedfishAuthMiddleware = \
            redfish_sessions.auth_middleware(
                store, emulator_main.RedfishAuthMiddleware)
        redfish_sessions.install(emulator_main.app, store)
    install_faults(emulator_main.app, Control(_take(argv, "--control")))
    install_volume_delete(emulator_main.app)
    fakedriver.random = _FixedDelay(delay)
    emulator_main.fakedriver.FakeDriver = InventoryFakeDriver
    sys.argv = ["sushy-emulator", *argv]
    return emulator_main.main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""CPU seconds one power state sync cycle costs the conductor.

    python tools/bench/conductor_power_sync.py --nodes 10000

Enrolls N fake-hardware nodes (manageable, powered off) in a fresh sqlite
file, starts an in-process conductor (rpc_transport=none) and runs the power
sync periodic task once, reporting wall and process CPU time. The issue's
budget: at most 5 CPU-seconds per cycle for 10,000 nodes.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _setup(directory: str, count: int) -> None:
    from ironic import hash_ring
    from ironic.common import states
    from ironic.conf import CONF
    from ironic.db import migration
    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.db.sqlalchemy import models
    from ironic.tests import entry_points
    from ironic.tests import fixtures as ifx

    entry_points.expose(str(ROOT / "setup.cfg"))
    CONF([], project="ironic", default_config_files=[])
    path = os.path.join(directory, "bench.sqlite")
    CONF.set_override("connection", f"sqlite:///{path}", group="database")
    migration.upgrade("head")
    ifx.configure_test_drivers(ifx.ConfigOverrides())
    CONF.set_override("rpc_transport", "none")
    CONF.set_override("host", "bench-conductor")
    hash_ring.reset()
    rows = [{"uuid": f"00000000-0000-4000-8000-{i:012d}",
             "driver": "fake-hardware", "provision_state": states.MANAGEABLE,
             "power_state": states.POWER_OFF, "driver_info": {},
             "driver_internal_info": {}, "instance_info": {},
             "properties": {}, "extra": {}, "raid_config": {},
             "target_raid_config": {}, "network_data": {},
             "clean_step": {}, "deploy_step": {}, "service_step": {},
             "conductor_group": ""} for i in range(count)]
    with sqla_api._writer() as session:
        session.execute(models.Node.__table__.insert(), rows)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        _setup(directory, args.nodes)
        from ironic.conductor import base_manager, periodics
        svc = base_manager.ConductorService()
        svc.start()
        try:
            wall, cpu = time.monotonic(), time.process_time()
            changed = periodics.sync_power_states(svc)
            wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        finally:
            svc.stop(timeout=5)
    print(f"power sync of {args.nodes} nodes: {wall:.2f} s wall, "
          f"{cpu:.2f} CPU-s, {changed} corrected")
    return 0


if __name__ == "__main__":
    sys.exit(main())

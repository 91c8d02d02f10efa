"""Drive the real ramdisk agent's API client against a Bare Metal API.

Run as a separate process (``python ipa_client.py ...``) by the functional
tests: it imports ironic-python-agent's own ``ironic_api_client.APIClient``
- the code the agent uses for lookup and heartbeat - without starting the
agent. The agent's options live on oslo.config's global CONF, which is why
this runs apart from the test process. Prints one JSON document.

    ipa_client.py --api URL [--cafile CA] lookup MAC[,MAC] [--node-uuid U]
    ipa_client.py --api URL heartbeat UUID --token=TOKEN [--callback-url URL]
                  [--cert PEM-FILE]
    ipa_client.py --api URL inspect DATA-FILE [--error MESSAGE]

``inspect`` posts inspection data with the agent's own inspection client
(``inspector.call_inspector``) to ``<api>/v1/continue_inspection``, the way
the agent does after collecting it (the data comes from a file: collecting
it would need the machine's own hardware).
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import urlparse


def _client(api: str, cafile: str | None = None):
    # The agent reads its parameters from the kernel command line (and, on
    # a virtual media boot, mounts a floppy for them) when its options are
    # first imported. Give it parameters so it does neither.
    from ironic_python_agent import utils
    utils._set_cached_params({"ipa-api-url": api})
    from ironic_python_agent import (
        config,  # noqa: F401 - its options
        ironic_api_client,
    )
    from oslo_config import cfg
    cfg.CONF([], project="ironic-python-agent")
    if cafile:
        cfg.CONF.set_override("cafile", cafile)
    return ironic_api_client.APIClient(api)


def _lookup(client, args) -> dict:
    from ironic_python_agent import errors, hardware
    ifaces = [hardware.NetworkInterface(f"eth{i}", mac)
              for i, mac in enumerate(args.macs.split(","))]
    try:
        found = client.lookup_node({"interfaces": ifaces},
                                   timeout=args.timeout,
                                   starting_interval=0.1, max_interval=0.2,
                                   node_uuid=args.node_uuid)
    except errors.LookupNodeError as e:
        return {"found": None, "error": str(e)}
    return {"found": found, "error": None}


def _heartbeat(client, args) -> dict:
    from ironic_python_agent import errors
    client.agent_token = args.token
    url = urlparse(args.callback_url)
    cert = None
    if args.cert:
        with open(args.cert, encoding="utf-8") as f:
            cert = f.read()
    try:
        client.heartbeat(args.uuid, (url.hostname, url.port),
                         advertise_protocol=url.scheme, generated_cert=cert)
    except (errors.HeartbeatError, errors.HeartbeatConflictError) as e:
        return {"accepted": False, "error_type": type(e).__name__,
                "error": str(e)}
    return {"accepted": True, "error_type": None, "error": None}


def _inspect(client, args) -> dict:
    from ironic_python_agent import errors, inspector, utils
    from oslo_config import cfg
    cfg.CONF.set_override("inspection_callback_url",
                          args.api.rstrip("/") + "/v1/continue_inspection")
    with open(args.data, encoding="utf-8") as f:
        data = json.load(f)
    failures = utils.AccumulatedFailures()
    if args.error:
        failures.add(args.error)
    try:
        return {"result": inspector.call_inspector(data, failures),
                "error": None}
    except errors.InspectionError as e:
        return {"result": None, "error": str(e)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", required=True)
    ap.add_argument("--cafile", help="CA bundle of an https API")
    sub = ap.add_subparsers(dest="command", required=True)
    lookup = sub.add_parser("lookup")
    lookup.add_argument("macs")
    lookup.add_argument("--node-uuid")
    lookup.add_argument("--timeout", type=float, default=1.0)
    beat = sub.add_parser("heartbeat")
    beat.add_argument("uuid")
    # An option, not a positional: a token may begin with "-".
    beat.add_argument("--token", required=True)
    beat.add_argument("--callback-url", default="https://127.0.0.1:9999")
    beat.add_argument("--cert")
    inspect = sub.add_parser("inspect")
    inspect.add_argument("data")
    inspect.add_argument("--error")
    args = ap.parse_args(argv)
    client = _client(args.api, args.cafile)
    command = {"lookup": _lookup, "heartbeat": _heartbeat,
               "inspect": _inspect}[args.command]
    result = command(client, args)
    result["api_version"] = "%d.%d" % client._get_ironic_api_version()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

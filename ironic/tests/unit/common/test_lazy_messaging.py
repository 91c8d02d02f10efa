"""The all-in-one on its defaults does not load the message bus stack.

oslo.messaging and kombu cost the embedded service memory and start-up
time; only the ``oslo`` transport needs them. (futurist, which runs the
conductor's workers, is loaded whatever the transport.) Each case runs in
a fresh interpreter: this one has long imported them.
"""

import json
import subprocess
import sys
import textwrap

_HEAVY = ("oslo_messaging", "kombu")


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_all_in_one_modules_leave_the_message_bus_unloaded():
    loaded = _run(f"""
        import json, sys
        import ironic.api.app, ironic.command.singleprocess
        import ironic.conductor.base_manager, ironic.conductor.manager
        print(json.dumps({{"loaded": [m for m in {_HEAVY!r}
                                      if m in sys.modules]}}))
    """)
    assert loaded == {"loaded": []}


def test_the_oslo_transport_reads_its_options_from_the_file(tmp_path):
    conf = tmp_path / "ironic.conf"
    conf.write_text("[DEFAULT]\nrpc_transport = oslo\n"
                    "transport_url = rabbit://u:p@127.0.0.1:5672/\n"
                    f"state_path = {tmp_path}\n"
                    "[oslo_messaging_rabbit]\nheartbeat_timeout_threshold = 7\n")
    got = _run(f"""
        import json
        from ironic import service
        from ironic.conf import CONF
        service.prepare_service("ironic-api", ["--config-file", {str(conf)!r}])
        print(json.dumps({{
            "url": CONF.transport_url,
            "heartbeat": CONF.oslo_messaging_rabbit.heartbeat_timeout_threshold,
            "exchange": CONF.control_exchange}}))
    """)
    assert got == {"url": "rabbit://u:p@127.0.0.1:5672/", "heartbeat": 7,
                   "exchange": "ironic"}

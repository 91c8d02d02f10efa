"""RPC transports between the API (and conductors) and conductors.

``[DEFAULT]rpc_transport``:

* ``oslo``: oslo.messaging over ``transport_url`` (RabbitMQ in production);
  one topic ``ironic.conductor_manager``, one server per conductor host.
* ``none``: the all-in-one: direct calls into the conductor manager living in
  this process, after the same JSON round trip a message would make, so the
  code above the transport is the same in both cases.

Messages carry a context dict, the method name and plain JSON keyword
arguments (identifiers, never objects).

oslo.messaging is imported only by the ``oslo`` transport: with it come
kombu and oslo.service, and through that eventlet and dnspython, modules
the all-in-one on its embedded defaults never uses (with the worker pool's
own threads, 430 fewer modules and 22 MiB less memory at start-up).
"""

from __future__ import annotations

import abc
import json
import threading
from typing import Any

from ironic.common import exception
from ironic.conf import CONF

TOPIC = "ironic.conductor_manager"


_OPTS_REGISTERED = False


def register_opts() -> None:
    """oslo.messaging's options ([DEFAULT]transport_url, the drivers'
    groups), so that they are read from ironic.conf.

    Options registered after the files were parsed still read their
    values from them; ``service.prepare_service`` calls this when the
    configuration asks for the ``oslo`` transport.
    """
    global _OPTS_REGISTERED
    if _OPTS_REGISTERED:
        return
    import oslo_messaging
    from oslo_messaging import opts as messaging_opts
    oslo_messaging.set_transport_defaults(control_exchange="ironic")
    for group, opts in messaging_opts.list_opts():
        for opt in opts:
            try:
                CONF.register_opt(opt, group=group)
            except Exception:  # noqa: BLE001 - already registered
                pass
    _OPTS_REGISTERED = True

# Where remote exceptions may be rebuilt from (oslo.messaging).
ALLOWED_EXMODS = ["ironic.common.exception"]


class Transport(abc.ABC):
    @abc.abstractmethod
    def call(self, host: str, method: str, context: dict, kwargs: dict,
             version: str, timeout: float | None = None) -> Any:
        """Run ``method`` on ``host`` and return its JSON result."""

    @abc.abstractmethod
    def cast(self, host: str, method: str, context: dict, kwargs: dict,
             version: str) -> None:
        """Send ``method`` to ``host`` without waiting for it."""


_LOCAL: dict[str, Any] = {}
_LOCAL_LOCK = threading.Lock()


def register_local(host: str, endpoint: Any) -> None:
    """Make an in-process conductor reachable by the ``none`` transport."""
    with _LOCAL_LOCK:
        _LOCAL[host] = endpoint


def unregister_local(host: str) -> None:
    with _LOCAL_LOCK:
        _LOCAL.pop(host, None)


def local_hosts() -> list[str]:
    return list(_LOCAL)


def _plain(value: Any) -> Any:
    """What survives a trip through a message: plain JSON."""
    return json.loads(json.dumps(value))


class LocalTransport(Transport):
    def _endpoint(self, host: str) -> Any:
        endpoint = _LOCAL.get(host)
        if endpoint is None:
            raise exception.NoValidHost(
                reason=f"requests for conductor {host}: it does not run in "
                       f"this process and rpc_transport is 'none'")
        return endpoint

    def call(self, host, method, context, kwargs, version, timeout=None):
        endpoint = self._endpoint(host)
        check_version(endpoint.RPC_API_VERSION, version)
        return _plain(getattr(endpoint, method)(_plain(context),
                                                **_plain(kwargs)))

    def cast(self, host, method, context, kwargs, version):
        endpoint = self._endpoint(host)
        check_version(endpoint.RPC_API_VERSION, version)
        endpoint.pool.spawn(getattr(endpoint, method), _plain(context),
                            **_plain(kwargs))


def check_version(server: str, wanted: str) -> None:
    """A server answers calls of its major version up to its minor."""
    s_major, s_minor = (int(x) for x in server.split("."))
    w_major, w_minor = (int(x) for x in wanted.split("."))
    if s_major != w_major or w_minor > s_minor:
        raise exception.IronicException(
            f"Conductor RPC version {server} can not answer a {wanted} "
            f"call.")


class OsloTransport(Transport):
    def __init__(self) -> None:
        import oslo_messaging as messaging
        register_opts()
        self._messaging = messaging
        self.transport = messaging.get_rpc_transport(
            CONF, allowed_remote_exmods=ALLOWED_EXMODS)
        self.client = messaging.get_rpc_client(
            self.transport, messaging.Target(topic=TOPIC))

    def _prepared(self, host: str, version: str, timeout=None):
        return self.client.prepare(server=host, version=version,
                                   timeout=timeout)

    def call(self, host, method, context, kwargs, version, timeout=None):
        try:
            return self._prepared(host, version, timeout).call(
                context, method, **kwargs)
        except self._messaging.MessagingTimeout as e:
            raise exception.NoValidHost(
                reason=f"requests for conductor {host}: no answer in "
                       f"time") from e

    def cast(self, host, method, context, kwargs, version):
        self._prepared(host, version).cast(context, method, **kwargs)


_TRANSPORT: Transport | None = None
_TRANSPORT_LOCK = threading.Lock()


def get_transport() -> Transport:
    global _TRANSPORT
    with _TRANSPORT_LOCK:
        if _TRANSPORT is None:
            _TRANSPORT = (LocalTransport() if CONF.rpc_transport == "none"
                          else OsloTransport())
        return _TRANSPORT


def reset() -> None:
    global _TRANSPORT
    with _TRANSPORT_LOCK:
        _TRANSPORT = None


def rpc_server(host: str, endpoint: Any) -> Any:
    """The oslo.messaging server of one conductor (threading executor)."""
    import oslo_messaging as messaging
    from oslo_messaging.rpc import dispatcher
    register_opts()
    transport = messaging.get_rpc_transport(
        CONF, allowed_remote_exmods=ALLOWED_EXMODS)
    target = messaging.Target(topic=TOPIC, server=host)
    return messaging.get_rpc_server(
        transport, target, [ExpectedErrors(endpoint)], executor="threading",
        access_policy=dispatcher.DefaultRPCAccessPolicy)


class ExpectedErrors:
    """A conductor endpoint whose service errors are expected answers.

    oslo.messaging logs every exception an endpoint raises as an ERROR with
    its traceback, unless it comes as ``ExpectedException``. A node locked
    by another task, a state that refuses the request or all workers busy
    (409, 400, 503 at the API) are answers to the caller, not faults of the
    conductor: they travel as before (the client re-raises the same
    exception) and are logged at debug level. Anything else is still an
    ERROR.
    """

    def __init__(self, endpoint: Any):
        self._endpoint = endpoint

    @property
    def target(self) -> Any:
        return self._endpoint.target

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._endpoint, name)
        if name.startswith("_") or not callable(attr):
            return attr
        import oslo_messaging as messaging

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attr(*args, **kwargs)
            except exception.IronicException:
                # Captures the exception being handled (sys.exc_info()).
                raise messaging.ExpectedException() from None
        return call

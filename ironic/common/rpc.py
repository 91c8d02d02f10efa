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
kombu and oslo.service, modules the all-in-one on its embedded defaults
never uses.
"""

from __future__ import annotations

import abc
import json
import queue
import threading
from typing import Any

from ironic.common import eventlet_quiet, exception, outages
from ironic.conf import CONF

TOPIC = "ironic.conductor_manager"
#: The fanout topic ironic-pxe-filter processes listen on.
PXE_FILTER_TOPIC = "ironic.pxe_filter"


_OPTS_REGISTERED = False


def _threading_backend() -> None:
    """oslo.service's threading backend (cotyledon, futurist) for what
    oslo.messaging runs through it, chosen before anything asks for a
    backend: its default is eventlet, which this service never runs."""
    from oslo_service import backend
    if backend.get_backend_type() is None:
        backend.init_backend(backend.BackendType.THREADING)


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
    with eventlet_quiet.quiet():
        # The first import of oslo.messaging in a process: oslo.service
        # under it imports eventlet.
        _threading_backend()
        import oslo_messaging
        from oslo_messaging import opts as messaging_opts
    oslo_messaging.set_transport_defaults(control_exchange="ironic")
    for group, opts in messaging_opts.list_opts():
        for opt in opts:
            try:
                CONF.register_opt(opt, group=group)
            except Exception:  # noqa: BLE001 - already registered
                pass
    # Callers check that a conductor slow to answer is alive with
    # oslo.messaging's own ping (see OsloTransport.call); its servers
    # answer it only when this is on.
    CONF.set_default("rpc_ping_enabled", True)
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

    def fanout(self, topic: str, method: str, context: dict, kwargs: dict,
               version: str) -> bool:
        """Send ``method`` to every server listening on ``topic``, without
        waiting; False when the transport cannot broadcast (``none``:
        nothing outside this process hears it)."""
        return False


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
    """oslo.messaging RPC with two bounds no caller waits past.

    * Publishing: with the broker away a call fails after
      ``PUBLISH_RETRIES`` reconnection attempts (MessageDeliveryFailure,
      503 at the API) instead of oslo.messaging's default of retrying
      forever.
    * A dead conductor: a call still unanswered after
      ``[conductor]rpc_liveness_timeout`` seconds runs in the background
      while the caller pings the conductor (oslo.messaging's
      ``oslo_rpc_server_ping``, bounded by the same seconds). A conductor
      that answers the ping is alive and busy: the call keeps its full
      ``rpc_response_timeout``. One that does not is taken for dead:
      ``ConductorUnreachable`` at once, instead of a wait of the whole
      RPC timeout for an answer that will not come.
    """

    PUBLISH_RETRIES = 1

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
                                   timeout=timeout,
                                   retry=self.PUBLISH_RETRIES)

    def _call(self, host, method, context, kwargs, version, timeout):
        try:
            return self._prepared(host, version, timeout).call(
                context, method, **kwargs)
        except self._messaging.MessagingTimeout as e:
            raise exception.NoValidHost(
                reason=f"requests for conductor {host}: no answer in "
                       f"time") from e

    def call(self, host, method, context, kwargs, version, timeout=None):
        bound = CONF.conductor.rpc_liveness_timeout
        if bound <= 0:
            return self._call(host, method, context, kwargs, version,
                              timeout)
        call = _Background(lambda: self._call(host, method, context, kwargs,
                                              version, timeout))
        if not call.wait(bound) and not self.ping(host, bound):
            if not call.wait(0):
                raise exception.ConductorUnreachable(host=host,
                                                     seconds=bound)
        return call.result()

    def ping(self, host: str, timeout: float) -> bool:
        """Whether ``host``'s RPC server answers within ``timeout``."""
        try:
            self.client.prepare(server=host, timeout=timeout,
                                retry=self.PUBLISH_RETRIES).call(
                {}, "oslo_rpc_server_ping")
            return True
        except self._messaging.MessagingException:
            return False

    def cast(self, host, method, context, kwargs, version):
        self._prepared(host, version).cast(context, method, **kwargs)

    def fanout(self, topic, method, context, kwargs, version):
        self.client.prepare(topic=topic, fanout=True, version=version).cast(
            context, method, **kwargs)
        return True


class _Background:
    """``func`` running on a thread of ``_RUNNER``; the caller waits for it
    as long as it wants and may walk away (the call ends with its own
    timeout)."""

    def __init__(self, func):
        self._func = func
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        _RUNNER.submit(self)

    def run(self) -> None:
        try:
            self._value = self._func()
        except BaseException as e:  # noqa: BLE001 - handed to result()
            self._error = e
        finally:
            self._done.set()

    def wait(self, timeout: float | None) -> bool:
        return self._done.wait(timeout)

    def result(self) -> Any:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


class _Runner:
    """Daemon threads kept for the calls: a job never waits behind
    another (a call to a dead conductor holds its thread for the whole
    RPC timeout), and a thread is made only when none is idle. Starting a
    thread per call cost four times as much (160 against 40 us)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, job: _Background) -> None:
        with self._lock:
            if self._idle:
                # An idle thread is, or soon will be, waiting for a job.
                self._idle -= 1
                self._jobs.put(job)
                return
        threading.Thread(target=self._work, args=(job,), name="rpc-call",
                         daemon=True).start()

    def _work(self, job: _Background) -> None:
        while True:
            job.run()
            del job  # not kept alive while idle
            with self._lock:
                self._idle += 1
            job = self._jobs.get()


_RUNNER = _Runner()


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


def rpc_server(host: str, endpoint: Any, topic: str = TOPIC) -> Any:
    """The oslo.messaging server of one conductor (threading executor),
    or of another service listening on ``topic``."""
    import oslo_messaging as messaging
    from oslo_messaging.rpc import dispatcher
    register_opts()
    transport = messaging.get_rpc_transport(
        CONF, allowed_remote_exmods=ALLOWED_EXMODS)
    target = messaging.Target(topic=topic, server=host)
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
                try:
                    return attr(*args, **kwargs)
                except Exception as e:
                    # The database away: an answer the caller can retry
                    # (503), not a RemoteError (500) with a traceback.
                    what = outages.dependency_outage(e)
                    if what is None:
                        raise
                    raise exception.DependencyUnavailable(
                        dependency=what) from None
            except exception.IronicException:
                # Captures the exception being handled (sys.exc_info()).
                raise messaging.ExpectedException() from None
        return call

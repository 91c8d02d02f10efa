"""Options of the [api] group."""

from oslo_config import cfg, types

group = cfg.OptGroup("api", title="Bare Metal API options")


class Octal(types.Integer):
    """A file mode written in octal, as ``0660`` or ``660``."""

    def __call__(self, value):
        if isinstance(value, str):
            value = int(value.removeprefix("0o"), 8)
        return super().__call__(value)

    def _formatter(self, value):
        return f"{value:04o}"

opts = [
    cfg.HostAddressOpt("host_ip", default="0.0.0.0",
                       help="Address the API listens on."),
    cfg.PortOpt("port", default=6385, help="TCP port the API listens on."),
    cfg.StrOpt("unix_socket",
               help="Unix socket to listen on instead of host_ip and port "
                    "(a front end on the same host, e.g. a TLS proxy)."),
    cfg.Opt("unix_socket_mode", type=Octal(min=0, max=0o7777),
            help="File mode of the unix socket, in octal (e.g. 0660). "
                 "Unset leaves it to the process umask."),
    cfg.IntOpt("max_limit", default=1000, min=1,
               help="Largest number of items a collection returns in one "
                    "response."),
    cfg.StrOpt("public_endpoint",
               help="Public URL of the API used in links, when it differs "
                    "from the URL the request came in on (e.g. behind a "
                    "proxy)."),
    cfg.IntOpt("api_workers", min=1,
               help="Processes of ironic-api: above 1, a parent binds the "
                    "port and keeps this many forked workers serving it, "
                    "starting a new one when one dies. Unset means 1. The "
                    "all-in-one ironic, whose conductor runs in that same "
                    "process, serves from one process and logs a value "
                    "above 1 at start-up."),
    cfg.IntOpt("server_threads", default=8, min=1,
               help="Requests the built-in server (ironic, ironic-api) "
                    "runs in the application at once, per process. A "
                    "request takes one only once its head and body have "
                    "been read, so slow clients never hold one; further "
                    "requests wait, read, for a free one. Threads of one "
                    "process take turns on the interpreter lock: more "
                    "help only when many requests wait at once on slow "
                    "conductor calls (BMCs answering synchronous "
                    "requests)."),
    cfg.IntOpt("max_connections", default=4000, min=16,
               help="Open client connections the built-in server keeps "
                    "per process. When they are all taken, the connection "
                    "that has waited longest for its request is closed to "
                    "make room for a new one; connections in the middle "
                    "of a request are never closed for it. The process's "
                    "open-file limit is raised to fit at start-up."),
    cfg.IntOpt("max_connections_per_client", default=100, min=1,
               help="Open connections one client address may have at "
                    "once, per process; further ones are closed on "
                    "arrival. Raise it when clients reach the API through "
                    "a proxy or NAT that gives them one address."),
    cfg.IntOpt("node_document_cache_size", default=2048, min=0,
               help="Node documents (GET /v1/nodes/{node}) each API "
                    "process keeps rendered, per node, microversion and "
                    "fields list. One is answered again only while the "
                    "node's database row and traits are unchanged, which "
                    "every request still reads, so no entry can go stale. "
                    "A document takes about 4 KiB. 0 renders every "
                    "document anew."),
    cfg.BoolOpt("restrict_lookup", default=True,
                help="Only answer ramdisk lookups for nodes in states where "
                     "an agent is expected."),
    cfg.IntOpt("ramdisk_heartbeat_timeout", default=300, min=1,
               help="Seconds the ramdisk agent may go without a heartbeat; "
                    "the agent is told on lookup and heartbeats well "
                    "within it."),
    cfg.IntOpt("max_json_body_size", default=1024, min=4, mutable=True,
               help="Largest request body the API accepts, in KiB, except "
                    "on the two endpoints with limits of their own below. "
                    "A larger declared Content-Length is answered 413 "
                    "without reading the body."),
    cfg.IntOpt("max_json_body_size_provision", default=65536, min=4,
               mutable=True,
               help="Largest body of PUT /v1/nodes/{node}/states/provision, "
                    "in KiB: it may carry a config drive."),
    cfg.IntOpt("max_json_body_size_inspection", default=2048, min=4,
               mutable=True,
               help="Largest body of POST /v1/continue_inspection, in KiB. "
                    "The endpoint needs no credentials, so its limit is "
                    "low: the real agent's data measured 3.3 KiB on a "
                    "small machine, and large servers with the logs "
                    "collector are expected in the hundreds of KiB; raise "
                    "it for collectors that send more (benchmarks, extra "
                    "hardware)."),
    cfg.IntOpt("max_json_body_depth", default=25, min=8, mutable=True,
               help="Deepest nesting of JSON arrays and objects the API "
                    "accepts in a request body (400 beyond it)."),
    cfg.BoolOpt("enable_ssl_api", default=False,
                help="Serve the API of ironic and ironic-api over HTTPS "
                     "(with cert_file and key_file, or the [ssl] group); "
                     "plain HTTP to the port is then refused. Leave it off "
                     "when a front end terminates TLS."),
    cfg.StrOpt("cert_file",
               help="Certificate (PEM, with its chain) of the HTTPS API. "
                    "Unset means [ssl]cert_file."),
    cfg.StrOpt("key_file",
               help="Private key (PEM) of the HTTPS API. Unset means "
                    "[ssl]key_file."),
    cfg.StrOpt("server_tls_minimum_version", default="1.3",
               choices=[("1.2", "TLS 1.2 or newer"),
                        ("1.3", "TLS 1.3 only")],
               help="Oldest TLS version the HTTPS API accepts."),
    cfg.StrOpt("server_tls_ciphers",
               help="OpenSSL cipher list of the HTTPS API (TLS 1.2 "
                    "ciphers; TLS 1.3 suites are OpenSSL's)."),
    cfg.IntOpt("request_timeout", default=30, min=1,
               help="Seconds a client has to send a whole request head, "
                    "counted from when the connection starts waiting for "
                    "it, and again to send the whole body: a deadline for "
                    "each, not for each read. A kept-alive connection "
                    "idle this long is closed."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)

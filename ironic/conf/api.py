"""Options of the [api] group."""

from oslo_config import cfg

group = cfg.OptGroup("api", title="Bare Metal API options")

opts = [
    cfg.HostAddressOpt("host_ip", default="0.0.0.0",
                       help="Address the API listens on."),
    cfg.PortOpt("port", default=6385, help="TCP port the API listens on."),
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
                    "runs at once. Requests are answered by the thread "
                    "that saw them arrive, and a request that runs long "
                    "gets the waiting handed to another thread; requests "
                    "beyond this number wait for a slot with their request "
                    "read. Threads of one process "
                    "take turns on the interpreter lock, so beyond a few "
                    "they add hand-offs rather than throughput: measured "
                    "with 8 clients on 2 cores, 8 answered node GETs and "
                    "provision PUTs faster than 16. More help only when "
                    "many requests wait at once on slow conductor calls "
                    "(BMCs answering synchronous requests)."),
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
    cfg.IntOpt("max_json_body_size_inspection", default=16384, min=4,
               mutable=True,
               help="Largest body of POST /v1/continue_inspection, in KiB: "
                    "the ramdisk's inspection data may include its logs."),
    cfg.IntOpt("max_json_body_depth", default=25, min=8, mutable=True,
               help="Deepest nesting of JSON arrays and objects the API "
                    "accepts in a request body (400 beyond it)."),
    cfg.BoolOpt("enable_ssl_api", default=False,
                help="Serve the all-in-one API over TLS."),
    cfg.IntOpt("request_timeout", default=60, min=1,
               help="Seconds the built-in server waits on a client: "
                    "for the next request on a kept-alive connection, "
                    "and for each read or write within a request."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)

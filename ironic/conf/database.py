"""Options of the [database] group (oslo.db's) and our sqlite default."""

from oslo_config import cfg
from oslo_db import options as db_options

group = cfg.OptGroup("database", title="Database options")

opts = [
    cfg.StrOpt("mysql_engine", default="InnoDB",
               help="MySQL storage engine used for new tables."),
]

SQLITE_FILE = "ironic.sqlite"


def register_opts(conf: cfg.ConfigOpts) -> None:
    # connection=None means "the sqlite file under state_path"; resolved in
    # ironic.db.sqlalchemy.api so that state_path from the config file wins.
    db_options.set_defaults(conf, connection=None)
    conf.register_opts(opts, group=group)


def list_opts() -> list[cfg.Opt]:
    return db_options.list_opts()[0][1] + opts

"""``ironic-dbsync``: create, upgrade and inspect the database schema."""

from __future__ import annotations

import sys

from alembic import util as alembic_util
from oslo_config import cfg
from oslo_db import exception as db_exc

from ironic import service
from ironic.conf import CONF
from ironic.objects import schema


def _create_schema() -> None:
    schema.create()
    print(f"Created the schema at revision {schema.revision()}.")


def _upgrade() -> None:
    schema.upgrade(CONF.command.revision or "head")
    print(f"The schema is at revision {schema.revision()}.")


def _version() -> None:
    print(schema.revision())


def _online_data_migrations() -> None:
    # No data migrations exist yet; the command (and its options, which
    # deployment tools pass) is kept so they can call it unconditionally.
    print("No online data migrations to run.")


def _add_parsers(subparsers) -> None:
    p = subparsers.add_parser("create_schema",
                              help="Create the schema of an empty database.")
    p.set_defaults(func=_create_schema)
    p = subparsers.add_parser("upgrade", help="Upgrade to a revision.")
    p.add_argument("--revision", help="Target revision (default: head).")
    p.set_defaults(func=_upgrade)
    p = subparsers.add_parser("version", help="Print the current revision.")
    p.set_defaults(func=_version)
    p = subparsers.add_parser("online_data_migrations",
                              help="Run online data migrations.")
    p.add_argument("--max-count", type=int, metavar="N",
                   help="Migrate at most N objects per migration.")
    p.add_argument("--option", action="append", default=[],
                   help="MIGRATION.KEY=VALUE passed to a migration.")
    p.set_defaults(func=_online_data_migrations)


command_opt = cfg.SubCommandOpt("command", title="Command",
                                help="Available commands",
                                handler=_add_parsers)


def main(argv: list[str] | None = None) -> int:
    # The sub-command is a CLI option, which oslo.config only accepts
    # before parsing; clear() also makes main() callable more than once in
    # one process (tests), and the finally block leaves CONF parseable
    # without a sub-command for whoever runs next.
    CONF.clear()
    CONF.register_cli_opt(command_opt)
    try:
        service.prepare_service("ironic-dbsync", sys.argv[1:] if argv is None
                                else argv)
        service.ensure_state_path()
        CONF.command.func()
    except (RuntimeError, db_exc.DBError, alembic_util.CommandError) as e:
        print(f"ironic-dbsync: {e}", file=sys.stderr)
        return 1
    finally:
        schema.close()
        CONF.clear()
        CONF.unregister_opt(command_opt)
    return 0


if __name__ == "__main__":
    sys.exit(main())

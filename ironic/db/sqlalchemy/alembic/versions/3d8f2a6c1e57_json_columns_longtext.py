"""Every JSON column as LONGTEXT on MySQL/MariaDB.

A request body may be 1 MiB ([api]max_json_body_size) while MySQL's TEXT
holds 64 KiB, and a strict server refuses the longer value. Only the
columns a configdrive or an inventory could fill were LONGTEXT so far;
now all of them are. sqlite and PostgreSQL are unchanged.

Revision ID: 3d8f2a6c1e57
Revises: f5a1c3e7b942
Create Date: 2026-11-23 21:20:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '3d8f2a6c1e57'
down_revision = 'f5a1c3e7b942'

# The JSON columns that were still TEXT, by table.
_COLUMNS = {
    'chassis': ('extra',),
    'conductors': ('drivers',),
    'nodes': ('driver_info', 'properties', 'extra', 'raid_config',
              'target_raid_config', 'network_data', 'clean_step',
              'deploy_step', 'service_step'),
    'ports': ('extra', 'internal_info', 'local_link_connection'),
    'portgroups': ('extra', 'internal_info', 'properties'),
    'volume_connectors': ('extra',),
    'volume_targets': ('properties', 'extra'),
    'bios_settings': ('allowable_values',),
    'deploy_templates': ('steps', 'extra'),
    'runbooks': ('steps', 'extra'),
    'allocations': ('traits', 'candidate_nodes', 'extra'),
}


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'mysql':
        return
    inspector = sa.inspect(bind)
    for table, names in _COLUMNS.items():
        nullable = {c['name']: c['nullable']
                    for c in inspector.get_columns(table)}
        for name in names:
            # MODIFY restates the whole column: keep its NULL-ability.
            op.alter_column(table, name, type_=mysql.LONGTEXT(),
                            existing_type=sa.Text(),
                            existing_nullable=nullable[name])

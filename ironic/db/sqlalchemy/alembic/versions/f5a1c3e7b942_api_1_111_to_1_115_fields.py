"""Columns behind API 1.111, 1.113, 1.114 and 1.115.

Ports record whether they may join a dynamic port group and port groups
whether they are one (1.111); history events name the project that caused
them (1.113) and the node's state, target and time spent in that state
(1.115); firmware components carry the vendor, model and serial number the
BMC reports (1.114).

Revision ID: f5a1c3e7b942
Revises: e2b7c9d4a183
Create Date: 2026-11-23 20:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = 'f5a1c3e7b942'
down_revision = 'e2b7c9d4a183'


def _add(table: str, *columns: sa.Column) -> None:
    with op.batch_alter_table(table, schema=None) as batch_op:
        for column in columns:
            batch_op.add_column(column)


def upgrade() -> None:
    # Existing ports stay available, as new ones are by default.
    _add('ports', sa.Column('available_for_dynamic_portgroup', sa.Boolean(),
                            server_default='1', nullable=False))
    _add('portgroups', sa.Column('dynamic_portgroup', sa.Boolean(),
                                 nullable=True))
    # The API shows a boolean: existing groups are static ones.
    op.execute(sa.text('UPDATE portgroups SET dynamic_portgroup = :no')
               .bindparams(no=False))
    _add('node_history',
         sa.Column('project', sa.String(80), nullable=True),
         sa.Column('state', sa.String(255), nullable=True),
         sa.Column('target_provision_state', sa.String(255), nullable=True),
         sa.Column('duration_seconds', sa.Integer(), nullable=True))
    _add('firmware_information',
         sa.Column('vendor', sa.String(255), nullable=True),
         sa.Column('model', sa.String(255), nullable=True),
         sa.Column('serial_number', sa.String(255), nullable=True))

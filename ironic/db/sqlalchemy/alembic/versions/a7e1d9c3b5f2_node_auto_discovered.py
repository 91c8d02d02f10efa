"""Nodes record whether auto-discovery enrolled them.

Revision ID: a7e1d9c3b5f2
Revises: 3d8f2a6c1e57
Create Date: 2026-11-26 10:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = 'a7e1d9c3b5f2'
down_revision = '3d8f2a6c1e57'


def upgrade() -> None:
    # Every existing node was enrolled by someone.
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('auto_discovered', sa.Boolean(),
                                      server_default='0', nullable=False))

"""Portgroups gain a category (API 1.103).

Revision ID: 7e3a9c4d2f18
Revises: 5c1e7d2b9a10
Create Date: 2026-11-22 04:15:00
"""

import sqlalchemy as sa
from alembic import op

revision = '7e3a9c4d2f18'
down_revision = '5c1e7d2b9a10'


def upgrade() -> None:
    with op.batch_alter_table('portgroups', schema=None) as batch_op:
        batch_op.add_column(sa.Column('category', sa.String(80),
                                      nullable=True))

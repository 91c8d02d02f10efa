"""Port and port group addresses hold a 20-octet InfiniBand address.

The API accepts one (59 characters) as well as a MAC; an 18-character
column made MariaDB and PostgreSQL refuse it.

Revision ID: 6b2d8f4a1c93
Revises: a7e1d9c3b5f2
Create Date: 2026-11-27 04:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = '6b2d8f4a1c93'
down_revision = 'a7e1d9c3b5f2'


def upgrade() -> None:
    with op.batch_alter_table('ports', schema=None) as batch_op:
        batch_op.alter_column('address', existing_type=sa.String(18),
                              type_=sa.String(64), existing_nullable=False)
    with op.batch_alter_table('portgroups', schema=None) as batch_op:
        batch_op.alter_column('address', existing_type=sa.String(18),
                              type_=sa.String(64), existing_nullable=True)

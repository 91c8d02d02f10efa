"""instance_info and driver_internal_info as LONGTEXT on MySQL/MariaDB.

TEXT holds 64 KiB there, less than a configdrive; other backends are
unchanged.

Revision ID: 9a4c2e7b5d61
Revises: 9a3c5e7f1b42
Create Date: 2026-11-22 05:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '9a4c2e7b5d61'
down_revision = '9a3c5e7f1b42'


def upgrade() -> None:
    if op.get_bind().dialect.name != 'mysql':
        return
    for column in ('instance_info', 'driver_internal_info'):
        op.alter_column('nodes', column, type_=mysql.LONGTEXT(),
                        existing_type=sa.Text(), existing_nullable=False)

"""Firmware components of nodes.

Revision ID: 8f2b6d1e4c37
Revises: 7d4a9e3c1b20
Create Date: 2026-11-22 04:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = '8f2b6d1e4c37'
down_revision = '7d4a9e3c1b20'


def upgrade() -> None:
    op.create_table(
        'firmware_information',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('node_id', sa.Integer(), sa.ForeignKey(
            'nodes.id', ondelete='CASCADE',
            name='firmware_information_node_id_fk'), nullable=False),
        sa.Column('component', sa.String(255), nullable=False),
        sa.Column('initial_version', sa.String(255), nullable=False),
        sa.Column('current_version', sa.String(255), nullable=True),
        sa.Column('last_version_flashed', sa.String(255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('node_id', 'component',
                            name='uniq_firmwareinformation0node_id0component'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade() -> None:
    op.drop_table('firmware_information')

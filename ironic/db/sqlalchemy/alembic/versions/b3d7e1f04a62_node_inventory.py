"""Inventory and plugin data recorded by in-band inspection.

Revision ID: b3d7e1f04a62
Revises: 9a4c2e7b5d61
Create Date: 2026-11-22 22:20:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = 'b3d7e1f04a62'
down_revision = '9a4c2e7b5d61'

# An inventory with many disks and NICs outgrows MySQL's 64 KiB TEXT.
_LONG_JSON = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


def upgrade() -> None:
    op.create_table(
        'node_inventory',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('inventory_data', _LONG_JSON, nullable=False),
        sa.Column('plugin_data', _LONG_JSON, nullable=False),
        sa.Column('node_id', sa.Integer(), sa.ForeignKey(
            'nodes.id', ondelete='CASCADE',
            name='node_inventory_node_id_fk'), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('inventory_node_id_idx', 'node_inventory', ['node_id'])


def downgrade() -> None:
    op.drop_index('inventory_node_id_idx', table_name='node_inventory')
    op.drop_table('node_inventory')

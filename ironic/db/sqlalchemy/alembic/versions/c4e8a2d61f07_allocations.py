"""Allocations (API 1.52): requests for a node by resource class and traits.

Revision ID: c4e8a2d61f07
Revises: b3d7e1f04a62
Create Date: 2026-11-22 22:50:00
"""

import sqlalchemy as sa
from alembic import op

revision = 'c4e8a2d61f07'
down_revision = 'b3d7e1f04a62'


def upgrade() -> None:
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer(), sa.ForeignKey(
            'nodes.id', name='allocations_node_id_fk'), nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', sa.Text(), nullable=False),
        sa.Column('candidate_nodes', sa.Text(), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('conductor_affinity', sa.Integer(), sa.ForeignKey(
            'conductors.id', name='allocations_conductor_affinity_fk'),
            nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('allocations_state_idx', 'allocations', ['state'])
    op.create_index('allocations_node_id_idx', 'allocations', ['node_id'])


def downgrade() -> None:
    op.drop_index('allocations_node_id_idx', table_name='allocations')
    op.drop_index('allocations_state_idx', table_name='allocations')
    op.drop_table('allocations')

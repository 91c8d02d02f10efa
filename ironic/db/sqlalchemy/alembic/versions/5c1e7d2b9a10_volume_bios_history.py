"""Volume connectors and targets, BIOS settings, node history.

Revision ID: 5c1e7d2b9a10
Revises: 2a6ab0c1f001
Create Date: 2026-11-22 04:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '5c1e7d2b9a10'
down_revision = '2a6ab0c1f001'

_TABLE_ARGS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def _timestamps() -> list[sa.Column]:
    return [sa.Column('created_at', sa.DateTime(), nullable=True),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def _node_fk(table: str, **kw) -> sa.Column:
    return sa.Column('node_id', sa.Integer(), sa.ForeignKey(
        'nodes.id', ondelete='CASCADE', name=f'{table}_node_id_fk'),
        nullable=False, **kw)


def upgrade() -> None:
    op.create_table(
        'volume_connectors',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        _node_fk('volume_connectors'),
        sa.Column('type', sa.String(32), nullable=False),
        sa.Column('connector_id', sa.String(255), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'),
        **_TABLE_ARGS)
    op.create_index('volume_connectors_node_id_idx', 'volume_connectors',
                    ['node_id'])
    op.create_table(
        'volume_targets',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        _node_fk('volume_targets'),
        sa.Column('volume_type', sa.String(64), nullable=False),
        sa.Column('properties', sa.Text(), nullable=False),
        sa.Column('boot_index', sa.Integer(), nullable=False),
        sa.Column('volume_id', sa.String(36), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'),
        **_TABLE_ARGS)
    op.create_index('volume_targets_node_id_idx', 'volume_targets',
                    ['node_id'])
    op.create_table(
        'bios_settings',
        _node_fk('bios_settings', primary_key=True),
        sa.Column('name', sa.String(255), primary_key=True),
        sa.Column('value', sa.Text(), nullable=True),
        sa.Column('attribute_type', sa.String(255), nullable=True),
        sa.Column('allowable_values', sa.Text(), nullable=False),
        sa.Column('lower_bound', sa.Integer(), nullable=True),
        sa.Column('max_length', sa.Integer(), nullable=True),
        sa.Column('min_length', sa.Integer(), nullable=True),
        sa.Column('read_only', sa.Boolean(), nullable=True),
        sa.Column('reset_required', sa.Boolean(), nullable=True),
        sa.Column('unique', sa.Boolean(), nullable=True),
        sa.Column('upper_bound', sa.Integer(), nullable=True),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_table(
        'node_history',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        _node_fk('node_history'),
        sa.Column('conductor', sa.String(255), nullable=True),
        sa.Column('event_type', sa.String(255), nullable=True),
        sa.Column('severity', sa.String(255), nullable=True),
        sa.Column('event', sa.Text(), nullable=True),
        sa.Column('user', sa.String(32), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_nodehistory0uuid'),
        **_TABLE_ARGS)
    op.create_index('history_node_id_idx', 'node_history', ['node_id'])


def downgrade() -> None:
    for table in ('node_history', 'bios_settings', 'volume_targets',
                  'volume_connectors'):
        op.drop_table(table)

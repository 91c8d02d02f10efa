"""Runbooks and their traits.

Revision ID: 9a3c5e7f1b42
Revises: 8f2b6d1e4c37
Create Date: 2026-11-22 04:55:00
"""

import sqlalchemy as sa
from alembic import op

revision = '9a3c5e7f1b42'
down_revision = '8f2b6d1e4c37'

_ARGS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        'runbooks',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('steps', sa.Text(), nullable=False),
        sa.Column('disable_ramdisk', sa.Boolean(), server_default='0',
                  nullable=False),
        sa.Column('public', sa.Boolean(), server_default='0',
                  nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_runbooks0uuid'),
        sa.UniqueConstraint('name', name='uniq_runbooks0name'),
        **_ARGS)
    op.create_table(
        'runbook_traits',
        sa.Column('runbook_id', sa.Integer(), sa.ForeignKey(
            'runbooks.id', ondelete='CASCADE',
            name='runbook_traits_runbook_id_fk'), primary_key=True),
        sa.Column('trait', sa.String(255), primary_key=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        **_ARGS)


def downgrade() -> None:
    op.drop_table('runbook_traits')
    op.drop_table('runbooks')

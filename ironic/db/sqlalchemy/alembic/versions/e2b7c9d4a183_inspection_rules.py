"""Inspection rules (API 1.96).

Revision ID: e2b7c9d4a183
Revises: c4e8a2d61f07
Create Date: 2026-11-23 20:30:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = 'e2b7c9d4a183'
down_revision = 'c4e8a2d61f07'

# Rules with many actions or long api-call headers outgrow MySQL's TEXT.
_LONG_JSON = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


def upgrade() -> None:
    op.create_table(
        'inspection_rules',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('priority', sa.Integer(), server_default='0',
                  nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('sensitive', sa.Boolean(), server_default='0',
                  nullable=False),
        sa.Column('phase', sa.String(16), server_default='main',
                  nullable=False),
        sa.Column('conditions', _LONG_JSON, nullable=False),
        sa.Column('actions', _LONG_JSON, nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_inspection_rules0uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('inspection_rule_phase_idx', 'inspection_rules',
                    ['phase'])


def downgrade() -> None:
    op.drop_index('inspection_rule_phase_idx', table_name='inspection_rules')
    op.drop_table('inspection_rules')

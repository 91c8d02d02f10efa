"""Deploy templates; node health.

Revision ID: 7d4a9e3c1b20
Revises: 7e3a9c4d2f18
Create Date: 2026-11-22 04:25:00
"""

import sqlalchemy as sa
from alembic import op

revision = '7d4a9e3c1b20'
down_revision = '7e3a9c4d2f18'


def upgrade() -> None:
    op.create_table(
        'deploy_templates',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('steps', sa.Text(), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_deploytemplates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploytemplates0name'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    with op.batch_alter_table('nodes') as batch_op:
        batch_op.add_column(sa.Column('health', sa.String(255),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('nodes') as batch_op:
        batch_op.drop_column('health')
    op.drop_table('deploy_templates')

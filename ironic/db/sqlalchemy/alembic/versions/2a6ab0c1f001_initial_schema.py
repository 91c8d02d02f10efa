"""Initial schema: nodes, ports, portgroups, chassis, conductors, traits, tags.

Revision ID: 2a6ab0c1f001
Revises: 
Create Date: 2026-11-22 03:33:06.124515
"""

from alembic import op
import sqlalchemy as sa


revision = '2a6ab0c1f001'
down_revision = None


def upgrade() -> None:

    op.create_table('chassis',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('extra', sa.Text(), nullable=False),
    sa.Column('description', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('conductors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hostname', sa.String(length=255), nullable=False),
    sa.Column('drivers', sa.Text(), nullable=False),
    sa.Column('online', sa.Boolean(), nullable=False),
    sa.Column('conductor_group', sa.String(length=255), server_default='', nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('conductors', schema=None) as batch_op:
        batch_op.create_index('conductor_group_online_idx', ['conductor_group', 'online'], unique=False)

    op.create_table('conductor_hardware_interfaces',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conductor_id', sa.Integer(), nullable=False),
    sa.Column('hardware_type', sa.String(length=255), nullable=False),
    sa.Column('interface_type', sa.String(length=16), nullable=False),
    sa.Column('interface_name', sa.String(length=255), nullable=False),
    sa.Column('default', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['conductor_id'], ['conductors.id'], name='conductor_hardware_interfaces_conductor_id_fk', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('conductor_id', 'hardware_type', 'interface_type', 'interface_name', name='uniq_conductorhardwareinterfaces0'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('chassis_id', sa.Integer(), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('instance_name', sa.String(length=255), nullable=True),
    sa.Column('driver', sa.String(length=255), nullable=False),
    sa.Column('driver_info', sa.Text(), nullable=False),
    sa.Column('driver_internal_info', sa.Text(), nullable=False),
    sa.Column('instance_info', sa.Text(), nullable=False),
    sa.Column('properties', sa.Text(), nullable=False),
    sa.Column('extra', sa.Text(), nullable=False),
    sa.Column('raid_config', sa.Text(), nullable=False),
    sa.Column('target_raid_config', sa.Text(), nullable=False),
    sa.Column('network_data', sa.Text(), nullable=False),
    sa.Column('clean_step', sa.Text(), nullable=False),
    sa.Column('deploy_step', sa.Text(), nullable=False),
    sa.Column('service_step', sa.Text(), nullable=False),
    sa.Column('power_state', sa.String(length=15), nullable=True),
    sa.Column('target_power_state', sa.String(length=15), nullable=True),
    sa.Column('provision_state', sa.String(length=15), nullable=True),
    sa.Column('target_provision_state', sa.String(length=15), nullable=True),
    sa.Column('provision_updated_at', sa.DateTime(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('console_enabled', sa.Boolean(), nullable=False),
    sa.Column('maintenance', sa.Boolean(), nullable=False),
    sa.Column('maintenance_reason', sa.Text(), nullable=True),
    sa.Column('fault', sa.String(length=255), nullable=True),
    sa.Column('reservation', sa.String(length=255), nullable=True),
    sa.Column('conductor_affinity', sa.Integer(), nullable=True),
    sa.Column('conductor_group', sa.String(length=255), server_default='', nullable=False),
    sa.Column('inspection_started_at', sa.DateTime(), nullable=True),
    sa.Column('inspection_finished_at', sa.DateTime(), nullable=True),
    sa.Column('resource_class', sa.String(length=80), nullable=True),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('lessee', sa.String(length=255), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('automated_clean', sa.Boolean(), nullable=True),
    sa.Column('protected', sa.Boolean(), server_default='0', nullable=False),
    sa.Column('protected_reason', sa.Text(), nullable=True),
    sa.Column('retired', sa.Boolean(), server_default='0', nullable=True),
    sa.Column('retired_reason', sa.Text(), nullable=True),
    sa.Column('allocation_id', sa.Integer(), nullable=True),
    sa.Column('boot_mode', sa.String(length=16), nullable=True),
    sa.Column('secure_boot', sa.Boolean(), nullable=True),
    sa.Column('shard', sa.String(length=255), nullable=True),
    sa.Column('parent_node', sa.String(length=36), nullable=True),
    sa.Column('disable_power_off', sa.Boolean(), server_default='0', nullable=False),
    sa.Column('bios_interface', sa.String(length=255), nullable=True),
    sa.Column('boot_interface', sa.String(length=255), nullable=True),
    sa.Column('console_interface', sa.String(length=255), nullable=True),
    sa.Column('deploy_interface', sa.String(length=255), nullable=True),
    sa.Column('firmware_interface', sa.String(length=255), nullable=True),
    sa.Column('inspect_interface', sa.String(length=255), nullable=True),
    sa.Column('management_interface', sa.String(length=255), nullable=True),
    sa.Column('network_interface', sa.String(length=255), nullable=True),
    sa.Column('power_interface', sa.String(length=255), nullable=True),
    sa.Column('raid_interface', sa.String(length=255), nullable=True),
    sa.Column('rescue_interface', sa.String(length=255), nullable=True),
    sa.Column('storage_interface', sa.String(length=255), nullable=True),
    sa.Column('vendor_interface', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['chassis_id'], ['chassis.id'], name='nodes_chassis_id_fk'),
    sa.ForeignKeyConstraint(['conductor_affinity'], ['conductors.id'], name='nodes_conductor_affinity_fk'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
    sa.UniqueConstraint('name', name='uniq_nodes0name'),
    sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.create_index('conductor_affinity_idx', ['conductor_affinity'], unique=False)
        batch_op.create_index('conductor_group_idx', ['conductor_group'], unique=False)
        batch_op.create_index('driver_idx', ['driver'], unique=False)
        batch_op.create_index('lessee_idx', ['lessee'], unique=False)
        batch_op.create_index('owner_idx', ['owner'], unique=False)
        batch_op.create_index('provision_state_idx', ['provision_state'], unique=False)
        batch_op.create_index('reservation_idx', ['reservation'], unique=False)
        batch_op.create_index('resource_class_idx', ['resource_class'], unique=False)

    op.create_table('node_tags',
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('tag', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name='node_tags_node_id_fk', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('node_id', 'tag'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('node_tags', schema=None) as batch_op:
        batch_op.create_index('node_tags_idx', ['tag'], unique=False)

    op.create_table('node_traits',
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('trait', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name='node_traits_node_id_fk', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('node_id', 'trait'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('node_traits', schema=None) as batch_op:
        batch_op.create_index('node_traits_idx', ['trait'], unique=False)

    op.create_table('portgroups',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=18), nullable=True),
    sa.Column('extra', sa.Text(), nullable=False),
    sa.Column('internal_info', sa.Text(), nullable=False),
    sa.Column('standalone_ports_supported', sa.Boolean(), nullable=False),
    sa.Column('mode', sa.String(length=255), nullable=True),
    sa.Column('properties', sa.Text(), nullable=False),
    sa.Column('physical_network', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name='portgroups_node_id_fk'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('address', name='uniq_portgroups0address'),
    sa.UniqueConstraint('name', name='uniq_portgroups0name'),
    sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('portgroups', schema=None) as batch_op:
        batch_op.create_index('portgroup_node_id_idx', ['node_id'], unique=False)

    op.create_table('ports',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('address', sa.String(length=18), nullable=False),
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('portgroup_id', sa.Integer(), nullable=True),
    sa.Column('extra', sa.Text(), nullable=False),
    sa.Column('internal_info', sa.Text(), nullable=False),
    sa.Column('local_link_connection', sa.Text(), nullable=False),
    sa.Column('pxe_enabled', sa.Boolean(), nullable=False),
    sa.Column('physical_network', sa.String(length=64), nullable=True),
    sa.Column('is_smartnic', sa.Boolean(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('vendor', sa.String(length=32), nullable=True),
    sa.Column('category', sa.String(length=80), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name='ports_node_id_fk'),
    sa.ForeignKeyConstraint(['portgroup_id'], ['portgroups.id'], name='ports_portgroup_id_fk'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('address', name='uniq_ports0address'),
    sa.UniqueConstraint('name', name='uniq_ports0name'),
    sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('ports', schema=None) as batch_op:
        batch_op.create_index('port_node_id_idx', ['node_id'], unique=False)
        batch_op.create_index('port_portgroup_id_idx', ['portgroup_id'], unique=False)



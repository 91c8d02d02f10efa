"""SQLAlchemy models: the database schema, nothing else.

Column names follow the Bare Metal API field names so the API, the objects
and the database speak about the same things. The alembic history under
``alembic/versions`` must produce exactly this schema; a test compares them.

One module per group of tables; every model is imported here, so that
``Base.metadata`` (alembic's target) holds them all and the rest of the
database layer names them ``models.Node``, ``models.Port``...
"""

from ironic.db.sqlalchemy.models.allocations import Allocation
from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.models.conductors import (
    Conductor,
    ConductorHardwareInterfaces,
)
from ironic.db.sqlalchemy.models.inspection_rules import InspectionRule
from ironic.db.sqlalchemy.models.node_resources import (
    BIOSSetting,
    FirmwareComponent,
    NodeHistory,
    NodeInventory,
    VolumeConnector,
    VolumeTarget,
)
from ironic.db.sqlalchemy.models.nodes import Chassis, Node, NodeTag, NodeTrait
from ironic.db.sqlalchemy.models.ports import Port, Portgroup
from ironic.db.sqlalchemy.models.step_templates import (
    DeployTemplate,
    Runbook,
    RunbookTrait,
)

__all__ = ["Allocation", "Base", "BIOSSetting", "Chassis", "Conductor",
           "ConductorHardwareInterfaces", "DeployTemplate",
           "FirmwareComponent", "InspectionRule", "Node", "NodeHistory",
           "NodeInventory", "NodeTag", "NodeTrait", "Port", "Portgroup",
           "Runbook", "RunbookTrait", "VolumeConnector", "VolumeTarget"]

"""The one entry point to the database: ``get_instance()``.

Everything that reads or writes rows goes through the ``Connection`` returned
here; no other module opens sessions.
"""

from ironic.db.sqlalchemy import api as sqla_api


def get_instance() -> "sqla_api.Connection":
    return sqla_api.get_connection()

"""Cluster-wide limits on nodes deploying and cleaning at once
(``[conductor]max_concurrent_deploy`` and ``max_concurrent_clean``).

The count is of nodes in the database, so the limit holds for the whole
deployment whichever conductor is asked. A request over the limit is
refused (``ConcurrentActionLimit``, HTTP 503) before the node is locked;
nothing is queued.
"""

from __future__ import annotations

from ironic.common import exception, states
from ironic.conf import CONF
from ironic.objects import housekeeping

DEPLOYING = (states.DEPLOYING, states.DEPLOYWAIT, states.DEPLOYHOLD)
# Tearing down leads to cleaning: both count against the cleaning limit.
CLEANING = (states.CLEANING, states.CLEANWAIT, states.CLEANHOLD,
            states.DELETING)

_KINDS = {
    "provisioning": (DEPLOYING, "max_concurrent_deploy"),
    "unprovisioning": (CLEANING, "max_concurrent_clean"),
    "cleaning": (CLEANING, "max_concurrent_clean"),
}


def check(task_type: str) -> None:
    """ConcurrentActionLimit when starting ``task_type`` would exceed its
    limit."""
    in_states, option = _KINDS[task_type]
    limit = getattr(CONF.conductor, option)
    count = housekeeping.count_in_provision_states(in_states)
    if count >= limit:
        raise exception.ConcurrentActionLimit(task_type=task_type)

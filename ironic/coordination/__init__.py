"""Cluster coordination through tooz: membership, leader election and
cluster-wide locks shared by every ``ironic-conductor`` and
``ironic-pxe-filter`` of a deployment.

``backend`` owns the process's tooz coordinator (connection with bounded,
interruptible retries, heartbeats, locks); ``party`` joins a group, elects
a leader and runs the leader's singleton work in a thread of its own.
Without ``[coordination]backend_url`` the process is a cluster of its own:
always the leader, with process-local locks.
"""

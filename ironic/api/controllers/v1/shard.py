"""/v1/shards (1.82): the shards nodes are assigned to, with counts."""

from __future__ import annotations

from pecan import rest

from ironic.api import features, method, query
from ironic.api.method import api_method, expose
from ironic.common import policy
from ironic.objects import node_counts


class ShardsController(rest.RestController):
    @expose()
    @api_method(features.SHARDS)
    def get_all(self, **params):
        policy.authorize("baremetal:shards:get", method.context())
        query.refuse_unexpected(params, ())
        # Unsharded nodes are reported under the name "None".
        return {"shards": [
            {"name": str(name), "count": count}
            for name, count in node_counts.by_shard()]}

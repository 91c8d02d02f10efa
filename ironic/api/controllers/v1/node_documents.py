"""Encoded node documents as a GET answers them, rendered once and served
again while nothing they show has changed (see
``ironic.api.document_cache``)."""

from __future__ import annotations

from ironic import hash_ring
from ironic.api import document_cache, method
from ironic.api.controllers.v1 import node_policy, node_view
from ironic.api.controllers.v1.node_fields import parse_node_fields, with_links
from ironic.api.controllers.v1.node_lookup import IN_PATH, stored_ident
from ironic.objects.node import Node, NodeSnapshot

_DOCUMENTS = document_cache.DocumentCache()
#: The tag of a document that does not show the node's conductor.
_NO_CONDUCTOR = object()


def node_document(ident: str, fields: str | None = None) -> bytes:
    """``GET /v1/nodes/{ident}[?fields=...]`` encoded, for the routed
    handler."""
    wanted = parse_node_fields(fields, method.version())
    return caller_document(stored_ident(ident, IN_PATH),
                           tuple(with_links(wanted)) if wanted else None,
                           shown_as=ident)


def rendered_node(snap: NodeSnapshot, fields: tuple[str, ...] | None,
                  hidden: frozenset[str] = node_policy.NOTHING_HIDDEN
                  ) -> bytes:
    """The encoded document of the node read in ``snap``, without the
    ``hidden`` fields' values, rendered anew only when the node, the
    request's version, fields, URL or hidden fields differ from an earlier
    rendering (see ``ironic.api.document_cache``)."""
    ver = method.version()
    url = method.public_url()
    # The caller is in the key through what the policy decided for it on
    # this node (the fields it may not see), not through who it is: two
    # callers allowed the same fields share the document, and a document
    # rendered for one is never served to a caller allowed less.
    key = (snap.column("id"), ver, fields, url, hidden)
    found = _DOCUMENTS.get(key, snap.stamp)
    if found is not None:
        conductor, body = found
        if conductor is _NO_CONDUCTOR or conductor == hash_ring.conductor_for(
                {"uuid": snap.column("uuid"), "driver": snap.column("driver"),
                 "conductor_group": snap.column("conductor_group")}):
            return body
    doc = node_policy.redact(node_view.show_node(snap.node(), fields, url),
                             hidden)
    body = method.dumps(doc)
    # The UUIDs of a chassis or an allocation are not in the node's row.
    if snap.column("chassis_id") is None and \
            snap.column("allocation_id") is None:
        _DOCUMENTS.put(key, snap.stamp, doc.get("conductor", _NO_CONDUCTOR),
                       body)
    return body


def caller_document(ident: str, fields: tuple[str, ...] | None = None,
                    shown_as: str | None = None) -> bytes:
    """The node's document as a GET by this caller shows it (404 when the
    caller may not see the node, named ``shown_as`` in the error)."""
    snap = Node.snapshot(ident)
    target = node_policy.target(snap.column("owner"), snap.column("lessee"))
    node_policy.check("baremetal:node:get", target, shown_as or ident)
    return rendered_node(snap, fields, node_policy.hidden_fields(target))


def reset_documents() -> None:
    """Forget every rendered node document (tests switch databases)."""
    _DOCUMENTS.clear()

"""Documents an operation answers that are no stored resource (a node's
states, a hardware type, a list of boot devices), declared member by
member: the member's type (a ``Field``), the feature that brought it, and
how an answer reads it from what it describes.

A handler renders its answer from the declaration (``render``) and
``/v1/openapi.json`` gives the schema of the same declaration
(``schema``), so what a version shows and what the document says it shows
cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Mapping

from ironic.api import features, schemas
from ironic.objects.base import ARRAY, OBJECT, Field

#: How an answer reads a member: from what the document describes, at the
#: request's version.
Reader = Callable[[Any, int], Any]


@dataclasses.dataclass(frozen=True)
class Member:
    """One member of a document."""

    field: Field
    #: The feature that brought it, when it came after the operation.
    since: features.Since = features.ALWAYS
    #: How an answer reads it (None: the attribute of the same name).
    read: Reader | None = None


def _attribute(name: str) -> Reader:
    return lambda source, ver: getattr(source, name)


@dataclasses.dataclass(frozen=True)
class Document:
    """A JSON object an operation answers, member by member, in the order
    the answer shows them."""

    members: Mapping[str, Member]

    @classmethod
    def of(cls, fields: Mapping[str, Field],
           since: Mapping[str, features.Since] | None = None) -> Document:
        """A document whose members are ``fields``, from the operation's
        version unless ``since`` says otherwise."""
        since = since or {}
        return cls({name: Member(field, since.get(name, features.ALWAYS))
                    for name, field in fields.items()})

    @property
    def fields(self) -> dict[str, Field]:
        return {name: m.field for name, m in self.members.items()}

    def features(self) -> dict[str, features.Since]:
        """{member: the feature that brought it}, in document order."""
        return {name: m.since for name, m in self.members.items()}

    def names(self, ver: int) -> list[str]:
        """The members version 1.``ver`` shows, in document order."""
        return [name for name, m in self.members.items()
                if m.since.available(ver)]

    def schema(self, ver: int) -> dict[str, Any]:
        """The schema of the answer at version 1.``ver``."""
        return schemas.item(self.fields, self.names(ver))

    def render(self, source: Any, ver: int,
               names: Iterable[str] | None = None) -> dict[str, Any]:
        """The answer describing ``source`` at version 1.``ver``: the
        members it shows, or ``names`` (already checked against them)."""
        wanted = self.names(ver) if names is None else names
        out = {}
        for name in wanted:
            member = self.members[name]
            read = member.read or _attribute(name)
            out[name] = read(source, ver)
        return out


_STRINGS = {"items": {"type": "string"}}


def list_field(doc: str, items: dict[str, Any] | None = None) -> Field:
    """A member holding a list (of strings unless told)."""
    # (``since`` unset: the document's member says, as for LINKS)
    return Field(None, type=ARRAY, nullable=False, doc=doc,
                 schema={"items": items} if items else _STRINGS)


def map_field(doc: str, values: dict[str, Any]) -> Field:
    """A member (or a whole answer) mapping names to ``values``."""
    return Field(None, type=OBJECT, nullable=False, doc=doc,
                 schema={"additionalProperties": values})

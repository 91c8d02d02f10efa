"""Who is making a request, passed from the API down to the conductor."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class RequestContext:
    user_id: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    roles: list[str] = dataclasses.field(default_factory=list)
    system_scope: str | None = None
    is_public_api: bool = False
    request_id: str | None = None
    auth_token: str | None = None

    def to_policy_values(self) -> dict:
        return {"user_id": self.user_id, "project_id": self.project_id,
                "project_name": self.project_name, "roles": self.roles,
                "system_scope": self.system_scope,
                "is_public_api": self.is_public_api}

    def to_dict(self) -> dict:
        # Every field is a string, a flag or a list of strings: copying
        # the list copies as deep as dataclasses.asdict, which deep-copies
        # each value (a cost on every RPC call).
        values = {name: getattr(self, name) for name in _FIELDS}
        values["roles"] = list(self.roles)
        return values

    @classmethod
    def from_dict(cls, values: dict) -> RequestContext:
        return cls(**{k: v for k, v in values.items() if k in _KNOWN})


_FIELDS = tuple(f.name for f in dataclasses.fields(RequestContext))
_KNOWN = frozenset(_FIELDS)


def get_admin_context() -> RequestContext:
    return RequestContext(roles=["admin"], system_scope="all")

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
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> RequestContext:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})


def get_admin_context() -> RequestContext:
    return RequestContext(roles=["admin"], system_scope="all")

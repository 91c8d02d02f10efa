"""The agent token: a secret the ramdisk receives once and then proves.

It is issued when the ramdisk first identifies itself (lookup from API 1.62,
or the inspection callback from 1.84) and must come with every heartbeat;
the conductor sends it with every command to the agent.

It is kept in the node's ``driver_internal_info`` as ``agent_secret_token``
only as a SHA-256 digest, so that someone reading the database (or a backup)
cannot replay it; the API shows the key as ``******`` anyway. The plain
token lives in the agent and, on the conductor side, in the memory of the
process: remembered when it is issued and learned again from every heartbeat
that proves it (``accept``), so a conductor that took the node over, or
restarted, knows it after the agent's next heartbeat, which comes well
within ``[api]ramdisk_heartbeat_timeout``. Code that talks to the agent asks
``for_agent(node)``.

``wipe(node)`` forgets the agent (token, URL, version...) when the node
leaves its care: powered off or rebooted by the conductor (unless the token
was pregenerated for the next boot), or at rest in a stable state; the next
ramdisk boot is then issued a new token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from typing import Any

KEY = "agent_secret_token"
#: Set when the token was handed to the ramdisk by other means than lookup
#: (e.g. on a virtual media image): lookup never reveals such a token.
PREGENERATED_KEY = "agent_secret_token_pregenerated"
#: driver_internal_info keys describing the running agent, wiped together.
AGENT_KEYS = (KEY, PREGENERATED_KEY, "agent_url", "agent_version",
              "agent_last_heartbeat", "agent_verify_ca")

_PREFIX = "sha256:"
_KNOWN: dict[str, str] = {}
_LOCK = threading.Lock()


def _digest(token: str) -> str:
    return _PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def has_token(node: Any) -> bool:
    """True when a token was issued to the node's current agent."""
    return bool((node.driver_internal_info or {}).get(KEY))


def issue(node: Any, pregenerated: bool = False) -> str | None:
    """A new token recorded on ``node`` (not saved), or None when one was
    already issued: a token is handed out only once."""
    if has_token(node):
        return None
    token = secrets.token_urlsafe(32)
    info = dict(node.driver_internal_info or {}, **{KEY: _digest(token)})
    if pregenerated:
        info[PREGENERATED_KEY] = True
    else:
        info.pop(PREGENERATED_KEY, None)
    node.driver_internal_info = info
    _remember(node.uuid, token)
    return token


def matches(node: Any, token: str | None) -> bool:
    """Whether ``token`` is the one issued to the node's agent."""
    stored = (node.driver_internal_info or {}).get(KEY)
    if not stored or not token or not isinstance(token, str):
        return False
    return hmac.compare_digest(stored, _digest(token))


def accept(node: Any, token: str | None) -> bool:
    """``matches``, remembering the token for commands when it does."""
    if token is None or not matches(node, token):
        return False
    _remember(node.uuid, token)
    return True


def for_agent(node: Any) -> str | None:
    """The plain token to send with commands to the node's agent, when this
    conductor knows it (see the module documentation)."""
    with _LOCK:
        token = _KNOWN.get(node.uuid)
    return token if token is not None and matches(node, token) else None


def wipe(node: Any) -> bool:
    """Forget the agent: token and the agent_* keys (node not saved).

    Returns True when something was removed.
    """
    with _LOCK:
        _KNOWN.pop(node.uuid, None)
    info = node.driver_internal_info or {}
    if not any(key in info for key in AGENT_KEYS):
        return False
    node.driver_internal_info = {k: v for k, v in info.items()
                                 if k not in AGENT_KEYS}
    return True


def _remember(node_uuid: str, token: str) -> None:
    with _LOCK:
        _KNOWN[node_uuid] = token

"""Deploy templates (API 1.55) joining a deployment.

An instance asks for traits in ``instance_info['traits']``; each must also
be a trait of the node. Every deploy template whose name is one of those
traits contributes its steps ``{interface, step, args, priority}``: a step
the driver already runs automatically gets the template's priority and
arguments (priority 0 turns it off), a step the driver only offers on
request is added. Steps given with the deploy request itself (1.69) win
over template steps of the same interface and name. Two templates naming
the same step are a conflict the operator must resolve.
"""

from __future__ import annotations

from typing import Any

from ironic.common import exception
from ironic.objects import records

# driver_internal_info key: the deploy_steps given with the request, kept
# so the plan can be made again (after the agent reports in-band steps).
USER_STEPS_KEY = "user_deploy_steps"


def instance_traits(node: Any) -> list[str]:
    """The traits the instance asks for, checked against the node's.

    Raises InvalidParameterValue (400 before the deploy starts) when
    ``instance_info.traits`` is malformed or names a trait the node lacks.
    """
    traits = (node.instance_info or {}).get("traits")
    if traits is None:
        return []
    if not isinstance(traits, list) or not all(
            isinstance(t, str) for t in traits):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: instance_info.traits must be a list of "
                f"strings, got {traits!r}.")
    node_traits = node.traits if node.traits is not None else \
        node.load_traits()
    missing = sorted(set(traits) - set(node_traits or []))
    if missing:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: instance_info.traits names traits the "
                f"node does not have: {', '.join(missing)}.")
    return list(traits)


def template_steps(node: Any) -> list[dict]:
    """The steps of the deploy templates matching the instance traits."""
    traits = instance_traits(node)
    if not traits:
        return []
    found: dict[tuple[str, str], tuple[str, dict]] = {}
    for template in records.deploy_templates_named(traits):
        for step in template.steps or []:
            key = (step["interface"], step["step"])
            if key in found:
                raise exception.InvalidParameterValue(
                    err=f"Deploy templates {found[key][0]} and "
                        f"{template.name} both contain the deploy step "
                        f"{key[0]}.{key[1]}; a step may come from one "
                        f"template only.")
            found[key] = (template.name, {
                "interface": step["interface"], "step": step["step"],
                "args": dict(step.get("args") or {}),
                "priority": int(step.get("priority") or 0)})
    return [step for _name, step in found.values()]


def user_steps(node: Any, request_steps: list[dict] | None) -> list[dict]:
    """Template steps, then the request's steps replacing same-named ones."""
    merged = {(s["interface"], s["step"]): s for s in template_steps(node)}
    for step in request_steps or []:
        merged[(step["interface"], step["step"])] = dict(step)
    return list(merged.values())

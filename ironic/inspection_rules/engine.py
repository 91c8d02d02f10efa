"""Applying the inspection rules of a phase to a node's inspection data.

Rules run by descending priority; at equal priority the built-in rules
(``[inspection_rules]built_in_rules``) run before the stored ones. A rule
whose conditions all hold has its actions run in order. A ``fail`` action,
a condition or action that cannot be carried out, or a broken built-in
rules file fails the inspection. Conditions and actions of sensitive rules
never appear in the logs or in the node's last_error.
"""

from __future__ import annotations

import logging
import os
import threading

import yaml

from ironic.common import exception
from ironic.conf import CONF
from ironic.inspection_rules import actions, operators, plugin, validation
from ironic.objects.inspection_rule import InspectionRule
from ironic.task import Task

LOG = logging.getLogger(__name__)

_CACHE_LOCK = threading.Lock()
# (path, mtime_ns, size) -> rules: the file is read again when it changes.
_CACHE: dict[tuple, list[dict]] = {}


def _built_in_uuid(index: int) -> str:
    return f"00000000-0000-0000-0000-{index:012x}"


def _read_rules_file(path: str) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            docs = yaml.safe_load(f)
    except OSError as e:
        raise exception.InvalidInspectionRule(
            reason=f"Cannot read the built-in rules file {path}: {e}") from e
    except yaml.YAMLError as e:
        raise exception.InvalidInspectionRule(
            reason=f"The built-in rules file {path} is not valid YAML: "
                   f"{e}") from e
    if not isinstance(docs, list):
        raise exception.InvalidInspectionRule(
            reason=f"The built-in rules file {path} must hold a list of "
                   f"rules")
    rules, unnamed = [], 0
    for index, doc in enumerate(docs):
        try:
            rule = validation.validate_rule(doc, built_in=True)
        except exception.InvalidInspectionRule as e:
            raise exception.InvalidInspectionRule(
                reason=f"Built-in rule {index} in {path}: {e}") from e
        if "uuid" not in rule:
            rule["uuid"] = _built_in_uuid(unnamed)
            unnamed += 1
        rule["built_in"] = True
        rules.append(rule)
    return rules


def built_in_rules() -> list[dict]:
    """The rules of the built-in rules file (none when not configured)."""
    path = CONF.inspection_rules.built_in_rules
    if not path:
        return []
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    with _CACHE_LOCK:
        if key is not None and key in _CACHE:
            return _CACHE[key]
    rules = _read_rules_file(path)
    with _CACHE_LOCK:
        _CACHE.clear()
        if key is not None:
            _CACHE[key] = rules
    return rules


def rules_for_phase(phase: str) -> list[dict]:
    """Every rule of ``phase`` in the order it runs."""
    stored = [r.as_rule() for r in InspectionRule.list_for_phase(phase)]
    built_in = [r for r in built_in_rules() if r["phase"] == phase]
    # sorted() is stable: built-in rules stay first among equals.
    return sorted(built_in + stored, key=lambda r: -r["priority"])


def _describe(rule: dict) -> str:
    kind = "built-in rule" if rule.get("built_in") else "rule"
    return f"{kind} {rule['uuid']}"


def _masked(rule: dict) -> bool:
    mode = CONF.inspection_rules.mask_secrets
    return mode == "always" or (mode == "sensitive" and
                                not rule.get("sensitive"))


def _conditions_hold(rule: dict, scope: plugin.Scope) -> bool:
    for index, condition in enumerate(rule["conditions"]):
        if not operators.check(condition, scope):
            if rule.get("sensitive"):
                LOG.debug("Node %s: condition %d of sensitive %s does not "
                          "hold", scope.task.node.uuid, index,
                          _describe(rule))
            else:
                LOG.debug("Node %s: condition %s of %s does not hold",
                          scope.task.node.uuid, condition, _describe(rule))
            return False
    return True


def apply_rule(task: Task, rule: dict, inventory: dict,
               plugin_data: dict) -> bool:
    """Check one rule and run its actions; True when they ran."""
    scope = plugin.Scope.build(task, inventory, plugin_data, _masked(rule))
    try:
        if not _conditions_hold(rule, scope):
            return False
        LOG.info("Node %s: applying the actions of %s", task.node.uuid,
                 _describe(rule))
        for action in rule["actions"]:
            actions.run(action, scope)
    except exception.HardwareInspectionFailure:
        raise
    except (operators.Failure, actions.Failure, plugin.ArgumentError) as e:
        raise _failure(task, rule, str(e)) from e
    except exception.IronicException:
        raise
    except Exception as e:
        LOG.exception("Node %s: unexpected error in %s", task.node.uuid,
                      _describe(rule))
        raise _failure(task, rule, f"{type(e).__name__}: {e}") from e
    return True


def _failure(task: Task, rule: dict, detail: str) -> Exception:
    if rule.get("sensitive"):
        # The detail may quote the rule's arguments: keep them out.
        detail = "details are hidden because the rule is sensitive"
    LOG.error("Node %s: %s failed: %s", task.node.uuid, _describe(rule),
              detail)
    return exception.InspectionRuleExecutionFailure(
        reason=f"{_describe(rule)}: {detail}")


def apply_rules(task: Task, inventory: dict, plugin_data: dict,
                phase: str = "main") -> None:
    """Apply every rule of ``phase``; raises to fail the inspection."""
    rules = rules_for_phase(phase)
    if not rules:
        return
    applied = sum(apply_rule(task, rule, inventory, plugin_data)
                  for rule in rules)
    LOG.info("Node %s: %d of %d inspection rules applied", task.node.uuid,
             applied, len(rules))

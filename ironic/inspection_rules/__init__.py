"""Inspection rules (API 1.96): conditions on inspection data and actions.

A rule is a document ``{conditions, actions, priority, phase, sensitive}``.
When in-band inspection data is processed, after the inspection hooks,
every rule of the phase is checked in priority order (built-in rules from
``[inspection_rules]built_in_rules`` before stored ones of equal priority);
when all of a rule's conditions hold, its actions run.

- ``validation``: the schema and argument checks shared by the API and
  the built-in rules loader.
- ``operators`` and ``actions``: the condition and action plugins.
- ``plugin``: what the two have in common (arguments, loops).
- ``interpolation``: ``{inventory[...]}``-style references in arguments.
- ``masking``: read-only views that hide secrets from rules.
- ``engine``: loading and applying the rules of a phase.
"""

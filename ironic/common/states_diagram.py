"""The provision state machine as graphviz DOT text, drawn from the code.

Stable states get a thick border, failure states a red one; events the
conductor raises itself are gray, API verbs black. The output is sorted so
the committed diagram changes only when the machine does.
"""

from __future__ import annotations

from ironic.common import states


def _node_line(state: str) -> str:
    attrs = [f'label="{state}"']
    if state in states.STABLE_STATES:
        attrs.append("penwidth=2.5")
    if state in states.FAILURE_STATES or state == states.ERROR:
        attrs.append("color=red")
    if state in states.WAIT_STATES or state in states.HOLD_STATES:
        attrs.append("style=dashed")
    return f'  "{state}" [{", ".join(attrs)}];'


def _edge_line(src: str, event: str, dst: str) -> str:
    if event in states.INTERNAL_EVENTS:
        return f'  "{src}" -> "{dst}" [label="{event}", color=gray, ' \
               f'fontcolor=gray];'
    return f'  "{src}" -> "{dst}" [label="{event} (via API)"];'


def dot() -> str:
    lines = ['digraph "Bare Metal provision states" {',
             "  rankdir=LR;",
             "  node [shape=ellipse, fontsize=11];",
             "  edge [fontsize=10];"]
    lines += [_node_line(s) for s in sorted(states.ALL_STATES)]
    lines += [_edge_line(*t) for t in sorted(states.transitions())]
    lines.append("}")
    return "\n".join(lines) + "\n"

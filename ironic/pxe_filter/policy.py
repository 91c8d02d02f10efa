"""Whether this filter may let machines reach its dnsmasq at all.

The seam for running several filters (one dnsmasq each) side by side:
only one of them, the leader, should answer machines in inspection while
the others keep their dnsmasq closed. ``AllowPolicy`` is asked before
every change; when it says no, the filter writes what it would have
allowed as ignored, unknown machines included. The single filter of most
deployments allows always; several filters sharing a coordination
backend allow only while their party names them leader (``LeaderOnly``).
"""

from __future__ import annotations

from typing import Protocol


class AllowPolicy(Protocol):
    def may_allow(self) -> bool:
        """True when this filter's dnsmasq may answer machines."""


class AlwaysAllow:
    """One filter per inspection network: it always decides."""

    def may_allow(self) -> bool:
        return True


class LeaderOnly:
    """Several filters in a party: only the elected leader allows."""

    def __init__(self, party):
        self._party = party

    def may_allow(self) -> bool:
        return self._party.leader

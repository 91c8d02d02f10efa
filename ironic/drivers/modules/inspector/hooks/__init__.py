"""Inspection hooks: one small plugin per job (see ``base``)."""

"""A hostile HTTP client: raw-socket probes any server can be run against.

``python -m ironic.tests.hostile URL`` runs it from the command line
(see ``runner``); ``test_*.py`` here run it against the built-in server.
"""

"""Serving the API: uvicorn, chosen by the hostile-client suite
(``ironic/tests/hostile``, ``tools/bench/RESULTS.md``), with the limits
it needs (``guard``) and a bridge to the WSGI application (``bridge``)."""

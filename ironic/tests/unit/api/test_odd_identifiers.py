"""Identifiers that are nearly valid, in every collection's item URL: the
answer is a 2xx or a 4xx with the API's error body, never a 5xx.

The property-based tests send arbitrary path segments; these are the ones
random text almost never produces: a valid UUID, name or MAC address with
one character too many (a trailing newline passed the UUID check once, then
failed to parse: a 500).
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from ironic.tests import fixtures as ifx

UUID = "3f2b8a64-1c1e-4f0a-9d2b-7c4e5a6b8d90"
SEGMENTS = [
    UUID + "\n", UUID + "\r\n", UUID + " ", " " + UUID, UUID + "\t",
    UUID + "\x00", UUID.upper() + "\n", "{" + UUID + "}",
    "urn:uuid:" + UUID, UUID.replace("-", ""), UUID.replace("-", "") + "\n",
    UUID[:-1] + "g", UUID + "0", "node-1\n", "node-1 ", "52:54:00:12:34:56\n",
    "52:54:00:12:34:56", "é", "\ud800", "..", ".", "~", "-", "a" * 300,
    "CUSTOM_X\n", "1.5\n", "fake-hardware\n", "host\n",
]
COLLECTIONS = [
    "/v1/nodes/{}", "/v1/nodes/{}/states", "/v1/nodes/{}/traits",
    "/v1/nodes/{}/ports", "/v1/nodes/{}/vifs", "/v1/ports/{}",
    "/v1/portgroups/{}", "/v1/portgroups/{}/ports", "/v1/chassis/{}",
    "/v1/chassis/{}/nodes", "/v1/allocations/{}", "/v1/deploy_templates/{}",
    "/v1/runbooks/{}", "/v1/conductors/{}", "/v1/drivers/{}",
    "/v1/volume/connectors/{}", "/v1/volume/targets/{}",
    "/v1/nodes/?instance_uuid={}", "/v1/ports?address={}",
    "/v1/ports?node={}", "/v1/lookup?addresses={}",
]


@pytest.mark.parametrize("template", COLLECTIONS)
def test_nearly_valid_identifiers_never_5xx(api, template):
    for segment in SEGMENTS:
        for method in ("GET", "DELETE", "PATCH"):
            if "?" in template and method != "GET":
                continue
            path = template.format(
                quote(segment, safe="", errors="surrogatepass"))
            resp = api.request(method, path, version="latest",
                               raw=b"[]" if method == "PATCH" else None)
            assert resp.status_int < 500, (method, path, resp.body)
            if resp.status_int >= 400:
                ifx.error_message(resp)

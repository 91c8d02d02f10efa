"""``ironic-pxe-filter``: keeps a separate dnsmasq from answering machines
that are not being inspected (or discovered)."""

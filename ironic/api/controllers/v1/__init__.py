"""The v1 API: one module per resource."""

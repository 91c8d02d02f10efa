"""An example out-of-tree hardware type for the Bare Metal service."""

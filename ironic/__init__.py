"""A from-scratch implementation of the OpenStack Bare Metal service."""

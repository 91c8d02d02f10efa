"""In-band inspection inside the service (seed 001).

``agent`` is the inspect interface that boots the ramdisk and waits for its
data; ``lookup`` finds the node the data belongs to; ``hooks`` holds the
inspection hooks (entry points ``ironic.inspection.hooks``) that turn the
data into node properties and ports.
"""

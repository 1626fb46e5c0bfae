"""setlab: the package behind the book "Huge sets of IDs in Redis, and when each structure breaks".

Chapters call it; tests check it. Start with :func:`setlab.connect`.
"""

from setlab.backend import BigAllocationRefused, Lab, connect
from setlab.server import ServerError

__all__ = ["BigAllocationRefused", "Lab", "ServerError", "connect"]
__version__ = "0.1.0"

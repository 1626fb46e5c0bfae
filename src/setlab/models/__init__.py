"""Pure models of Redis data structures and the probabilistic filters: no Redis client, no plotting.

A calculator, a widget grid or a test can import any module here on its own.
"""

"""Test-suite settings: property tests judge correctness, never speed, on a shared 2-core box."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "groundwire",
    deadline=None,  # a slow example on a loaded machine is not a failure
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("groundwire")

"""StableHLO portable artifacts without LLVM.

The portable API of ``jaxlib.mlir.dialects.stablehlo`` (same names, arguments and results),
implemented in Rust by vhlo-rs, plus what jaxlib does not offer: text output
(:func:`deserialize_portable_artifact_to_text`), :func:`inspect`, :func:`minimum_version`,
:func:`retarget`, :func:`verify`, and compatibility windows computed from release dates.

Switching from jaxlib is a change of import::

    # from jaxlib.mlir.dialects import stablehlo
    import vhlo as stablehlo

Every conversion releases the GIL. Failures raise :class:`VhloError`, a ``ValueError`` (which is
what jaxlib raises) that carries the diagnostics.
"""

from __future__ import annotations

import datetime as _datetime
import enum as _enum
from typing import Any, Dict, Optional, Union

from . import _vhlo
from ._vhlo import (
    VhloError,
    deserialize_portable_artifact_str,
    deserialize_portable_artifact_to_text,
    get_api_version,
    get_current_version,
    get_minimum_version,
    get_smaller_version,
    minimum_version,
    retarget,
    serialize_portable_artifact_str,
    verify,
)

__all__ = [
    "StablehloCompatibilityRequirement",
    "VhloError",
    "deserialize_portable_artifact_str",
    "deserialize_portable_artifact_to_text",
    "forward_guarantee_target",
    "get_api_version",
    "get_current_version",
    "get_minimum_version",
    "get_smaller_version",
    "get_version_from_compatibility_requirement",
    "inspect",
    "minimum_version",
    "retarget",
    "serialize_portable_artifact_str",
    "verify",
]

AsOf = Union[None, int, float, str, _datetime.date, _datetime.datetime]


class StablehloCompatibilityRequirement(_enum.Enum):
    """How old a consumer an artifact must reach (upstream's ``Version::CompatibilityRequirement``).

    ``NONE``: the current version. ``WEEK_4`` / ``WEEK_12``: the newest StableHLO release tagged at
    least 28 / 84 days earlier. ``MAX``: the minimum version.
    """

    NONE = 0
    WEEK_4 = 1
    WEEK_12 = 2
    MAX = 3


def _unix_seconds(as_of: AsOf) -> Optional[int]:
    """``as_of`` as Unix seconds: None stays None (now); a date is its 00:00:00 UTC; a naive
    datetime is taken as UTC; a string is ``YYYY-MM-DD`` or an ISO 8601 datetime."""
    if as_of is None:
        return None
    if isinstance(as_of, bool):
        raise TypeError("as_of must be a date, a datetime, a string or Unix seconds")
    if isinstance(as_of, (int, float)):
        return int(as_of)
    if isinstance(as_of, str):
        text = as_of.strip()
        try:
            as_of = _datetime.date.fromisoformat(text)
        except ValueError:
            as_of = _datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if isinstance(as_of, _datetime.datetime):
        if as_of.tzinfo is None:
            as_of = as_of.replace(tzinfo=_datetime.timezone.utc)
        return int(as_of.timestamp())
    if isinstance(as_of, _datetime.date):
        start = _datetime.datetime(as_of.year, as_of.month, as_of.day, tzinfo=_datetime.timezone.utc)
        return int(start.timestamp())
    raise TypeError(f"as_of must be a date, a datetime, a string or Unix seconds, not {type(as_of).__name__}")


def get_version_from_compatibility_requirement(requirement: Any, as_of: AsOf = None) -> str:
    """The StableHLO version that meets a compatibility requirement.

    ``requirement`` is a :class:`StablehloCompatibilityRequirement`, jaxlib's enum of that name,
    its value (0 to 3) or its name (``"WEEK_4"``). ``WEEK_4`` and ``WEEK_12`` are computed as
    upstream's release script computes the anchors it writes into ``Version.cpp``: the newest
    release tag at least 28 or 84 whole days old at ``as_of`` (now by default; a date, a datetime,
    ``"YYYY-MM-DD"`` or Unix seconds). jaxlib 0.10.2 hard-codes the anchors of 2026-05-01::

        >>> get_version_from_compatibility_requirement("WEEK_4", as_of="2026-05-01")
        '1.15.0'
    """
    if isinstance(requirement, str):
        try:
            code = StablehloCompatibilityRequirement[requirement.upper()].value
        except KeyError:
            raise VhloError(f"unknown compatibility requirement {requirement!r} (NONE, WEEK_4, WEEK_12, MAX)") from None
    elif isinstance(requirement, _enum.Enum):
        code = int(requirement.value)
    else:
        code = int(requirement)
    return _vhlo._version_from_requirement(code, _unix_seconds(as_of))


def forward_guarantee_target(as_of: AsOf = None) -> str:
    """The target every consumer under the 2-year forward guarantee reads at ``as_of`` (now by
    default): the newest release tagged on or before the same day two years earlier."""
    at = _unix_seconds(as_of)
    if at is None:
        at = int(_datetime.datetime.now(_datetime.timezone.utc).timestamp())
    return _vhlo._forward_guarantee_target(at)


def inspect(artifact: Union[bytes, str]) -> Dict[str, Any]:
    """Describes a portable artifact.

    Returns a dict with ``producer`` (``StableHLO_v1.0.0``), ``bytecode_version``,
    ``target_version`` (the version the producer names, or None for other producers), ``ops``,
    ``histogram`` (op counts by StableHLO name), ``minimum_version`` (the oldest version the program
    can be written for, or None), ``first_consumer_release`` and ``first_consumer_tagged`` (the
    first tagged StableHLO release that reads it, and when it was tagged: that release and later
    ones read it), and ``guaranteed_readable_until`` (``YYYY-MM-DD``: five years after that
    release, the backward guarantee of the StableHLO v1.0 compatibility RFC).
    """
    return _vhlo._inspect(artifact)

//! StableHLO versions, version ranges and the release table's row type.

use std::fmt;

/// A StableHLO release number `major.minor.patch`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// A version from its parts.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// Parses `#.#.#` (as upstream: three decimal numbers, nothing else).
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        let bad = || VersionError::Malformed(s.to_string());
        let mut parts = s.split('.');
        let mut next = || -> Result<u32, VersionError> {
            let p = parts.next().ok_or_else(bad)?;
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            p.parse().map_err(|_| bad())
        };
        let v = Version::new(next()?, next()?, next()?);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(v)
    }

    /// The same version with patch 0: opset changes need a minor bump, so conversions work on the
    /// `X.Y.0` opset (1.9.3 converts as 1.9.0).
    pub const fn floor_patch(self) -> Version {
        Version { patch: 0, ..self }
    }
}

/// A version serializes as its text (`"1.4.0"`).
#[cfg(feature = "serde")]
impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl std::str::FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

/// A bad version string or target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionError {
    Malformed(String),
    TooOld { target: Version, minimum: Version },
    TooNew { target: Version, current: Version },
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::Malformed(s) => {
                write!(
                    f,
                    "invalid version `{s}`: a version is three numbers `#.#.#` (for example 1.9.0)"
                )
            }
            VersionError::TooOld { target, minimum } => {
                write!(
                    f,
                    "target version {target} is older than the minimum supported version {minimum}"
                )
            }
            VersionError::TooNew { target, current } => {
                write!(
                    f,
                    "target version {target} is newer than the current version {current}"
                )
            }
        }
    }
}

impl std::error::Error for VersionError {}

/// An inclusive range of versions. `open` ranges reach the current version of the spec they were
/// generated from (`max` then holds that version).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct VersionRange {
    pub min: Version,
    pub max: Version,
    pub open: bool,
}

impl VersionRange {
    /// True when `v` (patch ignored) is in the range.
    pub fn contains(self, v: Version) -> bool {
        let v = v.floor_patch();
        self.min <= v && v <= self.max
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.open {
            write!(f, "{}..=current", self.min)
        } else {
            write!(f, "{}..={}", self.min, self.max)
        }
    }
}

/// One row of the release table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    pub version: Version,
    /// The MLIR bytecode version artifacts for this target use.
    pub bytecode_version: u8,
    /// The upstream tag date, where a tag exists.
    pub date: Option<&'static str>,
    /// What changed in VHLO.
    pub changes: &'static str,
}

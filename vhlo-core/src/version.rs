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
#[non_exhaustive]
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

/// An upstream release tag (`spec/releases.yaml`, `tags`; [`crate::vhlo::RELEASE_TAGS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseTag {
    pub version: Version,
    /// The tagger date in UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub tagged: &'static str,
}

impl ReleaseTag {
    /// The UTC day the tag was made (the table's timestamps are checked well formed by codegen).
    pub fn date(&self) -> Date {
        Date::parse(self.tagged.get(..10).unwrap_or("")).unwrap_or(Date::EPOCH)
    }

    /// The tag's Unix time in seconds.
    pub fn unix_seconds(&self) -> i64 {
        let field = |r: std::ops::Range<usize>| {
            self.tagged
                .get(r)
                .and_then(|p| p.parse::<i64>().ok())
                .unwrap_or(0)
        };
        self.date().unix_seconds() + field(11..13) * 3600 + field(14..16) * 60 + field(17..19)
    }
}

/// A calendar day (proleptic Gregorian, UTC), as days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    days: i64,
}

impl Date {
    /// 1970-01-01.
    pub const EPOCH: Date = Date { days: 0 };

    /// The day `year-month-day`, or None when there is no such day.
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let len = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        if day == 0 || day > len {
            return None;
        }
        // Howard Hinnant's days_from_civil.
        let y = i64::from(year) - i64::from(month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some(Date {
            days: era * 146_097 + doe - 719_468,
        })
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(s: &str) -> Result<Date, VersionError> {
        let bad = || VersionError::Malformed(format!("{s} (a date is YYYY-MM-DD)"));
        let b = s.as_bytes();
        if b.len() != 10
            || b[4] != b'-'
            || b[7] != b'-'
            || !b
                .iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| s.get(r).and_then(|p| p.parse::<u32>().ok());
        match (num(0..4), num(5..7), num(8..10)) {
            (Some(y), Some(m), Some(d)) => {
                Date::from_ymd(i32::try_from(y).map_err(|_| bad())?, m, d).ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }

    /// The UTC day of a Unix time in seconds.
    pub fn from_unix_seconds(secs: i64) -> Date {
        Date {
            days: secs.div_euclid(86_400),
        }
    }

    /// The Unix time of the day's start (00:00:00 UTC).
    pub fn unix_seconds(self) -> i64 {
        self.days.saturating_mul(86_400)
    }

    /// Days since 1970-01-01.
    pub fn days_since_epoch(self) -> i64 {
        self.days
    }

    /// (year, month, day).
    pub fn ymd(self) -> (i32, u32, u32) {
        // Howard Hinnant's civil_from_days.
        let z = self.days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        (
            i32::try_from(y).unwrap_or(i32::MAX),
            u32::try_from(m).unwrap_or(1),
            u32::try_from(d).unwrap_or(1),
        )
    }

    /// The day `n` days later (earlier for negative `n`).
    pub fn add_days(self, n: i64) -> Date {
        Date {
            days: self.days.saturating_add(n),
        }
    }

    /// The same day `n` years later (earlier for negative `n`); February 29 becomes February 28
    /// in a year that has none.
    pub fn add_years(self, n: i32) -> Date {
        let (y, m, d) = self.ymd();
        let y = y.saturating_add(n);
        Date::from_ymd(y, m, d)
            .or_else(|| Date::from_ymd(y, m, d - 1))
            .unwrap_or(self)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl std::str::FromStr for Date {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Date::parse(s)
    }
}

//! Compatibility windows from release dates: upstream's `CompatibilityRequirement` anchors
//! (WEEK_4, WEEK_12, MAX) and the 5-year backward and 2-year forward guarantees, computed from
//! the release tags of `spec/releases.yaml` (`crate::vhlo::RELEASE_TAGS`). Kept apart from
//! `version` (the version numbers), which the generated dialect uses: these read its tables.

use crate::version::{Date, ReleaseTag, Version};

/// Upstream's `Version::CompatibilityRequirement`: how old a consumer an artifact must reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompatibilityRequirement {
    /// No requirement: the current version.
    None,
    /// Consumers at least 4 weeks old: the newest release tagged at least 28 days earlier.
    Week4,
    /// Consumers at least 12 weeks old: the newest release tagged at least 84 days earlier.
    Week12,
    /// As many consumers as possible: the minimum version.
    Max,
}

impl CompatibilityRequirement {
    /// Every requirement, in upstream's enum order (`NONE` = 0 ... `MAX` = 3).
    pub const ALL: [CompatibilityRequirement; 4] = [
        CompatibilityRequirement::None,
        CompatibilityRequirement::Week4,
        CompatibilityRequirement::Week12,
        CompatibilityRequirement::Max,
    ];

    /// Upstream's name: `NONE`, `WEEK_4`, `WEEK_12`, `MAX`.
    pub fn name(self) -> &'static str {
        match self {
            CompatibilityRequirement::None => "NONE",
            CompatibilityRequirement::Week4 => "WEEK_4",
            CompatibilityRequirement::Week12 => "WEEK_12",
            CompatibilityRequirement::Max => "MAX",
        }
    }

    /// The requirement of an upstream name (any case), or None.
    pub fn from_name(name: &str) -> Option<CompatibilityRequirement> {
        Self::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
    }

    /// The version an artifact meeting this requirement targets at `as_of` (Unix seconds; a
    /// day's start is [`Date::unix_seconds`]; see [`newest_tag_at_least_days_old`]): the current
    /// version for `NONE`, the minimum for `MAX`. A window no tag is old enough for gives the
    /// minimum version.
    pub fn version_as_of(self, as_of: i64) -> Version {
        let aged = |days| {
            newest_tag_at_least_days_old(as_of, days)
                .map(|t| t.version)
                .unwrap_or(crate::vhlo::MINIMUM_VERSION)
                .clamp(crate::vhlo::MINIMUM_VERSION, crate::vhlo::CURRENT_VERSION)
        };
        match self {
            CompatibilityRequirement::None => crate::vhlo::CURRENT_VERSION,
            CompatibilityRequirement::Week4 => aged(28),
            CompatibilityRequirement::Week12 => aged(84),
            CompatibilityRequirement::Max => crate::vhlo::MINIMUM_VERSION,
        }
    }
}

/// The newest release tag (by tag date) that is at least `days` days old at `as_of` (Unix
/// seconds): what upstream's `stablehlo_tag_and_bump_version.sh` writes into `Version.cpp` as
/// the WEEK_4 (28) and WEEK_12 (84) anchors. As in the script, a tag's age is the whole number
/// of 86,400-second days between its tagger time and `as_of`. None when no tag is that old.
pub fn newest_tag_at_least_days_old(as_of: i64, days: i64) -> Option<ReleaseTag> {
    crate::vhlo::RELEASE_TAGS
        .iter()
        .rev()
        .find(|t| as_of.saturating_sub(t.unix_seconds()).div_euclid(86_400) >= days)
        .copied()
}

/// The first tagged release that writes and reads `target` (the tag of `target` itself, else the
/// first later one: 1.17.0 was never tagged, so 1.18.0); None past the last tag.
pub fn first_tag_reaching(target: Version) -> Option<ReleaseTag> {
    crate::vhlo::RELEASE_TAGS
        .iter()
        .filter(|t| t.version >= target)
        .min_by_key(|t| t.date())
        .copied()
}

/// Years of the backward guarantee of the StableHLO v1.0 compatibility RFC: an artifact is read
/// with the same semantics by libStablehlo built from a commit less than this many years after
/// its producer's.
pub const BACKWARD_YEARS: i32 = 5;
/// Years of the forward guarantee of the same RFC: libStablehlo reads what a producer less than
/// this many years newer wrote for it.
pub const FORWARD_YEARS: i32 = 2;

/// Until when an artifact written for `target` is guaranteed to be read by newer libStablehlo
/// (backward guarantee): [`BACKWARD_YEARS`] after the first tagged release that could write it,
/// since no producer of that target is older. None when no tag reaches `target` yet. (Artifacts
/// for 0.x targets were written under the pre-1.0 guarantees; libStablehlo reads them still.)
pub fn backward_guarantee_until(target: Version) -> Option<Date> {
    first_tag_reaching(target).map(|t| t.date().add_years(BACKWARD_YEARS))
}

/// The target that reaches every consumer covered by the forward guarantee at `as_of` (Unix
/// seconds): the newest release tagged on or before the same day [`FORWARD_YEARS`] years
/// earlier (derived as the WEEK_4 and WEEK_12 anchors are), or the minimum version when none
/// is that old.
pub fn forward_guarantee_target(as_of: i64) -> Version {
    let cutoff = Date::from_unix_seconds(as_of).add_years(-FORWARD_YEARS);
    crate::vhlo::RELEASE_TAGS
        .iter()
        .rev()
        .find(|t| t.date() <= cutoff)
        .map(|t| t.version)
        .unwrap_or(crate::vhlo::MINIMUM_VERSION)
        .clamp(crate::vhlo::MINIMUM_VERSION, crate::vhlo::CURRENT_VERSION)
}

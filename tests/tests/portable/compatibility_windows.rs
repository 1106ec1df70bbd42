//! Compatibility windows from release dates: WEEK_4 and WEEK_12 computed from the tag
//! dates of `spec/releases.yaml` as upstream's `build_tools/integrate/stablehlo_tag_and_bump_version.sh`
//! computes the anchors it writes into `stablehlo/dialect/Version.cpp`.

use vhlo_core::compatibility::{
    backward_guarantee_until, first_tag_reaching, forward_guarantee_target,
    newest_tag_at_least_days_old, CompatibilityRequirement,
};
use vhlo_core::version::{Date, Version};
use vhlo_core::vhlo::{CURRENT_VERSION, MINIMUM_VERSION, RELEASES, RELEASE_TAGS};

fn v(s: &str) -> Version {
    Version::parse(s).expect("version")
}

fn tag_time(version: &str) -> i64 {
    RELEASE_TAGS
        .iter()
        .find(|t| t.version == v(version))
        .unwrap_or_else(|| panic!("no tag {version}"))
        .unix_seconds()
}

/// jaxlib 0.10.2 answers WEEK_4 -> 1.15.0 and WEEK_12 -> 1.13.7: its copy of Version.cpp has the
/// anchors of openxla/stablehlo b1c471d73 (2026-05-01, "Bump patch version after integrate
/// 1.16.2 -> 1.16.3"), kept until 3d6e82530 (2026-05-22). From the day of that commit:
#[test]
fn jaxlib_0_10_2_answers_from_the_dates() {
    let day = Date::parse("2026-05-01").unwrap().unix_seconds();
    assert_eq!(
        CompatibilityRequirement::Week4.version_as_of(day),
        v("1.15.0")
    );
    assert_eq!(
        CompatibilityRequirement::Week12.version_as_of(day),
        v("1.13.7")
    );
    assert_eq!(
        CompatibilityRequirement::None.version_as_of(day),
        CURRENT_VERSION
    );
    assert_eq!(
        CompatibilityRequirement::Max.version_as_of(day),
        MINIMUM_VERSION
    );
}

/// Every run of the script since it computed the anchors itself (2024-11): the commit that wrote
/// Version.cpp, the release it tagged (the script runs just before `git tag`, so the anchors are
/// those of that tag's moment) and the WEEK_4 and WEEK_12 anchors upstream's Version.cpp holds
/// after that commit (`git log -L '/WEEK_4 ANCHOR/,+3:stablehlo/dialect/Version.cpp'`).
const UPSTREAM_ANCHORS: &[(&str, &str, &str, &str)] = &[
    ("f151a3802", "1.8.3", "1.7.8", "1.6.0"),
    ("db2ce9392", "1.8.4", "1.8.1", "1.6.3"),
    ("87675c102", "1.8.5", "1.8.2", "1.7.1"),
    ("33f19a4fd", "1.8.7", "1.8.3", "1.7.3"),
    ("960b2318a", "1.8.8", "1.8.3", "1.7.5"),
    ("c125b3284", "1.8.9", "1.8.7", "1.7.8"),
    ("01baa234a", "1.8.10", "1.8.8", "1.7.9"),
    ("8993ef703", "1.8.11", "1.8.8", "1.8.2"),
    ("f1f32d84b", "1.9.2", "1.8.8", "1.8.3"),
    ("c95da4918", "1.9.3", "1.8.10", "1.8.4"),
    ("d8bd2c3ca", "1.9.5", "1.9.0", "1.8.6"),
    ("030f0f7df", "1.9.6", "1.9.1", "1.8.6"),
    ("9b6580301", "1.10.0", "1.9.3", "1.8.8"),
    ("81d2ca2d5", "1.10.3", "1.9.5", "1.8.8"),
    ("e3ae120a9", "1.10.4", "1.9.7", "1.8.9"),
    ("890c87ff0", "1.10.5", "1.10.0", "1.8.10"),
    ("56aa7870a", "1.10.6", "1.10.1", "1.8.11"),
    ("ddc7cf9ec", "1.10.8", "1.10.3", "1.9.2"),
    ("a85bcc1dd", "1.10.9", "1.10.4", "1.9.3"),
    ("5fb3a5bc4", "1.10.10", "1.10.6", "1.9.6"),
    ("644aa13a8", "1.11.0", "1.10.9", "1.10.0"),
    ("172164449", "1.11.1", "1.10.9", "1.10.1"),
    ("9d690899f", "1.12.0", "1.10.9", "1.10.3"),
    ("6f7b4ab8f", "1.12.1", "1.10.10", "1.10.3"),
    ("99b0925e0", "1.12.2", "1.12.1", "1.10.8"),
    ("937150fc4", "1.12.3", "1.12.1", "1.10.9"),
    ("e1d2f6580", "1.13.1", "1.13.0", "1.12.1"),
    ("3acda594d", "1.13.3", "1.13.1", "1.12.2"),
    ("65e761289", "1.13.4", "1.13.1", "1.13.0"),
    ("3934f366c", "1.13.5", "1.13.3", "1.13.0"),
    ("503de0bd7", "1.13.6", "1.13.4", "1.13.0"),
    ("4395dbb19", "1.13.7", "1.13.4", "1.13.1"),
    ("6d6d670d3", "1.13.9", "1.13.7", "1.13.4"),
    ("78429ebf3", "1.14.0", "1.13.7", "1.13.6"),
    ("c86e1a34e", "1.15.0", "1.13.9", "1.13.6"),
    ("7090a4576", "1.15.1", "1.13.9", "1.13.7"),
    ("ce5d23016", "1.16.1", "1.14.1", "1.13.7"),
    ("b1c471d73", "1.16.2", "1.15.0", "1.13.7"),
    ("3d6e82530", "1.16.3", "1.16.1", "1.13.8"),
    ("d1469f8eb", "1.18.0", "1.16.3", "1.15.0"),
    // Titled "integrate 1.20.0 -> 1.20.0"; the tag it made is v1.19.0.
    ("3c9301c11", "1.19.0", "1.18.0", "1.16.2"),
];

#[test]
fn every_upstream_anchor_from_the_dates() {
    let mut wrong = Vec::new();
    for &(commit, tagged, week4, week12) in UPSTREAM_ANCHORS {
        let at = tag_time(tagged);
        let got = (
            CompatibilityRequirement::Week4.version_as_of(at),
            CompatibilityRequirement::Week12.version_as_of(at),
        );
        if got != (v(week4), v(week12)) {
            wrong.push(format!(
                "{commit} (tag {tagged}): upstream {week4}/{week12}, computed {}/{}",
                got.0, got.1
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The latest anchors are also the spec's static presets (upstream's Version.cpp at HEAD).
    let last = tag_time("1.19.0");
    assert_eq!(
        Some(CompatibilityRequirement::Week4.version_as_of(last)),
        vhlo_core::convert::compatibility_requirement("WEEK_4")
    );
    assert_eq!(
        Some(CompatibilityRequirement::Week12.version_as_of(last)),
        vhlo_core::convert::compatibility_requirement("WEEK_12")
    );
}

/// The age is counted in whole days from the tag's moment, as the script counts it.
#[test]
fn day_boundaries() {
    let t = tag_time("1.15.1");
    let week4 = |at| newest_tag_at_least_days_old(at, 28).map(|t| t.version);
    assert_eq!(week4(t + 28 * 86_400), Some(v("1.15.1")));
    assert_ne!(week4(t + 28 * 86_400 - 1), Some(v("1.15.1")));
    assert_eq!(
        newest_tag_at_least_days_old(tag_time("0.9.0") + 27 * 86_400, 28),
        None
    );
    // Before any tag is old enough, WEEK_4 is the minimum version.
    assert_eq!(
        CompatibilityRequirement::Week4.version_as_of(tag_time("0.9.0")),
        MINIMUM_VERSION
    );
}

#[test]
fn the_tag_table() {
    // Oldest first by tag time, each a patch of a release in the table, 0.9.0 first.
    assert_eq!(RELEASE_TAGS[0].version, v("0.9.0"));
    for w in RELEASE_TAGS.windows(2) {
        assert!(w[0].unix_seconds() <= w[1].unix_seconds(), "{:?}", w);
    }
    for t in RELEASE_TAGS {
        assert!(
            RELEASES
                .iter()
                .any(|r| r.version == t.version.floor_patch()),
            "{}",
            t.version
        );
        assert_eq!(t.date().to_string(), t.tagged[..10]);
    }
    assert_eq!(
        first_tag_reaching(v("1.17.0")).map(|t| t.version),
        Some(v("1.18.0"))
    );
    assert_eq!(first_tag_reaching(v("1.20.0")), None);
}

#[test]
fn guarantees() {
    // v1.0.0 was tagged 2024-05-14 (UTC): artifacts for it are guaranteed readable until 2029.
    assert_eq!(
        backward_guarantee_until(v("1.0.0")).map(|d| d.to_string()),
        Some("2029-05-14".into())
    );
    // Two years before 2026-05-01 is 2024-05-01: the newest tag by then is v0.19.9 (2024-05-02
    // is after, so v0.19.8 of 2024-04-19).
    let at = Date::parse("2026-05-01").unwrap().unix_seconds();
    let target = forward_guarantee_target(at);
    let cutoff = Date::parse("2024-05-01").unwrap();
    let expected = RELEASE_TAGS
        .iter()
        .filter(|t| t.date() <= cutoff)
        .map(|t| t.version)
        .next_back()
        .unwrap();
    assert_eq!(target, expected);
    assert_eq!(target, v("0.19.8"));
}

#[test]
fn dates() {
    for s in [
        "1970-01-01",
        "2000-02-29",
        "2024-12-31",
        "2026-05-01",
        "1969-12-31",
    ] {
        assert_eq!(Date::parse(s).unwrap().to_string(), s);
    }
    assert_eq!(Date::parse("1970-01-02").unwrap().days_since_epoch(), 1);
    for bad in [
        "2023-02-29",
        "2024-13-01",
        "2024-1-01",
        "20240101",
        "2024-01-00",
        "",
    ] {
        assert!(Date::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Date::parse("2024-02-29").unwrap().add_years(1).to_string(),
        "2025-02-28"
    );
    assert_eq!(Date::from_unix_seconds(-1).to_string(), "1969-12-31");
}

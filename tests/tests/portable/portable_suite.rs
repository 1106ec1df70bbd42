//! The portable-artifact contract on the upstream compatibility suite:
//! deserializing each `X_Y_Z.mlir.bc` gives the source program, and serializing the source at
//! X.Y.Z with debug info stripped is byte-identical to the artifact.
//!
//! Byte identity includes the use-list orders that upstream's op-replacing version rewrites
//! leave behind (`portable::rewrite_use_list_orders` models them).

use std::path::PathBuf;

use vhlo_core::convert;
use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text::PrintOptions;
use vhlo_tests::portable::{self, SerializeOptions};

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn suite() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

fn artifacts(dir: &std::path::Path) -> Vec<(String, PathBuf, PathBuf)> {
    let mut out: Vec<(String, PathBuf, PathBuf)> = std::fs::read_dir(dir)
        .expect("suite dir")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?.to_string();
            let v = name
                .strip_prefix("stablehlo_legalize_to_vhlo.")?
                .strip_suffix(".mlir.bc")?
                .replace('_', ".");
            Some((v, p.with_extension(""), p))
        })
        .collect();
    out.sort();
    out
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn deserialize_gives_the_source_program() {
    let Some(dir) = suite() else { return };
    let mut failures = Vec::new();
    let all = artifacts(&dir);
    for (v, src, bc) in &all {
        let got = match portable::deserialize_portable_artifact(&std::fs::read(bc).expect("bc")) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{v}: {e}"));
                continue;
            }
        };
        let want = vhlo_core::text::parse(&std::fs::read_to_string(src).expect("src"))
            .expect("suite source parses");
        // Upstream compares `stablehlo-opt` prints of both, which elide default-valued attributes;
        // so does this, on top of the structural comparison of everything else.
        let print = |m: &vhlo_core::ir::Module| {
            vhlo_core::text::print(
                m,
                PrintOptions {
                    elide_defaults: true,
                    ..Default::default()
                },
            )
        };
        let (g, w) = (print(&got), print(&want));
        if g != w {
            let line = g
                .lines()
                .zip(w.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            failures.push(format!(
                "{v}: first difference at line {}:\n  got:  {}\n  want: {}",
                line + 1,
                g.lines().nth(line).unwrap_or(""),
                w.lines().nth(line).unwrap_or("")
            ));
        } else if let Err(e) = structurally_equal(
            &vhlo_core::text::parse(&g).expect("reparse"),
            &vhlo_core::text::parse(&w).expect("reparse"),
            EqualOptions {
                locations: false,
                ..Default::default()
            },
        ) {
            failures.push(format!("{v}: {e}"));
        }
    }
    eprintln!(
        "deserialize: {}/{} give the source program",
        all.len() - failures.len(),
        all.len()
    );
    assert_eq!(all.len(), 32);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn serialize_is_byte_identical_to_libstablehlo() {
    let Some(dir) = suite() else { return };
    let mut identical = Vec::new();
    let mut different = Vec::new();
    let mut errors = Vec::new();
    for (v, src, bc) in artifacts(&dir) {
        let module =
            vhlo_core::text::parse(&std::fs::read_to_string(&src).expect("src")).expect("parses");
        let opts = SerializeOptions {
            strip_debuginfo: true,
            allow_other_dialects: false,
            ..Default::default()
        };
        match portable::serialize_portable_artifact(&module, &v, opts) {
            Ok(bytes) if bytes == std::fs::read(&bc).expect("bc") => identical.push(v),
            Ok(_) => different.push(v),
            Err(e) => errors.push(format!("{v}: {e}")),
        }
    }
    eprintln!(
        "serialize: {}/32 byte-identical; differing: {different:?}",
        identical.len()
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(
        different.is_empty(),
        "not byte-identical: {:?}",
        sorted(different)
    );
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn read_and_write_back_at_the_same_target_is_identical() {
    let Some(dir) = suite() else { return };
    let mut different = Vec::new();
    for (v, _, bc) in artifacts(&dir) {
        let bytes = std::fs::read(&bc).expect("bc");
        let m = portable::deserialize_portable_artifact(&bytes).expect("deserializes");
        let again = portable::serialize_portable_artifact(&m, &v, SerializeOptions::default())
            .expect("serializes");
        if again != bytes {
            different.push(v);
        }
    }
    assert!(
        different.is_empty(),
        "read + write back differs: {:?}",
        sorted(different)
    );
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn future_and_api_artifacts() {
    let Some(dir) = suite() else { return };
    let err = portable::deserialize_portable_artifact(
        &std::fs::read(dir.join("invalid_vhlo_future.mlir.bc")).expect("bc"),
    )
    .expect_err("a future artifact is refused");
    let text = err.to_string();
    assert!(
        text.contains("2.0.0") && text.contains(&vhlo_core::vhlo::CURRENT_VERSION.to_string()),
        "names both versions: {text}"
    );
    let m = portable::deserialize_portable_artifact(
        &std::fs::read(dir.join("vhlo_emit_version_api.1_1_0.mlir.bc")).expect("bc"),
    )
    .expect("the 1.1.0 API artifact reads");
    assert!(m.num_ops() > 0);
    assert_eq!(
        portable::read_producer_version(
            &std::fs::read(dir.join("stablehlo_legalize_to_vhlo.1_4_0.mlir.bc")).expect("bc")
        )
        .expect("producer"),
        vhlo_core::version::Version::new(1, 4, 0)
    );
}

#[test]
fn targets_and_presets() {
    assert_eq!(
        convert::parse_target("current").expect("current"),
        portable::current_version()
    );
    assert_eq!(
        convert::parse_target("1.9.3").expect("patch").floor_patch(),
        vhlo_core::version::Version::new(1, 9, 0)
    );
    assert!(convert::parse_target("0.8.0").is_err());
    // The next minor release is in the future, whatever the current one is.
    let current = portable::current_version();
    let next_minor = format!("{}.{}.0", current.major, current.minor + 1);
    assert!(convert::parse_target(&next_minor).is_err(), "{next_minor}");
    // Past current by a patch is past current (upstream compares before flooring).
    let past = portable::current_version();
    let past = format!("{}.{}.{}", past.major, past.minor, past.patch + 1);
    assert!(convert::parse_target(&past).is_err(), "{past}");
    assert!(convert::parse_target("1.x").is_err());
    assert_eq!(
        convert::compatibility_requirement("MAX"),
        Some(portable::minimum_version())
    );
    assert_eq!(
        convert::compatibility_requirement("WEEK_12"),
        Some(vhlo_core::version::Version::new(1, 16, 2))
    );
}

/// Read as the CLI reads them (values named on a second thread while the program is
/// verified, then printed with a helper thread taking chunks of the largest block), the suite's
/// artifacts and the JAX fixtures' print as printed on one thread, in every print form.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn artifacts_printed_with_a_helper_print_as_on_one_thread() {
    let Some(dir) = suite() else { return };
    let jax = vhlo_tests::workspace_root().join("tests/fixtures/jax");
    let mut files = vhlo_tests::suite_artifacts(&dir);
    files.extend(vhlo_tests::suite_artifacts(&jax));
    let (mut printed, mut failures) = (0, Vec::new());
    for f in &files {
        let bytes = std::fs::read(f).expect("artifact");
        let unverified = portable::DeserializeOptions {
            skip_verification: true,
            ..Default::default()
        };
        let Ok(m) = portable::deserialize_portable_artifact_with(&bytes, unverified) else {
            continue;
        };
        let verified = portable::deserialize_portable_artifact(&bytes).is_ok();
        for (generic, debug_info) in [(false, false), (true, false), (false, true), (true, true)] {
            let opts = PrintOptions {
                generic,
                debug_info,
                elide_defaults: true,
                location_aliases: true,
                ..Default::default()
            };
            let (checked, job) = std::thread::scope(|s| {
                let naming = s.spawn(|| vhlo_core::text::PrintJob::new(&m, opts));
                let checked = portable::verify_deserialized(&m);
                (checked, naming.join().expect("naming"))
            });
            assert_eq!(checked.is_ok(), verified, "{}", f.display());
            let mut text = Vec::new();
            std::thread::scope(|s| {
                s.spawn(|| job.help());
                job.print_to(&mut text)
            })
            .expect("print");
            printed += 1;
            if text != vhlo_core::text::print(&m, opts).into_bytes() {
                failures.push(format!("{} ({opts:?})", f.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "printed differently:\n{}",
        failures.join("\n")
    );
    assert!(printed > 0, "nothing printed");
}

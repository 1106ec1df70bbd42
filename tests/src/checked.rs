//! Writers that read back what they write (no path writes what we or libStablehlo
//! refuse; every artifact a test writes is read back by our reader with verification on).
//!
//! [`portable`] and [`bytecode`] re-export `vhlo_core::portable` and `vhlo_core::bytecode`, with
//! their writers replaced by checked ones of the same names and signatures: each writes as the
//! library does, then reads the artifact back with [`vhlo_core::portable::deserialize_portable_artifact`]
//! (which verifies) and panics, naming the caller, when it does not read. A test switches by its
//! `use` line (`use vhlo_tests::portable::{self, ...}`). A test that writes something meant to be
//! refused calls `vhlo_core::portable::...` by its full path with an `// unchecked: <why>`
//! comment on the line or just above (`tests/tests/portable/checked_writes.rs` enforces this).
//!
//! [`read_back_cli`] does the same for a `vhlo-translate --serialize` / `--retarget` run.
//!
//! Depends on `vhlo_core` and std only: `vhlo-translate`'s tests include this file by path.

use vhlo_core::ir::Module;

/// Reads `bytes` back as a portable artifact with verification on; the error otherwise.
pub fn read_back(bytes: &[u8]) -> Result<Module, String> {
    vhlo_core::portable::deserialize_portable_artifact(bytes).map_err(|e| e.to_string())
}

/// [`read_back`], panicking with the caller's location and what refused the artifact.
#[track_caller]
pub fn assert_reads_back(bytes: &[u8], what: &str) {
    if let Err(e) = read_back(bytes) {
        panic!(
            "{what} wrote an artifact ({} bytes) that our reader, verifying, refuses: {e}",
            bytes.len()
        );
    }
}

/// For a finished `vhlo-translate` run with `args`: when it serialized or retargeted
/// successfully, reads its artifact back (the `-o` file, else stdout) with verification on, and
/// panics when it does not read. Other runs (and failed ones) are left alone.
#[track_caller]
pub fn read_back_cli(args: &[&str], output: &std::process::Output) {
    if let Err(e) = check_cli_run(args, output.status.success(), &output.stdout) {
        panic!("{e}");
    }
}

/// [`read_back_cli`] as a result: the error names the run and what refused its artifact.
pub fn check_cli_run(args: &[&str], success: bool, stdout: &[u8]) -> Result<(), String> {
    let writes = args.iter().any(|a| {
        matches!(
            *a,
            "--serialize" | "-serialize" | "--retarget" | "-retarget"
        )
    });
    if !writes || !success {
        return Ok(());
    }
    let mut out: Option<&str> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if *a == "-o" || *a == "--o" {
            out = it.next().copied();
        } else if let Some(p) = a.strip_prefix("-o=").or_else(|| a.strip_prefix("--o=")) {
            out = Some(p);
        }
    }
    let what = format!("vhlo-translate {}", args.join(" "));
    let bytes = match out {
        Some("-") | None => stdout.to_vec(),
        Some(path) => std::fs::read(path)
            .map_err(|e| format!("{what}: succeeded but {path} does not read: {e}"))?,
    };
    read_back(&bytes).map(|_| ()).map_err(|e| {
        format!(
            "{what} wrote an artifact ({} bytes) that our reader, verifying, refuses: {e}",
            bytes.len()
        )
    })
}

/// `vhlo_core::portable` with checked writers.
pub mod portable {
    pub use vhlo_core::portable::*;

    use super::assert_reads_back;
    use vhlo_core::bytecode::Encoded;
    use vhlo_core::ir::Module;
    use vhlo_core::version::Version;

    /// [`vhlo_core::portable::serialize_portable_artifact`], read back.
    #[track_caller]
    pub fn serialize_portable_artifact(
        module: &Module,
        target: &str,
        options: SerializeOptions,
    ) -> Result<Vec<u8>, PortableError> {
        let out = vhlo_core::portable::serialize_portable_artifact(module, target, options)?;
        assert_reads_back(&out, "serialize_portable_artifact");
        Ok(out)
    }

    /// [`vhlo_core::portable::serialize_portable_module`], read back.
    #[track_caller]
    pub fn serialize_portable_module(
        m: Module,
        target: &str,
        options: SerializeOptions,
    ) -> Result<Vec<u8>, PortableError> {
        let out = vhlo_core::portable::serialize_portable_module(m, target, options)?;
        assert_reads_back(&out, "serialize_portable_module");
        Ok(out)
    }

    /// [`vhlo_core::portable::serialize_portable_encoded`], read back.
    #[track_caller]
    pub fn serialize_portable_encoded(
        m: Module,
        target: &str,
        options: SerializeOptions,
    ) -> Result<Encoded, PortableError> {
        let out = vhlo_core::portable::serialize_portable_encoded(m, target, options)?;
        assert_reads_back(&super::encoded_bytes(&out), "serialize_portable_encoded");
        Ok(out)
    }

    /// [`vhlo_core::portable::write_vhlo`], read back.
    #[track_caller]
    pub fn write_vhlo(
        m: &Module,
        version: Version,
        producer_version: &str,
    ) -> Result<Vec<u8>, PortableError> {
        let out = vhlo_core::portable::write_vhlo(m, version, producer_version)?;
        assert_reads_back(&out, "write_vhlo");
        Ok(out)
    }

    /// [`vhlo_core::portable::write_vhlo_interning`], read back.
    #[track_caller]
    pub fn write_vhlo_interning(
        m: &mut Module,
        version: Version,
        producer_version: &str,
    ) -> Result<Vec<u8>, PortableError> {
        let out = vhlo_core::portable::write_vhlo_interning(m, version, producer_version)?;
        assert_reads_back(&out, "write_vhlo_interning");
        Ok(out)
    }

    /// [`vhlo_core::portable::write_vhlo_encoded`], read back.
    #[track_caller]
    pub fn write_vhlo_encoded(
        m: &mut Module,
        version: Version,
        producer_version: &str,
    ) -> Result<Encoded, PortableError> {
        let out = vhlo_core::portable::write_vhlo_encoded(m, version, producer_version)?;
        assert_reads_back(&super::encoded_bytes(&out), "write_vhlo_encoded");
        Ok(out)
    }
}

/// `vhlo_core::bytecode` with checked writers.
pub mod bytecode {
    pub use vhlo_core::bytecode::*;

    use super::assert_reads_back;
    use vhlo_core::ir::Module;

    /// [`vhlo_core::bytecode::write`], read back.
    #[track_caller]
    pub fn write(module: &Module, opts: &WriteOptions<'_>) -> Result<Vec<u8>, WriteError> {
        let out = vhlo_core::bytecode::write(module, opts)?;
        assert_reads_back(&out, "bytecode::write");
        Ok(out)
    }

    /// [`vhlo_core::bytecode::write_interning`], read back.
    #[track_caller]
    pub fn write_interning(
        module: &mut Module,
        opts: &WriteOptions<'_>,
    ) -> Result<Vec<u8>, WriteError> {
        let out = vhlo_core::bytecode::write_interning(module, opts)?;
        assert_reads_back(&out, "bytecode::write_interning");
        Ok(out)
    }

    /// [`vhlo_core::bytecode::write_encoded`], read back.
    #[track_caller]
    pub fn write_encoded(
        module: &mut Module,
        opts: &WriteOptions<'_>,
    ) -> Result<Encoded, WriteError> {
        let out = vhlo_core::bytecode::write_encoded(module, opts)?;
        assert_reads_back(&super::encoded_bytes(&out), "bytecode::write_encoded");
        Ok(out)
    }
}

fn encoded_bytes(e: &vhlo_core::bytecode::Encoded) -> Vec<u8> {
    e.chunks().collect::<Vec<_>>().concat()
}

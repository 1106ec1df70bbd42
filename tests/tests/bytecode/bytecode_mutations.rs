//! Deterministic hostile-input test of the bytecode reader: seeded mutations of every suite
//! artifact (bit flips, byte overwrites, truncations, insertions and deletions, varint and
//! section-length corruption, section swaps, drops and duplicates). Each mutant must be either
//! rejected with an error that names a section and an offset inside the input, or accepted as a
//! program that the writer writes back at the same bytecode version, that reads back to the same
//! IR, and that writes the same bytes again. Every case is timed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text;
use vhlo_tests::bytecode::{self, ArtifactInfo, WriteOptions};
use vhlo_tests::portable;

/// The pipeline fuzz targets' property: an artifact that reads and legalizes to StableHLO prints
/// (pretty and generic, with locations) as text that parses back to the same IR, and serializing
/// it back at its own version returns (an error is fine).
#[path = "../../../fuzz/fuzz_targets/common/pipeline.rs"]
mod pipeline;

/// Mutants per suite artifact (34 artifacts, 34,000 mutants): about 40 s of CPU in the test
/// build (vhlo-core at `opt-level = 1`, see the root Cargo.toml; unoptimized about 5x slower),
/// most of it in the accepted mutants' four passes (read, write, read, write). `VHLO_MUTANTS`
/// sets another count for longer runs.
const MUTANTS_PER_FILE: usize = 1000;

fn mutants_per_file() -> usize {
    std::env::var("VHLO_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MUTANTS_PER_FILE)
}

/// One case may take this long; generous because debug builds share two cores with other work.
/// Reading a whole 22 KB artifact takes a few milliseconds, so only a hang or a blow-up
/// (quadratic work, a huge allocation being filled) comes near it.
const CASE_TIME_BOUND: Duration = Duration::from_secs(3);

fn suite_dir() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

fn artifacts(dir: &Path) -> Vec<PathBuf> {
    vhlo_tests::suite_artifacts(dir)
}

/// xorshift64*: fixed seeds, so every failure reproduces from the file name and case number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// A top-level section as laid out in the file: id byte offset, body range.
#[derive(Clone, Copy, Debug)]
struct SectionSpan {
    start: usize,
    body_start: usize,
    end: usize,
}

/// Decodes a prefix varint at `at`: `(value, encoded length)`.
fn varint_at(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let first = *bytes.get(at)?;
    let extra = if first == 0 {
        8
    } else {
        first.trailing_zeros() as usize
    };
    let raw = bytes.get(at..=at + extra)?;
    let mut buf = [0u8; 9];
    buf[..raw.len()].copy_from_slice(raw);
    let v = if first == 0 {
        u64::from_le_bytes(buf[1..9].try_into().ok()?)
    } else {
        u64::from_le_bytes(buf[..8].try_into().ok()?) >> (extra + 1)
    };
    Some((v, extra + 1))
}

fn encode_varint(v: u64) -> Vec<u8> {
    if v < 1 << 7 {
        return vec![((v << 1) | 1) as u8];
    }
    let bits = 64 - v.leading_zeros() as usize;
    let n = bits.div_ceil(7);
    if n >= 9 {
        let mut out = vec![0];
        out.extend_from_slice(&v.to_le_bytes());
        return out;
    }
    ((v << n) | (1u64 << (n - 1))).to_le_bytes()[..n].to_vec()
}

/// The top-level sections of a well-formed artifact (none of the suite's are aligned).
fn sections(bytes: &[u8]) -> Vec<SectionSpan> {
    let header_end = 4 + varint_at(bytes, 4).map_or(1, |(_, n)| n);
    let Some(nul) = bytes.iter().skip(header_end).position(|&b| b == 0) else {
        return Vec::new();
    };
    let mut at = header_end + nul + 1;
    let mut out = Vec::new();
    while at < bytes.len() {
        let Some((len, n)) = varint_at(bytes, at + 1) else {
            break;
        };
        let body_start = at + 1 + n;
        let end = body_start + len as usize;
        if bytes[at] & 0x80 != 0 || end > bytes.len() {
            break;
        }
        out.push(SectionSpan {
            start: at,
            body_start,
            end,
        });
        at = end;
    }
    out
}

/// Values that make counts, lengths and indices interesting: off by one, zero, huge.
fn hostile_value(rng: &mut Rng, old: u64) -> u64 {
    match rng.below(8) {
        0 => 0,
        1 => old.wrapping_add(1),
        2 => old.wrapping_sub(1),
        3 => old.wrapping_mul(2).wrapping_add(1),
        4 => u64::MAX,
        5 => u64::from(u32::MAX),
        6 => 1 << (rng.below(63) + 1),
        _ => rng.next() % 256,
    }
}

/// One mutant of `original` and the name of the mutation (for failure messages).
fn mutate(original: &[u8], spans: &[SectionSpan], rng: &mut Rng) -> (Vec<u8>, &'static str) {
    let mut b = original.to_vec();
    let len = b.len();
    match rng.below(11) {
        0 => {
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(len);
                b[at] ^= 1 << rng.below(8);
            }
            (b, "bit flip")
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(len);
                b[at] = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff, rng.next() as u8][rng.below(8)];
            }
            (b, "byte overwrite")
        }
        2 => {
            b.truncate(rng.below(len));
            (b, "truncation")
        }
        3 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(8);
            let junk: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(at..at, junk);
            (b, "insertion")
        }
        4 => {
            let at = rng.below(len);
            let n = (1 + rng.below(16)).min(len - at);
            b.drain(at..at + n);
            (b, "deletion")
        }
        5 | 6 => {
            // Re-encode the varint starting at a random byte with a hostile value; the encoded
            // length may change, shifting everything after it.
            let at = rng.below(len);
            match varint_at(&b, at) {
                Some((old, n)) => {
                    let new = encode_varint(hostile_value(rng, old));
                    b.splice(at..at + n, new);
                }
                None => b[at] = 0,
            }
            (b, "varint corruption")
        }
        7 => {
            // A section's length varint: the body is left as it was.
            if let Some(s) = pick(spans, rng) {
                let at = s.start + 1;
                let old = (s.end - s.body_start) as u64;
                let new = encode_varint(hostile_value(rng, old));
                b.splice(at..s.body_start, new);
            }
            (b, "section length corruption")
        }
        8 => {
            // Swap two whole sections (the reader takes them in any order) or two section ids.
            if spans.len() >= 2 {
                let i = rng.below(spans.len());
                let j = (i + 1 + rng.below(spans.len() - 1)) % spans.len();
                let (x, y) = (spans[i.min(j)], spans[i.max(j)]);
                if rng.below(2) == 0 {
                    let mut out = original[..x.start].to_vec();
                    out.extend_from_slice(&original[y.start..y.end]);
                    out.extend_from_slice(&original[x.end..y.start]);
                    out.extend_from_slice(&original[x.start..x.end]);
                    out.extend_from_slice(&original[y.end..]);
                    b = out;
                } else {
                    b.swap(x.start, y.start);
                }
            }
            (b, "section swap")
        }
        9 => {
            // Drop a section, or duplicate one.
            if let Some(s) = pick(spans, rng) {
                if rng.below(2) == 0 {
                    b.drain(s.start..s.end);
                } else {
                    let copy = original[s.start..s.end].to_vec();
                    b.splice(s.end..s.end, copy);
                }
            }
            (b, "section drop/duplicate")
        }
        _ => {
            // Corrupt a byte inside a chosen section's body, where the structure lives.
            if let Some(s) = pick(spans, rng) {
                if s.end > s.body_start {
                    let at = s.body_start + rng.below(s.end - s.body_start);
                    b[at] = rng.next() as u8;
                }
            }
            (b, "section body byte")
        }
    }
}

fn pick<'s>(spans: &'s [SectionSpan], rng: &mut Rng) -> Option<&'s SectionSpan> {
    spans.get(rng.below(spans.len()))
}

fn write_back(module: &vhlo_core::ir::Module, info: &ArtifactInfo) -> Result<Vec<u8>, String> {
    let opts = WriteOptions {
        bytecode_version: info.bytecode_version,
        producer: &info.producer,
        use_list_orders: Some(&info.use_list_orders),
        block_arg_locations: Some(&info.block_arg_locations),
    };
    // unchecked: mutants of real artifacts (bytes flipped, sections swapped) that the raw
    // reader took, written back to check the round trip; their programs may break any rule.
    vhlo_core::bytecode::write(module, &opts).map_err(|e| e.to_string())
}

/// What happened to one mutant, or why it broke the rules.
fn check(bytes: &[u8]) -> Result<Option<String>, String> {
    match bytecode::read(bytes) {
        Err(e) => {
            if e.offset > bytes.len() {
                return Err(format!("error offset past the input: {e}"));
            }
            if e.message.is_empty() || e.section.is_empty() {
                return Err(format!("error without a message or section: {e:?}"));
            }
            Ok(Some(format!("{}: {}", e.section, normalize(&e.message))))
        }
        Ok((module, info)) => {
            let first =
                write_back(&module, &info).map_err(|e| format!("accepted, not written: {e}"))?;
            let (again, info2) =
                bytecode::read(&first).map_err(|e| format!("written, not read back: {e}"))?;
            structurally_equal(&module, &again, EqualOptions::default())
                .map_err(|d| format!("read back to a different IR: {d}"))?;
            let second =
                write_back(&again, &info2).map_err(|e| format!("second write failed: {e}"))?;
            if first != second {
                return Err("accepted, but the second round trip wrote different bytes".into());
            }
            Ok(None)
        }
    }
}

/// For an accepted input: its generic text parses back and prints the same again (the
/// `bytecode_to_text` fuzz target's property).
fn check_text(bytes: &[u8]) -> Result<(), String> {
    let Ok((module, _)) = bytecode::read(bytes) else {
        return Ok(());
    };
    let first = text::print_generic(&module);
    let again =
        text::parse_unverified(&first).map_err(|e| format!("printed text does not parse: {e}"))?;
    if text::print_generic(&again) != first {
        return Err("the generic text printed twice differs".into());
    }
    // The verifier judges the text as it judges the module read.
    let module_ok = vhlo_core::verify::verify(&module).is_ok();
    let text_ok = text::parse(&first).is_ok();
    if module_ok != text_ok {
        return Err(format!(
            "the verifier accepts the module read ({module_ok}) but not its text ({text_ok}), or the reverse"
        ));
    }
    Ok(())
}

/// An error message with its numbers and quoted names blanked, to count kinds of errors rather
/// than instances.
fn normalize(message: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    let mut quoted = false;
    for ch in message.chars() {
        if ch == '\'' {
            quoted = !quoted;
            if quoted {
                out.push_str("'…'");
            }
            continue;
        }
        if quoted {
            continue;
        }
        if ch.is_ascii_digit() {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(ch);
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn seeded_mutations_of_every_suite_artifact_are_rejected_cleanly_or_round_trip() {
    let Some(dir) = suite_dir() else { return };
    let files = artifacts(&dir);
    assert!(
        files.len() >= 33,
        "expected at least 33 artifacts, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut error_kinds: BTreeMap<String, usize> = BTreeMap::new();
    let (mut rejected, mut accepted) = (0usize, 0usize);
    let (mut reject_time, mut accept_time) = (Duration::ZERO, Duration::ZERO);
    let started = Instant::now();
    for (file_no, path) in files.iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(path).unwrap();
        let spans = sections(&original);
        assert!(
            spans.len() >= 5,
            "{name}: found only {} sections",
            spans.len()
        );
        let mut rng =
            Rng(0x9E37_79B9_7F4A_7C15 ^ (file_no as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        for case in 0..mutants_per_file() {
            let (bytes, how) = mutate(&original, &spans, &mut rng);
            let t = Instant::now();
            let outcome = check(&bytes);
            let took = t.elapsed();
            if took > CASE_TIME_BOUND {
                failures.push(format!("{name} case {case} ({how}): took {took:?}"));
            }
            match outcome {
                Ok(Some(kind)) => {
                    reject_time += took;
                    rejected += 1;
                    *error_kinds.entry(kind).or_default() += 1;
                }
                Ok(None) => {
                    accept_time += took;
                    accepted += 1;
                }
                Err(why) => failures.push(format!("{name} case {case} ({how}): {why}")),
            }
        }
    }
    eprintln!(
        "{} mutants in {:?}: {rejected} rejected in {reject_time:?} ({} kinds of error), \
         {accepted} accepted and round-tripped in {accept_time:?}",
        rejected + accepted,
        started.elapsed(),
        error_kinds.len()
    );
    for (kind, n) in &error_kinds {
        eprintln!("{n:>7}  {kind}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The mutations must mostly land on something the reader checks.
    assert!(
        rejected > accepted,
        "only {rejected} of the mutants were rejected"
    );
}

/// Inputs the fuzzers found (minimized crashers and regressions, `fuzz/regressions/bytecode`):
/// each is rejected cleanly or round-trips, like the mutants above.
#[test]
fn fuzz_regressions_are_rejected_cleanly_or_round_trip() {
    let dir = vhlo_tests::workspace_root().join("fuzz/regressions/bytecode");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no regression inputs in {}",
        dir.display()
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).unwrap();
            let t = Instant::now();
            let outcome = check(&bytes)
                .and_then(|_| check_text(&bytes))
                .and_then(|()| pipeline::check(&bytes));
            let took = t.elapsed();
            let name = path.file_name().unwrap().to_string_lossy();
            match outcome {
                Err(why) => Some(format!("{name}: {why}")),
                Ok(_) if took > CASE_TIME_BOUND => Some(format!("{name}: took {took:?}")),
                Ok(_) => None,
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `deserialize_pipeline` found a `func_v1` whose `sym_visibility` is "publmc": it was legalized
/// and printed as `func.func publmc @main`, which does not parse. MLIR's symbol verifier refuses
/// it, and so does the legalization now.
#[test]
fn a_misspelled_function_visibility_is_refused_on_deserializing() {
    let path =
        vhlo_tests::workspace_root().join("fuzz/regressions/bytecode/misspelled-func-visibility");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let err =
        portable::deserialize_portable_artifact(&bytes).expect_err("a bad visibility is refused");
    let message = err.to_string();
    assert!(
        message.contains("sym_visibility") && message.contains("\"publmc\""),
        "{message}"
    );
}

/// `structured_pipeline` found an op using its own result (an IR mutation written back as valid
/// bytecode). In the SSACFG regions of VHLO and func ops a use must follow its definition in the
/// block (MLIR's dominance check); the reader refuses anything else, naming the operand.
#[test]
fn uses_before_definitions_in_a_block_are_refused() {
    let src = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.abs %a : tensor<f32>\n  %1 = stablehlo.negate %0 : tensor<f32>\n  return %1 : tensor<f32>\n}\n";
    for use_own_result in [true, false] {
        let mut m = text::parse(src).expect("parses");
        vhlo_core::convert::legalize_to_vhlo(
            &mut m,
            vhlo_core::convert::LegalizeOptions::default(),
        )
        .expect("legalizes");
        let mut ops = Vec::new();
        m.walk(|op| ops.push(op));
        let abs = *ops
            .iter()
            .find(|&&op| m.op_name_str(op) == "vhlo.abs_v1")
            .expect("abs");
        let negate = *ops
            .iter()
            .find(|&&op| m.op_name_str(op) == "vhlo.negate_v1")
            .expect("negate");
        let later = if use_own_result {
            m.result(abs, 0)
        } else {
            m.result(negate, 0)
        };
        assert!(m.set_operand(abs, 0, later.expect("result")));
        let version = vhlo_core::vhlo::CURRENT_VERSION;
        // The portable writer refuses it (it verifies what it writes)...
        // unchecked: expected to be refused, so nothing is written.
        let refused = vhlo_core::portable::write_vhlo(&m, version, &version.to_string())
            .expect_err("a use before its definition is not written");
        assert!(
            refused.to_string().contains("does not dominate"),
            "{refused}"
        );
        // ...and the raw writer writes it, for the reader to refuse.
        // unchecked: a use before its definition, written on purpose for the reader to refuse.
        let opts = vhlo_core::bytecode::WriteOptions::new(
            vhlo_core::bytecode::bytecode_version_for_target(version).expect("a bytecode version"),
            "StableHLO_v1.20.0",
        );
        // unchecked: the raw writer does not verify; the reader must refuse this.
        let bytes = vhlo_core::bytecode::write(&m, &opts).expect("writes");
        let err = portable::read_vhlo(&bytes)
            .expect_err("a use before its definition")
            .to_string();
        assert!(
            err.contains("operand #0 of op vhlo.abs_v1 does not dominate its use"),
            "{err}"
        );
    }
}

//! Values against libStablehlo (jaxlib), value by value:
//! - every bit pattern of every float type of 8 bits or fewer: printed as jaxlib prints it, the
//!   printed decimal parsed back to the bits jaxlib parses it to, and the artifact's bytes;
//! - decimal literals at every rounding edge (each midpoint between neighbouring values, and the
//!   f64 values on either side of it) and out of range (huge, tiny, infinite in `double`);
//! - integers wider than 64 bits (65, 128, 129, 256 and 4,096 bits), as scalar attributes and
//!   dense elements: printed, and written to bytecode, as jaxlib does;
//! - NUL bytes between tokens, skipped as MLIR's lexer skips them;
//! - ops with default-valued attributes written out print as jaxlib prints them (pretty and
//!   generic): MLIR's assembly formats elide some (`has_side_effect = false`) and keep others.
//!
//! All oracle work is one batch (one Python process) per test: scripts/oracle/batch_json.py.
//! The oracle is required under CI (vhlo_tests::oracle_python).

use serde_json::{json, Value as Json};
use vhlo_core::ir::{AttrData, FloatKind, Module};
use vhlo_core::text;
use vhlo_tests::portable::{self, SerializeOptions};

use vhlo_tests::{hex, oracle_batch};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The version jaxlib wrote an artifact for (its current one), from a batch result.
fn target_of(result: &Json) -> &str {
    result["target"].as_str().unwrap_or("")
}

/// The elements of the module attribute `name = dense<[...]>` in `printed`, as printed.
fn printed_elements<'a>(printed: &'a str, name: &str) -> Vec<&'a str> {
    let start = printed
        .find(&format!("{name} = dense<"))
        .unwrap_or_else(|| panic!("no {name} in {printed}"));
    let rest = &printed[start + name.len() + " = dense<".len()..];
    let end = rest.find('>').unwrap();
    let body = rest[..end].trim_start_matches('[').trim_end_matches(']');
    body.split(", ").collect()
}

/// The raw dense data of module attribute `name`, of `count` elements (a splat repeated).
fn dense_data(m: &Module, name: &str, count: usize) -> Vec<u8> {
    let module = m.top_ops()[0];
    let a = m
        .attribute(module, name)
        .unwrap_or_else(|| panic!("no module attribute {name}"));
    match m.attr_data(a) {
        AttrData::DenseElements { data, splat, .. } => {
            if *splat {
                data.repeat(count)
            } else {
                data.to_vec()
            }
        }
        other => panic!("{name} is {other:?}"),
    }
}

/// Our artifact of `src` for `target`, its locations naming the buffer `-` as jaxlib's do for
/// text parsed from memory.
fn our_artifact(src: &str, target: &str) -> Result<Vec<u8>, String> {
    let m = text::parse_with_source_locations(src, "-").map_err(|e| e.to_string())?;
    portable::serialize_portable_artifact(&m, target, SerializeOptions::default())
        .map_err(|e| e.to_string())
}

/// Where our artifact first differs from jaxlib's (in a batch result).
fn first_byte_difference(ours: &[u8], result: &Json) -> String {
    let theirs = unhex(result["bytecode_hex"].as_str().unwrap_or_default());
    let at = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
    format!(
        "{} vs {} bytes, first difference at {at}: ours {}, jaxlib's {}",
        ours.len(),
        theirs.len(),
        hex(&ours[at.min(ours.len())..(at + 16).min(ours.len())]),
        hex(&theirs[at.min(theirs.len())..(at + 16).min(theirs.len())])
    )
}

/// The float kinds of 8 bits or fewer.
fn narrow_kinds() -> Vec<FloatKind> {
    FloatKind::ALL
        .into_iter()
        .filter(|k| k.bit_width() <= 8)
        .collect()
}

/// A decimal literal MLIR's lexer takes (it needs a `.`) that parses to exactly `v` in f64.
fn literal(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "1.0e400" } else { "-1.0e400" }.into();
    }
    format!("{v:.17e}")
}

/// Every finite value of `kind` (NaNs left out), ascending, with the bits of each.
fn finite_values(kind: FloatKind) -> Vec<f64> {
    let mut values: Vec<f64> = (0u128..1 << kind.bit_width())
        .filter_map(|b| text::to_f64(kind, b))
        .filter(|v| v.is_finite())
        .collect();
    values.sort_by(f64::total_cmp);
    values.dedup_by(|a, b| a.to_bits() == b.to_bits());
    values
}

/// Decimal literals at every rounding edge of `kind` and out of its range.
fn edge_literals(kind: FloatKind) -> Vec<String> {
    let values = finite_values(kind);
    let mut edges: Vec<f64> = Vec::new();
    let around = |x: f64, edges: &mut Vec<f64>| {
        edges.push(x);
        if x != 0.0 && x.is_finite() {
            edges.push(f64::from_bits(x.to_bits() + 1));
            edges.push(f64::from_bits(x.to_bits() - 1));
        }
    };
    for pair in values.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        around(a / 2.0 + b / 2.0, &mut edges);
    }
    let max = values.last().copied().unwrap();
    let min_positive = values.iter().copied().find(|v| *v > 0.0).unwrap();
    let next_below_max = values[values.len() - 2];
    let ulp = max - next_below_max;
    for x in [
        max + ulp / 2.0,
        max + ulp,
        max * 2.0,
        1.0e10,
        1.0e38,
        1.0e300,
        f64::INFINITY,
        min_positive / 2.0,
        min_positive / 4.0,
        min_positive * 0.75,
        1.0e-10,
        1.0e-300,
        5.0e-324,
        0.0,
        3.0,
        48.0,
    ] {
        around(x, &mut edges);
        around(-x, &mut edges);
    }
    let mut out: Vec<String> = edges.into_iter().map(literal).collect();
    out.dedup();
    out
}

/// Elements per dense attribute: MLIR prints a dense attribute of more than 100 elements as one
/// hex string, so values are spread over attributes `x.v0`, `x.v1`, ... of this many each.
const CHUNK: usize = 64;

/// A module whose attributes hold `elements` of `kind`, [`CHUNK`] per attribute.
fn dense_module(elements: &[String], kind: FloatKind) -> String {
    let attrs: Vec<String> = elements
        .chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| {
            format!(
                "x.v{i} = dense<[{}]> : tensor<{}x{}>",
                chunk.join(", "),
                chunk.len(),
                kind.keyword()
            )
        })
        .collect();
    format!("module attributes {{{}}} {{\n}}\n", attrs.join(", "))
}

/// The attribute names of [`dense_module`] for `n` elements.
fn chunk_names(n: usize) -> Vec<String> {
    (0..n.div_ceil(CHUNK)).map(|i| format!("x.v{i}")).collect()
}

/// Every element of a [`dense_module`] of `n` elements, as printed.
fn all_printed(printed: &str, n: usize) -> Vec<&str> {
    chunk_names(n)
        .iter()
        .flat_map(|name| printed_elements(printed, name))
        .collect()
}

/// Every element's raw data of a [`dense_module`] of `n` elements (narrow floats: a byte each).
fn all_data(m: &Module, n: usize) -> Vec<u8> {
    chunk_names(n)
        .iter()
        .enumerate()
        .flat_map(|(i, name)| dense_data(m, name, CHUNK.min(n - i * CHUNK)))
        .collect()
}

/// Every bit pattern of every narrow float type, and every edge literal, against jaxlib.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn narrow_floats_match_jaxlib_value_by_value() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let kinds = narrow_kinds();
    // Per kind: (1) all patterns in hex; (2) our decimal print of them; (3) the edge literals.
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for &kind in &kinds {
        let patterns: Vec<String> = (0u128..1 << kind.bit_width())
            .map(|b| format!("0x{b:X}"))
            .collect();
        let hex_src = dense_module(&patterns, kind);
        let ours = text::parse(&hex_src).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let our_print = text::print(&ours, Default::default());
        let edges = edge_literals(kind);
        let edge_src = dense_module(&edges, kind);
        for src in [&hex_src, &our_print, &edge_src] {
            jobs.push(json!({"text": src, "print": true, "serialize": "current"}));
        }
        cases.push((kind, hex_src, our_print, edges, edge_src));
    }
    let results = oracle_batch(&python, &jobs);
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for (i, (kind, hex_src, our_print, edges, edge_src)) in cases.iter().enumerate() {
        let kind = *kind;
        let [patterns_job, decimal_job, edges_job] =
            [&results[3 * i], &results[3 * i + 1], &results[3 * i + 2]];
        let mut checked = 0;
        // (1) Printing each pattern.
        let their_print = patterns_job["print"]
            .as_str()
            .unwrap_or_else(|| panic!("{kind:?}: jaxlib: {}", patterns_job["error"]));
        let n = 1usize << kind.bit_width();
        let theirs = all_printed(their_print, n);
        let ours = all_printed(our_print, n);
        assert_eq!(theirs.len(), ours.len(), "{kind:?}");
        for (bits, (t, o)) in theirs.iter().zip(&ours).enumerate() {
            checked += 1;
            if t != o {
                failures.push(format!(
                    "{kind:?} {bits:#04x}: jaxlib prints {t}, we print {o}"
                ));
            }
        }
        // Bytes of the artifact of the hex text.
        match our_artifact(hex_src, target_of(patterns_job)) {
            Ok(bytes) if Some(hex(&bytes).as_str()) == patterns_job["bytecode_hex"].as_str() => {}
            Ok(bytes) => failures.push(format!(
                "{kind:?}: our artifact of every pattern differs from jaxlib's: {}",
                first_byte_difference(&bytes, patterns_job)
            )),
            Err(e) => failures.push(format!("{kind:?}: we refuse to write every pattern: {e}")),
        }
        // (2) Our decimal print parsed back: to the bits jaxlib parses it to, and the same artifact.
        let their_bits = decimal_job["bytecode_hex"].as_str().map(|h| {
            let m = vhlo_core::portable::deserialize_portable_artifact(&unhex(h)).unwrap();
            all_data(&m, n)
        });
        let our_module = text::parse(our_print).unwrap();
        let our_bits = all_data(&our_module, n);
        match their_bits {
            Some(their_bits) => {
                for (n, (t, o)) in their_bits.iter().zip(&our_bits).enumerate() {
                    if t != o {
                        failures.push(format!(
                            "{kind:?}: printed {} parses to {o:#04x}, in jaxlib to {t:#04x}",
                            ours[n]
                        ));
                    }
                }
                let ours_bc = our_artifact(our_print, target_of(decimal_job)).map(|b| hex(&b));
                if ours_bc.as_deref().ok() != decimal_job["bytecode_hex"].as_str() {
                    failures.push(format!(
                        "{kind:?}: our artifact of the decimal print differs from jaxlib's"
                    ));
                }
            }
            None => failures.push(format!(
                "{kind:?}: jaxlib refuses our decimal print: {}",
                decimal_job["error"]
            )),
        }
        // (3) Edge literals, value by value.
        let their_bits = edges_job["bytecode_hex"].as_str().map(|h| {
            let m = vhlo_core::portable::deserialize_portable_artifact(&unhex(h)).unwrap();
            all_data(&m, edges.len())
        });
        match (their_bits, text::parse(edge_src)) {
            (Some(their_bits), Ok(m)) => {
                let our_bits = all_data(&m, edges.len());
                assert_eq!(their_bits.len(), edges.len());
                for (n, literal) in edges.iter().enumerate() {
                    checked += 1;
                    if their_bits[n] != our_bits[n] {
                        failures.push(format!(
                            "{kind:?}: {literal} parses to {:#04x}, in jaxlib to {:#04x}",
                            our_bits[n], their_bits[n]
                        ));
                    }
                }
                let their_print = edges_job["print"].as_str().unwrap_or_default();
                if text::print(&m, Default::default()) != their_print {
                    failures.push(format!("{kind:?}: the edge literals print differently"));
                }
            }
            (None, Ok(_)) => failures.push(format!(
                "{kind:?}: jaxlib refuses the edge literals: {}",
                edges_job["error"]
            )),
            (Some(_), Err(e)) => {
                failures.push(format!("{kind:?}: we refuse the edge literals: {e}"))
            }
            (None, Err(_)) => {}
        }
        counts.push(format!(
            "{}: {} patterns + {} literals",
            kind.keyword(),
            1u32 << kind.bit_width(),
            edges.len()
        ));
        assert!(checked > 0);
    }
    eprintln!("checked against jaxlib: {}", counts.join("; "));
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A NUL byte between tokens is skipped, as MLIR's lexer skips it (`Lexer::lexToken`: anywhere
/// but at its buffer's terminator, which our input never holds); inside a string it is a
/// character, inside a comment it is skipped with the comment. Each program prints as jaxlib
/// prints it.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn nul_bytes_are_skipped_as_mlir_skips_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let programs = [
        "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\0\n  %0 = stablehlo.add\0%a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
        "\0func.func @f() {\n  return\n}\n\0",
        "func.func @f() {\n  return // a comment \0 with a NUL\n}\0\0\0",
        "module attributes {x.s = \"a\0b\", x.n = -\u{0}1 : i32} {\n}\n",
        "func.func @f() -> tensor<i32> {\n  %0 = stablehlo.constant\0dense<1>\0: tensor<i32>\n  return\0%0 : tensor<i32>\n}\n",
    ];
    let jobs: Vec<Json> = programs
        .iter()
        .map(|p| json!({"text": p, "print": true}))
        .collect();
    let results = oracle_batch(&python, &jobs);
    let mut failures = Vec::new();
    for (program, result) in programs.iter().zip(&results) {
        let ours = text::parse(program).map(|m| text::print(&m, Default::default()));
        match (result["print"].as_str(), &ours) {
            (Some(theirs), Ok(ours)) if theirs == ours => {}
            (theirs, ours) => failures.push(format!(
                "{program:?}:\n  jaxlib: {theirs:?} {}\n  ours: {ours:?}",
                result["error"]
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Decimal literals at the edges of a `width`-bit integer type of `signedness` (`i`, `si`,
/// `ui`): in range, then out of range.
fn integer_literals(width: u32, signedness: &str) -> (Vec<String>, Vec<String>) {
    use vhlo_core::ir::wide_int::{to_decimal, word_count};
    let words = |bits: &[u32]| {
        let mut w = vec![0u64; word_count(width + 1)];
        for &b in bits {
            w[(b / 64) as usize] |= 1 << (b % 64);
        }
        w
    };
    let all_below = |n: u32| to_decimal(&vec![u64::MAX; word_count(width + 1)], n, true);
    let power = |k: u32| to_decimal(&words(&[k]), width + 1, true);
    let (top, sign) = (width - 1, width - 1);
    let mut ok = vec!["0".to_string(), "1".to_string(), "12345".into()];
    let mut bad = Vec::new();
    let pattern: Vec<u32> = (0..top).step_by(7).collect();
    let spread = to_decimal(&words(&pattern), width + 1, true);
    ok.push(spread.clone());
    match signedness {
        "ui" => {
            ok.extend([all_below(width), power(top)]);
            bad.extend([power(width), "-1".into()]);
        }
        "si" => {
            ok.extend([
                all_below(sign),
                format!("-{}", power(sign)),
                "-1".into(),
                format!("-{spread}"),
            ]);
            bad.extend([
                power(sign),
                format!("-{}", to_decimal(&words(&[sign, 0]), width + 1, true)),
            ]);
        }
        _ => {
            ok.extend([
                all_below(width),
                all_below(sign),
                format!("-{}", power(sign)),
                "-1".into(),
                format!("-{spread}"),
            ]);
            bad.extend([
                power(width),
                format!("-{}", to_decimal(&words(&[sign, 0]), width + 1, true)),
            ]);
        }
    }
    if width > 200 {
        ok.push(power(200));
    }
    (ok, bad)
}

/// Integers of 65, 128, 129, 256 and 4,096 bits, signless, signed and unsigned: scalar
/// attributes and dense elements print as jaxlib prints them and are written to the same bytes;
/// jaxlib's artifact reads back to the same print; out-of-range literals are refused by both.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn wide_integers_match_jaxlib() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    const WIDTHS: [u32; 5] = [65, 128, 129, 256, 4096];
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for width in WIDTHS {
        for signedness in ["i", "si", "ui"] {
            let ty = format!("{signedness}{width}");
            let (ok, bad) = integer_literals(width, signedness);
            let scalars: Vec<String> = ok
                .iter()
                .enumerate()
                .map(|(i, v)| format!("x.s{i} = {v} : {ty}"))
                .collect();
            let src = format!(
                "module attributes {{{}, x.d = dense<[{}]> : tensor<{}x{ty}>, x.splat = dense<{}> : tensor<3x{ty}>}} {{\n}}\n",
                scalars.join(", "),
                ok.join(", "),
                ok.len(),
                ok[ok.len() - 1]
            );
            jobs.push(json!({"text": src, "print": true, "serialize": "current"}));
            cases.push((ty.clone(), src, true));
            for v in bad {
                for src in [
                    format!("module attributes {{x.s = {v} : {ty}}} {{\n}}\n"),
                    format!(
                        "module attributes {{x.d = dense<[0, {v}]> : tensor<2x{ty}>}} {{\n}}\n"
                    ),
                ] {
                    jobs.push(json!({"text": src, "print": true}));
                    cases.push((ty.clone(), src, false));
                }
            }
        }
    }
    let results = oracle_batch(&python, &jobs);
    let mut failures = Vec::new();
    let (mut values, mut refused) = (0, 0);
    for ((ty, src, in_range), result) in cases.iter().zip(&results) {
        let ours = text::parse_with_source_locations(src, "-");
        if !in_range {
            match (&ours, result["print"].as_str()) {
                (Err(_), None) => refused += 1,
                (ours, theirs) => failures.push(format!(
                    "{ty}: {src}: jaxlib {theirs:?} {}, ours {:?}",
                    result["error"],
                    ours.as_ref().map(|m| text::print(m, Default::default()))
                )),
            }
            continue;
        }
        let Some(their_print) = result["print"].as_str() else {
            failures.push(format!("{ty}: jaxlib refuses {src}: {}", result["error"]));
            continue;
        };
        let m = match ours {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{ty}: we refuse {src}: {e}"));
                continue;
            }
        };
        values += src.matches(" : ").count() + src.matches(", ").count();
        let our_print = text::print(&m, Default::default());
        if our_print != their_print {
            failures.push(format!(
                "{ty}: print differs:\n  jaxlib: {their_print}\n  ours:   {our_print}"
            ));
        }
        let theirs_bc = unhex(result["bytecode_hex"].as_str().unwrap_or_default());
        match portable::serialize_portable_artifact(
            &m,
            target_of(result),
            SerializeOptions::default(),
        ) {
            Ok(bytes) if bytes == theirs_bc => {}
            Ok(bytes) => failures.push(format!(
                "{ty}: our artifact differs: {}",
                first_byte_difference(&bytes, result)
            )),
            Err(e) => failures.push(format!("{ty}: we refuse to write it: {e}")),
        }
        match vhlo_core::portable::deserialize_portable_artifact(&theirs_bc) {
            Ok(back) if text::print(&back, Default::default()) == their_print => {}
            Ok(back) => failures.push(format!(
                "{ty}: jaxlib's artifact reads back as {}",
                text::print(&back, Default::default())
            )),
            Err(e) => failures.push(format!("{ty}: we cannot read jaxlib's artifact: {e}")),
        }
    }
    eprintln!(
        "wide integers: {} types ({WIDTHS:?} bits x i/si/ui), ~{values} values matched, {refused} out-of-range literals refused by both",
        WIDTHS.len() * 3
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Ops with attributes written out at their default values print as jaxlib 0.10.2 prints them,
/// pretty (with `elide_defaults`, what `vhlo-translate` prints) and generic. jaxlib's pretty print
/// of `custom_call @foo(%a) {has_side_effect = false, called_computations = []}` drops both (ODS's
/// `attr-dict` leaves out an attribute equal to its default); its generic print keeps both among
/// the properties. Without `elide_defaults` our print keeps what the source wrote, so that it
/// parses back to the same IR.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn explicit_default_attributes_print_as_jaxlib_prints_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    const PROGRAM: &str = r#"func.func @main(%a: tensor<2xf32>, %i: tensor<1x1xi32>, %m: tensor<2x2xf32>, %k: tensor<2xui64>, %z: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @foo(%a) {has_side_effect = false, called_computations = []} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.custom_call @foo(%0) {api_version = 1 : i32, backend_config = "", has_side_effect = false, output_operand_aliases = []} : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<2xf32>, tensor<1x1xi32>) -> tensor<1xf32>
  %3 = "stablehlo.cholesky"(%m) {lower = false} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = "stablehlo.dot_general"(%m, %m) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %5 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2xf32>) -> tensor<2xf32>
  %6:2 = "stablehlo.rng_bit_generator"(%k) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xf32>)
  %7 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare GT, %x, %y, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = false} : (tensor<2xf32>) -> tensor<2xf32>
  %8 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1>, window_strides = array<i64: 1>, base_dilations = array<i64: 1>, window_dilations = array<i64: 1>, padding = dense<0> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %9 = stablehlo.convolution(%m, %m) dim_numbers = [b, f]x[i, o]->[b, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %10 = stablehlo.reduce_precision %a, format = e8m23 : tensor<2xf32>
  %11 = "stablehlo.transpose"(%m) {permutation = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2xf32>
}
"#;
    let jobs = [
        json!({"text": PROGRAM, "print": true}),
        json!({"text": PROGRAM, "print": true, "generic": true}),
    ];
    let results = oracle_batch(&python, &jobs);
    let m = text::parse(PROGRAM).expect("parses");
    let as_mlir = text::PrintOptions {
        elide_defaults: true,
        ..Default::default()
    };
    let ours = [text::print(&m, as_mlir), text::print_generic(&m)];
    for ((form, ours), result) in ["pretty", "generic"].iter().zip(&ours).zip(&results) {
        let theirs = result["print"]
            .as_str()
            .unwrap_or_else(|| panic!("jaxlib: {}", result["error"]));
        assert_eq!(theirs, ours, "{form} print differs from jaxlib's");
    }
    assert!(ours[0].contains("stablehlo.custom_call @foo(%arg0) : "));
    assert!(ours[1].contains("called_computations = [], has_side_effect = false"));
    assert!(text::print(&m, Default::default())
        .contains("@foo(%arg0) {called_computations = [], has_side_effect = false}"));
}

/// Shardy attributes in their full spelling (`#sdy.mesh<...>`, `#sdy.sharding<...>`, ...) where
/// a format names the attribute's kind, as MLIR's `parseCustomAttributeWithFallback` takes them:
/// each program is accepted exactly when jaxlib accepts it, and prints as jaxlib prints it.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn shardy_full_spellings_as_jaxlib() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let func = |attrs: &str, body: &str| {
        format!(
            "sdy.mesh @m = <[\"x\"=2, \"y\"=4]>\nfunc.func @main(%a: tensor<8x8xf32>{attrs}) -> tensor<8x8xf32> {{\n{body}  return %a : tensor<8x8xf32>\n}}\n"
        )
    };
    let mesh = |m: &str| format!("sdy.mesh @n = {m}\n{}", func("", ""));
    let arg = |s: &str| func(&format!(" {{sdy.sharding = {s}}}"), "");
    let op = |attr: &str| {
        func(
            "",
            &format!("  %0 = stablehlo.add %a, %a {{sdy.sharding = {attr}}} : tensor<8x8xf32>\n"),
        )
    };
    let manual = |ins: &str, outs: &str, axes: &str| {
        func(
            "",
            &format!(
                "  %0 = sdy.manual_computation(%a) in_shardings={ins} out_shardings={outs} manual_axes={axes} (%b: tensor<4x8xf32>) {{\n    sdy.return %b : tensor<4x8xf32>\n  }} : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
            ),
        )
    };
    let programs = vec![
        mesh("#sdy.mesh<[\"x\"=2, \"y\"=4]>"),
        mesh("#sdy.mesh<[\"x\"=2], device_ids=[1, 0]>"),
        mesh("#sdy.mesh<[]>"),
        mesh("<[#sdy.mesh_axis<\"x\"=2>]>"),
        mesh("#sdy.sharding<@m, [{}]>"),
        arg("#sdy.sharding<@m, [{\"x\"}, {}]>"),
        arg("#sdy.sharding<@m, [{#sdy.axis_ref<\"x\">}, {}]>"),
        arg("#sdy.sharding<@m, [#sdy.dimension_sharding<{\"x\"}>, {}]>"),
        arg("#sdy.sharding<@m, [{\"y\":(1)2}, {}]>"),
        arg("#sdy.sharding<@m, [{#sdy.axis_ref<\"y\":(1)2>}, {}]>"),
        arg("#sdy.sharding<@m, [{\"y\":#sdy.sub_axis_info<(1)2>}, {}]>"),
        op("#sdy.sharding_per_value<[#sdy.sharding<@m, [{\"x\"}, {}]>]>"),
        op("#sdy.sharding_per_value<[<@m, [{\"x\"}, {}]>]>"),
        op("#sdy.sharding_per_value<[#sdy.mesh<[]>]>"),
        func("", "  %0 = sdy.sharding_constraint %a #sdy.sharding<@m, [{}, {\"y\"}]> : tensor<8x8xf32>\n"),
        func("", "  %0 = sdy.sharding_constraint %a <@m, [{}, {\"y\"}]> : tensor<8x8xf32>\n"),
        func("", "  %0 = stablehlo.multiply %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=8}>} : tensor<8x8xf32>\n"),
        manual("[<@m, [{\"x\"}, {}]>]", "[<@m, [{\"x\"}, {}]>]", "{\"x\"}"),
        manual("[#sdy.sharding<@m, [{\"x\"}, {}]>]", "[#sdy.sharding<@m, [{\"x\"}, {}]>]", "{\"x\"}"),
        manual("#sdy.sharding_per_value<[<@m, [{\"x\"}, {}]>]>", "[<@m, [{\"x\"}, {}]>]", "{\"x\"}"),
        manual("[<@m, [{\"x\"}, {}]>]", "[<@m, [{\"x\"}, {}]>]", "#sdy.manual_axes<{\"x\"}>"),
    ];
    let jobs: Vec<Json> = programs
        .iter()
        .map(|p| json!({"text": p, "print": true}))
        .collect();
    let results = oracle_batch(&python, &jobs);
    let as_mlir = text::PrintOptions {
        elide_defaults: true,
        ..Default::default()
    };
    let mut failures = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for (program, result) in programs.iter().zip(&results) {
        let ours = text::parse(program).map(|m| text::print(&m, as_mlir));
        match (result["print"].as_str(), &ours) {
            (Some(theirs), Ok(ours)) if theirs == ours => accepted += 1,
            (None, Err(e)) => {
                refused += 1;
                let theirs = result["error"].as_str().unwrap_or_default();
                let first = theirs.lines().nth(1).unwrap_or_default().trim();
                eprintln!("refused by both: jaxlib {first}; ours {e}");
            }
            (theirs, ours) => failures.push(format!(
                "{program}\n  jaxlib: {theirs:?} {}\n  ours:   {ours:?}",
                result["error"]
            )),
        }
    }
    eprintln!(
        "sdy spellings: {accepted} accepted and printed as jaxlib, {refused} refused by both"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A dense attribute of more than 100 elements that is not a splat prints as the hex of its data,
/// as MLIR's printer does by default: of every element kind (integers whose width is not a whole
/// number of bytes zero-extended, `i1` one byte each), at 100 and 101 elements, as a constant and
/// as an attribute, in both forms. Each program prints as jaxlib prints it, and reads back to
/// the same module.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn large_dense_attributes_print_in_hex_as_mlir_prints_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    /// An element type and the spelling of its element `i`.
    type Kind = (&'static str, fn(usize) -> String);
    let kinds: [Kind; 11] = [
        ("f32", |i| format!("{i}.5")),
        ("f64", |i| format!("-{i}.25")),
        ("bf16", |i| format!("{i}.0")),
        ("f8E4M3FN", |i| format!("{:?}", i as f64 / 8.0)),
        ("i1", |i| (i % 3 != 0).to_string()),
        ("i2", |i| format!("{}", (i % 4) as i64 - 2)),
        ("i4", |i| format!("{}", (i % 16) as i64 - 8)),
        ("ui4", |i| format!("{}", i % 16)),
        ("i8", |i| format!("{}", i as i64 - 50)),
        ("i64", |i| format!("{}", -(i as i64) * 1_000_000_007)),
        ("complex<f32>", |i| format!("({i}.0, -1.5)")),
    ];
    let mut programs = Vec::new();
    for (ty, value) in kinds {
        for n in [100, 101, 257] {
            let elems: Vec<String> = (0..n).map(value).collect();
            let dense = format!("dense<[{}]> : tensor<{n}x{ty}>", elems.join(", "));
            programs.push(format!(
                "func.func @f() -> tensor<{n}x{ty}> {{\n  %0 = stablehlo.constant {dense}\n  return %0 : tensor<{n}x{ty}>\n}}\n"
            ));
            programs.push(format!("module attributes {{x.y = {dense}}} {{\n}}\n"));
        }
        // A splat prints as one value, whatever its size.
        let one = value(1);
        programs.push(format!(
            "module attributes {{x.y = dense<{one}> : tensor<1000x{ty}>}} {{\n}}\n"
        ));
    }
    let mut jobs = Vec::new();
    for p in &programs {
        jobs.push(json!({"text": p, "print": true}));
        jobs.push(json!({"text": p, "print": true, "generic": true}));
    }
    let results = oracle_batch(&python, &jobs);
    let mut failures = Vec::new();
    let mut hex_printed = 0;
    for (i, program) in programs.iter().enumerate() {
        let m = text::parse(program).unwrap_or_else(|e| panic!("{program}: {e}"));
        for (generic, result) in [(false, &results[2 * i]), (true, &results[2 * i + 1])] {
            let opts = text::PrintOptions {
                generic,
                ..Default::default()
            };
            let ours = text::print(&m, opts);
            hex_printed += usize::from(ours.contains("dense<\"0x"));
            match result["print"].as_str() {
                Some(theirs) if theirs == ours => {}
                theirs => failures.push(format!(
                    "{program:.120}… (generic: {generic}):\n  jaxlib: {:.300}\n  ours:   {ours:.300}",
                    theirs.unwrap_or_default()
                )),
            }
            let back = text::parse(&ours).unwrap_or_else(|e| panic!("{ours}: {e}"));
            assert_eq!(
                text::print(&back, opts),
                ours,
                "{program:.120}: reads back otherwise"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(hex_printed >= 40, "only {hex_printed} prints in hex");
}

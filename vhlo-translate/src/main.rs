//! vhlo-translate: a drop-in for `stablehlo-translate --serialize/--deserialize`, plus `inspect`
//! and `--retarget`.
//!
//! Exit codes: 0 on success, 1 on any user error (bad flags, unreadable input, a program that
//! cannot be converted), with a message on stderr (JSON with `--json`).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use vhlo_core::convert::{self, Diagnostic};
use vhlo_core::portable::{self, DeserializeOptions, PortableError, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_core::vhlo::{self, VhloOp};

#[derive(Parser, Debug)]
#[command(
    name = "vhlo-translate",
    about = "Serialize and deserialize StableHLO portable artifacts (VHLO in MLIR bytecode)",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Write FILE (StableHLO text) as a portable artifact for --target.
    #[arg(long, value_name = "FILE", group = "mode")]
    serialize: Option<String>,
    /// Read the artifact FILE and print the program as StableHLO text.
    #[arg(long, value_name = "FILE", group = "mode")]
    deserialize: Option<String>,
    /// Rewrite the artifact FILE for --target (artifact to artifact).
    #[arg(long, value_name = "FILE", group = "mode")]
    retarget: Option<String>,
    /// Print the current and minimum StableHLO versions.
    #[arg(long, group = "mode")]
    print_stablehlo_version: bool,
    /// Target version: X.Y.Z, `current` or `minimum`.
    #[arg(long)]
    target: Option<String>,
    /// Drop locations before serializing.
    #[arg(long)]
    strip_debuginfo: bool,
    /// Keep ops, types and attributes of other dialects (1.11.0+).
    #[arg(long)]
    allow_other_dialects: bool,
    /// Refuse to lose anything (with --serialize, --deserialize, --retarget): locations the
    /// target cannot read, attributes that would be dropped, locations left out of the printed text.
    #[arg(long)]
    strict: bool,
    /// Print ops in generic form.
    #[arg(long)]
    mlir_print_op_generic: bool,
    /// Print locations.
    #[arg(long)]
    mlir_print_debuginfo: bool,
    /// Output file (`-` or absent: stdout).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<String>,
    /// Report errors as JSON on stderr.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Describe an artifact: producer, versions, dialects, op histogram, minimum version.
    Inspect {
        /// The artifact (`-` for stdin).
        file: String,
        /// Also say whether StableHLO X.Y.Z can read it, and why not.
        #[arg(long, value_name = "X.Y.Z")]
        readable_by: Option<String>,
    },
}

/// A user-facing failure.
enum Failure {
    Message(String),
    Diagnostics(String, Vec<Diagnostic>),
}

impl From<PortableError> for Failure {
    fn from(e: PortableError) -> Self {
        match e {
            PortableError::Convert(ds) => Failure::Diagnostics("cannot convert the program".into(), ds),
            other => Failure::Message(other.to_string()),
        }
    }
}

fn read_input(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| Failure::Message(format!("cannot read stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| Failure::Message(format!("cannot read {path}: {e}")))
    }
}

fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        None | Some("-") => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes).and_then(|_| out.flush()).map_err(|e| Failure::Message(format!("cannot write stdout: {e}")))
        }
        Some(p) => std::fs::write(p, bytes).map_err(|e| Failure::Message(format!("cannot write {p}: {e}"))),
    }
}

fn target(cli: &Cli) -> Result<String, Failure> {
    let t = cli.target.clone().ok_or_else(|| Failure::Message("--target=X.Y.Z|current|minimum is required".into()))?;
    portable::parse_target(&t).map_err(|e| Failure::Message(e.to_string()))?;
    Ok(t)
}

fn run(cli: &Cli) -> Result<(), Failure> {
    if let Some(Command::Inspect { file, readable_by }) = &cli.command {
        return inspect(file, readable_by.as_deref(), cli.json);
    }
    if cli.print_stablehlo_version {
        let text = format!("Current version: {}\nMinimum version: {}\n", portable::current_version(), portable::minimum_version());
        return write_output(cli.output.as_deref(), text.as_bytes());
    }
    if let Some(file) = &cli.serialize {
        let t = target(cli)?;
        let bytes = read_input(file)?;
        let src = String::from_utf8(bytes).map_err(|_| Failure::Message(format!("{file}: not UTF-8 text")))?;
        // Like MLIR, unlocated ops get their position in the input file (`<stdin>` for `-`).
        let buffer = if file == "-" { "<stdin>" } else { file.as_str() };
        let module = text::parse_with_source_locations(&src, buffer).map_err(|e| Failure::Message(format!("{file}:{e}")))?;
        let opts = SerializeOptions {
            strip_debuginfo: cli.strip_debuginfo,
            allow_other_dialects: cli.allow_other_dialects,
            strict: cli.strict,
        };
        drop(src);
        let out = portable::serialize_portable_module(module, &t, opts)?;
        return write_output(cli.output.as_deref(), &out);
    }
    if let Some(file) = &cli.deserialize {
        let bytes = read_input(file)?;
        let module = portable::deserialize_portable_artifact_with(&bytes, DeserializeOptions { strict: cli.strict })?;
        if cli.strict && !cli.mlir_print_debuginfo {
            let located = located_ops(&module);
            if !located.is_empty() {
                return Err(Failure::Diagnostics(
                    "--strict: the printed text would leave out locations; add --mlir-print-debuginfo".into(),
                    located,
                ));
            }
        }
        // Print as stablehlo-translate does (default-valued attributes elided).
        let opts = PrintOptions {
            generic: cli.mlir_print_op_generic,
            debug_info: cli.mlir_print_debuginfo,
            elide_defaults: true,
            ..Default::default()
        };
        return write_output(cli.output.as_deref(), text::print(&module, opts).as_bytes());
    }
    if let Some(file) = &cli.retarget {
        let t = target(cli)?;
        let version = portable::parse_target(&t).map_err(|e| Failure::Message(e.to_string()))?;
        let bytes = read_input(file)?;
        let (mut m, _) = portable::read_vhlo_with(&bytes, DeserializeOptions { strict: cli.strict })?;
        convert::vhlo_to_version(&mut m, version.floor_patch()).map_err(|ds| Failure::Diagnostics(format!("cannot retarget to {t}"), ds))?;
        if cli.strict {
            let losses = convert::location_losses(&m, version.floor_patch());
            if !losses.is_empty() {
                return Err(Failure::Diagnostics(format!("cannot retarget to {t} without loss"), losses));
            }
        }
        let out = portable::write_vhlo(&m, version, &t)?;
        return write_output(cli.output.as_deref(), &out);
    }
    Err(Failure::Message(
        "nothing to do: give --serialize FILE --target=X.Y.Z, --deserialize FILE, --retarget FILE --target=X.Y.Z, --print-stablehlo-version or `inspect FILE` (see --help)".into(),
    ))
}

/// One diagnostic per op (or region argument) with a location other than `unknown`: what
/// printing without debug info leaves out.
fn located_ops(m: &vhlo_core::ir::Module) -> Vec<Diagnostic> {
    let unknown = |l| matches!(m.loc_data(l), vhlo_core::ir::LocData::Unknown);
    let mut out = Vec::new();
    m.walk(|op| {
        let arg_located = m
            .regions(op)
            .iter()
            .flat_map(|&r| m.blocks(r).iter().flat_map(|&b| m.block_args(b).iter()))
            .any(|&v| !unknown(m.value_location(v)));
        if !unknown(m.op_location(op)) || arg_located {
            out.push(Diagnostic {
                op: m.op_name_str(op).to_string(),
                location: convert::location_to_string(m, m.op_location(op)),
                subject: if arg_located { "the location of the op or of its region arguments".into() } else { "the op's location".into() },
                needs: None,
                rule: "strict: printing without --mlir-print-debuginfo drops it".into(),
            });
        }
    });
    // Enough to say what and where; a large program would otherwise list every op.
    const SHOWN: usize = 10;
    if out.len() > SHOWN {
        let more = out.len() - SHOWN;
        out.truncate(SHOWN);
        out.push(Diagnostic {
            op: String::new(),
            location: "unknown".into(),
            subject: format!("and {more} more located op(s)"),
            needs: None,
            rule: String::new(),
        });
    }
    out
}

fn inspect(file: &str, readable_by: Option<&str>, json: bool) -> Result<(), Failure> {
    let bytes = read_input(file)?;
    let (bytecode_version, producer) = vhlo_core::bytecode::read_producer(&bytes).map_err(|e| Failure::Message(e.to_string()))?;
    let (m, version) = portable::read_vhlo(&bytes)?;
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    let mut dialects: BTreeMap<String, usize> = BTreeMap::new();
    let mut ops = 0usize;
    m.walk(|op| {
        let name = m.op_name_str(op).to_string();
        let dialect = name.split('.').next().unwrap_or("").to_string();
        *dialects.entry(dialect).or_default() += 1;
        *histogram.entry(name).or_default() += 1;
        ops += 1;
    });
    let minimum = convert::minimum_version(&m);
    let mut out = String::new();
    if json {
        let hist: Vec<String> = histogram.iter().map(|(k, v)| format!("{{\"op\":\"{k}\",\"count\":{v}}}")).collect();
        let dl: Vec<String> = dialects.keys().map(|d| format!("\"{d}\"")).collect();
        out.push_str(&format!(
            "{{\"producer\":\"{producer}\",\"target_version\":{},\"bytecode_version\":{bytecode_version},\"dialects\":[{}],\"ops\":{ops},\"histogram\":[{}],\"minimum_version\":{}",
            match portable::producer_version(&producer) {
                Some(_) => format!("\"{version}\""),
                None => "null".into(),
            },
            dl.join(","),
            hist.join(","),
            match &minimum {
                Ok(v) => format!("\"{v}\""),
                Err(_) => "null".into(),
            }
        ));
    } else {
        out.push_str(&format!("producer:          {producer}\n"));
        match portable::producer_version(&producer) {
            Some(_) => out.push_str(&format!("target version:    {version}\n")),
            // libStablehlo reads these too: it upgrades every op from its own version.
            None => out.push_str("target version:    none named by the producer (read as libStablehlo reads it)\n"),
        }
        out.push_str(&format!("bytecode version:  {bytecode_version}\n"));
        out.push_str(&format!("dialects:          {}\n", dialects.keys().cloned().collect::<Vec<_>>().join(", ")));
        out.push_str(&format!("ops:               {ops}\n"));
        for (name, n) in &histogram {
            let range = VhloOp::from_name(name).map(|k| format!("  ({})", k.range())).unwrap_or_default();
            out.push_str(&format!("  {n:>6}  {name}{range}\n"));
        }
        match &minimum {
            Ok(v) => out.push_str(&format!("minimum version:   {v} (the oldest StableHLO this program can be written for)\n")),
            Err(ds) => out.push_str(&format!("minimum version:   none ({} blocker(s) even at {})\n", ds.len(), vhlo::CURRENT_VERSION)),
        }
    }
    if let Some(r) = readable_by {
        let v = portable::parse_target(r).map_err(|e| Failure::Message(e.to_string()))?;
        // An artifact is read by its target version and later; older readers need a retarget.
        let verdict: Result<(), Vec<Diagnostic>> = if v.floor_patch() >= version.floor_patch() {
            Ok(())
        } else {
            convert::vhlo_to_version(&mut m.clone(), v.floor_patch())
        };
        if json {
            match &verdict {
                Ok(()) if v.floor_patch() >= version.floor_patch() => out.push_str(&format!(",\"readable_by\":{{\"version\":\"{v}\",\"readable\":true}}")),
                Ok(()) => out.push_str(&format!(",\"readable_by\":{{\"version\":\"{v}\",\"readable\":false,\"retarget_possible\":true}}")),
                Err(ds) => out.push_str(&format!(
                    ",\"readable_by\":{{\"version\":\"{v}\",\"readable\":false,\"retarget_possible\":false,\"blockers\":{}}}",
                    convert::diagnostics_to_json(ds)
                )),
            }
        } else {
            match &verdict {
                Ok(()) if v.floor_patch() >= version.floor_patch() => {
                    out.push_str(&format!("readable by {v}?   yes: written for {version}, and StableHLO reads artifacts of its own version and older\n"))
                }
                Ok(()) => out.push_str(&format!(
                    "readable by {v}?   no: written for {version}; `vhlo-translate --retarget FILE --target={v}` makes an artifact it reads\n"
                )),
                Err(ds) => {
                    out.push_str(&format!("readable by {v}?   no, and it cannot be retargeted there:\n"));
                    for d in ds {
                        out.push_str(&format!("  {d}\n"));
                    }
                }
            }
        }
    }
    if json {
        out.push_str("}\n");
    }
    write_output(None, out.as_bytes())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            let (msg, diags) = match f {
                Failure::Message(m) => (m, Vec::new()),
                Failure::Diagnostics(m, d) => (m, d),
            };
            if cli.json {
                let escaped = msg.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
                eprintln!("{{\"error\":\"{escaped}\",\"diagnostics\":{}}}", convert::diagnostics_to_json(&diags));
            } else {
                eprintln!("vhlo-translate: error: {msg}");
                eprint!("{}", convert::diagnostics_to_text(&diags));
            }
            ExitCode::from(1)
        }
    }
}

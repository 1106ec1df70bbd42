//! vhlo-translate: a drop-in for `stablehlo-translate --serialize/--deserialize`, plus `inspect`
//! and `--retarget`.
//!
//! It takes the forms `stablehlo-translate` takes for these modes: mode flags, a positional input
//! (stdin when none or `-`), stdout or `-o`, LLVM's single-dash spellings (`-serialize`,
//! `-target=1.0.0`) and both `--flag=value` and `--flag value`.
//!
//! Exit codes: 0 on success, 1 on any user error (bad flags, unreadable input, a program that
//! cannot be converted, a failed write), with a message on stderr (JSON with `--json`).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{ArgGroup, Parser, Subcommand};
use serde::Serialize;
use vhlo_core::bytecode::Encoded;
use vhlo_core::compatibility::CompatibilityRequirement;
use vhlo_core::convert::{self, Diagnostic};
use vhlo_core::ir::Blob;
use vhlo_core::portable::{self, DeserializeOptions, PortableError, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_core::version::Date;
use vhlo_core::vhlo::{self, VhloOp};

#[derive(Parser, Debug)]
#[command(
    name = "vhlo-translate",
    version,
    about = "Serialize and deserialize StableHLO portable artifacts (VHLO in MLIR bytecode)",
    args_conflicts_with_subcommands = true,
    group(ArgGroup::new("mode").args(["serialize", "deserialize", "retarget"]))
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Input file (`-` or absent: stdin).
    #[arg(value_name = "INPUT")]
    input: Option<String>,
    /// Write the input (StableHLO text) as a portable artifact for --target.
    #[arg(long)]
    serialize: bool,
    /// Read a portable artifact (or StableHLO/VHLO text) and print the program as StableHLO text.
    #[arg(long)]
    deserialize: bool,
    /// Rewrite the input artifact for --target (artifact to artifact).
    #[arg(long)]
    retarget: bool,
    /// With --deserialize: first print the artifact's StableHLO version as a `//` comment.
    /// Alone: print the current and minimum StableHLO versions.
    #[arg(long)]
    print_stablehlo_version: bool,
    /// Target version: X.Y.Z, `current`, `minimum`, or a compatibility requirement: `WEEK_4` and
    /// `WEEK_12` (the newest release tagged at least 28 or 84 days before --as-of), `MAX` (the
    /// minimum version), `NONE` (the current version).
    #[arg(long, value_name = "VERSION")]
    target: Option<String>,
    /// The day (YYYY-MM-DD, UTC) at which --target=WEEK_4 and WEEK_12 are computed: today when absent.
    #[arg(long, value_name = "YYYY-MM-DD")]
    as_of: Option<String>,
    /// Drop locations before serializing.
    #[arg(long)]
    strip_debuginfo: bool,
    /// Keep ops, types and attributes of other dialects (1.11.0+).
    #[arg(long)]
    allow_other_dialects: bool,
    /// Read text with ops, types and attributes of dialects jaxlib does not register (MLIR's
    /// option); they are refused otherwise, as jaxlib refuses them.
    #[arg(long)]
    allow_unregistered_dialect: bool,
    /// Refuse to lose anything (with --serialize, --deserialize, --retarget): locations the
    /// target cannot read, attributes that would be dropped, locations left out of the printed text.
    #[arg(long)]
    strict: bool,
    /// Do not verify the program after reading it or before writing it (MLIR's option of the
    /// same name). What is written may then be refused by its reader.
    #[arg(long)]
    mlir_very_unsafe_disable_verifier_on_parsing: bool,
    /// Print ops in generic form.
    #[arg(long)]
    mlir_print_op_generic: bool,
    /// Print locations.
    #[arg(long)]
    mlir_print_debuginfo: bool,
    /// Output file (`-` or absent: stdout).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<String>,
    /// Report errors as JSON on stderr (and `inspect` as JSON on stdout).
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

/// The long options, which LLVM's command line also accepts with one dash (`-serialize`).
const LONG_OPTIONS: &[&str] = &[
    "serialize",
    "deserialize",
    "retarget",
    "print-stablehlo-version",
    "target",
    "strip-debuginfo",
    "allow-other-dialects",
    "allow-unregistered-dialect",
    "strict",
    "mlir-very-unsafe-disable-verifier-on-parsing",
    "mlir-print-op-generic",
    "mlir-print-debuginfo",
    "json",
    "version",
    "help",
    "readable-by",
    "as-of",
];

/// Rewrites LLVM-style `-name` / `-name=value` for a known long option to `--name`.
fn normalize_args(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    args.map(|a| {
        let Some(s) = a.to_str() else { return a };
        let Some(rest) = s.strip_prefix('-').filter(|r| !r.starts_with('-')) else {
            return a;
        };
        let name = rest.split('=').next().unwrap_or(rest);
        if LONG_OPTIONS.contains(&name) {
            format!("-{s}").into()
        } else {
            a
        }
    })
    .collect()
}

/// A user-facing failure.
enum Failure {
    Message(String),
    Diagnostics(String, Vec<Diagnostic>),
}

impl From<PortableError> for Failure {
    fn from(e: PortableError) -> Self {
        match e {
            PortableError::Convert(ds) => {
                Failure::Diagnostics("cannot convert the program".into(), ds)
            }
            other => Failure::Message(other.to_string()),
        }
    }
}

impl Failure {
    /// A failure to read the file `name`, named in the message (a bytecode error's offsets are
    /// into that file).
    fn reading(name: &str) -> impl Fn(PortableError) -> Failure + '_ {
        move |e| match Failure::from(e) {
            Failure::Message(m) => Failure::Message(format!("{name}: {m}")),
            d => d,
        }
    }
}

/// The input's name in messages and implicit locations (`<stdin>` as MLIR says).
fn input_name(cli: &Cli) -> &str {
    match cli.input.as_deref() {
        None | Some("-") => "<stdin>",
        Some(p) => p,
    }
}

/// Reads the input; an empty input is an error (MLIR would read it as an empty module, which is
/// never what was meant). A closed stdin reads as empty.
fn read_input(path: Option<&str>) -> Result<Vec<u8>, Failure> {
    let (bytes, name) = match path {
        None | Some("-") => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Failure::Message(format!("cannot read stdin: {e}")))?;
            (buf, "<stdin>")
        }
        Some(p) => (
            std::fs::read(p).map_err(|e| Failure::Message(format!("cannot read {p}: {e}")))?,
            p,
        ),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Failure::Message(format!(
            "{name}: empty input (expected a program or a portable artifact)"
        )));
    }
    Ok(bytes)
}

/// Whether stdout was closed when the process started. Rust's runtime reopens a closed stdout on
/// `/dev/null` before `main`, so writes would "succeed"; this constructor looks first.
#[cfg(target_os = "linux")]
mod stdout_at_start {
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" {
        fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    }
    const F_GETFD: i32 = 1;

    extern "C" fn look() {
        // SAFETY: F_GETFD on a descriptor number only reads the descriptor table.
        if unsafe { fcntl(1, F_GETFD) } == -1 {
            CLOSED.store(true, Ordering::Relaxed);
        }
    }

    // Runs before `main` and so before the runtime's reopening of closed standard descriptors.
    #[used]
    #[link_section = ".init_array"]
    static LOOK: extern "C" fn() = look;

    pub fn closed() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_os = "linux"))]
mod stdout_at_start {
    pub fn closed() -> bool {
        false
    }
}

fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    if stdout_at_start::closed() {
        return Err(std::io::Error::other("stdout is closed"));
    }
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        None | Some("-") => {
            write_stdout(bytes).map_err(|e| Failure::Message(format!("cannot write stdout: {e}")))
        }
        Some(p) => {
            std::fs::write(p, bytes).map_err(|e| Failure::Message(format!("cannot write {p}: {e}")))
        }
    }
}

/// An output file opened on another thread while the input converts. An old file is not
/// emptied first but written over and then cut to the new length: emptying it frees its cached
/// pages, which writing then takes again (an 8 MB text, 2.5 ms to open and more in the writes),
/// and makes ext4 flush the file at close. As with stablehlo-translate (MLIR's
/// `ToolOutputFile`), a run that fails leaves no output file.
struct EarlyOutput {
    path: String,
    opening: Option<std::thread::JoinHandle<std::io::Result<std::fs::File>>>,
    keep: bool,
}

impl EarlyOutput {
    /// None for stdout, or when no thread can be started (the file is then opened at the end).
    fn open(path: Option<&str>) -> Option<EarlyOutput> {
        let p = path.filter(|&p| p != "-")?.to_string();
        let q = p.clone();
        let opening = std::thread::Builder::new()
            .spawn(move || open_over(&q))
            .ok()?;
        Some(EarlyOutput {
            path: p,
            opening: Some(opening),
            keep: false,
        })
    }

    /// Prints `job` into the file as it prints, calling `lend` just before.
    fn print(mut self, job: &text::PrintJob<'_>, lend: impl FnOnce()) -> Result<(), Failure> {
        let p = self.path.clone();
        let fail = |e: std::io::Error| Failure::Message(format!("cannot write {p}: {e}"));
        let mut file = self
            .opening
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_else(|| open_over(&p))
            .map_err(fail)?;
        // Written over an old file, which is then cut to the new text.
        lend();
        let written = print_job(job, &mut file).and_then(|()| {
            use std::io::Seek;
            let end = file.stream_position()?;
            if file.metadata()?.is_file() {
                file.set_len(end)?;
            }
            Ok(())
        });
        match written {
            Ok(()) => self.keep = true,
            // A write that fails half-way (a full disk) leaves no partial text either.
            Err(_) => self.remove(&file),
        }
        written.map_err(fail)
    }

    /// Removes the output, if it is a regular file this run created or wrote (never
    /// `/dev/null`).
    fn remove(&self, file: &std::fs::File) {
        if file.metadata().is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for EarlyOutput {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        if let Some(Ok(f)) = self.opening.take().and_then(|h| h.join().ok()) {
            self.remove(&f);
        }
    }
}

/// Opens `path` for writing from its start, creating it, without emptying it.
fn open_over(path: &str) -> std::io::Result<std::fs::File> {
    std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Prints `job` into `out` as it prints.
fn print_job(job: &text::PrintJob<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    job.print_to(out)?;
    out.flush()
}

/// Prints `job` to stdout, calling `lend` just before.
fn print_to_stdout(job: &text::PrintJob<'_>, lend: impl FnOnce()) -> Result<(), Failure> {
    if stdout_at_start::closed() {
        return Err(Failure::Message(
            "cannot write stdout: stdout is closed".into(),
        ));
    }
    lend();
    print_job(job, &mut std::io::stdout().lock())
        .map_err(|e| Failure::Message(format!("cannot write stdout: {e}")))
}

/// Writes an artifact piece by piece: its large constants go out from where the module holds
/// them, never assembled into one buffer (a 1 GiB round trip in about 1 GiB).
fn write_artifact(path: Option<&str>, artifact: &Encoded) -> Result<(), Failure> {
    match path {
        None | Some("-") => {
            if stdout_at_start::closed() {
                return Err(Failure::Message(
                    "cannot write stdout: stdout is closed".into(),
                ));
            }
            let mut out = std::io::stdout().lock();
            artifact
                .write_to(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| Failure::Message(format!("cannot write stdout: {e}")))
        }
        Some(p) => {
            let fail = |e: std::io::Error| Failure::Message(format!("cannot write {p}: {e}"));
            let mut out = std::io::BufWriter::new(std::fs::File::create(p).map_err(fail)?);
            artifact.write_to(&mut out).map_err(fail)?;
            out.flush().map_err(fail)
        }
    }
}

fn target(cli: &Cli) -> Result<String, Failure> {
    let t = cli.target.clone().ok_or_else(|| {
        Failure::Message("--target=X.Y.Z|current|minimum|WEEK_4|WEEK_12|MAX is required".into())
    })?;
    // A compatibility requirement names the version it resolves to (in the producer too).
    let t = match CompatibilityRequirement::from_name(&t) {
        Some(req) => {
            let at = match &cli.as_of {
                Some(d) => Date::parse(d)
                    .map_err(|e| Failure::Message(format!("--as-of={d}: {e}")))?
                    .unix_seconds(),
                None => std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
            };
            req.version_as_of(at).to_string()
        }
        None => t,
    };
    convert::parse_target(&t).map_err(|e| Failure::Message(format!("--target={t}: {e}")))?;
    Ok(t)
}

/// MLIR bytecode starts with these bytes; anything else is read as text, as MLIR does.
fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ML\xefR")
}

fn run(cli: &Cli) -> Result<(), Failure> {
    if let Some(Command::Inspect { file, readable_by }) = &cli.command {
        return inspect(file, readable_by.as_deref(), cli.json);
    }
    if cli.serialize {
        return serialize(cli);
    }
    if cli.deserialize {
        return deserialize(cli);
    }
    if cli.retarget {
        return retarget(cli);
    }
    if cli.print_stablehlo_version {
        let text = format!(
            "Current version: {}\nMinimum version: {}\n",
            portable::current_version(),
            portable::minimum_version()
        );
        return write_output(cli.output.as_deref(), text.as_bytes());
    }
    Err(Failure::Message(
        "nothing to do: give --serialize --target=X.Y.Z, --deserialize, --retarget --target=X.Y.Z, --print-stablehlo-version or `inspect FILE` (see --help)".into(),
    ))
}

/// Parses the input text, verified unless the user turned the verifier off; with source
/// locations, unlocated ops get their position in the input.
fn parse_input(
    cli: &Cli,
    src: &str,
    name: &str,
    source_locations: bool,
) -> Result<vhlo_core::ir::Module, Failure> {
    let options = text::ParseOptions {
        source_locations: source_locations.then_some(name),
        skip_verification: cli.mlir_very_unsafe_disable_verifier_on_parsing,
        allow_unregistered_dialects: cli.allow_unregistered_dialect,
    };
    text::parse_with(src, &options).map_err(|e| Failure::Message(format!("{name}:{e}")))
}

fn deserialize_options(cli: &Cli) -> DeserializeOptions {
    DeserializeOptions {
        strict: cli.strict,
        skip_verification: cli.mlir_very_unsafe_disable_verifier_on_parsing,
    }
}

fn serialize(cli: &Cli) -> Result<(), Failure> {
    let t = target(cli)?;
    std::thread::scope(|s| {
        // The input and its parse take about 3 times the text's size in heap (the 100k
        // transformer's 9.4 MB of pretty text: 9,100 first touches of a page, a tenth of the
        // run): a helper populates it, the parse's part first, while the input is read and
        // parsed ([`heap`]). The parser runs on a thread of its own, so every thread is to
        // allocate from the heap populated.
        // Below 256 KiB of text the faults cost about what starting the helper does.
        let size = cli.input.as_deref().filter(|&p| p != "-").and_then(|p| {
            let len = std::fs::metadata(p).ok()?.len();
            usize::try_from(len).ok().filter(|&n| n >= 256 << 10)
        });
        if let Some(size) = size {
            if let Some(r) = heap::reserve_for_all_threads(size.saturating_mul(3)) {
                let _ = std::thread::Builder::new().spawn_scoped(s, move || r.populate_from(size));
            }
        }
        serialize_with(cli, &t)
    })
}

fn serialize_with(cli: &Cli, t: &str) -> Result<(), Failure> {
    let name = input_name(cli).to_string();
    let bytes = read_input(cli.input.as_deref())?;
    let src = String::from_utf8(bytes)
        .map_err(|_| Failure::Message(format!("{name}: not UTF-8 text")))?;
    // Like MLIR, unlocated ops get their position in the input file (`<stdin>` for stdin),
    // unless every location is stripped first anyway (serialize_portable_module strips before
    // anything else, so the result and any diagnostic are the same).
    let module = parse_input(cli, &src, &name, !cli.strip_debuginfo)?;
    drop(src);
    let opts = SerializeOptions {
        strip_debuginfo: cli.strip_debuginfo,
        allow_other_dialects: cli.allow_other_dialects,
        strict: cli.strict,
        // The parse verified it (unless told not to), and nothing changed it since.
        skip_verification: true,
    };
    let out = portable::serialize_portable_encoded(module, t, opts)?;
    write_artifact(cli.output.as_deref(), &out)
}

/// What the CLI's second thread does, in turn ([`deserialize`]).
enum Task<'a> {
    /// Populate the page tables of heap memory the first thread is about to fill ([`heap`]).
    Populate(heap::Reserved),
    /// Verify the program read ([`portable::verify_deserialized`]), while the first thread
    /// names its values for printing.
    Verify(&'a vhlo_core::ir::Module),
    /// Help print it ([`text::PrintJob::help`]); sent just before the printing starts.
    Help,
}

fn deserialize(cli: &Cli) -> Result<(), Failure> {
    // Print as stablehlo-translate does (default-valued attributes elided).
    let opts = PrintOptions {
        generic: cli.mlir_print_op_generic,
        debug_info: cli.mlir_print_debuginfo,
        elide_defaults: true,
        // MLIR's default: shared locations print once, as `#loc` aliases.
        location_aliases: true,
        ..Default::default()
    };
    // Never dropped: the process ends soon after, and the system takes the memory back faster
    // than freeing it block by block (100k ops: ~200k frees).
    let module_cell = std::mem::ManuallyDrop::new(std::sync::OnceLock::new());
    let job_cell = std::sync::OnceLock::<text::PrintJob<'_>>::new();
    let result = std::thread::scope(|s| {
        // The CLI's second thread: it populates the heap the read fills, verifies the program
        // while this thread, which has just read the module and has it in its caches, names its
        // values (the other way round, a run of the 100k-op transformer took 5-11% longer;
        // docs/benchmarks.md), then takes chunks of the printing. It ends when `tasks` is
        // dropped, however this returns.
        let (tasks, inbox) = std::sync::mpsc::channel::<Task<'_>>();
        let (verified, verified_inbox) =
            std::sync::mpsc::channel::<Result<(), portable::PortableError>>();
        let job_cell = &job_cell;
        let worker = std::thread::Builder::new().spawn_scoped(s, move || {
            // Sleeps until its first task: Linux starts a thread on its creator's core, and one
            // that spins there from its start delayed the read by up to 4 ms, until the kernel
            // moved one of them. Then it waits on its core rather than sleeping: a thread woken
            // from sleep is often queued behind the thread that woke it, on the same core, for
            // a time slice (docs/benchmarks.md).
            let mut started = false;
            let mut next = || loop {
                if !started {
                    started = true;
                    return inbox.recv().ok();
                }
                match inbox.try_recv() {
                    Ok(task) => return Some(task),
                    Err(std::sync::mpsc::TryRecvError::Empty) => std::thread::yield_now(),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => return None,
                }
            };
            while let Some(task) = next() {
                match task {
                    Task::Populate(r) => r.populate(),
                    Task::Verify(m) => {
                        let _ = verified.send(portable::verify_deserialized(m));
                    }
                    Task::Help => {
                        if let Some(job) = job_cell.get() {
                            job.help();
                        }
                    }
                }
            }
        });
        let tasks = worker.is_ok().then_some(tasks);
        deserialize_with(cli, opts, &module_cell, job_cell, tasks, verified_inbox)
    });
    result
}

/// [`deserialize`] on its first thread, with the second thread's `tasks` queue (None: there
/// is no second thread).
fn deserialize_with<'a>(
    cli: &Cli,
    opts: PrintOptions,
    module_cell: &'a std::sync::OnceLock<vhlo_core::ir::Module>,
    job_cell: &'a std::sync::OnceLock<text::PrintJob<'a>>,
    tasks: Option<std::sync::mpsc::Sender<Task<'a>>>,
    verified: std::sync::mpsc::Receiver<Result<(), portable::PortableError>>,
) -> Result<(), Failure> {
    let name = input_name(cli).to_string();
    let bytes = read_input(cli.input.as_deref())?;
    // After the input is read: the output may be the input file.
    let early = EarlyOutput::open(cli.output.as_deref());
    if cli.print_stablehlo_version {
        // As upstream: a comment on stdout (whatever -o says), then the program.
        let line = match portable::read_producer_version(&bytes) {
            Ok(v) => format!("// Reading portable artifact with StableHLO version: {v}\n"),
            Err(_) => "// Failed parsing StableHLO version from portable artifact\n".to_string(),
        };
        write_stdout(line.as_bytes())
            .map_err(|e| Failure::Message(format!("cannot write stdout: {e}")))?;
    }
    let bytecode = is_bytecode(&bytes);
    // The module read takes about 13 bytes of heap per byte of IR section (the 100k-op
    // transformer: 13 MB for 1 MB), and the legalization and the naming a little more.
    if let (Some(t), Ok(ir)) = (tasks.as_ref(), vhlo_core::bytecode::ir_section_len(&bytes)) {
        if let Some(r) = heap::reserve(ir.saturating_mul(20)) {
            let _ = t.send(Task::Populate(r));
        }
    }
    let module = if bytecode {
        // Large constants stay in the input buffer, which the module shares. The program is
        // verified below, beside the naming of its values.
        let options = DeserializeOptions {
            skip_verification: true,
            ..deserialize_options(cli)
        };
        portable::deserialize_portable_shared(&Blob::from_owner(Arc::new(bytes)), options)
            .map_err(Failure::reading(&name))?
    } else {
        // MLIR's deserializer parses text too: VHLO is upgraded and legalized, StableHLO kept.
        let src = String::from_utf8(bytes).map_err(|_| {
            Failure::Message(format!("{name}: neither MLIR bytecode nor UTF-8 text"))
        })?;
        let mut m = parse_input(cli, &src, &name, true)?;
        let mut has_vhlo = false;
        m.walk(|op| has_vhlo |= m.op_name_str(op).starts_with("vhlo."));
        if has_vhlo {
            let fail = |ds: convert::Diagnostics| {
                Failure::Diagnostics("cannot convert the program".into(), ds.into())
            };
            convert::vhlo_to_version(&mut m, vhlo::CURRENT_VERSION).map_err(fail)?;
            convert::legalize_to_stablehlo(&mut m).map_err(fail)?;
        }
        m
    };
    let module: &vhlo_core::ir::Module = module_cell.get_or_init(|| module);
    // The program read is verified on the second thread while its values are named here (text
    // was verified as it was parsed).
    let verify = bytecode && !cli.mlir_very_unsafe_disable_verifier_on_parsing;
    let on_worker = verify
        && tasks
            .as_ref()
            .is_some_and(|t| t.send(Task::Verify(module)).is_ok());
    let job = job_cell.get_or_init(|| text::PrintJob::new(module, opts));
    let checked = match (verify, on_worker) {
        (false, _) => Ok(()),
        (true, true) => verified
            .recv()
            .unwrap_or_else(|_| portable::verify_deserialized(module)),
        (true, false) => portable::verify_deserialized(module),
    };
    checked.map_err(Failure::reading(&name))?;
    if cli.strict && !cli.mlir_print_debuginfo {
        let located = located_ops(module);
        if !located.is_empty() {
            return Err(Failure::Diagnostics(
                "--strict: the printed text would leave out locations; add --mlir-print-debuginfo"
                    .into(),
                located,
            ));
        }
    }
    // MLIR's compact reduce drops its body's locations even with --mlir-print-debuginfo.
    if cli.strict && cli.mlir_print_debuginfo && !cli.mlir_print_op_generic {
        let hidden: Vec<Diagnostic> = text::compact_forms_dropping_locations(module)
            .into_iter()
            .map(|op| Diagnostic {
                op: module.op_name_str(op).to_string(),
                location: convert::location_to_string(module, module.op_location(op)),
                subject: if module.op_name_str(op) == "stablehlo.while" {
                    "the locations of its region arguments (`while(%iterArg = ...)` leaves them out)"
                } else {
                    "the locations of its body (the compact `applies` form leaves them out)"
                }
                .into(),
                needs: None,
                rule: "strict: the custom form drops them; --mlir-print-op-generic keeps them"
                    .into(),
            })
            .collect();
        if !hidden.is_empty() {
            return Err(Failure::Diagnostics(
                "--strict: the printed text would leave out locations inside compact forms; add --mlir-print-op-generic"
                    .into(),
                hidden,
            ));
        }
    }
    // The second thread helps from the moment the printing starts.
    let lend = || {
        if let Some(t) = &tasks {
            let _ = t.send(Task::Help);
        }
    };
    match early {
        Some(out) => out.print(job, lend),
        None => print_to_stdout(job, lend),
    }
}

fn retarget(cli: &Cli) -> Result<(), Failure> {
    let t = target(cli)?;
    let version = convert::parse_target(&t).map_err(|e| Failure::Message(e.to_string()))?;
    let name = input_name(cli).to_string();
    let bytes = read_input(cli.input.as_deref())?;
    // Large constants stay in the input buffer, which the module shares.
    let (mut m, _) =
        portable::read_vhlo_shared(&Blob::from_owner(Arc::new(bytes)), deserialize_options(cli))
            .map_err(Failure::reading(&name))?;
    // Never write what a reader would refuse: the program's ops are checked as StableHLO.
    if !cli.mlir_very_unsafe_disable_verifier_on_parsing {
        portable::verify_read_program(&m)?;
    }
    convert::vhlo_to_version(&mut m, version.floor_patch())
        .map_err(|ds| Failure::Diagnostics(format!("cannot retarget to {t}"), ds.into()))?;
    if cli.strict {
        let losses = convert::location_losses(&m, version.floor_patch());
        if !losses.is_empty() {
            return Err(Failure::Diagnostics(
                format!("cannot retarget to {t} without loss"),
                losses,
            ));
        }
    }
    // The producer names the target as given (`1.4.1` stays `1.4.1`), the presets by number.
    let producer = if matches!(t.as_str(), "current" | "minimum") {
        version.to_string()
    } else {
        t.clone()
    };
    let out = portable::write_vhlo_encoded(&mut m, version, &producer)?;
    write_artifact(cli.output.as_deref(), &out)
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
                subject: if arg_located {
                    "the location of the op or of its region arguments".into()
                } else {
                    "the op's location".into()
                },
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

/// `inspect --json`: one object on stdout.
#[derive(Serialize)]
struct InspectReport {
    file: String,
    producer: String,
    target_version: Option<String>,
    bytecode_version: u64,
    dialects: Vec<String>,
    ops: usize,
    histogram: Vec<OpCount>,
    /// `null` when no release can hold the program.
    minimum_version: Option<String>,
    /// The first tagged release that reads the artifact (it and later releases do), and its tag time.
    first_consumer_release: Option<String>,
    first_consumer_tagged: Option<String>,
    /// Five years after that release (the v1.0 RFC's backward guarantee), `YYYY-MM-DD`.
    guaranteed_readable_until: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    readable_by: Option<Readability>,
}

#[derive(Serialize)]
struct OpCount {
    op: String,
    count: usize,
}

#[derive(Serialize)]
struct Readability {
    version: String,
    readable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    retarget_possible: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blockers: Vec<Diagnostic>,
}

/// `--json` errors: one object on stderr.
#[derive(Serialize)]
struct ErrorReport<'a> {
    error: &'a str,
    diagnostics: &'a [Diagnostic],
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs cannot fail (string keys, no maps with other keys).
    serde_json::to_string(value)
        .unwrap_or_else(|e| format!("{{\"error\":\"cannot serialize JSON: {e}\"}}"))
}

fn inspect(file: &str, readable_by: Option<&str>, json: bool) -> Result<(), Failure> {
    let bytes = read_input(Some(file))?;
    let (bytecode_version, producer) = vhlo_core::bytecode::read_producer(&bytes)
        .map_err(|e| Failure::Message(format!("{file}: {e}")))?;
    let (m, version) = portable::read_vhlo(&bytes).map_err(Failure::reading(file))?;
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
    let first_consumer = vhlo_core::compatibility::first_tag_reaching(version.floor_patch());
    let guaranteed_until =
        vhlo_core::compatibility::backward_guarantee_until(version.floor_patch());
    let readable = match readable_by {
        None => None,
        Some(r) => {
            let v = convert::parse_target(r)
                .map_err(|e| Failure::Message(format!("--readable-by {r}: {e}")))?;
            // An artifact is read by its target version and later; older readers need a retarget.
            let verdict = if v.floor_patch() >= version.floor_patch() {
                None
            } else {
                Some(convert::vhlo_to_version(&mut m.clone(), v.floor_patch()))
            };
            Some((v, verdict))
        }
    };
    let out = if json {
        let report = InspectReport {
            file: file.to_string(),
            producer: producer.clone(),
            // None when the producer names no StableHLO version (libStablehlo reads those too).
            target_version: portable::producer_version(&producer).map(|_| version.to_string()),
            bytecode_version,
            dialects: dialects.keys().cloned().collect(),
            ops,
            histogram: histogram
                .iter()
                .map(|(op, &count)| OpCount {
                    op: op.clone(),
                    count,
                })
                .collect(),
            minimum_version: minimum.as_ref().ok().map(|v| v.to_string()),
            first_consumer_release: first_consumer.map(|t| t.version.to_string()),
            first_consumer_tagged: first_consumer.map(|t| t.tagged.to_string()),
            guaranteed_readable_until: guaranteed_until.map(|d| d.to_string()),
            readable_by: readable.map(|(v, verdict)| match verdict {
                None => Readability {
                    version: v.to_string(),
                    readable: true,
                    retarget_possible: None,
                    blockers: Vec::new(),
                },
                Some(Ok(())) => Readability {
                    version: v.to_string(),
                    readable: false,
                    retarget_possible: Some(true),
                    blockers: Vec::new(),
                },
                Some(Err(ds)) => Readability {
                    version: v.to_string(),
                    readable: false,
                    retarget_possible: Some(false),
                    blockers: ds.into(),
                },
            }),
        };
        to_json(&report) + "\n"
    } else {
        let mut out = String::new();
        out.push_str(&format!("producer:          {producer}\n"));
        match portable::producer_version(&producer) {
            Some(_) => out.push_str(&format!("target version:    {version}\n")),
            // libStablehlo reads these too: it upgrades every op from its own version.
            None => out.push_str(
                "target version:    none named by the producer (read as libStablehlo reads it)\n",
            ),
        }
        out.push_str(&format!("bytecode version:  {bytecode_version}\n"));
        out.push_str(&format!(
            "dialects:          {}\n",
            dialects.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
        out.push_str(&format!("ops:               {ops}\n"));
        for (name, n) in &histogram {
            let range = VhloOp::from_name(name)
                .map(|k| format!("  ({})", k.range()))
                .unwrap_or_default();
            out.push_str(&format!("  {n:>6}  {name}{range}\n"));
        }
        match &minimum {
            Ok(v) => out.push_str(&format!(
                "minimum version:   {v} (the oldest StableHLO this program can be written for)\n"
            )),
            Err(ds) => out.push_str(&format!(
                "minimum version:   none ({} blocker(s) even at {})\n",
                ds.len(),
                vhlo::CURRENT_VERSION
            )),
        }
        match (first_consumer, guaranteed_until) {
            (Some(t), Some(until)) => out.push_str(&format!(
                "readers:           StableHLO {} (tagged {}) and later; guaranteed until {until} (5-year backward guarantee)\n",
                t.version,
                t.date()
            )),
            _ => out.push_str(&format!(
                "readers:           StableHLO {version} and later (no tagged release yet)\n"
            )),
        }
        match readable {
            None => {}
            Some((v, None)) => {
                out.push_str(&format!("readable by {v}?   yes: written for {version}, and StableHLO reads artifacts of its own version and older\n"))
            }
            Some((v, Some(Ok(())))) => out.push_str(&format!(
                "readable by {v}?   no: written for {version}; `vhlo-translate --retarget FILE --target={v}` makes an artifact it reads\n"
            )),
            Some((v, Some(Err(ds)))) => {
                out.push_str(&format!("readable by {v}?   no, and it cannot be retargeted there:\n"));
                for d in &ds {
                    out.push_str(&format!("  {d}\n"));
                }
            }
        }
        out
    };
    write_output(None, out.as_bytes())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(normalize_args(std::env::args_os())) {
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
                eprintln!(
                    "{}",
                    to_json(&ErrorReport {
                        error: &msg,
                        diagnostics: &diags
                    })
                );
            } else {
                eprintln!("vhlo-translate: error: {msg}");
                eprint!("{}", convert::diagnostics_to_text(&diags));
            }
            ExitCode::from(1)
        }
    }
}

/// A page fault costs about 2 us on this project's VMs: the first touches of the heap were a
/// third of the bytecode reader's time and a tenth of a serialization (docs/benchmarks.md). So
/// the heap a step is about to fill is reserved at the top of glibc's main arena beforehand,
/// marked for huge pages where the kernel has them (the exit then frees 2 MiB at a time), and a
/// thread that is otherwise idle populates its page tables (`MADV_POPULATE_WRITE`, which leaves
/// the contents alone) while the step fills it. The VMs hand memory that has been free for a
/// few seconds back to their host, and touching it again costs more, most right after another
/// process freed much: there, a step that faulted its own huge pages was slower than one with
/// a helper populating them beside it (docs/benchmarks.md). With another libc nothing changes;
/// a kernel before 5.14, which lacks `MADV_POPULATE_WRITE`, fails the call, which is ignored.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod heap {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const M_TRIM_THRESHOLD: i32 = -1;
    const M_MMAP_THRESHOLD: i32 = -3;
    const M_ARENA_MAX: i32 = -8;
    const MADV_HUGEPAGE: i32 = 14;
    const MADV_POPULATE_WRITE: i32 = 23;
    /// glibc's largest mmap threshold on 64-bit targets: below it, blocks come from the heap.
    const MAX: usize = 32 << 20;

    pub struct Reserved {
        addr: usize,
        len: usize,
    }

    /// Makes the heap's free top at least `bytes` long (at most 32 MiB), with no trim: the
    /// next allocations are carved from it.
    pub fn reserve(bytes: usize) -> Option<Reserved> {
        let len = bytes.min(MAX - (1 << 20));
        // SAFETY: mallopt only sets allocator parameters.
        let ok = unsafe {
            mallopt(M_MMAP_THRESHOLD, MAX as i32) == 1 && mallopt(M_TRIM_THRESHOLD, i32::MAX) == 1
        };
        if !ok {
            return None;
        }
        let block: Vec<u8> = Vec::with_capacity(len);
        let addr = block.as_ptr() as usize;
        drop(block);
        let reserved = Reserved { addr, len };
        // Marked at once, so that the pages the step touches before the helper gets to them
        // are huge too.
        if let Some((start, len)) = reserved.pages() {
            // SAFETY: the advice changes how the range's pages are backed, never their
            // contents; a range the allocator has given back makes the call fail, which is
            // ignored.
            unsafe {
                madvise(start as *mut std::ffi::c_void, len, MADV_HUGEPAGE);
            }
        }
        Some(reserved)
    }

    /// [`reserve`], with every thread of the process allocating from the main arena.
    pub fn reserve_for_all_threads(bytes: usize) -> Option<Reserved> {
        // SAFETY: mallopt only sets allocator parameters.
        if unsafe { mallopt(M_ARENA_MAX, 1) } != 1 {
            return None;
        }
        reserve(bytes)
    }

    impl Reserved {
        /// [`Reserved::populate`], from byte `first` to the end, then the bytes before.
        pub fn populate_from(self, first: usize) {
            let first = first.min(self.len);
            let (addr, len) = (self.addr, self.len);
            Reserved {
                addr: addr + first,
                len: len - first,
            }
            .populate();
            Reserved { addr, len: first }.populate();
        }

        pub fn populate(self) {
            if let Some((start, len)) = self.pages() {
                // SAFETY: populating page tables changes no memory contents; an address range
                // the allocator has given back makes the call fail, which is ignored.
                unsafe {
                    madvise(start as *mut std::ffi::c_void, len, MADV_POPULATE_WRITE);
                }
            }
        }

        /// The whole pages of the range: their start and length.
        fn pages(&self) -> Option<(usize, usize)> {
            let start = self.addr.div_ceil(4096) * 4096;
            let end = (self.addr + self.len) / 4096 * 4096;
            (end > start).then(|| (start, end - start))
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod heap {
    pub struct Reserved;
    pub fn reserve(_: usize) -> Option<Reserved> {
        None
    }
    pub fn reserve_for_all_threads(_: usize) -> Option<Reserved> {
        None
    }
    impl Reserved {
        pub fn populate(self) {}
        pub fn populate_from(self, _: usize) {}
    }
}

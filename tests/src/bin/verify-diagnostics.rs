//! `verify-diagnostics FILE... [--all] [--messages]`: runs upstream `-verify-diagnostics` files
//! through our parser and verifier and prints, per file, the counts and each case that
//! disagrees (with `--all`, every case; with `--messages`, our message beside upstream's).

use vhlo_tests::verify_diagnostics::{run_file, tally};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let messages = args.iter().any(|a| a == "--messages");
    let mut failed = false;
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let src = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let results = match run_file(&src) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        for r in &results {
            use filecheck::diagnostics::Verdict::*;
            let bad = !matches!(r.verdict, AcceptedAsExpected | RefusedAsExpected)
                && r.left_out.is_none();
            if bad || all || messages && !r.reported.is_empty() {
                let expected: Vec<String> = r
                    .case
                    .errors()
                    .map(|e| format!("{}: {}", e.line, e.message))
                    .collect();
                println!(
                    "{path}:{}: {:?}\n  expected: {}\n  ours: {}",
                    r.case.first_line,
                    r.verdict,
                    expected.join(" | "),
                    r.reported
                        .iter()
                        .map(|x| format!("{}: {}", x.line.unwrap_or(0), x.message))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
            }
            failed |= bad;
        }
        let t = tally(&results);
        println!(
            "{path}: {} cases: {} refused as expected, {} accepted as expected, {} left out; {} wrongly accepted, {} wrongly refused, {} refused at another line",
            t.cases, t.refused_as_expected, t.accepted_as_expected, t.left_out, t.wrongly_accepted, t.wrongly_refused, t.refused_elsewhere
        );
    }
    std::process::exit(i32::from(failed));
}

//! `filecheck CHECK_FILE [FLAGS...] < INPUT`: the library as a command, like LLVM's FileCheck.
//! Exit status 0 when the input passes, 1 when a check fails, 2 on usage or I/O errors.

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| a.starts_with('-'));
    let [check_path] = positional.as_slice() else {
        eprintln!("usage: filecheck CHECK_FILE [--check-prefix=P] [--check-prefixes=A,B] [--strict-whitespace] [--allow-empty] < INPUT");
        return ExitCode::from(2);
    };
    let options = match filecheck::Options::from_args(flags) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("filecheck: {message}");
            return ExitCode::from(2);
        }
    };
    let check_text = match std::fs::read_to_string(check_path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("filecheck: cannot read {check_path}: {error}");
            return ExitCode::from(2);
        }
    };
    let mut input = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("filecheck: cannot read standard input: {error}");
        return ExitCode::from(2);
    }
    match filecheck::check_with(&check_text, &input, &options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprint!("{check_path}: {failure}");
            ExitCode::from(1)
        }
    }
}

//! Reading lit `RUN:` lines, so tests can find which FileCheck flags a test file runs with.

use crate::Options;

/// One `RUN:` command of a lit test file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line of the first `RUN:` of the command.
    pub line: usize,
    /// The command, with `\` continuation lines joined by a space.
    pub command: String,
}

/// The `RUN:` commands of `text`, in order. A line ending in `\` continues on the next `RUN:` line.
pub fn run_lines(text: &str) -> Vec<RunLine> {
    let mut commands = Vec::new();
    let mut pending: Option<RunLine> = None;
    for (index, line) in text.lines().enumerate() {
        let Some(position) = line.find("RUN:") else {
            continue;
        };
        let preceded_by_word = line[..position]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if preceded_by_word {
            continue;
        }
        let part = line[position + 4..].trim();
        let (part, continues) = match part.strip_suffix('\\') {
            Some(head) => (head.trim_end(), true),
            None => (part, false),
        };
        let mut run = pending.take().unwrap_or(RunLine {
            line: index + 1,
            command: String::new(),
        });
        if !run.command.is_empty() && !part.is_empty() {
            run.command.push(' ');
        }
        run.command.push_str(part);
        if continues {
            pending = Some(run);
        } else {
            commands.push(run);
        }
    }
    commands.extend(pending);
    commands
}

/// The options of the `FileCheck` stage of a RUN command, or `None` when the command has no such stage.
/// Positional arguments (`%s`) and lit's `%if ... %{ ... %}` markers are skipped.
pub fn filecheck_options(command: &str) -> Option<Result<Options, String>> {
    let stage = command
        .split('|')
        .find(|stage| stage.split_whitespace().next() == Some("FileCheck"))?;
    let flags = stage
        .split_whitespace()
        .skip(1)
        .filter(|word| word.starts_with('-'));
    Some(Options::from_args(flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_continuations_and_reads_flags() {
        let text = "// RUN: tool %s \\\n// RUN:   | FileCheck %s --check-prefix=CHECK-A\n\
                    // RUN: %if asserts %{ tool %s | FileCheck --check-prefixes=X,Y %s %}\n\
                    // XRUN: ignored\n// RUN: tool %s > %t\n";
        let runs = run_lines(text);
        assert_eq!(runs.len(), 3);
        assert_eq!(
            runs[0],
            RunLine {
                line: 1,
                command: "tool %s | FileCheck %s --check-prefix=CHECK-A".into()
            }
        );
        let first = filecheck_options(&runs[0].command).unwrap().unwrap();
        assert_eq!(first.check_prefixes, vec!["CHECK-A"]);
        let second = filecheck_options(&runs[1].command).unwrap().unwrap();
        assert_eq!(second.check_prefixes, vec!["X", "Y"]);
        assert!(filecheck_options(&runs[2].command).is_none());
        assert!(filecheck_options("a | FileCheck --nope %s")
            .unwrap()
            .is_err());
    }
}

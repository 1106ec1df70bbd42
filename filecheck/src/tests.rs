use crate::{check, check_with, CheckFailure, FailureKind, Options};

fn fails(check_text: &str, input: &str) -> CheckFailure {
    match check(check_text, input) {
        Ok(()) => panic!("expected a failure for\n{check_text}\nagainst\n{input}"),
        Err(failure) => failure,
    }
}

#[test]
fn plain_check_in_order() {
    let checks = "// CHECK: foo\n// CHECK: bar\n";
    check(checks, "foo\nxx\nbar\n").unwrap();
    check(checks, "foo bar").unwrap();
    let failure = fails(checks, "bar\nfoo\n");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(failure.check_line, Some(2));
    assert_eq!(failure.check_text, "// CHECK: bar");
    assert!(
        failure
            .message
            .starts_with("CHECK: expected string not found"),
        "{failure}"
    );
}

#[test]
fn next_must_be_on_the_following_line() {
    let checks = "CHECK: a\nCHECK-NEXT: b\n";
    check(checks, "a\nb\n").unwrap();
    let far = fails(checks, "a\n\nb\n");
    assert_eq!(far.kind, FailureKind::WrongLine);
    assert_eq!(far.check_line, Some(2));
    assert!(far.message.contains("not on the line after"), "{far}");
    let same = fails(checks, "a b\n");
    assert!(
        same.message.contains("same line as the previous match"),
        "{same}"
    );
}

#[test]
fn same_must_be_on_the_same_line() {
    let checks = "CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c\n";
    check(checks, "a b c\n").unwrap();
    let failure = fails(checks, "a b\nc\n");
    assert_eq!(failure.kind, FailureKind::WrongLine);
    assert_eq!(failure.check_line, Some(3));
    // Order matters on the line too.
    assert_eq!(fails(checks, "a c b\n").kind, FailureKind::NotFound);
}

#[test]
fn not_excludes_between_matches_and_at_the_end() {
    let checks = "CHECK: first\nCHECK-NOT: bad\nCHECK: second\nCHECK-NOT: worse\n";
    check(checks, "first\nfine\nsecond\nok\n").unwrap();
    // "bad" after the second match and "worse" before it are outside their ranges.
    check(checks, "worse\nfirst\nsecond\nbad\n").unwrap();
    let between = fails(checks, "first\nbad\nsecond\n");
    assert_eq!(between.kind, FailureKind::ExcludedFound);
    assert_eq!(between.check_line, Some(2));
    assert_eq!(between.notes[0].line, 2);
    let trailing = fails(checks, "first\nsecond\nworse\n");
    assert_eq!(trailing.check_line, Some(4));
}

#[test]
fn only_not_directives_check_the_whole_input() {
    check("CHECK-NOT: error\n", "all good\n").unwrap();
    assert_eq!(
        fails("CHECK-NOT: error\n", "an error\n").kind,
        FailureKind::ExcludedFound
    );
}

#[test]
fn dag_matches_in_any_order_without_overlap() {
    let checks = "CHECK: start\nCHECK-DAG: x = 1\nCHECK-DAG: y = 2\nCHECK: end\n";
    check(checks, "start\ny = 2\nx = 1\nend\n").unwrap();
    check(checks, "start\nx = 1\ny = 2\nend\n").unwrap();
    assert_eq!(
        fails(checks, "start\nx = 1\nend\ny = 2\n").kind,
        FailureKind::NotFound
    );
    // Two identical DAGs need two distinct occurrences.
    let twice = "CHECK-DAG: foo\nCHECK-DAG: foo\n";
    check(twice, "foo foo").unwrap();
    let failure = fails(twice, "foo");
    assert_eq!(failure.check_line, Some(2));
}

#[test]
fn not_between_dag_groups() {
    let checks = "CHECK-DAG: first\nCHECK-NOT: bad\nCHECK-DAG: second\n";
    check(checks, "first\nsecond\n").unwrap();
    assert_eq!(
        fails(checks, "first\nbad\nsecond\n").kind,
        FailureKind::ExcludedFound
    );
    // A -NOT before the first group is checked up to that group's first match.
    let leading = "CHECK: begin\nCHECK-NOT: bad\nCHECK-DAG: first\n";
    check(leading, "begin\nfirst\nbad\n").unwrap();
    assert_eq!(
        fails(leading, "begin\nbad\nfirst\n").kind,
        FailureKind::ExcludedFound
    );
}

#[test]
fn label_splits_the_input_into_regions() {
    let checks = "CHECK-LABEL: func one\nCHECK: ret\nCHECK-LABEL: func two\nCHECK: ret\n";
    check(checks, "func one\nret\nfunc two\nret\n").unwrap();
    // The first function has no "ret": a plain CHECK would find the second one, a label region does not.
    let failure = fails(checks, "func one\nnop\nfunc two\nret\n");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(failure.check_line, Some(2));
    let missing_label = fails(checks, "func one\nret\n");
    assert_eq!(missing_label.check_line, Some(3));
}

#[test]
fn label_cannot_use_variables() {
    let failure = fails("CHECK-LABEL: [[X:f]]\n", "f");
    assert_eq!(failure.kind, FailureKind::InvalidCheckFile);
}

#[test]
fn empty_and_count() {
    let checks = "CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n";
    check(checks, "a\n\nb\n").unwrap();
    assert_eq!(fails(checks, "a\nx\n\nb\n").kind, FailureKind::WrongLine);
    let count = "CHECK-COUNT-3: op\nCHECK: done\n";
    check(count, "op op\nop\ndone\n").unwrap();
    assert_eq!(fails(count, "op\nop\ndone\n").kind, FailureKind::NotFound);
}

#[test]
fn regex_blocks() {
    check("CHECK: value = {{[0-9]+}} units\n", "value = 42 units\n").unwrap();
    assert_eq!(
        fails("CHECK: value = {{[0-9]+}} units\n", "value = x units\n").kind,
        FailureKind::NotFound
    );
    // Alternation stays inside its braces.
    check("CHECK: a{{b|c}}d\n", "acd").unwrap();
    assert_eq!(fails("CHECK: a{{b|c}}d\n", "c").kind, FailureKind::NotFound);
    // Literal text around regexes is escaped.
    check("CHECK: f(x) {{.*}} [1]\n", "f(x) -> [1]").unwrap();
    assert_eq!(fails("CHECK: f(x)\n", "fx").kind, FailureKind::NotFound);
    // A negated class does not cross lines (POSIX REG_NEWLINE).
    assert_eq!(
        fails("CHECK: a{{[^z]*}}b\n", "a\nb").kind,
        FailureKind::NotFound
    );
    // `.` does not match newline either.
    assert_eq!(
        fails("CHECK: a{{.*}}b\n", "a\nb").kind,
        FailureKind::NotFound
    );
}

#[test]
fn variables_defined_and_used() {
    let checks = "CHECK: %[[V:[0-9]+]] = add\nCHECK: use %[[V]]\n";
    check(checks, "%7 = add\nuse %7\n").unwrap();
    let failure = fails(checks, "%7 = add\nuse %8\n");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(failure.check_line, Some(2));
    // Redefinition takes the latest value.
    let redefine = "CHECK: [[V:[a-z]+]]=\nCHECK: [[V:[a-z]+]]=\nCHECK: [[V]];\n";
    check(redefine, "a=\nb=\nb;\n").unwrap();
    assert!(check(redefine, "a=\nb=\na;\n").is_err());
    // `$` is part of the name: `$G` and `G` are different variables.
    check("CHECK: [[$G:x+]]\nCHECK: <[[$G]]>\n", "xx <xx>").unwrap();
    assert_eq!(
        fails("CHECK: [[$G:x+]]\nCHECK: <[[G]]>\n", "xx <xx>").kind,
        FailureKind::UndefinedVariable
    );
}

#[test]
fn same_line_definition_and_use() {
    let checks = "CHECK: [[X:[a-z]+]] == [[X]]\n";
    check(checks, "b == a; ab == ab").unwrap();
    assert_eq!(fails(checks, "ab == ac").kind, FailureKind::NotFound);
}

#[test]
fn undefined_variable_is_reported() {
    let failure = fails("CHECK: [[NOPE]]\n", "x");
    assert_eq!(failure.kind, FailureKind::UndefinedVariable);
    assert!(failure.message.contains("NOPE"));
}

#[test]
fn line_expressions() {
    check(
        "x\nCHECK: line [[@LINE]] next [[@LINE+1]] prev [[@LINE-1]]\n",
        "line 2 next 3 prev 1",
    )
    .unwrap();
    assert!(check("CHECK: line [[@LINE]]\n", "line 2").is_err());
}

#[test]
fn numeric_blocks_are_rejected_not_ignored() {
    let failure = fails("CHECK: [[#N]]\n", "1");
    assert_eq!(failure.kind, FailureKind::InvalidCheckFile);
    assert!(failure.message.contains("numeric"));
}

#[test]
fn whitespace_is_canonicalized() {
    check("CHECK: a   b\tc\n", "a b  \t c\n").unwrap();
    check("CHECK:    a b    \n", "a\t\tb\n").unwrap();
    let strict = Options {
        strict_whitespace: true,
        ..Options::default()
    };
    assert!(check_with("CHECK: a b\n", "a  b\n", &strict).is_err());
    check_with("CHECK: a  b\n", "a  b\n", &strict).unwrap();
    // CRLF input behaves like LF.
    check("CHECK: a\nCHECK-NEXT: b\n", "a\r\nb\r\n").unwrap();
}

#[test]
fn custom_prefixes() {
    let text = "// CHECK: main\n// CHECK-WARN-NOT: Not Implemented\n// CHECK-WARN: warning\n";
    let warn = Options::from_args(["--check-prefix=CHECK-WARN"]).unwrap();
    check_with(text, "warning: x\n", &warn).unwrap();
    let failure = check_with(text, "Not Implemented\nwarning\n", &warn).unwrap_err();
    assert_eq!(failure.kind, FailureKind::ExcludedFound);
    assert_eq!(failure.check_line, Some(2));
    // The default prefix does not see CHECK-WARN directives.
    check(text, "main\n").unwrap();
    let both = Options::from_args(["--check-prefixes", "CHECK,CHECK-WARN"]).unwrap();
    check_with(text, "main\nwarning\n", &both).unwrap();
    assert!(check_with(text, "warning\n", &both).is_err());
}

#[test]
fn prefix_must_start_a_word_and_comments_are_skipped() {
    // XCHECK is not CHECK; the RUN line mentions CHECK: but is a comment.
    let text =
        "// RUN: tool | FileCheck --check-prefix=CHECK: %s\n// XCHECK: nothing\n// CHECK: real\n";
    check(text, "real\n").unwrap();
    check("COM: CHECK: gone\nCHECK: here\n", "here\n").unwrap();
}

#[test]
fn check_file_errors() {
    assert_eq!(
        fails("no directives\n", "x").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(fails("CHECK:\n", "x").kind, FailureKind::InvalidCheckFile);
    assert_eq!(
        fails("CHECK-NEXT: a\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(
        fails("CHECK: {{abc\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(
        fails("CHECK: [[X:a\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(
        fails("CHECK: {{(}}\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(
        fails("CHECK: [[9X]]\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert_eq!(
        fails("CHECK-COUNT-0: a\n", "a").kind,
        FailureKind::InvalidCheckFile
    );
    assert!(Options::from_args(["--bogus"]).is_err());
    let bad_prefix = Options::with_prefix("1BAD");
    assert!(check_with("1BAD: x\n", "x", &bad_prefix).is_err());
}

#[test]
fn literal_modifier() {
    check("CHECK{LITERAL}: [[x]] {{y}}\n", "[[x]] {{y}}").unwrap();
    assert!(check("CHECK{LITERAL}: {{.*}}\n", "abc").is_err());
}

#[test]
fn empty_input() {
    assert_eq!(fails("CHECK-NOT: x\n", "").kind, FailureKind::EmptyInput);
    let allow = Options::from_args(["--allow-empty"]).unwrap();
    check_with("CHECK-NOT: x\n", "", &allow).unwrap();
}

#[test]
fn failure_message_shows_check_line_and_input() {
    let failure = fails("CHECK: one\nCHECK-NEXT: two\n", "zero\none\nthree\ntwo\n");
    let shown = failure.to_string();
    assert!(
        shown.contains("check:2: error: CHECK-NEXT: is not on the line after the previous match"),
        "{shown}"
    );
    assert!(shown.contains("CHECK-NEXT: two"), "{shown}");
    assert!(shown.contains("input:4:1: note: match was here"), "{shown}");
    assert!(shown.contains("     4 | two"), "{shown}");
}

#[test]
fn var_scope_forgets_local_variables_at_labels() {
    let checks = "CHECK-LABEL: one\nCHECK: [[L:[a-z]+]] [[$G:[0-9]+]]\nCHECK-LABEL: two\nCHECK: [[$G]]\nCHECK: [[L]]\n";
    let input = "one\nab 12\ntwo\n12 ab\n";
    check(checks, input).unwrap();
    let scoped = Options::from_args(["--enable-var-scope"]).unwrap();
    let failure = check_with(checks, input, &scoped).unwrap_err();
    assert_eq!(failure.kind, FailureKind::UndefinedVariable);
    assert_eq!(failure.check_line, Some(5));
}

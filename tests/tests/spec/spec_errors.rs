//! Every class of spec error gives a compile error naming `<spec>/<file>.yaml:line:col`.
//! Each case under tests/ui/ is the fixture spec with one mistake (tests/ui/specs/<case>/).

#[test]
fn spec_errors_are_compile_errors_with_positions() {
    // trybuild compiles the cases under target/; point the macro at the workspace for the specs.
    std::env::set_var("VHLO_SPEC_ROOT", vhlo_tests::workspace_root());
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}

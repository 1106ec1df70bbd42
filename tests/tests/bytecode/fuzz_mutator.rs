//! The fuzz mutator that grows programs (`fuzz/fuzz_targets/common/grow.rs`): applied
//! to the suite's artifacts, it makes wider and deeper programs, and every mutant is either
//! written and read back or refused with an error (the nesting limit, a shape too large),
//! never a panic, a stack overflow or an allocation the input did not pay for.

#[path = "../../../fuzz/fuzz_targets/common/grow.rs"]
mod grow;

use grow::Rng;
use vhlo_core::ir::OpId;
use vhlo_tests::portable;

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn grown_programs_are_written_and_read_back_or_refused() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let artifact = dir.join("stablehlo_legalize_to_vhlo.1_0_0.mlir.bc");
    let bytes = std::fs::read(&artifact).expect("suite artifact");
    let (base, version) = portable::read_vhlo(&bytes).expect("reads");
    let mut ops: Vec<OpId> = Vec::new();
    base.walk(|op| ops.push(op));
    let (mut grown, mut written, mut refused) = (0, 0, 0);
    let mut deeper = false;
    for seed in 0..400u64 {
        let mut m = base.clone();
        let mut rng = Rng(seed << 16 | 0x9e37);
        let op = ops[rng.below(ops.len())];
        if !grow::grow(&mut m, op, &mut rng) {
            continue;
        }
        grown += 1;
        deeper |= vhlo_core::ir::deepest_interned(&m).is_err();
        // unchecked: mutants (one shape widened, dimensions added, types nested past the
        // limit) break op constraints on purpose; the reader below may refuse them, never crash.
        match vhlo_core::portable::write_vhlo(&m, version, &version.to_string()) {
            Ok(out) => {
                written += 1;
                // What we write, we read back (or refuse with an error, never a crash).
                let _ = portable::deserialize_portable_artifact(&out);
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    eprintln!("grown {grown}, written {written}, refused {refused}");
    assert!(grown > 100, "the mutator grew only {grown} of 400");
    assert!(
        written > 0 && refused > 0,
        "written {written}, refused {refused}"
    );
    assert!(deeper, "no mutant crossed the nesting limit");
}

//! The C functions from several threads at once: results are right on every thread and each
//! thread's error record is its own (the header's thread-safety promise).

use std::ffi::c_void;

use vhlo::ffi::*;

unsafe extern "C" fn collect(s: VhloStringRef, user_data: *mut c_void) {
    // SAFETY: the tests pass a `Vec<u8>` as user data; `s` is valid during the call.
    unsafe {
        let out = &mut *user_data.cast::<Vec<u8>>();
        *out = std::slice::from_raw_parts(s.data.cast::<u8>(), s.length).to_vec();
    }
}

fn sref(s: &[u8]) -> VhloStringRef {
    VhloStringRef {
        data: s.as_ptr().cast(),
        length: s.len(),
    }
}

const TAN: &str = "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n";

#[test]
fn threads_keep_their_own_errors() {
    let handles: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || {
                for _ in 0..20 {
                    let mut out = Vec::new();
                    let target: &[u8] = if i % 2 == 0 { b"1.4.0" } else { b"1.0.0" };
                    // SAFETY: valid refs and a callback that takes a Vec<u8>.
                    let ok = unsafe {
                        vhloSerializePortableArtifactFromStringRef(
                            sref(TAN.as_bytes()),
                            sref(target),
                            Some(collect),
                            (&mut out as *mut Vec<u8>).cast(),
                        )
                    };
                    if i % 2 == 0 {
                        assert!(ok && out.starts_with(b"ML\xefR"), "thread {i}");
                        assert!(!vhloHasError() && vhloGetErrorKind() == VHLO_ERROR_NONE);
                    } else {
                        assert!(!ok && out.is_empty(), "thread {i}");
                        assert_eq!(vhloGetErrorKind(), VHLO_ERROR_CONVERT);
                        let mut needs = Vec::new();
                        // SAFETY: as above.
                        let got = unsafe {
                            vhloGetErrorDiagnostic(
                                0,
                                VHLO_DIAGNOSTIC_NEEDS,
                                Some(collect),
                                (&mut needs as *mut Vec<u8>).cast(),
                            )
                        };
                        assert!(got && needs == b"1.4.0");
                    }
                    std::thread::yield_now();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread");
    }
    // This thread made no call: no error here.
    assert!(!vhloHasError());
}

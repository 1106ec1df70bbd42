//! Every VHLO type and attribute as a typed struct, generated from the spec
//! (`src/generated/vhlo_typed.rs`, re-exported as `vhlo::types` and `vhlo::attrs`). They live
//! here, below the generated dialect, so that the value builders of the change rules
//! (`dialect::support`) build VHLO attributes through them rather than by mnemonic.

include!("../generated/vhlo_typed.rs");

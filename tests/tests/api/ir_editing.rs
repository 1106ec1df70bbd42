//! Editing a parsed program in place (`vhlo_core::ir::Editor`, `SymbolTable`, and
//! `Module::get_attr`/`set_attr`): each edit is checked on the printed program, and the result
//! must pass the verifier.

use vhlo_core::ir::{AttrData, EditError, Editor, OperationState, SymbolTable};
use vhlo_core::text::{self, PrintOptions};

const PROGRAM: &str = r#"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %a : tensor<4xf32>
  %1 = stablehlo.add %0, %0 : tensor<4xf32>
  %2 = call @helper(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.custom_call @lapack_sgeqrf(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func private @helper(%b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#;

fn ops_named(m: &vhlo_core::ir::Module, name: &str) -> Vec<vhlo_core::ir::OpId> {
    let mut out = Vec::new();
    m.walk(|op| {
        if m.op_name_str(op) == name {
            out.push(op);
        }
    });
    out
}

#[test]
fn use_lists_follow_replace_all_uses_and_erase() {
    let mut m = text::parse(PROGRAM).unwrap();
    let tanhs = ops_named(&m, "stablehlo.tanh");
    assert_eq!(tanhs.len(), 2);
    let mut e = Editor::new(&mut m);
    for &t in &tanhs {
        let x = e.module().operands(t)[0];
        let r = e.module().result(t, 0).unwrap();
        let ty = e.module().value_type(r);
        let loc = e.module().op_location(t);
        // tanh(x) = 2 * logistic(2x) - 1: here only the logistic, to keep the test short.
        let name = e.module_mut().sym("stablehlo.logistic");
        let mut st = OperationState::new(name, loc);
        st.operands.push(x);
        st.result_types.push(ty);
        let l = e.create_op(&st);
        e.insert_before(t, l).unwrap();
        let new = e.module().result(l, 0).unwrap();
        let users_before = e.users(r).len();
        assert!(users_before >= 1);
        // Erasing while the result is used is refused, and changes nothing.
        let refused = e.erase_op(t).unwrap_err();
        assert!(matches!(refused, EditError::StillUsed { .. }), "{refused}");
        e.replace_all_uses_with(r, new);
        assert!(e.uses(r).is_empty());
        assert_eq!(e.users(new).len(), users_before);
        e.erase_op(t).unwrap();
        assert!(e.uses(x).iter().all(|u| u.op != t));
    }
    vhlo_core::verify::verify(&m).unwrap();
    let printed = text::print(&m, PrintOptions::default());
    assert!(!printed.contains("tanh"), "{printed}");
    assert_eq!(
        printed.matches("stablehlo.logistic").count(),
        2,
        "{printed}"
    );
    // The add uses the logistic twice now.
    assert!(printed.contains("%1 = stablehlo.add %0, %0"), "{printed}");
}

#[test]
fn moves_and_inserts_are_checked() {
    let mut m = text::parse(PROGRAM).unwrap();
    let add = ops_named(&m, "stablehlo.add")[0];
    let call = ops_named(&m, "func.call")[0];
    let mut e = Editor::new(&mut m);
    assert!(matches!(
        e.move_before(add, add),
        Err(EditError::IntoItself { .. })
    ));
    assert!(matches!(
        e.insert_before(call, add),
        Err(EditError::Attached { .. })
    ));
    // Moving the add after the call breaks dominance: the verifier says so.
    e.move_after(add, call).unwrap();
    let err = vhlo_core::verify::verify(&m).unwrap_err().to_string();
    assert!(err.contains("dominate"), "{err}");
    let mut e = Editor::new(&mut m);
    e.move_before(add, call).unwrap();
    vhlo_core::verify::verify(&m).unwrap();
    let mut e = Editor::new(&mut m);
    assert!(matches!(
        e.replace_op(add, &[]),
        Err(EditError::ResultCount {
            results: 1,
            replacements: 0,
            ..
        })
    ));
}

#[test]
fn symbol_table_finds_functions_and_callers() {
    let m = text::parse(PROGRAM).unwrap();
    let table = SymbolTable::of(&m);
    let helper = table.lookup(&m, "helper").expect("@helper");
    assert_eq!(m.op_name_str(helper), "func.func");
    let callers = table.users(&m, "helper");
    assert_eq!(callers.len(), 1);
    assert_eq!(m.op_name_str(callers[0]), "func.call");
    assert!(table.lookup(&m, "nope").is_none());
    assert!(table.users(&m, "main").is_empty());
    let mut names: Vec<&str> = table.symbols(&m).map(|(n, _)| n).collect();
    names.sort_unstable();
    assert_eq!(names, ["helper", "main"]);
}

#[test]
fn attributes_read_and_set_in_one_way() {
    let mut m = text::parse(PROGRAM).unwrap();
    let main = SymbolTable::of(&m).lookup(&m, "main").unwrap();
    // `sym_name` is a property of func.func; get_attr finds it either way.
    assert!(m.attribute(main, "sym_name").is_none());
    assert!(m.get_attr(main, "sym_name").is_some());
    // A name the op does not declare becomes a discardable attribute; one it declares, a
    // property.
    let unit = m.attr(AttrData::Unit);
    m.set_attr(main, "foo.bar", unit);
    assert_eq!(m.attribute(main, "foo.bar"), Some(unit));
    // Renaming every lapack_* custom-call target, as an edit pass would.
    for cc in ops_named(&m, "stablehlo.custom_call") {
        let target = m.get_attr(cc, "call_target_name").unwrap();
        let AttrData::String { value, .. } = m.attr_data(target) else {
            panic!("call_target_name is a string");
        };
        let old = m.str(*value).to_string();
        if let Some(rest) = old.strip_prefix("lapack_") {
            let name = m.sym(&format!("renamed_{rest}"));
            let new = m.attr(AttrData::String {
                value: name,
                ty: None,
            });
            m.set_attr(cc, "call_target_name", new);
            assert!(m.attribute(cc, "call_target_name").is_none());
        }
    }
    let printed = text::print(&m, PrintOptions::default());
    assert!(printed.contains("@renamed_sgeqrf"), "{printed}");
    assert!(!printed.contains("lapack_"), "{printed}");
    assert!(m.remove_attr(main, "foo.bar").is_some());
    assert!(m.get_attr(main, "foo.bar").is_none());
}

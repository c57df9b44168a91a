//! The C++ face (`cpp/include/kernel_operator.h`) is written by hand, the instruction table
//! (`npusim_ascend::isa`) is the source of truth: every row's Ascend C name must be a function
//! of the face (`NAME(`, or a `NPUSIM_*(NAME)` macro line), so a row added to the table without
//! its C++ spelling fails here.

use npusim_ascend::isa::Instr;
use npusim_capi::runner::KERNEL_OPERATOR_H;

#[test]
fn every_table_row_has_a_cpp_function() {
    let h = KERNEL_OPERATOR_H;
    // TIK-only rows (viou, vaadd, v4dtrans) have no Ascend C face.
    let missing: Vec<&str> = Instr::ALL
        .iter()
        .filter(|i| i.has_ascendc())
        .map(|i| i.ascendc_name())
        .filter(|name| {
            let call = format!(" {name}(");
            let macro_line = format!("({name})");
            !h.contains(&call) && !h.contains(&macro_line)
        })
        .collect();
    assert!(missing.is_empty(), "not in kernel_operator.h: {missing:?}");
}

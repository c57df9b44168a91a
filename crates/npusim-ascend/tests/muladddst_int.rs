//! MulAddDst's integer destination types (open audit item): the CANN 9.0 page lists int16,
//! uint16, int32, uint32 destinations on Atlas 200I/500 A2 (310B) and int64/uint64 on 950, but
//! states no integer arithmetic (wrapping or saturating product and sum) and prints no integer
//! example; the row's element function is float-domain. Until a source fixes that behaviour
//! the types are refused with a typed error (IllegalType naming the instruction, the
//! parameter, the chip and the legal list), never run with a guessed overflow rule. Two layers
//! refuse them: the row's type list and the driver, which has no kernel for a type outside the
//! row's element domain (adding the types to the row alone still gives IllegalType). This test
//! pins the typed refusal on both faces and that the float forms still run.

use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::ChipId;

#[test]
fn integer_destinations_are_refused_with_a_typed_error() {
    for chip in [ChipId::Ascend310B, ChipId::Ascend950] {
        let mut asc = AscendC::new(chip, 0);
        let a = asc.AllocTensor::<i16>("a", 128).unwrap();
        let b = asc.AllocTensor::<i16>("b", 128).unwrap();
        let d = asc.AllocTensor::<i16>("d", 128).unwrap();
        let e = asc.MulAddDst(&d, &a, &b, 128).unwrap_err();
        assert!(
            matches!(e, AscendError::IllegalType { instr: "MulAddDst", chip: c, .. } if c == chip),
            "{chip:?}: {e}"
        );
        let a = asc.AllocTensor::<i64>("a64", 32).unwrap();
        let d = asc.AllocTensor::<i64>("d64", 32).unwrap();
        let e = asc.MulAddDst(&d, &a, &a, 32).unwrap_err();
        assert!(
            matches!(e, AscendError::IllegalType { .. }),
            "{chip:?}: {e}"
        );
        let mut t = Tik::new(chip);
        let x = t.tensor("int32", &[64], "x", Scope::Ubuf).unwrap();
        let e = t.vec_mla(64, &x, &x, &x, 1, 8, 8, 8).unwrap_err();
        assert!(
            matches!(e, AscendError::IllegalType { .. }),
            "{chip:?}: {e}"
        );
        // The float forms run.
        let h = asc.AllocTensor::<half::f16>("h", 128).unwrap();
        asc.MulAddDst(&h, &h, &h, 128).unwrap();
    }
}

//! Host code generation for the hot loops: [`avx2_dispatch!`] defines a kernel that runs a copy
//! of its body compiled with AVX2 when the host CPU has it (detected at run time), else the body
//! as compiled (SSE2 on x86-64). The bodies are plain Rust loops over slices, `#[inline(always)]`
//! down to the element functions, so the AVX2 copy is what runs; the results are the same on
//! both paths (IEEE f32 operations rounded to nearest, no fused multiply-add; the golden files
//! pass either way, and the tests run whichever path the test host takes).

/// `avx2_dispatch!(fn name[generics](args) => body)`: defines `fn name(args)` calling the
/// `#[inline(always)]` function `body(args)` through an AVX2-compiled copy when available.
macro_rules! avx2_dispatch {
    ($(#[$m:meta])* $vis:vis fn $name:ident[$($g:tt)*]($($a:ident: $t:ty),* $(,)?) => $body:ident) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name<$($g)*>($($a: $t),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                #[allow(clippy::too_many_arguments)]
                unsafe fn avx2<$($g)*>($($a: $t),*) {
                    $body($($a),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 was detected at run time just above.
                    unsafe { avx2($($a),*) };
                    return;
                }
            }
            $body($($a),*)
        }
    };
}

pub(crate) use avx2_dispatch;

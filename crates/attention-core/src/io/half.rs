//! Half-precision numbers as files store them (IEEE 754 binary16, and bfloat16), read exactly as
//! f32.

use std::sync::OnceLock;

/// An IEEE 754 half-precision number, exactly as f32.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f32::from(bits & 0x3ff);
    match exponent {
        0 => sign * fraction * 2f32.powi(-24),
        31 if fraction == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + fraction / 1024.0) * 2f32.powi(e - 15),
    }
}

/// An IEEE 754 bfloat16, exactly as f32.
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// Which 16-bit type a tensor holds (a model's matrices keep it: `models::stored`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    /// bfloat16: f32's top 16 bits.
    Bf16,
    /// IEEE 754 binary16.
    F16,
}

impl Half {
    /// The number `bits` stands for, exactly, as f32.
    #[inline]
    pub fn to_f32(self, bits: u16) -> f32 {
        match self {
            Self::Bf16 => bf16_to_f32(bits),
            Self::F16 => f16_table()[usize::from(bits)],
        }
    }

    /// Whether `bits` is an infinity or a NaN.
    pub fn is_finite(self, bits: u16) -> bool {
        match self {
            Self::Bf16 => bits & 0x7f80 != 0x7f80,
            Self::F16 => bits & 0x7c00 != 0x7c00,
        }
    }

    /// `bits` into `out`, each exactly as f32.
    pub fn widen(self, bits: &[u16], out: &mut [f32]) {
        match self {
            // A shift: the compiler vectorises it.
            Self::Bf16 => {
                for (o, &b) in out.iter_mut().zip(bits) {
                    *o = f32::from_bits(u32::from(b) << 16);
                }
            }
            Self::F16 => {
                let table = f16_table();
                for (o, &b) in out.iter_mut().zip(bits) {
                    *o = table[usize::from(b)];
                }
            }
        }
    }

    /// y += x · w, each of `w` widened as it is read (a row of weights streamed into a result).
    pub fn add_scaled(self, x: f32, w: &[u16], y: &mut [f32]) {
        match self {
            Self::Bf16 => {
                for (y, &b) in y.iter_mut().zip(w) {
                    *y += x * f32::from_bits(u32::from(b) << 16);
                }
            }
            Self::F16 => {
                let table = f16_table();
                for (y, &b) in y.iter_mut().zip(w) {
                    *y += x * table[usize::from(b)];
                }
            }
        }
    }

    /// w · v, each of `w` widened as it is read, summed in eight lanes (as a vectorised f32 dot
    /// product sums).
    pub fn dot(self, w: &[u16], v: &[f32]) -> f32 {
        let mut lanes = [0f32; 8];
        let (w8, v8) = (w.chunks_exact(8), v.chunks_exact(8));
        let tail: f32 = w8
            .remainder()
            .iter()
            .zip(v8.remainder())
            .map(|(&b, &v)| self.to_f32(b) * v)
            .sum();
        match self {
            Self::Bf16 => {
                for (w, v) in w8.zip(v8) {
                    for k in 0..8 {
                        lanes[k] += f32::from_bits(u32::from(w[k]) << 16) * v[k];
                    }
                }
            }
            Self::F16 => {
                let table = f16_table();
                for (w, v) in w8.zip(v8) {
                    for k in 0..8 {
                        lanes[k] += table[usize::from(w[k])] * v[k];
                    }
                }
            }
        }
        lanes.iter().sum::<f32>() + tail
    }

    /// What the file's header calls it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bf16 => "bf16",
            Self::F16 => "f16",
        }
    }
}

/// Every f16 as f32 (256 KiB, made once): a lookup is faster than decoding the bits.
fn f16_table() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| (0..=u16::MAX).map(f16_to_f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_f16_table_is_the_exact_decoding_and_finiteness_is_read_from_the_bits() {
        for bits in 0..=u16::MAX {
            let (a, b) = (Half::F16.to_f32(bits), f16_to_f32(bits));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{bits:#x}"
            );
            assert_eq!(Half::F16.is_finite(bits), b.is_finite(), "{bits:#x}");
            let mut widened = [0f32; 2];
            Half::F16.widen(&[bits, bits], &mut widened);
            assert!(
                widened[1].to_bits() == b.to_bits() || b.is_nan(),
                "{bits:#x}"
            );
            let bf = bf16_to_f32(bits);
            assert_eq!(Half::Bf16.is_finite(bits), bf.is_finite(), "{bits:#x}");
            Half::Bf16.widen(&[bits], &mut widened);
            assert_eq!(widened[0].to_bits(), bf.to_bits(), "{bits:#x}");
        }
    }
}

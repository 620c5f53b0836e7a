//! The flash chapter: what the tiles save.

use crate::pipeline::trace::Trace;

#[derive(Debug, Clone, PartialEq)]
pub struct FlashExperiment {
    pub n: usize,
    pub keys: usize,
    pub block_rows: usize,
    pub block_cols: usize,
    /// Tiles in the grid, and those the mask lets FlashAttention skip entirely.
    pub tiles: usize,
    pub skipped_tiles: usize,
    pub standard_cells: usize,
    pub tile_cells: usize,
    pub max_abs_diff: f32,
}

pub(super) fn run(trace: &Trace) -> FlashExperiment {
    let (n, m) = (trace.config.seq_len(), trace.config.key_len());
    let (rows, cols) = trace.config.block();
    let (tile_rows, tile_cols) = (n.div_ceil(rows), m.div_ceil(cols));
    let mask = trace.config.mask();
    let skipped = (0..tile_rows)
        .flat_map(|a| (0..tile_cols).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            mask.hides_tile(
                a * rows..((a + 1) * rows).min(n),
                b * cols..((b + 1) * cols).min(m),
            )
        })
        .count();
    FlashExperiment {
        n,
        keys: m,
        block_rows: rows,
        block_cols: cols,
        tiles: tile_rows * tile_cols,
        skipped_tiles: skipped,
        standard_cells: n * m,
        tile_cells: rows * cols,
        max_abs_diff: trace.flash.max_abs_diff,
    }
}

#[cfg(test)]
mod tests {

    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn complexity_and_flash_count_cells_tiles_and_bytes() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            block_rows: Some(2),
            block_cols: Some(2),
            ..Params::sentence("a b c d e f")
        });
        let Experiment::Complexity(c) = experiment(Chapter::Complexity, &t, &Focus::default())
        else {
            panic!()
        };
        assert_eq!(
            (c.standard_bytes, c.flash_bytes, c.recurrent_path),
            (144, 16, 5)
        );
        let Experiment::Flash(f) = experiment(Chapter::Flash, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!((f.tiles, f.skipped_tiles), (9, 3));
        assert!(f.max_abs_diff < 1e-5);
    }
}

//! The circuit view of a trained model: layers as columns, heads as nodes, an arrow from each
//! earlier head to each later head that reads what it writes more strongly than random weights
//! would (Q-, K- and V-composition from the core's [`composition`]), as thick as it is strong,
//! the strongest named; and a chosen head's composition measured on the sentence (the core's
//! [`sentence_shares`]). Pure: tested natively.
//!
//! [`composition`]: attention_core::circuits::composition::composition
//! [`sentence_shares`]: attention_core::circuits::composition::sentence_shares

use attention_core::circuits::composition::{Composition, SentenceShares};

use super::why::writer;
use crate::ui::i18n::Lang;

/// How a later head reads an earlier head's output: with its queries, its keys or its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Q,
    K,
    V,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Q, Kind::K, Kind::V];

    /// Its name in classes and test ids.
    pub fn id(self) -> &'static str {
        match self {
            Self::Q => "q",
            Self::K => "k",
            Self::V => "v",
        }
    }

    pub fn letter(self) -> &'static str {
        match self {
            Self::Q => "Q",
            Self::K => "K",
            Self::V => "V",
        }
    }

    /// Its place in [`Kind::ALL`].
    pub fn index(self) -> usize {
        match self {
            Self::Q => 0,
            Self::K => 1,
            Self::V => 2,
        }
    }

    fn scores(self, c: &Composition) -> &Vec<Vec<Option<f64>>> {
        match self {
            Self::Q => &c.q,
            Self::K => &c.k,
            Self::V => &c.v,
        }
    }
}

/// A head's place in the drawing (the view box's units).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// From 0.
    pub layer: usize,
    pub head: usize,
    pub x: f64,
    pub y: f64,
}

/// One arrow: head `from` composes into head `to` (indices into the nodes) by `kind`.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub kind: Kind,
    pub score: f64,
    /// (score − baseline) / (strongest − baseline), in (0, 1]: its width and opacity.
    pub strength: f64,
    /// The SVG path, a quadratic curve.
    pub path: String,
    /// Where its label goes: its middle, or past the layer it skips.
    pub middle: (f64, f64),
}

impl Arrow {
    pub fn width(&self) -> f64 {
        0.8 + 5.2 * self.strength
    }

    /// Faint when barely above random, so that the strong pairs stand out of the many weak ones.
    pub fn opacity(&self) -> f64 {
        0.15 + 0.85 * self.strength * self.strength
    }

    /// Whether it starts or ends at node `node`.
    pub fn touches(&self, node: usize) -> bool {
        self.from == node || self.to == node
    }
}

/// The strongest pair of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Strongest {
    pub kind: Kind,
    pub from: usize,
    pub to: usize,
    pub score: f64,
}

/// The whole drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct CircuitLayout {
    /// The view box's size.
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<Node>,
    /// Heads to a layer: node `layer · per_layer + head` is that head.
    pub per_layer: usize,
    /// Only the pairs above the baseline, weakest first (so the strongest are drawn on top).
    pub arrows: Vec<Arrow>,
    pub baseline: f64,
    /// The strongest pair of each kind, Q, K, V.
    pub strongest: Vec<Strongest>,
}

/// The distance between two layers' columns and two heads' rows, and the margins.
const COLUMN: f64 = 220.0;
const ROW: f64 = 64.0;
const MARGIN_X: f64 = 60.0;
const MARGIN_Y: f64 = 36.0;
/// Half a node's width: arrows start and end at its edge.
const HALF: f64 = 34.0;

impl CircuitLayout {
    /// The drawing of `composition`'s heads, `per_layer` heads to a layer.
    pub fn of(composition: &Composition, per_layer: usize) -> Self {
        let per_layer = per_layer.max(1);
        let n = composition.heads.len();
        let layers = n.div_ceil(per_layer);
        let nodes: Vec<Node> = (0..n)
            .map(|i| {
                let (layer, head) = (i / per_layer, i % per_layer);
                Node {
                    layer,
                    head,
                    x: MARGIN_X + COLUMN * layer as f64,
                    y: MARGIN_Y + ROW * head as f64,
                }
            })
            .collect();
        let baseline = composition.baseline;
        let pairs = || {
            Kind::ALL.into_iter().flat_map(move |kind| {
                kind.scores(composition)
                    .iter()
                    .enumerate()
                    .flat_map(move |(a, row)| {
                        row.iter()
                            .enumerate()
                            .filter_map(move |(b, s)| s.map(|s| (kind, a, b, s)))
                    })
            })
        };
        let top = pairs().fold(baseline, |m, (_, _, _, s)| m.max(s));
        let range = (top - baseline).max(1e-12);
        let mut arrows: Vec<Arrow> = pairs()
            .filter(|&(_, a, b, s)| s > baseline && a < n && b < n)
            .map(|(kind, a, b, score)| {
                let (path, middle) = curve(&nodes[a], &nodes[b], kind);
                Arrow {
                    from: a,
                    to: b,
                    kind,
                    score,
                    strength: ((score - baseline) / range).clamp(0.0, 1.0),
                    path,
                    middle,
                }
            })
            .collect();
        arrows.sort_by(|x, y| x.score.total_cmp(&y.score));
        let strongest = Kind::ALL
            .into_iter()
            .filter_map(|kind| {
                pairs()
                    .filter(|p| p.0 == kind)
                    .max_by(|x, y| x.3.total_cmp(&y.3))
                    .map(|(kind, from, to, score)| Strongest {
                        kind,
                        from,
                        to,
                        score,
                    })
            })
            .collect();
        Self {
            width: 2.0 * MARGIN_X + COLUMN * layers.saturating_sub(1) as f64,
            height: 2.0 * MARGIN_Y + ROW * (per_layer - 1) as f64,
            nodes,
            per_layer,
            arrows,
            baseline,
            strongest,
        }
    }
}

/// From `a`'s right edge to `b`'s left edge, bowed: Q above, V below, K between, and an arrow
/// that skips a layer bowed further so it passes around the layer between.
fn curve(a: &Node, b: &Node, kind: Kind) -> (String, (f64, f64)) {
    let (x0, y0) = (a.x + HALF, a.y);
    let (x1, y1) = (b.x - HALF - 6.0, b.y);
    let span = b.layer.saturating_sub(a.layer).max(1) as f64;
    let bow = (kind.index() as f64 - 1.0) * 10.0 - (span - 1.0) * 26.0;
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0 + bow * 2.0);
    // A point of the quadratic curve: (1−t)²P0 + 2t(1−t)C + t²P1; its middle for a neighbour,
    // past the skipped layer's column otherwise (its heads would hide the label).
    let t = if span > 1.0 { 0.75 } else { 0.5 };
    let at = |p0: f64, c: f64, p1: f64| {
        (1.0 - t) * (1.0 - t) * p0 + 2.0 * t * (1.0 - t) * c + t * t * p1
    };
    let middle = (at(x0, cx, x1), at(y0, cy, y1));
    (
        format!("M{x0:.1},{y0:.1} Q{cx:.1},{cy:.1} {x1:.1},{y1:.1}"),
        middle,
    )
}

/// A strongest pair's label box in the view box's units ("Q 0.218" at the phone's 18 px type).
pub const LABEL_BOX: (f64, f64) = (80.0, 20.0);

/// Where each label goes (its text's middle and baseline, in order): at its arrow's middle, or
/// moved down past the labels placed before it that it would cover (two strongest pairs of a
/// two-layer model often cross at the same point).
pub fn spread_labels(at: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let (width, height) = LABEL_BOX;
    let mut placed: Vec<(f64, f64)> = Vec::with_capacity(at.len());
    for &(x, mut y) in at {
        while let Some(&(_, other)) = placed
            .iter()
            .find(|(px, py)| (px - x).abs() < width && (py - y).abs() < height)
        {
            y = other + height;
        }
        placed.push((x, y));
    }
    placed
}

/// A head of the composition, `"L{l}.H{h}"`, as the page says it.
pub fn head_name(composition: &Composition, at: usize, lang: Lang) -> String {
    composition
        .heads
        .get(at)
        .map_or_else(String::new, |n| writer(n, lang))
}

/// "K: L1·H2 → L2·H4, 0.153 (1.7× random)" for each kind's strongest pair.
pub fn strongest_lines(
    composition: &Composition,
    layout: &CircuitLayout,
    lang: Lang,
) -> Vec<String> {
    let t = lang.text().circuits;
    layout
        .strongest
        .iter()
        .map(|s| {
            (t.strongest)(
                s.kind.letter(),
                &head_name(composition, s.from, lang),
                &head_name(composition, s.to, lang),
                &format!("{:.3}", s.score),
                &format!("{:.1}", s.score / layout.baseline.max(1e-12)),
            )
        })
        .collect()
}

/// One row of the table: an earlier head, a later head and their three scores.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    pub from: String,
    pub to: String,
    pub scores: [f64; 3],
}

/// Every (earlier, later) pair, strongest first (by its largest score).
pub fn pair_rows(composition: &Composition, lang: Lang) -> Vec<PairRow> {
    let n = composition.heads.len();
    let mut rows: Vec<PairRow> = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter_map(|(a, b)| {
            let at = |m: &Vec<Vec<Option<f64>>>| m.get(a).and_then(|r| r.get(b)).copied().flatten();
            Some(PairRow {
                from: head_name(composition, a, lang),
                to: head_name(composition, b, lang),
                scores: [
                    at(&composition.q)?,
                    at(&composition.k)?,
                    at(&composition.v)?,
                ],
            })
        })
        .collect();
    let largest = |r: &PairRow| r.scores.iter().fold(0.0f64, |m, &s| m.max(s));
    rows.sort_by(|x, y| largest(y).total_cmp(&largest(x)));
    rows
}

/// A chosen head on the sentence: each writer's share of its query side and of its key side
/// (largest first), and what that says in a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenHead {
    pub title: String,
    pub summary: String,
    pub query: Vec<(String, f64)>,
    pub key: Vec<(String, f64)>,
}

/// What the page says of head `at` (in page order) on the sentence, from `shares`.
pub fn chosen_head(
    composition: &Composition,
    at: usize,
    shares: &SentenceShares,
    lang: Lang,
) -> ChosenHead {
    let t = lang.text().circuits;
    let name = head_name(composition, at, lang);
    let sorted = |values: &[f64]| {
        let mut bars: Vec<(String, f64)> = shares
            .names
            .iter()
            .zip(values)
            .map(|(n, &v)| (writer(n, lang), v))
            .collect();
        bars.sort_by(|x, y| y.1.total_cmp(&x.1));
        bars
    };
    // The earlier head that wrote most of one side, with its share.
    let heads: Vec<usize> = (0..shares.names.len())
        .filter(|&c| composition.heads.contains(&shares.names[c]))
        .collect();
    let most = |values: &[f64]| {
        heads
            .iter()
            .copied()
            .max_by(|&x, &y| values[x].total_cmp(&values[y]))
            .map(|c| (writer(&shares.names[c], lang), percent(values[c])))
    };
    let key_top = shares
        .key
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.total_cmp(y.1))
        .map(|(c, &v)| (writer(&shares.names[c], lang), percent(v)))
        .unwrap_or_default();
    let summary = match (most(&shares.key), most(&shares.query)) {
        (Some((key_head, key_share)), Some((query_head, query_share))) => {
            let weights = composition
                .heads
                .iter()
                .position(|h| writer(h, lang) == key_head)
                .and_then(|a| composition.k.get(a)?.get(at).copied().flatten())
                .map_or_else(String::new, |k| format!("{k:.3}"));
            (t.chosen_summary)(&crate::ui::i18n::circuits::Chosen {
                head: &name,
                key_top: &key_top.0,
                key_top_share: &key_top.1,
                key_head: &key_head,
                key_share: &key_share,
                query_head: &query_head,
                query_share: &query_share,
                k: &weights,
                baseline: &format!("{:.3}", composition.baseline),
            })
        }
        _ => (t.first_layer)(&name),
    };
    ChosenHead {
        title: (t.chosen_title)(&name),
        summary,
        query: sorted(&shares.query),
        key: sorted(&shares.key),
    }
}

/// A share as a percentage, one decimal.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

//! The components: what the user sees. They read the [`crate::ui::state::Lab`] (or, for generic
//! pieces like the heatmap, only the props they show) and never compute attention.

pub mod app;
pub mod chart;
pub mod controls;
pub mod embed_layout;
pub mod flash;
pub mod generate;
pub mod head_view;
pub mod heatmap;
pub mod imported;
pub mod input_panel;
pub mod learn;
pub mod live_region;
pub mod mask_editor;
pub mod model_views;
pub mod pipeline;
pub mod shaping;
pub mod share_bar;
pub mod stream;
pub mod tooltip;

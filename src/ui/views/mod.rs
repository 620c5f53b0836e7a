//! The components: what the user sees. They read the [`crate::ui::state::Lab`] (or, for generic
//! pieces like the heatmap, only the props they show) and never compute attention.

pub mod app;
pub mod chart;
pub mod circuit_graph;
pub mod circuit_views;
pub mod controls;
pub mod embed_layout;
pub mod flash;
pub mod generate;
pub mod head_view;
pub mod heads;
pub mod heatmap;
pub mod import_opener;
pub mod imported;
pub mod imported_overview;
pub mod imported_roles;
pub mod input_panel;
pub mod learn;
pub mod linear;
pub mod link_notices;
pub mod live_region;
pub mod mask_editor;
pub mod model_views;
pub mod pipeline;
pub mod section;
pub mod shaping;
pub mod share_bar;
pub mod share_warnings;
pub mod stage_card;
pub mod stream;
pub mod stream_twins;
pub mod tooltip;
pub mod why;

//! What every heatmap needs from the page around it, and the lab's: the language, the theme and
//! whether exported images carry a title line.

use leptos::prelude::*;

use crate::ui::i18n::Lang;
use crate::ui::logic::theme::Theme;
use crate::ui::state::Lab;

/// What every heatmap needs from the page around it: the language of its tools and legend, the
/// theme (its labels take the theme's ink, so a new theme redraws them), and whether exported
/// images carry a title line.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub lang: Signal<Lang>,
    pub theme: Signal<Theme>,
    pub titles: Signal<bool>,
}

impl Look {
    /// The language, theme and export settings every heatmap of the lab follows.
    pub fn of(lab: Lab) -> Self {
        Self {
            lang: lab.lang.into(),
            theme: Signal::derive(move || lab.scheme()),
            titles: lab.export_titles.into(),
        }
    }
}

//! What a shared link or embed code leaves behind or risks, said under the share buttons once
//! something was copied.

use leptos::prelude::*;

use crate::ui::logic::link::share_warnings;
use crate::ui::state::Lab;

/// What a link does with the open file: names its address when it came from one, else nothing.
pub fn link_note(lab: Lab) -> &'static str {
    let texts = lab.lang.get().import();
    if lab.imported_src.with(Option::is_some) {
        texts.link_note_src
    } else {
        texts.link_note
    }
}

/// What a shared link or embed code (`shared`, once copied) leaves behind or risks: one's own
/// tensors, which no link carries, and a length some servers refuse.
#[component]
pub fn ShareWarnings(shared: Signal<Option<String>>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        shared.get().map(|text| {
            // One's own file: the link opens the lab's own numbers, and says so.
            let file = lab.is_imported().then(|| {
                view! {
                    <p class="note share-warning" data-testid="share-warning-imported">
                        {move || link_note(lab)}
                    </p>
                }
            });
            let warnings = lab
                .request
                .with(|r| share_warnings(r, &text))
                .into_iter()
                .map(|warning| {
                    view! {
                        <p class="note share-warning" data-testid="share-warning">
                            {move || warning.describe(lab.lang.get())}
                        </p>
                    }
                })
                .collect_view();
            (file, warnings)
        })
    }
}

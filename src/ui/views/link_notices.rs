//! What a link could not use, shown above the lab (whole, or embedded) until dismissed.

use leptos::prelude::*;

use crate::ui::state::Lab;

/// What a link could not use, in the reader's language, until dismissed.
#[component]
pub fn LinkNotices() -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <Show when=move || lab.link_notices.with(|n| !n.is_empty())>
            <div class="link-notices" role="status" data-testid="link-notices">
                <ul>
                    {move || {
                        let lang = lab.lang.get();
                        lab.link_notices
                            .get()
                            .iter()
                            .map(|notice| view! { <li>{notice.describe(lang)}</li> })
                            .collect_view()
                    }}
                </ul>
                <button type="button" class="button" data-testid="link-notices-dismiss"
                    on:click=move |_| lab.link_notices.set(Vec::new())>
                    {move || lab.lang.get().text().dismiss}
                </button>
            </div>
        </Show>
    }
}

//! A heatmap's numbers as an HTML table, for screen readers and anyone who wants the digits.

use leptos::prelude::*;

use crate::ui::i18n::Lang;
use crate::ui::logic::format::Notation;
use crate::ui::logic::matrix::MatrixView;

#[component]
pub fn MatrixTable(
    #[prop(into)] data: Signal<Option<MatrixView>>,
    #[prop(into)] label: Signal<String>,
    #[prop(into)] lang: Signal<Lang>,
    test_id: String,
) -> impl IntoView {
    move || {
        let data = data.get()?;
        let text = lang.get().text();
        // One notation for the whole table: a column never mixes 0.001 with 1.00e-3.
        let notation = Notation::for_values(data.values.iter());
        Some(view! {
            <div class="matrix-table-frame">
                <table class="matrix-table" data-testid=test_id.clone()>
                    <caption class="visually-hidden">{label.get()}</caption>
                    <thead>
                        <tr>
                            <th scope="col">
                                <span class="visually-hidden">{text.rows_and_columns}</span>
                            </th>
                            {data.col_labels.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {data
                            .values
                            .outer_iter()
                            .zip(&data.row_labels)
                            .map(|(row, label)| {
                                view! {
                                    <tr>
                                        <th scope="row">{label.clone()}</th>
                                        {row.iter().map(|&v| view! { <td>{notation.show(v)}</td> }).collect_view()}
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        })
    }
}

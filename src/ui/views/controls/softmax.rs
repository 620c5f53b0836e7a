//! The softmax temperature: a log-scale slider from 0.05 to 10, and an exact field.

use leptos::prelude::*;

use super::widgets::parse;
use crate::ui::logic::controls::{
    slider_to_temperature, temperature_slider_max, temperature_to_slider,
};
use crate::ui::state::Lab;
use attention_core::api::Request;

#[component]
pub fn Softmax() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let temperature = move || lab.request.with(|r| r.temperature).unwrap_or(1.0);
    let set_temperature = move |t: f64| {
        lab.change(Request {
            temperature: Some(t),
            ..Request::default()
        })
    };
    view! {
        <h2>{move || text().softmax_section}</h2>
        <div class="control">
            <label class="control-label" for="temperature">
                {move || text().temperature}
                <span class="help">{move || text().temperature_help}</span>
            </label>
            <div class="control-row">
                <input
                    type="range"
                    data-testid="temperature-slider"
                    aria-label=move || text().temperature
                    min="0"
                    max=temperature_slider_max().to_string()
                    step="1"
                    prop:value=move || temperature_to_slider(temperature()).to_string()
                    on:input=move |ev| {
                        if let Some(position) = parse::<f64>(&event_target_value(&ev)) {
                            set_temperature(slider_to_temperature(position));
                        }
                    }
                />
                <input
                    type="number"
                    id="temperature"
                    data-testid="temperature"
                    step="any"
                    prop:value=move || temperature().to_string()
                    on:change=move |ev| {
                        if let Some(t) = parse::<f64>(&event_target_value(&ev)) {
                            set_temperature(t);
                        }
                    }
                />
            </div>
        </div>
    }
}

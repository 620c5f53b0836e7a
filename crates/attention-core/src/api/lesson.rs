//! A lesson's experiment as JSON: `{"lesson": "scaling", "experiment": {...}}`, with the cost
//! measurement when the caller timed one (the CLI does; the page draws its own).

use serde_json::{Value, json};

use crate::lessons::{Chapter, CostMeasurement, Experiment};

pub fn lesson_json(
    chapter: Chapter,
    experiment: &Experiment,
    cost: Option<&CostMeasurement>,
) -> Result<String, serde_json::Error> {
    let mut out = json!({
        "lesson": chapter.id(),
        "experiment": experiment,
    });
    if let (Some(cost), Value::Object(map)) = (cost, &mut out) {
        map.insert("measured".into(), serde_json::to_value(cost)?);
    }
    serde_json::to_string(&out)
}
